"""Corpus `lived-in`: a machine used for months by five developers and a LiteLLM proxy, ~330 MB of real agents'
records repeated with fresh ids, their tool output filled with real files (eval/README.md, "lived-in").

    python eval/build_lived_in.py [--truth-only] [--scale F]

The truth (`truth.toml` beside the tree and eval/truth/lived-in.toml) is written from what this script
plants, then checked against the written files (each served model id is in its session's file): never from
modelcensus output. Deterministic: one seed; only `llm`'s logs.db carries the build's own clock (the package
stamps its rows).
"""

from __future__ import annotations

import argparse
import json
import random
import sys
from pathlib import Path
from typing import Any

import common as c
import lived_claude
import lived_codex
import lived_more
import lived_others
import lived_stores
from lived_base import SAMPLES, Ctx, Spec
from lived_filler import Filler
from lived_ids import Ids
from lived_wiring import configs

NAME = "lived-in"
SEED = 20261101
BASE = c.CACHE / NAME
PARTS = BASE / "parts"
SITE_PINS = ["litellm==1.110.2", "openai==3.57.0", "anthropic==2.15.0", "google-genai==3.6.1"]
VENV_PINS = ["llm==0.36", "openai-agents==0.24.0"]
DAY = 86400.0
T0 = 1787000000.0  # 2026-08-17: the first session; the machine's clock reads December 2026
USERS = {"alice": 1000, "bob": 1001, "carol": 1002, "dave": 1003, "erin": 1004}
MB = 1 << 20


def parts() -> tuple[Path, Path]:
    site, venv = PARTS / "site", PARTS / "venv"
    if not (PARTS / ".site.done").exists():
        c.pip_target(site, ["--no-deps", *SITE_PINS])
        (PARTS / ".site.done").write_text("ok\n")
    if not (PARTS / ".venv.done").exists():
        c.venv_install(venv, VENV_PINS, compile_pyc=False)
        (PARTS / ".venv.done").write_text("ok\n")
    return site, venv / "bin" / "python"


def plan(rng: random.Random, scale: float) -> list[tuple[str, Spec]]:
    """Every session to write: (writer, spec). Sizes sum to ~330 MB at scale 1."""
    out: list[tuple[str, Spec]] = []

    def add(kind: str, user: str, model: str, route: str, n: int, mb: float, reasoning: str, **extra: Any) -> None:
        for i in range(n):
            start = T0 + rng.uniform(0, 100) * DAY
            size = int(rng.uniform(0.4, 1.6) * mb * MB * scale)
            r = reasoning if reasoning != "some" else ("visible" if i % 3 == 0 else "encrypted")
            out.append((kind, Spec(user, model, route, start, size, r, dict(extra))))

    # Claude Code: alice direct, bob on Bedrock, erin on Vertex (2.1.233 keeps thinking as signature only;
    # every third session is of the 2.0 line, which kept the text).
    add("claude", "alice", "claude-sonnet-4-5-20250929", "direct", 22, 2.6, "some")
    add("claude", "alice", "claude-opus-4-5-20251101", "direct", 8, 2.6, "encrypted", subagent=True)
    add("claude", "alice", "claude-opus-4-1-20250805", "direct", 4, 2.0, "visible", version="2.0.14")
    add("claude", "bob", "claude-sonnet-4-5-20250929", "bedrock", 12, 2.4, "some")
    add("claude", "bob", "claude-3-7-sonnet-20250219", "bedrock", 4, 1.5, "encrypted")
    add("claude", "erin", "claude-opus-4-5-20251101", "vertex", 8, 2.2, "encrypted")
    add("claude", "alice", "claude-sonnet-4-5-20250929", "direct", 1, 1.0, "encrypted", many_vendors=True)
    # Codex: alice direct (interactive: summaries), dave on Azure OpenAI (`codex exec`: none).
    add("codex", "alice", "gpt-5.1-codex", "direct", 16, 2.4, "visible")
    add("codex", "alice", "gpt-5-codex", "direct", 8, 2.0, "visible")
    add("codex", "dave", "gpt-5.1", "azure", 12, 2.2, "encrypted")
    add("codex", "alice", "gpt-5.1-codex", "direct", 1, 0.6, "visible", npm=True)
    add("gemini", "bob", "gemini-2.5-pro", "direct", 8, 1.4, "visible")
    add("gemini", "bob", "gemini-2.5-flash", "direct", 4, 0.8, "absent")
    add("kimi", "dave", "kimi-for-coding", "direct", 8, 1.6, "visible")
    add("cline", "carol", "google/gemini-2.5-flash-preview", "openrouter", 6, 1.2, "visible",
        provider="openrouter", vendor="google")
    add("cline", "bob", "anthropic.claude-3-7-sonnet-20250219-v1:0", "bedrock", 4, 1.0, "visible",
        provider="bedrock", vendor="anthropic")
    add("openhands", "dave", "us.anthropic.claude-sonnet-4-20250514-v1:0", "bedrock", 6, 1.2, "absent")
    add("openhands", "dave", "us.anthropic.claude-sonnet-4-20250514-v1:0", "bedrock", 1, 0.3, "absent",
        file_store=True, label="litellm_proxy/NovaPro1")
    add("mini_swe", "carol", "google/gemini-3-pro-preview", "openrouter", 6, 1.0, "visible")
    add("aider", "carol", "openrouter/anthropic/claude-sonnet-4.5", "openrouter", 3, 1.2, "absent",
        weak="openrouter/anthropic/claude-haiku-4.5", vendor="anthropic")
    return out


def write_sessions(ctx: Ctx, venv_python: Path, scale: float) -> list[dict[str, Any]]:
    cline_dir = SAMPLES / "sessions-more/cline-task-openrouter"
    cline = {"history": json.loads((cline_dir / "1747415182436.api_conversation_history.json").read_text())}
    openhands = json.loads((SAMPLES / "sessions-more/openhands/basic.json").read_text())
    mini = json.loads((SAMPLES / "sessions-more/mini-swe-agent-openrouter/django__django-16255.traj.json").read_text())
    aider_head = (SAMPLES / "aider/aider.chat.history.head.md").read_text()
    writers = {
        "claude": lived_claude.write, "codex": lived_codex.write, "gemini": lived_others.gemini,
        "kimi": lived_others.kimi, "cline": lambda x, s: lived_others.cline(x, s, cline),
        "openhands": lambda x, s: lived_more.openhands(x, s, openhands),
        "mini_swe": lambda x, s: lived_more.mini_swe(x, s, mini),
        "aider": lambda x, s: lived_more.aider(x, s, aider_head),
    }
    rows: list[dict[str, Any]] = []
    for i, (kind, spec) in enumerate(plan(ctx.rng, scale)):
        spec.extra.setdefault("repo", f"site{i}")
        rows += writers[kind](ctx.part(f"{kind}:{i}"), spec)
    routes = [("ClaudeSonnet4", "us.anthropic.claude-sonnet-4-20250514-v1:0", "anthropic"),
              ("ClaudeOpus4.1", "us.anthropic.claude-opus-4-1-20250805-v1:0", "anthropic"),
              ("NovaPro1", "amazon.nova-pro-v1:0", "aws")]
    for d in range(12):
        rows += lived_more.litellm_logs(ctx.part(f"litellm:{d}"), T0 + d * 7 * DAY, int(3.5 * MB * scale), routes,
                                        f"spend-logs-{d:02d}.jsonl")
    rows += lived_stores.llm_logs(ctx.part("llm_logs"), venv_python, "erin", "gpt-4.1-mini", T0 + 30 * DAY, 24)
    rows += lived_stores.agents_store(ctx.part("agents_store"), venv_python, "erin", T0 + 40 * DAY, 6)
    rows += lived_stores.har(ctx.part("har"), "erin", T0 + 50 * DAY, 12)
    rows += lived_stores.fixtures(ctx.part("fixtures"), "alice")
    return rows


def check(root: Path, sessions: list[dict[str, Any]]) -> None:
    """Inspection of the written files: each session exists and holds each model id its truth says served it."""
    for s in sessions:
        for p in s.get("paths", [s["path"]]):
            if not (root / p.lstrip("/")).exists():
                raise SystemExit(f"eval: planted session {p} is missing")
        target = root / s["path"].lstrip("/")
        if target.suffix == ".db":
            continue
        data = target.read_bytes()
        for m in s["labels"]:
            if m.encode() not in data and s["agent"] not in ("openhands", "cline"):
                raise SystemExit(f"eval: {s['path']} does not hold its label {m}")


def build(truth_only: bool, scale: float) -> Path:
    root = BASE / "root"
    site, venv_python = parts()
    if not truth_only:
        c.reset(root)
        root.mkdir(parents=True)
    ctx = Ctx(root, Ids(SEED), Filler(site, Path("/usr/share/doc"), SEED), random.Random(SEED), SEED)
    c.system_files(root, USERS, "agents-dev")
    wired, acceptable = configs(root)
    sessions = write_sessions(ctx, venv_python, scale) if not truth_only else \
        json.loads((BASE / "sessions.json").read_text())
    (BASE / "sessions.json").write_text(json.dumps(sessions))
    check(root, sessions)
    served: dict[tuple[str, str], dict[str, Any]] = {}
    for s in sessions:
        if s["context"] == "test":
            continue
        for m in s["models"]:
            vendor = s.get("model_vendor", {}).get(m, s["vendors"][0])
            served.setdefault((m, s["served_via"][0]), {"id": m, "vendor": vendor, "route": s["served_via"][0],
                                                        "user": s["user"], "product": s["agent"], "path": s["path"]})
    data = {"corpus": NAME, "built_from": "eval/build_lived_in.py", "seed": SEED,
            "wired": wired + [dict(canonical_of(v), source="session") for v in served.values()],
            "acceptable": {"wired": sorted(acceptable)}, "sessions": sessions,
            "metadata_files": sorted({p for s in sessions for p in s.get("metadata", [])}
                                     | set(lived_claude.subagent_meta_paths(root)))}
    header = ("Truth of corpus lived-in, written by eval/build_lived_in.py from what it plants (checked against the\n"
              "written files), never from modelcensus output. `wired`: the models a config selects (source =\n"
              "config) and the models that served a session (source = session). Regenerate: make eval.")
    c.write_truth(NAME, data, header, [])
    size = sum(f.stat().st_size for f in root.rglob("*") if f.is_file())
    print(f"eval: {NAME} built at {root}: {size / MB:.0f} MB, {len(sessions)} sessions; "
          f"truth at eval/truth/{NAME}.toml")
    return root


def canonical_of(w: dict[str, Any]) -> dict[str, Any]:
    """The base id a served model means: route prefixes and Bedrock decorations off, as its vendor names it."""
    m = w["id"]
    base = m.rsplit("/", 1)[-1]
    for prefix in ("us.", "eu.", "global."):
        base = base.removeprefix(prefix)
    base = base.removeprefix("anthropic.").removeprefix("amazon.")
    if base.endswith(("-v1:0", "-v2:0")):
        base = base[:-5]
    return {**w, "canonical": base}


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--truth-only", action="store_true", help="rewrite configs and truth from the last build")
    ap.add_argument("--scale", type=float, default=1.0, help="session sizes times F (a smaller corpus for tries)")
    a = ap.parse_args()
    build(a.truth_only, a.scale)


if __name__ == "__main__":
    sys.exit(main())

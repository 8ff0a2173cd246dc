"""Leave one layout out: what the generic session reader alone gets on each agent's real records.

    .venv/bin/python eval/leave_one_out_sessions.py [--truth eval/truth/session-samples.toml] [--json OUT]

The samples of eval/truth/session-samples.toml are laid where their agents keep them, in a fresh tree. The tree
is scanned once with every adapter (which adapter read each file is the session's `format`), then once per
product adapter with that adapter taken out of the registry (`scanner.sessions.adapters.ADAPTERS`), through the
library in this process (no product flag). Each agent's sessions are scored both ways: vendor, served_via and
reasoning visibility right, in %.

What is left out is exactly the product-specific part: an agent's adapter in the registry (`claude-code`,
`codex-cli`, `cline`, …). The container readers (`scanner.sessions.formats`: JSON, SQLite rows, recorded HTTP
exchanges in YAML or JSON, plain-text and Markdown transcripts) are never left out: they know formats any tool
writes, not a product, and what they read is interpreted by the generic record reader. A session's `format` names
its container (`transcript`, `vcr-cassette`, `har`, `sqlite-store`) when no agent's adapter read it; such an agent
is listed as read by the generic reader alone.

Reads only `sessions[].path/location/format/providers[].vendor/served_via/reasoning` of the JSON.
"""

from __future__ import annotations

import argparse
import contextlib
import importlib
import json
import shutil
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import tomllib

EVAL = Path(__file__).resolve().parent
REPO = EVAL.parent
DATA = REPO / "tests" / "data" / "sessions"
sys.path.insert(0, str(REPO))
sys.path.insert(0, str(EVAL))

REGISTRY = "scanner.sessions.adapters"


def lay(samples: list[dict[str, Any]], root: Path) -> None:
    for s in samples:
        target = root / s["place"].lstrip("/")
        target.parent.mkdir(parents=True, exist_ok=True)
        if "generated" in s:
            generate(s, root)
            continue
        shutil.copyfile(DATA / s["source"], target)
        for src, name in s.get("extra", []):
            shutil.copyfile(DATA / src, target.parent / name)


def generate(sample: dict[str, Any], root: Path) -> None:
    """A store the agent's own package writes (the lived-in corpus's venv holds it)."""
    import random

    import lived_stores
    from lived_base import Ctx
    from lived_ids import Ids

    venv = REPO / ".eval" / "lived-in" / "parts" / "venv" / "bin" / "python"
    if not venv.exists():
        print(f"leave-one-out: {sample['place']} skipped: build the lived-in corpus first (its venv)")
        return
    ctx = Ctx(root, Ids(7), None, random.Random(7))  # type: ignore[arg-type]  # no tool output needed
    lived_stores.agents_store(ctx, venv, Path(sample["place"]).parts[2], 1787000000.0, 3)


def scan(root: Path, out: Path) -> dict[str, Any]:
    from scanner.cli import app

    with contextlib.suppress(SystemExit):
        app(args=["scan", str(root), "-f", "json", "-o", str(out), "-q", "-j", "1"], standalone_mode=True)
    return json.loads(out.read_text())


def _modules() -> list[Any]:
    return [m for name, m in sorted(sys.modules.items()) if name.startswith("scanner.") and m is not None]


@contextlib.contextmanager
def without(name: str) -> Iterator[str]:
    """The scan as if adapter `name` did not exist: out of the registry in every module that holds it. Yields how
    (`registry`), or `not found` when no registered adapter has that name."""
    registry = getattr(importlib.import_module(REGISTRY), "ADAPTERS", None)
    if not isinstance(registry, tuple | list):
        raise SystemExit(f"leave-one-out: {REGISTRY}.ADAPTERS is no longer the registry; update this script")
    rest = tuple(a for a in registry if getattr(a, "name", None) != name)
    undo: list[tuple[Any, str, Any]] = []
    for mod in _modules():
        for attr, value in list(vars(mod).items()):
            if value is registry:
                undo.append((mod, attr, value))
                setattr(mod, attr, rest)
    try:
        yield "registry" if len(rest) < len(registry) else "not found"
    finally:
        for mod, attr, value in undo:
            setattr(mod, attr, value)


def by_place(inv: dict[str, Any]) -> dict[str, list[dict[str, Any]]]:
    out: dict[str, list[dict[str, Any]]] = {}
    for s in inv.get("sessions", []):
        path = s.get("path") or (s.get("location") or {}).get("path") or ""
        out.setdefault(str(path), []).append(s)
    return out


def judge(sample: dict[str, Any], got: list[dict[str, Any]]) -> tuple[bool, bool, bool]:
    providers = [p for s in got for p in s.get("providers", [])]
    vendors = sorted({str(p.get("vendor")) for p in providers})
    vias = sorted({str(p.get("served_via") or "unstated") for p in providers})
    kinds = {str(s.get("reasoning")) for s in got} - {"absent"}
    reasoning = ("absent" if got else "none") if not kinds else (kinds.pop() if len(kinds) == 1 else "mixed")
    return vendors == sorted(sample["vendors"]), vias == sorted(sample["served_via"]), reasoning == sample["reasoning"]


def pct(rows: list[tuple[bool, bool, bool]], i: int) -> str:
    return f"{100 * sum(r[i] for r in rows) / len(rows):5.0f}%" if rows else "   n/a"


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--truth", type=Path, default=EVAL / "truth" / "session-samples.toml")
    ap.add_argument("--json", type=Path, help="write the table as JSON here")
    a = ap.parse_args()
    samples = tomllib.loads(a.truth.read_text())["samples"]
    work = Path(tempfile.mkdtemp(prefix="loo-sessions-"))
    try:
        root = work / "root"
        lay(samples, root)
        full = by_place(scan(root, work / "all.json"))
        registry = [getattr(x, "name", "?") for x in getattr(importlib.import_module(REGISTRY), "ADAPTERS", ())]
        products = set(registry) - {"generic"}
        readers: dict[str, set[str]] = {}  # the product adapters that read each sample
        containers: dict[str, set[str]] = {}  # the container formats the generic reader read it as
        for s in samples:
            formats = {str(x.get("format")) for x in full.get(s["place"], [])}
            readers[s["place"]] = formats & products
            containers[s["place"]] = formats - products - {"generic"}
        adapters = sorted({f for fs in readers.values() for f in fs})
        left_out: dict[str, dict[str, list[dict[str, Any]]]] = {}
        how: dict[str, str] = {}
        for name in adapters:
            with without(name) as how[name]:
                left_out[name] = by_place(scan(root, work / f"without-{name}.json"))
        table = report(samples, full, readers, containers, left_out, how)
        unused = [n for n in registry if n != "generic" and n not in adapters]
        if unused:
            print(f"\nadapters in the registry that read none of the samples: {', '.join(unused)}")
        if a.json:
            a.json.write_text(json.dumps(table, indent=1))
    finally:
        shutil.rmtree(work, ignore_errors=True)
    return 0


def report(samples: list[dict[str, Any]], full: dict[str, list[dict[str, Any]]], readers: dict[str, set[str]],
           containers: dict[str, set[str]], left_out: dict[str, dict[str, list[dict[str, Any]]]],
           how: dict[str, str]) -> list[dict[str, Any]]:
    agents: dict[str, list[dict[str, Any]]] = {}
    for s in samples:
        agents.setdefault(s["agent"], []).append(s)
    head = f"{'agent':<15} {'adapter (how left out)':<31} {'n':>3} | {'with: vendor':>12} {'via':>6} {'reason':>6} | " \
           f"{'generic alone: vendor':>21} {'via':>6} {'reason':>6}"
    print(head)
    print("-" * len(head))
    table = []
    for agent, group in agents.items():
        names = sorted({n for s in group for n in readers[s["place"]]})
        with_rows = [judge(s, full.get(s["place"], [])) for s in group]
        alone = []
        for s in group:
            got = full.get(s["place"], [])
            for n in readers[s["place"]]:
                got = left_out[n].get(s["place"], [])
            alone.append(judge(s, got))
        read = any(full.get(s["place"]) for s in group)
        kinds = sorted({c for s in group for c in containers[s["place"]]})
        generic = f"(generic: {', '.join(kinds)})" if kinds else "(generic only)"
        label = "+".join(f"{n} ({how[n]})" for n in names) or (generic if read else "(read by nothing)")
        print(f"{agent:<15} {label[:31]:<31} {len(group):>3} | {pct(with_rows, 0):>12} {pct(with_rows, 1):>6} "
              f"{pct(with_rows, 2):>6} | {pct(alone, 0):>21} {pct(alone, 1):>6} {pct(alone, 2):>6}")
        for s, w, g in zip(group, with_rows, alone, strict=True):
            if not all(w) or not all(g):
                got = full.get(s["place"], [])
                for n in readers[s["place"]]:
                    got = left_out[n].get(s["place"], [])
                read_by = ",".join(sorted({str(x.get("format")) for x in got})) or "nothing"
                print(f"    {Path(s['place']).name[:56]}: with {_marks(w)}; alone (read by {read_by}) {_marks(g)}")
        table.append({"agent": agent, "adapters": names, "containers": kinds, "sessions": len(group),
                      "with": [sum(r[i] for r in with_rows) for i in range(3)],
                      "alone": [sum(r[i] for r in alone) for i in range(3)]})
    return table


def _marks(r: tuple[bool, bool, bool]) -> str:
    return " ".join(f"{k}{'+' if ok else '-'}" for k, ok in zip(("vendor", "via", "reasoning"), r, strict=True))


if __name__ == "__main__":
    sys.exit(main())

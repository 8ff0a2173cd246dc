"""Stores other than JSON lines, and logs that are not the machine's own.

- `llm`'s logs.db, written by the `llm` package itself (lived_drivers.py) from prompts that quote the price
  list, answered with the real recorded Chat Completions response of shared/samples/api-openai-chat (fresh ids).
- an OpenAI Agents SDK `SQLiteSession` store written by the package, holding the Responses items of the real
  recorded response of shared/samples/api-openai-responses (fresh `rs_`/`msg_`/`fc_` ids, a Fernet token made
  at the item's time), and the application source that selects the model.
- a HAR capture (browser devtools / mitmproxy export) of Messages API calls: the real recorded response of
  api-anthropic with fresh ids, the request host and Anthropic's response headers.
- a project's `tests/cassettes/` (the real VCR cassettes of pydantic-ai and the OpenTelemetry demo, verbatim)
  and `tests/fixtures/sessions/` (the real Claude Code and Codex samples, verbatim): logs a test suite holds,
  never this machine's sessions.
"""

from __future__ import annotations

import copy
import json
import shutil
import subprocess
import tempfile
from pathlib import Path
from typing import Any

import lived_text as words
from lived_base import SAMPLES, Ctx, iso, shown, truth

HAR_MODEL = "claude-sonnet-4-5-20250929"
CASSETTES = {  # file -> (vendor, route) read in each cassette (its request URI and response body)
    "vcr-cassettes-pydantic-ai/anthropic-tool-output.yaml": ("anthropic", "direct"),
    "vcr-cassettes-pydantic-ai/azure-openai-chat.yaml": ("openai", "azure"),
    "vcr-cassettes-pydantic-ai/bedrock-application-inference-profile-converse.yaml": ("unknown", "bedrock"),
    "vcr-cassettes-pydantic-ai/deepseek-thinking.yaml": ("deepseek", "direct"),
    "vcr-cassettes-pydantic-ai/openai-chat-tool-output.yaml": ("openai", "direct"),
    "vcr-cassettes-pydantic-ai/openai-responses-tool-call.yaml": ("openai", "direct"),
    "vcr-cassettes-pydantic-ai/vertex-gemini-generateContent.yaml": ("google", "vertex"),
    "vcr-cassettes-pydantic-ai/xai-grpc-tool-call.xai.yaml": ("xai", "direct"),
    "vcr-cassettes-otel-demo-agent/azure_gpt-5.5_cassette.yaml": ("openai", "azure"),
    "vcr-cassettes-otel-demo-agent/claude-opus-4-7_cassette.yaml": ("anthropic", "bedrock"),
}
FIXTURES = {"claude-code/session-basic.jsonl": ("claude-code", "anthropic", "direct"),
            "codex-cli/rollout-session-basic.jsonl": ("codex", "openai", "direct")}


def llm_logs(ctx: Ctx, venv_python: Path, user: str, model: str, start: float, n: int) -> list[dict[str, Any]]:
    sample = json.loads((SAMPLES / "api-openai-chat/openai-text.json").read_text())
    exchanges = []
    for i in range(n):
        reply = copy.deepcopy(sample)
        reply.update(id=ctx.ids.chatcmpl(), created=int(start + i * 600), model=f"{model}-2025-04-14",
                     system_fingerprint=ctx.ids.fingerprint())
        reply["choices"][0]["message"]["content"] = words.answer(ctx.rng, 3)
        quoted = ctx.fill.grep_models(12_000) if i % 3 == 0 else ctx.fill.tool_output(user, 2_000, 20_000)[0]
        exchanges.append({"model": model, "prompt": f"{quoted}\n\nWhich of these should we use for summaries?",
                          "response": reply, "new_conversation": i % 4 == 0})
    db = ctx.root / f"home/{user}/.config/io.datasette.llm/logs.db"
    with tempfile.NamedTemporaryFile("w", suffix=".json", delete=False) as fh:
        json.dump({"db": str(db), "exchanges": exchanges}, fh)
    subprocess.run([str(venv_python), str(Path(__file__).with_name("lived_drivers.py")), "llm", fh.name], check=True)
    Path(fh.name).unlink()
    return [truth(shown(ctx.root, db), "llm", user, [("openai", "direct")], [model], "absent",
                  [model, f"{model}-2025-04-14"],
                  note="written by the llm package (turns.response_json); prompts quote the price list")]


def agents_store(ctx: Ctx, venv_python: Path, user: str, start: float, n: int) -> list[dict[str, Any]]:
    sample = json.loads((SAMPLES / "api-openai-responses/openai-reasoning-encrypted-content.1.json").read_text())
    sessions: dict[str, list[dict[str, Any]]] = {}
    when = start
    for _ in range(n):
        items: list[dict[str, Any]] = []
        for _turn in range(ctx.rng.randint(2, 5)):
            when += ctx.rng.uniform(20, 400)
            prefix = ctx.ids.responses_prefix(when)
            items.append({"role": "user", "content": words.prompt(ctx.rng)})
            for item in copy.deepcopy(sample["output"]):
                kind = {"reasoning": "rs", "message": "msg", "function_call": "fc"}.get(item["type"])
                if kind:
                    item["id"] = ctx.ids.responses_id(kind, prefix)
                if item["type"] == "reasoning":
                    item["encrypted_content"] = ctx.ids.fernet(when, 900)
                if item["type"] == "function_call":
                    item["call_id"] = ctx.ids.openai_call()
                items.append(item)
        sessions[f"support-{ctx.ids.hex(8)}"] = items
    db = ctx.root / f"home/{user}/work/assistant/conversations.db"
    with tempfile.NamedTemporaryFile("w", suffix=".json", delete=False) as fh:
        json.dump({"db": str(db), "sessions": sessions}, fh)
    subprocess.run([str(venv_python), str(Path(__file__).with_name("lived_drivers.py")), "agents", fh.name],
                   check=True)
    Path(fh.name).unlink()
    return [truth(shown(ctx.root, db), "openai-agents", user, [("openai", "direct")], [], "visible", [],
                  note=f"{n} SQLiteSession sessions; reasoning items carry a summary and encrypted_content")]


def har(ctx: Ctx, user: str, start: float, n: int) -> list[dict[str, Any]]:
    sample = json.loads((SAMPLES / "api-anthropic/anthropic-json-tool.1.json").read_text())
    entries = []
    for i in range(n):
        when = start + i * 90
        body = copy.deepcopy(sample)
        body["id"] = ctx.ids.anthropic_msg()
        body["model"] = HAR_MODEL
        for block in body.get("content", []):
            if block.get("type") == "tool_use":
                block["id"] = ctx.ids.anthropic_tool()
        request = {"model": body["model"], "max_tokens": 1024,
                   "messages": [{"role": "user", "content": ctx.fill.grep_models(4_000)}]}
        entries.append({
            "startedDateTime": iso(when), "time": 2310.5,
            "request": {"method": "POST", "url": "https://api.anthropic.com/v1/messages", "httpVersion": "HTTP/2",
                        "headers": [{"name": "anthropic-version", "value": "2023-06-01"},
                                    {"name": "content-type", "value": "application/json"}],
                        "postData": {"mimeType": "application/json", "text": json.dumps(request)}},
            "response": {"status": 200, "statusText": "", "httpVersion": "HTTP/2",
                         "headers": [{"name": "request-id", "value": ctx.ids.anthropic_request()},
                                     {"name": "anthropic-organization-id", "value": ctx.ids.uuid4()},
                                     {"name": "content-type", "value": "application/json"}],
                         "content": {"size": 0, "mimeType": "application/json", "text": json.dumps(body)}},
            "cache": {}, "timings": {"send": 0.1, "wait": 2300.0, "receive": 10.4}})
    path = ctx.root / f"home/{user}/captures/claude-debug-{iso(start)[:10]}.har"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps({"log": {"version": "1.2", "creator": {"name": "mitmproxy", "version": "11.0.2"},
                                        "entries": entries}}, indent=1))
    return [truth(shown(ctx.root, path), "har", user, [("anthropic", "direct")], [HAR_MODEL], "absent", [HAR_MODEL])]


def fixtures(ctx: Ctx, user: str) -> list[dict[str, Any]]:
    """A project's test data: cassettes and session logs copied verbatim. Fixtures, not this machine's."""
    rows = []
    base = ctx.root / f"home/{user}/work/app/tests"
    for rel, (vendor, route) in CASSETTES.items():
        dst = base / "cassettes" / Path(rel).name
        dst.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(SAMPLES / "sessions-more" / rel, dst)
        rows.append(truth(shown(ctx.root, dst), "vcr", user, [(vendor, route)], [], "absent", [], context="test"))
    for rel, (agent, vendor, route) in FIXTURES.items():
        dst = base / "fixtures/sessions" / Path(rel).name
        dst.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(SAMPLES / rel, dst)
        rows.append(truth(shown(ctx.root, dst), agent, user, [(vendor, route)], [], "absent", [], context="test"))
    return rows

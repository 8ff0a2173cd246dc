"""Gemini CLI chats, Kimi Code CLI sessions and Cline tasks, repeated from real records with fresh ids.

- Gemini CLI (`~/.gemini/tmp/<sha256(project)>/chats/session-<date>-<8 hex>.jsonl`): the JSONL chat-recording
  layout of shared/samples/sessions-more/agent-sessions-fixtures/gemini-cli.chats.jsonl_v040.jsonl (a header,
  `$set` updates, `user`/`gemini` messages with `model`, `tokens`, `thoughts` and `toolCalls` whose ids the CLI
  mints as `<tool>-<ms>-<hex>`). No provider id: the model field and the config's auth type say who served it.
- Kimi Code CLI (`~/.kimi/sessions/<md5(cwd)>/<uuid>/context.jsonl` + `wire.jsonl` + `state.json`): the record
  shapes kimi-cli's soul/context.py and wire/file.py write (`_system_prompt`, `_checkpoint`, `_usage`, `think`
  parts, `tool_` + 24 base62 call ids as real captures show); the model is only in `~/.kimi/config.toml`.
- Cline (`…/globalStorage/saoudrizwan.claude-dev/tasks/<epoch ms>/`): the real task of
  shared/samples/sessions-more/cline-task-openrouter (XML tool calls, `<thinking>` inline, the model only in
  `task_metadata.json`'s `model_usage`), turn after turn.
"""

from __future__ import annotations

import hashlib
import json
from datetime import datetime, timezone
from typing import Any

import lived_text as words
from lived_base import Ctx, Jsonl, Spec, iso, shown, truth

CLINE_TASKS = ".config/Code/User/globalStorage/saoudrizwan.claude-dev/tasks"


def gemini(ctx: Ctx, spec: Spec) -> list[dict[str, Any]]:
    user, rng, ids = spec.user, ctx.rng, ctx.ids
    project = f"/home/{user}/work/{spec.extra.get('project', 'app')}"
    phash = hashlib.sha256(project.encode()).hexdigest()
    sid = ids.uuid4()
    day = datetime.fromtimestamp(spec.start, timezone.utc)
    path = ctx.root / f"home/{user}/.gemini/tmp/{phash}/chats/session-{day:%Y-%m-%dT%H-%M}-{sid[:8]}.jsonl"
    out = Jsonl(path)
    when = spec.start
    out.write({"sessionId": sid, "projectHash": phash, "startTime": iso(when), "lastUpdated": iso(when),
               "kind": "main"})
    out.write({"id": ids.uuid4(), "timestamp": iso(when), "type": "user", "content": [{"text": words.prompt(rng)}]})
    while out.size < spec.size:
        when += rng.uniform(2, 30)
        text, source = ctx.fill.tool_output(user, 2_000, 60_000)
        name = "read_file" if source.startswith("/") else "run_shell_command"
        call = ids.gemini_cli_tool(name, when)
        thoughts = [{"subject": words.summary_title(rng).strip("*"), "description": words.thinking(rng, 1),
                     "timestamp": iso(when)}] if spec.reasoning == "visible" else []
        args = {"absolute_path": source} if name == "read_file" else {"command": source}
        out.write({"id": ids.uuid4(), "timestamp": iso(when), "type": "gemini", "content": words.answer(rng, 1),
                   "thoughts": thoughts, "tokens": {"input": rng.randint(9000, 90000), "output": rng.randint(20, 900),
                                                    "cached": 0, "thoughts": 0, "tool": 0, "total": 0},
                   "model": spec.model,
                   "toolCalls": [{"id": call, "name": name, "args": args, "result": [{"functionResponse": {
                       "id": call, "name": name, "response": {"output": text}}}], "status": "success",
                       "timestamp": iso(when + 0.3), "displayName": "ReadFile" if name == "read_file" else "Shell",
                       "renderOutputAsMarkdown": name == "read_file"}]})
        out.write({"$set": {"lastUpdated": iso(when + 0.4)}})
    out.close()
    return [truth(shown(ctx.root, path), "gemini-cli", user, [("google", spec.route)], [spec.model], spec.reasoning,
                  [spec.model], sid)]


def kimi(ctx: Ctx, spec: Spec) -> list[dict[str, Any]]:
    user, rng, ids = spec.user, ctx.rng, ctx.ids
    cwd = f"/home/{user}/work/app"
    sid = ids.uuid4()
    folder = ctx.root / f"home/{user}/.kimi/sessions/{hashlib.md5(cwd.encode()).hexdigest()}/{sid}"
    context, wire = Jsonl(folder / "context.jsonl"), Jsonl(folder / "wire.jsonl")
    when = spec.start
    wire.write({"type": "metadata", "protocol_version": "1.9"})
    context.write({"role": "_system_prompt", "content": "You are Kimi Code CLI, an interactive coding agent."})
    first = words.prompt(rng)
    context.write({"role": "user", "content": first})
    context.write({"role": "_checkpoint", "id": 0})
    wire.write({"timestamp": when, "message": {"type": "TurnBegin", "payload": {"user_input": first}}})
    tokens = 9000
    while context.size + wire.size < spec.size:
        when += rng.uniform(2, 20)
        text, source = ctx.fill.tool_output(user, 2_000, 60_000)
        call = ids.kimi_tool()
        name = "ReadFile" if source.startswith("/") else "Shell"
        args = json.dumps({"path": source} if name == "ReadFile" else {"command": source})
        parts: list[dict[str, Any]] = []
        if spec.reasoning == "visible":
            parts.append({"type": "think", "think": words.thinking(rng, 1), "encrypted": None})
        parts.append({"type": "text", "text": words.answer(rng, 1)})
        context.write({"role": "assistant", "content": parts, "tool_calls": [
            {"type": "function", "id": call, "function": {"name": name, "arguments": args}}]})
        context.write({"role": "tool", "content": [{"type": "text", "text": text}], "tool_call_id": call})
        tokens += len(text) // 4
        context.write({"role": "_usage", "token_count": tokens})
        wire.write({"timestamp": when, "message": {"type": "ToolCall", "payload": {
            "type": "function", "id": call, "function": {"name": name, "arguments": args}, "extras": {}}}})
        wire.write({"timestamp": when + 0.5, "message": {"type": "ToolResult", "payload": {
            "tool_call_id": call, "return_value": {"is_error": False, "output": text[:2000], "message": "",
                                                   "display": [], "extras": {}}}}})
        wire.write({"timestamp": when + 0.6, "message": {"type": "StatusUpdate", "payload": {
            "context_usage": min(0.99, tokens / 262144), "context_tokens": tokens, "max_context_tokens": 262144,
            "token_usage": {"input_other": rng.randint(10, 900), "output": rng.randint(10, 900),
                            "input_cache_read": tokens - 1000, "input_cache_creation": 0}}}})
    wire.write({"timestamp": when + 1, "message": {"type": "TurnEnd", "payload": {}}})
    context.close()
    wire.close()
    (folder / "state.json").write_text(json.dumps({"version": 1, "approval": {"yolo": False}, "custom_title": None,
                                                   "plan_mode": False, "archived": False, "todos": []}) + "\n")
    row = truth(shown(ctx.root, folder / "context.jsonl"), "kimi", user, [("moonshot", "direct")], [],
                spec.reasoning, [spec.model], sid, note="the model is only in ~/.kimi/config.toml")
    wire_row = truth(shown(ctx.root, folder / "wire.jsonl"), "kimi", user, [("moonshot", "direct")], [],
                     "absent", [spec.model], sid, note="wire events of the same session (think parts not kept)")
    wire_row["optional"] = True
    return [row, wire_row]


def cline(ctx: Ctx, spec: Spec, sample: dict[str, Any]) -> list[dict[str, Any]]:
    """A Cline task: the real task's records, repeated turn after turn with real file content as results."""
    user, rng = spec.user, ctx.rng
    start_ms = int(spec.start * 1000)
    folder = ctx.root / f"home/{user}/{CLINE_TASKS}/{start_ms}"
    folder.mkdir(parents=True, exist_ok=True)
    history: list[dict[str, Any]] = [sample["history"][0]]
    ui: list[dict[str, Any]] = [{"ts": start_ms, "type": "say", "say": "text", "text": words.prompt(rng)}]
    size, ts = 0, start_ms
    assistant = sample["history"][1]["content"][0]["text"]
    env = sample["history"][2]["content"][-1]
    while size < spec.size:
        ts += rng.randint(2000, 30000)
        text, source = ctx.fill.tool_output(user, 2_000, 60_000)
        target = source if source.startswith("/") else "model_prices_and_context_window.json"
        reply = assistant.split("<read_file>")[0] + f"<read_file>\n<path>{target}</path>\n</read_file>"
        history.append({"role": "assistant", "content": [{"type": "text", "text": reply}]})
        history.append({"role": "user", "content": [{"type": "text", "text": f"[read_file for '{target}'] Result:"},
                                                    {"type": "text", "text": text}, env]})
        ui.append({"ts": ts, "type": "say", "say": "api_req_started", "text": json.dumps(
            {"request": f"[read_file for '{target}'] Result:", "tokensIn": rng.randint(9000, 60000),
             "tokensOut": rng.randint(50, 600), "cacheWrites": 0, "cacheReads": 0, "cost": 0.002})})
        ui.append({"ts": ts + 900, "type": "ask", "ask": "tool", "text": json.dumps(
            {"tool": "readFile", "path": target, "content": target, "operationIsLocatedInWorkspace": True}),
            "partial": False, "conversationHistoryIndex": len(history) - 2})
        size += len(text) + len(reply) + 800
    (folder / "api_conversation_history.json").write_text(json.dumps(history, ensure_ascii=False))
    (folder / "ui_messages.json").write_text(json.dumps(ui, ensure_ascii=False))
    provider = spec.extra["provider"]
    meta = {"files_in_context": [], "model_usage": [{"ts": start_ms + 9, "model_id": spec.model,
                                                     "model_provider_id": provider, "mode": "plan"}]}
    (folder / "task_metadata.json").write_text(json.dumps(meta, indent=2))
    vendor = spec.extra["vendor"]
    row = truth(shown(ctx.root, folder / "api_conversation_history.json"), "cline", user, [(vendor, spec.route)],
                [spec.model], "visible", [spec.model],
                note="`<thinking>` inline; model and provider only in task_metadata.json beside it")
    row["metadata"] = [shown(ctx.root, folder / "ui_messages.json"), shown(ctx.root, folder / "task_metadata.json")]
    return [row]

"""Claude Code sessions, repeated from the real 2.1.233 transcript (shared/samples/claude-code/session-basic.jsonl).

Layout `~/.claude/projects/<cwd with / → ->/<sessionId>.jsonl`; a subagent's transcript in
`<sessionId>/subagents/agent-<17 hex>.jsonl` beside its `agent-<id>.meta.json` (agentType, description,
spawnDepth: metadata, not a session). Record shapes as the sample: queue operations, the prompt, one API
response split over thinking / text / tool_use lines sharing `message.id` and `requestId`, the tool_result
as a `user` line with `toolUseResult` and `sourceToolAssistantUUID`, `last-prompt`. Fresh ids of each route:
`msg_011C…`/`toolu_01…` direct, `msg_bdrk_01…`/`toolu_bdrk_01…` on Bedrock, `msg_vrtx_01…` on Vertex.
2.1.233 persists thinking as an empty string with its signature (encrypted); the older 2.0 line kept the text
(visible).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import lived_text as words
from lived_base import Ctx, Jsonl, Spec, iso, shown, truth

VENDOR_ROUTE = {"direct": "direct", "bedrock": "bedrock", "vertex": "vertex"}


def project_dir(cwd: str) -> str:
    return "".join("-" if ch in "/. ~" else ch for ch in cwd)


def _usage(ctx: Ctx) -> dict[str, Any]:
    r = ctx.rng
    return {"input_tokens": r.randint(3, 40), "cache_creation_input_tokens": r.randint(0, 12000),
            "cache_read_input_tokens": r.randint(1000, 90000), "output_tokens": r.randint(20, 900),
            "server_tool_use": {"web_search_requests": 0, "web_fetch_requests": 0}, "service_tier": "standard",
            "cache_creation": {"ephemeral_1h_input_tokens": 0, "ephemeral_5m_input_tokens": 0},
            "inference_geo": "not_available"}


class _Writer:
    def __init__(self, ctx: Ctx, spec: Spec, out: Jsonl, sid: str, cwd: str, sidechain: str | None) -> None:
        self.ctx, self.spec, self.out, self.sid, self.cwd = ctx, spec, out, sid, cwd
        self.sidechain = sidechain
        self.when = spec.start
        self.parent: str | None = None
        self.version = spec.extra.get("version", "2.1.233")

    def base(self) -> dict[str, Any]:
        b: dict[str, Any] = {"parentUuid": self.parent, "isSidechain": self.sidechain is not None,
                             "userType": "external", "entrypoint": "cli", "cwd": self.cwd, "sessionId": self.sid,
                             "version": self.version, "gitBranch": "main"}
        if self.sidechain:
            b["agentId"] = self.sidechain
        return b

    def tick(self, lo: float, hi: float) -> str:
        self.when += self.ctx.rng.uniform(lo, hi)
        return iso(self.when)

    def line(self, record: dict[str, Any]) -> str:
        uid = self.ctx.ids.uuid4()
        self.out.write({**self.base(), **record, "uuid": uid, "timestamp": self.tick(0.2, 3)})
        self.parent = uid
        return uid

    def user(self, text: str) -> None:
        self.line({"type": "user", "message": {"role": "user", "content": text}, "permissionMode": "default"})

    def response(self, call: tuple[str, dict[str, Any]] | None) -> str | None:
        """One API response over several lines; the tool_use id when it calls a tool (`call`: name, input)."""
        final = call is None
        ids, rng, route = self.ctx.ids, self.ctx.rng, self.spec.route
        msg = {"model": self.spec.model, "id": ids.anthropic_msg(route), "type": "message", "role": "assistant",
               "stop_reason": "end_turn" if final else "tool_use", "stop_sequence": None, "usage": _usage(self.ctx)}
        req = {"requestId": ids.anthropic_request()} if route == "direct" else {}
        if self.spec.reasoning != "absent":
            text = words.thinking(rng) if self.spec.reasoning == "visible" else ""
            block = {"type": "thinking", "thinking": text, "signature": ids.signature(rng.randint(180, 700))}
            self.line({"type": "assistant", "message": {**msg, "content": [block]}, **req})
        self.line({"type": "assistant", "message": {**msg, "content": [{"type": "text", "text": words.answer(rng)}]},
                   **req})
        if call is None:
            return None
        tid = ids.anthropic_tool(route)
        self.line({"type": "assistant", "message": {**msg, "content": [
            {"type": "tool_use", "id": tid, "name": call[0], "input": call[1]}]}, **req})
        return tid

    def result(self, tid: str, tool: str, text: str, source: str) -> None:
        assistant = self.parent
        self.line({"type": "user", "message": {"role": "user", "content": [
            {"tool_use_id": tid, "type": "tool_result", "content": text, "is_error": False}]},
            "toolUseResult": {"stdout": text if tool == "Bash" else "", "stderr": "", "interrupted": False,
                              "isImage": False, "file": {"filePath": source} if tool == "Read" else None},
            "sourceToolAssistantUUID": assistant})


def _fill(w: _Writer, user: str) -> None:
    ctx, spec = w.ctx, w.spec
    first = words.prompt(ctx.rng)
    w.out.write({"type": "queue-operation", "operation": "enqueue", "timestamp": iso(w.when), "sessionId": w.sid,
                 "content": first})
    w.user(first)
    many = spec.extra.get("many_vendors", False)
    while w.out.size < spec.size:
        if many:
            text, source = ctx.fill.many_vendor_listing(), "rg -n '\"(gpt|claude|gemini)' prices.json"
            many = False
        else:
            text, source = ctx.fill.tool_output(user)
        tool = "Read" if source.startswith("/") else "Bash"
        tool_input = {"file_path": source} if tool == "Read" else {"command": source, "description": "Search"}
        tid = w.response((tool, tool_input))
        assert tid is not None
        w.result(tid, tool, text, source)
        if ctx.rng.random() < 0.08:
            w.user(words.prompt(ctx.rng))
    w.response(None)
    w.out.write({"type": "last-prompt", "lastPrompt": first, "leafUuid": w.parent, "sessionId": w.sid})


def write(ctx: Ctx, spec: Spec) -> list[dict[str, Any]]:
    """One session (and its subagent when planned); their truth records."""
    user = spec.user
    cwd = spec.extra.get("cwd", f"/home/{user}/work/app")
    sid = ctx.ids.uuid4()
    agent = ctx.ids.hex(17)  # drawn before the fill, as the session id: paths never depend on the host's files
    folder = ctx.root / f"home/{user}/.claude/projects/{project_dir(cwd)}"
    path = folder / f"{sid}.jsonl"
    out = Jsonl(path)
    w = _Writer(ctx, spec, out, sid, cwd, None)
    _fill(w, user)
    out.close()
    served = [("anthropic", VENDOR_ROUTE[spec.route])]
    labels = [spec.model]
    rows = [truth(shown(ctx.root, path), "claude-code", user, served, labels, spec.reasoning, [spec.model], sid)]
    if spec.extra.get("subagent"):
        sub = folder / sid / "subagents" / f"agent-{agent}.jsonl"
        meta = sub.with_name(f"agent-{agent}.meta.json")
        meta.parent.mkdir(parents=True, exist_ok=True)
        meta.write_text('{"agentType":"Explore","description":"Map the config loaders","spawnDepth":1}\n')
        out = Jsonl(sub)
        small = Spec(user, spec.model, spec.route, w.when + 5, spec.size // 6, spec.reasoning, spec.extra)
        _fill(_Writer(ctx, small, out, sid, cwd, agent), user)
        out.close()
        rows.append(truth(shown(ctx.root, sub), "claude-code", user, served, labels, spec.reasoning, [spec.model],
                          sid, note="subagent transcript; its .meta.json beside it is metadata"))
    return rows


def subagent_meta_paths(root: Path) -> list[str]:
    return sorted(shown(root, p) for p in root.glob("home/*/.claude/projects/*/*/subagents/*.meta.json"))

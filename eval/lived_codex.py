"""Codex CLI rollouts, repeated from the real 0.146 rollout (shared/samples/codex-cli/rollout-session-basic.jsonl).

Layout `~/.codex/sessions/YYYY/MM/DD/rollout-<YYYY-MM-DDTHH-MM-SS>-<uuid7>.jsonl`. Records as the sample:
`session_meta` (uuid7 id, originator, cli_version, `model_provider`), `task_started`, developer/user messages
with client-minted `msg_<uuid7>` ids, `turn_context` (the model), then per step a reasoning item
(`encrypted_content` a Fernet token made at the record's time; a summary only in interactive runs: `codex
exec` writes none), a `function_call` (`call_` + 24 base62) and its output, `token_count`, the assistant's
message (`msg_` + 50 hex sharing its response's prefix and time) and `task_complete`. Azure OpenAI rollouts
differ only by `model_provider = "azure"`.
"""

from __future__ import annotations

import json
from datetime import datetime, timezone
from typing import Any

import lived_text as words
from lived_base import Ctx, Jsonl, Spec, iso, shown, truth

NPM_COMMAND = "npm i -g @anthropic-ai/claude-code@latest"
NPM_OUTPUT = ("npm warn deprecated node-domexception@1.0.0: Use your platform's native DOMException instead\n\n"
              "added 3 packages in 4s\n\n2 packages are looking for funding\n  run `npm fund` for details\n"
              "/usr/local/bin/claude -> /usr/local/lib/node_modules/@anthropic-ai/claude-code/cli.js\n"
              "+ @anthropic-ai/claude-code@2.1.233\n")


class _Rollout:
    def __init__(self, ctx: Ctx, spec: Spec, out: Jsonl) -> None:
        self.ctx, self.spec, self.out = ctx, spec, out
        self.when = spec.start
        self.turn = ctx.ids.uuid7(self.when)

    def rec(self, kind: str, payload: dict[str, Any], step: float = 0.4) -> None:
        self.when += self.ctx.rng.uniform(0.01, step)
        self.out.write({"timestamp": iso(self.when), "type": kind, "payload": payload})

    def meta(self, sid: str, cwd: str) -> None:
        exec_mode = self.spec.reasoning != "visible"
        self.rec("session_meta", {
            "session_id": sid, "id": sid, "timestamp": iso(self.when), "cwd": cwd,
            "originator": "codex_exec" if exec_mode else "codex_cli_rs", "cli_version": "0.146.0",
            "source": "exec" if exec_mode else "cli",
            "model_provider": "azure" if self.spec.route == "azure" else "openai",
            "base_instructions": {"text": "You are Codex, an agent based on GPT-5. You and the user share one "
                                  "workspace, and your job is to collaborate with them until their goal is handled."}})
        self.rec("event_msg", {"type": "task_started", "turn_id": self.turn, "started_at": int(self.when),
                               "model_context_window": 258400, "collaboration_mode_kind": "default"})
        self.rec("response_item", {"type": "message", "id": f"msg_{self.ctx.ids.uuid7(self.when)}", "role": "developer",
                                   "content": [{"type": "input_text", "text": "<permissions instructions>\nFilesystem "
                                                "sandboxing defines which files can be read or written."}]})
        self.rec("turn_context", {"turn_id": self.turn, "cwd": cwd, "approval_policy": "on-request",
                                  "sandbox_policy": {"type": "workspace-write"}, "model": self.spec.model,
                                  "effort": "medium", "summary": "auto" if not exec_mode else "none"})

    def user(self, text: str) -> None:
        self.rec("response_item", {"type": "message", "id": f"msg_{self.ctx.ids.uuid7(self.when)}", "role": "user",
                                   "content": [{"type": "input_text", "text": text}]})
        self.rec("event_msg", {"type": "user_message", "message": text, "images": []})

    def step(self, command: str, output: str) -> None:
        ids, rng = self.ctx.ids, self.ctx.rng
        prefix = ids.responses_prefix(self.when)
        if self.spec.reasoning != "absent":
            summary = [{"type": "summary_text", "text": words.summary_title(rng) + "\n\n" + words.thinking(rng, 1)}] \
                if self.spec.reasoning == "visible" else []
            self.rec("response_item", {"type": "reasoning", "summary": summary, "content": None,
                                       "encrypted_content": ids.fernet(self.when, rng.randint(400, 2400))}, 2.0)
            if summary:
                self.rec("event_msg", {"type": "agent_reasoning", "text": summary[0]["text"].split("\n")[0]})
        call = ids.openai_call()
        args = {"command": ["bash", "-lc", command], "workdir": self.spec.extra.get("cwd", "/home"),
                "timeout_ms": 10000}
        self.rec("response_item", {"type": "function_call", "id": ids.responses_id("fc", prefix), "name": "shell",
                                   "arguments": json.dumps(args), "call_id": call})
        self.rec("response_item", {"type": "function_call_output", "call_id": call, "output": json.dumps(
            {"output": output, "metadata": {"exit_code": 0, "duration_seconds": round(rng.random(), 1)}})}, 3.0)
        tokens = {"input_tokens": rng.randint(9000, 200000), "cached_input_tokens": rng.randint(0, 150000),
                  "output_tokens": rng.randint(20, 4000), "reasoning_output_tokens": rng.randint(0, 2000)}
        self.rec("event_msg", {"type": "token_count", "info": {"total_token_usage": tokens,
                                                               "model_context_window": 258400}})

    def reply(self) -> None:
        ids, rng = self.ctx.ids, self.ctx.rng
        text = words.answer(rng)
        self.rec("event_msg", {"type": "agent_message", "message": text, "phase": "final_answer"})
        self.rec("response_item", {"type": "message", "id": ids.responses_id("msg", ids.responses_prefix(self.when)),
                                   "role": "assistant", "content": [{"type": "output_text", "text": text}],
                                   "phase": "final_answer"})


def write(ctx: Ctx, spec: Spec) -> list[dict[str, Any]]:
    user = spec.user
    cwd = spec.extra.setdefault("cwd", f"/home/{user}/work/app")
    sid = ctx.ids.uuid7(spec.start)
    day = datetime.fromtimestamp(spec.start, timezone.utc)
    path = ctx.root / f"home/{user}/.codex/sessions/{day:%Y/%m/%d}/rollout-{day:%Y-%m-%dT%H-%M-%S}-{sid}.jsonl"
    out = Jsonl(path)
    r = _Rollout(ctx, spec, out)
    r.meta(sid, cwd)
    r.user(words.prompt(ctx.rng))
    if spec.extra.get("npm"):
        r.step(NPM_COMMAND, NPM_OUTPUT)
    while out.size < spec.size:
        text, source = ctx.fill.tool_output(user)
        command = f"sed -n '1,400p' {source}" if source.startswith("/") else source
        r.step(command, text)
    r.reply()
    r.rec("event_msg", {"type": "task_complete", "turn_id": r.turn, "completed_at": int(r.when)})
    out.close()
    route = "azure" if spec.route == "azure" else "direct"
    return [truth(shown(ctx.root, path), "codex", user, [("openai", route)], [spec.model], spec.reasoning,
                  [spec.model], sid, note="quotes `npm i -g @anthropic-ai/claude-code@latest`" if spec.extra.get("npm")
                  else "")]

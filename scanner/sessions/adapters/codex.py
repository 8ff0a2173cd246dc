"""OpenAI Codex CLI rollouts: `~/.codex/sessions/YYYY/MM/DD/rollout-*.jsonl`, `{timestamp, type, payload}`.

`session_meta` opens the file (session id, `model_provider`), `turn_context` names the model of the turns
that follow; both are remembered in the per-file state.
"""

from __future__ import annotations

import re
from typing import Any

from scanner.sessions.adapters.base import Facts, Passthrough, State, labels, obj, parse_time, text

_ROLLOUT = re.compile(r"/rollout-[^/]*\.jsonl(?:\.gz)?$")


class Codex(Passthrough):
    name = "codex-cli"

    def claims(self, path: str, first: dict[str, Any]) -> bool:
        return bool(_ROLLOUT.search(path)) or (first.get("type") == "session_meta" and "payload" in first)

    def facts(self, value: dict[str, Any], state: State) -> Facts:
        payload = obj(value.get("payload"))
        kind = value.get("type")
        if kind == "session_meta":
            state["session"] = text(payload.get("id")) or text(payload.get("session_id"))
            state["provider"] = text(payload.get("model_provider"))
        if kind == "turn_context":
            state["model"] = text(payload.get("model"))
        return Facts(
            session_id=state.get("session"),
            timestamp=parse_time(value.get("timestamp")),
            labels=labels(state.get("model"), payload.get("model")),
            declared=state.get("provider"),
        )

"""The pi coding agent: `~/.pi/agent/sessions/--<cwd>--/<file>.jsonl`. Each assistant message names its
wire `api`, its `provider` and its `model`; `model_change` records switch them mid-session."""

from __future__ import annotations

from typing import Any

from scanner.sessions.adapters.base import Facts, Passthrough, State, dig, labels, obj, parse_time, text


class Pi(Passthrough):
    name = "pi"

    def claims(self, path: str, first: dict[str, Any]) -> bool:
        return "/.pi/agent/sessions/" in path or (first.get("type") == "session" and "cwd" in first and "id" in first)

    def facts(self, value: dict[str, Any], state: State) -> Facts:
        if value.get("type") == "session":
            state["session"] = text(value.get("id"))
        message = obj(value.get("message"))
        provider = text(message.get("provider")) or text(value.get("provider"))
        return Facts(
            session_id=state.get("session"),
            timestamp=parse_time(value.get("timestamp")),
            labels=labels(dig(message, "model"), value.get("modelId")),
            declared=provider,
        )

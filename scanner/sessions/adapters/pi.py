"""The pi coding agent: `~/.pi/agent/sessions/--<cwd>--/<file>.jsonl`. Each assistant message names its
wire `api`, its `provider` and its `model`; `model_change` records switch them mid-session."""

from __future__ import annotations

import contextlib
import json
from collections.abc import Iterator
from typing import Any

from scanner.sessions.adapters.base import Facts, Passthrough, State, dig, labels, obj, parse_time, text

_MAX_SIGNATURE = 1 << 20


class Pi(Passthrough):
    name = "pi"

    def expand(self, value: dict[str, Any], state: State) -> Iterator[dict[str, Any]]:
        """pi stores an OpenAI reasoning item as JSON text in `thinkingSignature`: parse it so its
        `rs_` id and `encrypted_content` are fingerprinted like any item."""
        content = obj(value.get("message")).get("content")
        for block in content if isinstance(content, list) else ():
            sig = block.get("thinkingSignature") if isinstance(block, dict) else None
            if isinstance(sig, str) and sig.startswith("{") and len(sig) <= _MAX_SIGNATURE:
                with contextlib.suppress(ValueError):
                    block["thinkingItem"] = json.loads(sig)
        yield value

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

"""Gemini CLI chats: `~/.gemini/tmp/<projectHash>/chats/session-*.json`, one ConversationRecord per file
(`{sessionId, projectHash, startTime, messages[]}`), or JSONL with one message per line in newer builds."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from scanner.sessions.adapters.base import Facts, State, labels, parse_time, text


class GeminiCli:
    name = "gemini-cli"

    def claims(self, path: str, first: dict[str, Any]) -> bool:
        return "/.gemini/tmp/" in path or ("projectHash" in first and "sessionId" in first)

    def expand(self, value: dict[str, Any], state: State) -> Iterator[dict[str, Any]]:
        if text(value.get("sessionId")):
            state["session"] = value["sessionId"]
        messages = value.get("messages")
        if isinstance(messages, list):
            yield from (m for m in messages if isinstance(m, dict))
        else:
            yield value

    def facts(self, value: dict[str, Any], state: State) -> Facts:
        return Facts(
            session_id=text(value.get("sessionId")) or state.get("session"),
            timestamp=parse_time(value.get("timestamp")),
            labels=labels(value.get("model")),
        )

"""Claude Code: `~/.claude/projects/<cwd>/<sessionId>.jsonl` (and subagent files), one event per line."""

from __future__ import annotations

from typing import Any

from scanner.sessions.adapters.base import Facts, Passthrough, State, dig, labels, parse_time, text

_TYPES = {"user", "assistant", "system", "summary", "file-history-snapshot", "queue-operation", "last-prompt"}


class ClaudeCode(Passthrough):
    name = "claude-code"

    def claims(self, path: str, first: dict[str, Any]) -> bool:
        if "/.claude/projects/" in path:
            return "type" in first or "message" in first  # a subagent's `.meta.json` beside them is not an event
        # Qwen Code writes the same envelope (sessionId, type, uuid) around Gemini-style `parts` and
        # `systemPayload` telemetry: not Claude Code's records.
        gemini_like = "systemPayload" in first or isinstance(dig(first, "message", "parts"), list)
        return "sessionId" in first and str(first.get("type")) in _TYPES and not gemini_like

    def facts(self, value: dict[str, Any], state: State) -> Facts:
        message = value.get("message")  # `dig(value, "message", "model")`, without its call: once a record
        model = message.get("model") if isinstance(message, dict) else None
        return Facts(
            session_id=text(value.get("sessionId")),
            timestamp=parse_time(value.get("timestamp")),
            labels=labels(None if model == "<synthetic>" else model),
        )

"""Claude Code: `~/.claude/projects/<cwd>/<sessionId>.jsonl` (and subagent files), one event per line."""

from __future__ import annotations

from typing import Any

from scanner.sessions.adapters.base import Facts, Passthrough, State, dig, labels, parse_time, text

_TYPES = {"user", "assistant", "system", "summary", "file-history-snapshot", "queue-operation", "last-prompt"}


class ClaudeCode(Passthrough):
    name = "claude-code"

    def claims(self, path: str, first: dict[str, Any]) -> bool:
        return "/.claude/projects/" in path or ("sessionId" in first and str(first.get("type")) in _TYPES)

    def facts(self, value: dict[str, Any], state: State) -> Facts:
        model = dig(value, "message", "model")
        return Facts(
            session_id=text(value.get("sessionId")),
            timestamp=parse_time(value.get("timestamp")),
            labels=labels(None if model == "<synthetic>" else model),
        )

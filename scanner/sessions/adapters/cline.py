"""Cline and Roo Code task folders: `tasks/<id>/{api_conversation_history,ui_messages,task_metadata}.json`.

The task folder's name is the session id. Assistant entries carry `modelInfo{modelId, providerId}`;
`task_metadata.json` lists `model_usage[]`, expanded here into one record per use.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from scanner.sessions.adapters.base import Facts, State, dig, labels, obj, parse_time, text

NAMES = ("api_conversation_history.json", "ui_messages.json", "task_metadata.json")


class Cline:
    name = "cline"

    def claims(self, path: str, first: dict[str, Any]) -> bool:
        name = path.rsplit("/", 1)[-1]
        return name.removesuffix(".gz") in NAMES or "modelInfo" in first or "conversationHistoryIndex" in first

    def expand(self, value: dict[str, Any], state: State) -> Iterator[dict[str, Any]]:
        usage = value.get("model_usage")
        if isinstance(usage, list):
            yield from (u for u in usage if isinstance(u, dict))
        else:
            yield value

    def facts(self, value: dict[str, Any], state: State) -> Facts:
        path = str(state.get("path", ""))
        parts = path.split("/")
        task = parts[-2] if len(parts) >= 2 else None
        info = obj(value.get("modelInfo"))
        state["format"] = "roo-code" if "roo-cline" in path else "cline"
        return Facts(
            session_id=task,
            timestamp=parse_time(value.get("ts")),
            labels=labels(dig(info, "modelId"), value.get("model_id")),
            declared=text(info.get("providerId")) or text(value.get("model_provider_id")),
        )

"""Raw provider API responses captured in a log: Chat Completions, Responses (objects and stream events),
Anthropic Messages, Bedrock Converse and Gemini generateContent. One file is one session unless the
records carry a session id of their own."""

from __future__ import annotations

from typing import Any

from scanner.sessions.adapters.base import Facts, Passthrough, State, dig, file_stem, labels, obj, parse_time

_OBJECTS = {"chat.completion", "chat.completion.chunk", "response", "text_completion"}


def is_api_object(value: dict[str, Any]) -> bool:
    kind = value.get("type")
    return (
        str(value.get("object")) in _OBJECTS
        or (isinstance(kind, str) and kind.startswith("response."))
        or (kind == "message" and "role" in value and "stop_reason" in value)
        or ("stopReason" in value and "output" in value)
        or "candidates" in value
    )


class RawApi(Passthrough):
    name = "api-response"

    def claims(self, path: str, first: dict[str, Any]) -> bool:
        return is_api_object(first)

    def facts(self, value: dict[str, Any], state: State) -> Facts:
        response = obj(value.get("response"))
        return Facts(
            session_id=file_stem(state),
            timestamp=parse_time(value.get("created_at") or value.get("created") or response.get("created_at")),
            labels=labels(
                value.get("model"), response.get("model"), value.get("modelVersion"), dig(value, "item", "model")
            ),
        )

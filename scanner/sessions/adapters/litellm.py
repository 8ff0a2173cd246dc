"""LiteLLM spend logs (`LiteLLM_SpendLogs` rows exported as JSON / JSONL, or a custom logger's output):
`custom_llm_provider` and `api_base` say where each request went, `model_group` is the public alias, and
`response` holds the upstream response (a JSON string, gzip or base64 as a logger wrote it: read when small).
A row is one request: rows without a session id are the log file's one session, each row attributed alone."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from scanner.sessions.adapters.base import Facts, State, labels, parse_time, text
from scanner.sessions.bodies import decode_body

_MAX_EMBEDDED = 1 << 20


class LiteLLM:
    name = "litellm"

    def claims(self, path: str, first: dict[str, Any]) -> bool:
        return "custom_llm_provider" in first or ("request_id" in first and "model_group" in first)

    def expand(self, value: dict[str, Any], state: State) -> Iterator[dict[str, Any]]:
        out = dict(value)
        for key in ("response", "messages"):
            raw = out.get(key)
            if isinstance(raw, str) and len(raw) <= _MAX_EMBEDDED:
                decoded = decode_body(raw, state["budget"], _MAX_EMBEDDED)
                if decoded is not None:
                    out[key] = decoded
        yield out

    def facts(self, value: dict[str, Any], state: State) -> Facts:
        return Facts(
            session_id=text(value.get("session_id")),
            timestamp=parse_time(value.get("startTime")),
            labels=labels(value.get("model_group"), value.get("model")),
            declared=text(value.get("custom_llm_provider")),
        )

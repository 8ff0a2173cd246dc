"""LiteLLM spend logs (`LiteLLM_SpendLogs` rows exported as JSON / JSONL, or a custom logger's output):
`custom_llm_provider` and `api_base` say where each request went, `model_group` is the public alias, and
`response` holds the upstream response (sometimes as a JSON string, parsed here when small)."""

from __future__ import annotations

import contextlib
import json
from collections.abc import Iterator
from typing import Any

from scanner.sessions.adapters.base import Facts, State, labels, parse_time, text

_MAX_EMBEDDED = 1 << 20


class LiteLLM:
    name = "litellm"

    def claims(self, path: str, first: dict[str, Any]) -> bool:
        return "custom_llm_provider" in first or ("request_id" in first and "model_group" in first)

    def expand(self, value: dict[str, Any], state: State) -> Iterator[dict[str, Any]]:
        out = dict(value)
        for key in ("response", "messages"):
            raw = out.get(key)
            if isinstance(raw, str) and raw.lstrip().startswith(("{", "[")) and len(raw) <= _MAX_EMBEDDED:
                with contextlib.suppress(ValueError):
                    out[key] = json.loads(raw)
        yield out

    def facts(self, value: dict[str, Any], state: State) -> Facts:
        return Facts(
            session_id=text(value.get("session_id")) or text(value.get("request_id")),
            timestamp=parse_time(value.get("startTime")),
            labels=labels(value.get("model_group"), value.get("model")),
            declared=text(value.get("custom_llm_provider")),
        )

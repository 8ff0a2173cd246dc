"""Any other agent's log, read by the shape of its records (`scanner.sessions.shape`): a session id, a time,
model labels, a parent session and the route or provider the runtime wrote, under whatever keys and at
whatever nesting the agent chose. A stored document that holds its records in one list (`history`,
`messages`, `events`, `trajectory`, …) is read as those records. A proxy's request log that keeps a request or
response body as text (JSON, gzip or base64) has that body read as the JSON it holds."""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING, Any

from scanner.sessions.adapters.base import Facts, State, file_stem, labels, text
from scanner.sessions.bodies import decode_body
from scanner.sessions.budget import WorkBudget

if TYPE_CHECKING:  # the shape module imports the adapters' helpers
    from scanner.sessions.shape import Shape

_RECORD_LISTS = ("history", "messages", "events", "trajectory", "items", "turns", "entries", "records", "steps")
_MAX_EXPANDED = 200_000
# Keys under which a proxy or a logger keeps an HTTP body as text.
_BODY_KEYS = ("response_body", "request_body", "responseBody", "requestBody", "response", "body")
_MAX_BODY = 1 << 20


class Generic:
    name = "generic"

    def claims(self, path: str, first: dict[str, Any]) -> bool:
        return True

    def expand(self, value: dict[str, Any], state: State) -> Iterator[dict[str, Any]]:
        """A whole-document log (not a JSONL line) whose records sit in one list: each is a record, and the
        document's other keys (its session id, model, info) are one more."""
        if state.get("document"):
            key = next((k for k in _RECORD_LISTS if _records(value.get(k))), None)
            if key is not None:
                rest = {k: v for k, v in value.items() if k != key}
                if rest:
                    yield rest
                yield from (x for x in value[key][:_MAX_EXPANDED] if isinstance(x, dict))
                return
        yield _with_bodies(value, state["budget"])

    def facts(self, value: dict[str, Any], state: State) -> Facts:
        shape: Shape | None = state.get("shape")
        if shape is None:
            return Facts(session_id=file_stem(state))
        if shape.session_id and not state.get("session"):
            state["session"] = shape.session_id  # a document's header names the session of all its records
        return Facts(
            session_id=shape.session_id or state.get("session") or file_stem(state),
            timestamp=shape.timestamp,
            labels=labels(*shape.labels),
            declared=shape.declared,
            parent_session_id=_parent(value),
        )


def _parent(value: dict[str, Any]) -> str | None:
    """The parent session a record names (most name none: no `text` call for an absent key)."""
    found = value.get("parent_session_id")
    if found is not None and (named := text(found)):
        return named
    found = value.get("parentSessionId")
    return text(found) if found is not None else None


def _with_bodies(value: dict[str, Any], budget: WorkBudget) -> dict[str, Any]:
    """The record with each body its log keeps as text read to JSON (the record itself when none is)."""
    out = value
    for key in _BODY_KEYS:
        raw = value.get(key)
        if type(raw) is str and 16 <= len(raw) <= _MAX_BODY:
            decoded = decode_body(raw, budget, _MAX_BODY)
            if decoded is not None:
                if out is value:
                    out = dict(value)
                out[key] = decoded
    return out


def _records(value: Any) -> bool:
    return isinstance(value, list) and len(value) > 1 and sum(isinstance(x, dict) for x in value[:10]) >= 2

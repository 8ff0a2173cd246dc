"""What every session-log adapter provides, and the small readers they share.

An adapter knows one agent's log format: whether a file is one of its logs (`claims`, from the path and the
first record), how a stored document splits into records (`expand`), and what each record says about its
session (`facts`: id, time, model labels, the route the agent itself declares). Fingerprinting and
reasoning are shape-based and shared; an adapter never decides the provider.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import datetime, timezone
from typing import Any, Protocol

State = dict[str, Any]


@dataclass(slots=True)
class Facts:
    """What one record says of its session. One per record: slotted, not frozen (3x cheaper to build)."""

    session_id: str | None = None
    timestamp: float | None = None  # Unix seconds
    labels: tuple[str, ...] = ()
    declared: str | None = None  # provider / route text the agent wrote (`azure`, `amazon-bedrock`, …)
    parent_session_id: str | None = None
    title: str | None = None


class Adapter(Protocol):
    name: str

    def claims(self, path: str, first: dict[str, Any]) -> bool: ...

    def expand(self, value: dict[str, Any], state: State) -> Iterator[dict[str, Any]]: ...

    def facts(self, value: dict[str, Any], state: State) -> Facts: ...


class Passthrough:
    """Default `expand`: one stored object is one record."""

    def expand(self, value: dict[str, Any], state: State) -> Iterator[dict[str, Any]]:
        yield value


def one_record_each(adapter: object) -> bool:
    """Whether `adapter` keeps the default `expand` (one stored object, one record): the reader then skips
    a generator per record."""
    return getattr(type(adapter), "expand", None) is Passthrough.expand


_ISO = re.compile(r"^\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}")


def parse_time(value: Any) -> float | None:
    """ISO 8601 text, or Unix seconds / milliseconds as a number or digits, as Unix seconds."""
    if isinstance(value, bool):
        return None
    if isinstance(value, str):
        # A record's time is read twice in a row, by its shape walk and by its adapter, as the one same string: the
        # last answer is kept for it. Every record's time differs, so an LRU cache only ever missed (its upkeep
        # cost a fifth of a parse).
        global _last_text, _last_time
        if value is _last_text:
            return _last_time
        _last_text, _last_time = value, _parse_text_time(value)
        return _last_time
    if isinstance(value, int | float):
        seconds = float(value) / 1000 if value > 1e11 else float(value)
        return seconds if 0 < seconds < 1e10 else None
    return None


def _parse_text_time(value: str) -> float | None:
    text = value.strip()
    if text.isascii() and text.isdigit():  # '²' is a digit to str.isdigit, not to int()
        return parse_time(int(text))
    if not _ISO.match(text):
        return None
    try:
        parsed = datetime.fromisoformat(text.replace("Z", "+00:00"))
    except ValueError:
        return None
    if parsed.tzinfo is None:
        parsed = parsed.replace(tzinfo=timezone.utc)
    return parsed.timestamp()


_last_text: object = None  # the string `parse_time` read last (held, so no other string has its id), its answer
_last_time: float | None = None


def text(value: Any, limit: int = 200) -> str | None:
    """A short, non-empty string field, or None."""
    if isinstance(value, str) and len(value) <= limit:
        return value.strip() or None
    return None


def dig(value: Any, *keys: str) -> Any:
    for key in keys:
        if not isinstance(value, dict):
            return None
        value = value.get(key)
    return value


def labels(*values: Any) -> tuple[str, ...]:
    if len(values) == 2 and values[1] is None:  # a model field and an absent second one (Codex's every record)
        values = values[:1]
    if len(values) == 1:  # the usual call: one model field
        one = text(values[0], 120)
        return (one,) if one else ()
    return tuple(dict.fromkeys(v for v in (text(x, 120) for x in values) if v))


# File names that say what a file is, not which session: the folder holding it names the session
# (`~/.kimi/sessions/<id>/context.jsonl`, `…/<id>/messages.json`).
_GENERIC_STEMS = frozenset(
    {"context", "session", "messages", "history", "events", "transcript", "conversation", "chat", "log", "wire"}
)


def stem(path: str) -> str:
    """A log's own name without its suffixes: its session id when the records name none. A generic file name
    (`context.jsonl`) is qualified by its folder's name."""
    parts = path.rsplit("/", 2)
    name = parts[-1]
    for suffix in (".gz", ".jsonl", ".json", ".ndjson", ".yaml", ".yml", ".har"):
        name = name.removesuffix(suffix)
    if name.lower() in _GENERIC_STEMS and len(parts) == 3 and parts[1]:
        return f"{parts[1]}/{name}"
    return name


def file_stem(state: State) -> str:
    """`stem` of the file being read (its `path` in `state`), worked out once a file rather than once a record."""
    found = state.get("stem")
    if found is None:
        found = state["stem"] = stem(str(state.get("path", "")))
    return str(found)


def obj(value: Any) -> dict[str, Any]:
    """`value` when it is a JSON object, else an empty one (so `.get` chains never fail)."""
    return value if isinstance(value, dict) else {}

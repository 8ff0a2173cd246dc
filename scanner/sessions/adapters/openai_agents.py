"""OpenAI Agents SDK `SQLiteSession` stores: table `agent_messages(session_id, message_data)` where each row
is one Responses-API input item as JSON. The database is opened from the bytes already read (never from
the target's path), so nothing in the target is opened twice or written (no journal, no WAL); `sqlite_store`
bounds the work, the memory and the temp storage, and only the real table is read."""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Iterator
from typing import Any

from scanner.model import SkipReason
from scanner.sessions.adapters.base import Facts, Passthrough, State, dig, labels, obj, parse_time, text
from scanner.sessions.reader import ReadNotes, Record
from scanner.sessions.sqlite_store import MAX_VALUE, WORK_BUDGET, capped, is_table, read_store

SQLITE_MAGIC = b"SQLite format 3\x00"
MAX_ROWS = 20_000  # rows (records) read per store: bounded work
MAX_ROW = MAX_VALUE
_SELECT = (
    f"SELECT {capped('session_id', 1024)}, {capped('message_data')}, {capped('created_at', 1024)} "
    "FROM agent_messages ORDER BY id LIMIT ?"
)


class OpenAIAgents(Passthrough):
    name = "openai-agents-sdk"

    def __init__(self, budget: int = WORK_BUDGET) -> None:
        self.budget = budget  # SQLite steps the read of one store may take

    def claims(self, path: str, first: dict[str, Any]) -> bool:
        return "__agents_session" in first

    def read(self, data: bytes, notes: ReadNotes) -> Iterator[Record]:
        yield from read_store(data, self.budget, notes, lambda con: _rows(con, notes))
        if notes.malformed:
            detail = f"SQLite store: {notes.malformed} row(s) not JSON or over {MAX_ROW >> 20} MiB"
            notes.limit(SkipReason.CAP_REACHED, detail)

    def expand(self, value: dict[str, Any], state: State) -> Iterator[dict[str, Any]]:
        yield value

    def facts(self, value: dict[str, Any], state: State) -> Facts:
        item = obj(value.get("item"))
        return Facts(
            session_id=text(value.get("__agents_session")),
            timestamp=parse_time(value.get("__created")),
            labels=labels(dig(item, "provider_data", "model"), item.get("model")),
        )


def _rows(con: sqlite3.Connection, notes: ReadNotes) -> Iterator[Record]:
    if not is_table(con, "agent_messages"):
        notes.limit(SkipReason.CAP_REACHED, "SQLite store: agent_messages is no table (a view is never read)")
        return
    for number, (session, raw, created) in enumerate(con.execute(_SELECT, (MAX_ROWS + 1,)), 1):
        if number > MAX_ROWS:
            notes.limit(SkipReason.CAP_REACHED, f"SQLite store: rows after the first {MAX_ROWS} not read")
            break
        record = _record(number, session, raw, created, notes)
        if record is not None:
            yield record


def _record(number: int, session: object, raw: object, created: object, notes: ReadNotes) -> Record | None:
    if not isinstance(raw, str | bytes):
        notes.malformed += 1  # NULL: missing, or over MAX_ROW bytes (checked in SQL, never fetched)
        return None
    try:
        value = json.loads(raw)
    except (ValueError, RecursionError):
        notes.malformed += 1
        return None
    if not isinstance(value, dict):
        return None
    return Record(number, {"__agents_session": str(session), "__created": created, "item": value})

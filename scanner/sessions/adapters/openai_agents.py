"""OpenAI Agents SDK `SQLiteSession` stores: table `agent_messages(session_id, message_data)` where each row
is one Responses-API input item as JSON. The database is opened from the bytes already read (never from
the target's path), so nothing in the target is opened twice or written (no journal, no WAL)."""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Iterator
from typing import Any

from scanner.sessions.adapters.base import Facts, Passthrough, State, dig, labels, obj, parse_time, text
from scanner.sessions.reader import ReadNotes, Record

SQLITE_MAGIC = b"SQLite format 3\x00"
MAX_ROWS = 200_000
MAX_ROW = 4 << 20


class OpenAIAgents(Passthrough):
    name = "openai-agents-sdk"

    def claims(self, path: str, first: dict[str, Any]) -> bool:
        return "__agents_session" in first

    def read(self, data: bytes, notes: ReadNotes) -> Iterator[Record]:
        try:
            con = sqlite3.connect(":memory:")
            con.deserialize(data)
            rows = con.execute(
                "SELECT session_id, message_data, created_at FROM agent_messages ORDER BY id LIMIT ?", (MAX_ROWS,)
            )
            for number, (session, raw, created) in enumerate(rows, 1):
                if not isinstance(raw, str) or len(raw) > MAX_ROW:
                    notes.malformed += 1
                    continue
                try:
                    value = json.loads(raw)
                except ValueError:
                    notes.malformed += 1
                    continue
                if isinstance(value, dict):
                    yield Record(number, {"__agents_session": str(session), "__created": created, "item": value})
        except sqlite3.Error as exc:
            notes.extra.append(f"SQLite store not readable: {exc}")
        finally:
            con.close()

    def expand(self, value: dict[str, Any], state: State) -> Iterator[dict[str, Any]]:
        yield value

    def facts(self, value: dict[str, Any], state: State) -> Facts:
        item = obj(value.get("item"))
        return Facts(
            session_id=text(value.get("__agents_session")),
            timestamp=parse_time(value.get("__created")),
            labels=labels(dig(item, "provider_data", "model"), item.get("model")),
        )

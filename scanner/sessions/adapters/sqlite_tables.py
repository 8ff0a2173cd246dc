"""Session stores kept in SQLite, found by the shape of their tables rather than by a product's name: a table with
a model column and a column holding the provider's reply (`response_json`, `response`, `message_data`, …) is a
log of model calls, one row per call. The `llm` CLI's `logs.db` (`turns` or `responses`) is one; any other tool
that keeps the same facts is read the same way.

Each row is one record of its columns, JSON columns parsed: the reply is read for served-by facts like any
response, the session id and time come from whatever the columns are called (`thread_id`, `conversation_id`,
`datetime_utc`), and prompt or response text is never read as wiring. The database is opened from the bytes
already read (`sqlite_store`: query-only, in memory, bounded in work, heap and value length); only real tables
are read, never a view, and every table or view left unread, every value over its cap and every failure is a
recorded skip with its reason.
"""

from __future__ import annotations

import contextlib
import json
import re
import sqlite3
from collections.abc import Iterator
from typing import Any

from scanner.model import SkipReason
from scanner.sessions.adapters.base import Facts, Passthrough, State, labels, stem
from scanner.sessions.reader import ReadNotes, Record
from scanner.sessions.sqlite_store import MAX_VALUE, WORK_BUDGET, capped, read_store

MAX_ROWS = 20_000  # rows read per store, over all its tables (a row is a record: bounded work)
MAX_TABLES = 16  # tables of the right shape read per store
MAX_COLUMNS = 64
_MODEL_COLUMNS = frozenset({"model", "model_id", "model_name", "modelid", "resolved_model"})
_REPLY_COLUMNS = frozenset(
    {"response_json", "response", "message_data", "raw_response", "response_body", "completion", "output_json"}
)
# The sniff: a CREATE TABLE naming a model column and a reply column, in the schema text the file holds (the
# schema table's pages may sit anywhere in it: the whole file is searched, at bytes.find speed).
_MODEL_COLUMN = re.compile(rb'(?i)["\s(,`\[](?:model|model_id|model_name|modelid|resolved_model)["\s,)`\]]')
_REPLY_COLUMN = re.compile(
    rb'(?i)["\s(,`\[](?:response_json|response|message_data|raw_response|response_body|completion|output_json)'
    rb'["\s,)`\]]'
)
_MAX_STATEMENTS = 500
_STATEMENT = 8000


def has_model_table(data: bytes) -> bool:
    """Whether a SQLite file's schema text declares a table of model calls."""
    for marker in (b"CREATE TABLE", b"create table"):
        start = data.find(marker)
        for _ in range(_MAX_STATEMENTS):
            if start == -1:
                break
            end = data.find(marker, start + len(marker), start + _STATEMENT)
            statement = data[start : end if end != -1 else start + _STATEMENT]
            if _MODEL_COLUMN.search(statement) and _REPLY_COLUMN.search(statement):
                return True
            start = data.find(marker, start + len(marker))
    return False


def _quoted(name: str) -> str:
    return '"' + name.replace('"', '""') + '"'


class SqliteTables(Passthrough):
    name = "sqlite-store"

    def __init__(self, budget: int = WORK_BUDGET) -> None:
        self.budget = budget  # SQLite steps the read of one store may take

    def claims(self, path: str, first: dict[str, Any]) -> bool:
        return "__store_table" in first

    def read(self, data: bytes, notes: ReadNotes) -> Iterator[Record]:
        return read_store(data, self.budget, notes, lambda con: self._tables(con, notes))

    def _tables(self, con: sqlite3.Connection, notes: ReadNotes) -> Iterator[Record]:
        schema = con.execute("SELECT name, type, sql FROM sqlite_master WHERE type IN ('table', 'view') LIMIT 1000")
        shaped: list[tuple[str, list[str]]] = []
        for name, kind, sql in schema.fetchall():
            if not isinstance(name, str) or str(sql or "").lstrip().upper().startswith("CREATE VIRTUAL"):
                continue
            found = self._columns(con, name, kind)
            if found is None:
                continue
            columns, generated = found
            every = set(columns) | set(generated)
            if not (_MODEL_COLUMNS & every and _REPLY_COLUMNS & every):
                continue
            if kind == "view":
                notes.limit(SkipReason.CAP_REACHED, f"SQLite store: view {name[:80]} never read (only tables are)")
                continue
            if generated:
                # What the schema computes on read could be anything (a 900 MB string per row): never computed.
                detail = f"SQLite store: generated column(s) {', '.join(generated)[:120]} of {name[:80]} never read"
                notes.limit(SkipReason.CAP_REACHED, detail)
            shaped.append((name, columns))
        if len(shaped) > MAX_TABLES:
            notes.limit(SkipReason.CAP_REACHED, f"SQLite store: {len(shaped) - MAX_TABLES} table(s) past {MAX_TABLES}")
        budget = MAX_ROWS
        for name, columns in shaped[:MAX_TABLES]:
            for record in self._rows(con, name, columns, budget, notes):
                budget -= 1
                yield record
            if budget <= 0:
                break

    @staticmethod
    def _columns(con: sqlite3.Connection, name: str, kind: str) -> tuple[list[str], list[str]] | None:
        """A table's stored column names and its generated ones (lower case); a view's come from compiling its
        declaration, never from running it."""
        try:
            rows = con.execute(f"PRAGMA table_xinfo({_quoted(name)})").fetchall()
        except sqlite3.Error:
            return None
        rows = rows[:MAX_COLUMNS]
        # hidden: 0 a stored column, 1 a virtual table's own, 2 and 3 generated (computed on every read)
        return [str(r[1]).lower() for r in rows if r[6] == 0], [str(r[1]).lower() for r in rows if r[6] in (2, 3)]

    @staticmethod
    def _rows(
        con: sqlite3.Connection, table: str, columns: list[str], budget: int, notes: ReadNotes
    ) -> Iterator[Record]:
        reply = [c for c in columns if c in _REPLY_COLUMNS]
        fields = ", ".join(capped(_quoted(c)) for c in columns)
        over = " + ".join(f"(length(CAST({_quoted(c)} AS BLOB)) > {MAX_VALUE})" for c in reply) or "0"
        query = f"SELECT {fields}, {over} FROM {_quoted(table)} LIMIT ?"
        cut = 0
        number = 0
        for number, row in enumerate(con.execute(query, (budget + 1,)), 1):
            if number > budget:
                detail = f"SQLite store: rows of {table[:80]} past the first {budget} not read"
                notes.limit(SkipReason.CAP_REACHED, detail)
                break
            cut += int(row[-1] or 0)
            value: dict[str, Any] = {"__store_table": table, "__row": number}
            for column, cell in zip(columns, row[:-1], strict=True):
                value[column] = _cell(column, cell)
            yield Record(number, value)
        if cut:
            detail = f"SQLite store: {cut} value(s) of {table[:80]} over {MAX_VALUE >> 20} MiB not read"
            notes.limit(SkipReason.CAP_REACHED, detail)

    def facts(self, value: dict[str, Any], state: State) -> Facts:
        shape = state.get("shape")
        table = f"{stem(str(state.get('path', '')))}:{value['__store_table']}"
        return Facts(
            session_id=getattr(shape, "session_id", None) or table,
            timestamp=getattr(shape, "timestamp", None),
            labels=labels(*getattr(shape, "labels", ())),
        )


def _cell(column: str, cell: Any) -> Any:
    """A cell as the record holds it: JSON text of a JSON or reply column parsed, bytes as text, the rest as is."""
    if isinstance(cell, bytes):
        cell = cell.decode("utf-8", "replace")
    if isinstance(cell, str) and (column.endswith("_json") or column in _REPLY_COLUMNS) and cell[:1] in ("{", "["):
        with contextlib.suppress(ValueError, RecursionError):
            return json.loads(cell)
    return cell

"""Session stores kept in SQLite, read as rows of records whatever tool wrote them: a table is read when its shape
says it keeps model calls or session records, never because of its name or its product.

A table is read when it has a model column and a column holding the provider's reply (`response_json`, `response`,
`completion`, …: the `llm` CLI's `logs.db` is one), or when the first rows of one of its columns hold JSON objects
with a session record's keys (`role`, `type`, `usage`, …: the OpenAI Agents SDK's `agent_messages.message_data`
is one). Each row is one record of its columns, JSON columns parsed, and the generic reader reads it as any record:
the session id and time come from whatever the columns are called (`session_id`, `conversation_id`,
`datetime_utc`), a reply column is read for served-by facts, prompt or response text never as wiring.

The database is opened from the bytes already read (`sqlite_store`: query-only, in memory, bounded in work, heap
and value length); only real tables are read, never a view, and every table or view left unread, every value over
its cap and every failure is a recorded skip with its reason.
"""

from __future__ import annotations

import contextlib
import json
import re
import sqlite3
from collections.abc import Iterator
from typing import Any

from scanner.model import SkipReason
from scanner.sessions.keys import ASSISTANT_ROLES, CONVERSATION_ROLES, MODEL_KEYS, SESSION_KEYS
from scanner.sessions.reader import ReadNotes, Record
from scanner.sessions.sqlite_store import MAX_VALUE, WORK_BUDGET, capped, read_store

MAGIC = b"SQLite format 3\x00"
MAX_ROWS = 20_000  # rows read per store, over all its tables (a row is a record: bounded work)
MAX_TABLES = 16  # tables of the right shape read per store
MAX_COLUMNS = 64
MAX_SCHEMA = 1_000  # tables and views looked at per store
SAMPLE_ROWS = 8  # rows of a table whose columns are looked at for JSON records
SAMPLE_BYTES = 4096  # of each sampled value
SNIFF_BYTES = 4 << 20  # of the file searched for JSON records (its first pages hold the first rows)
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
# A JSON object with a session record's keys (a role, a record type, usage, a reply's parts), as stored text.
_RECORD_KEYS = (
    "role|type|model|usage|choices|candidates|output|content|tool_calls|encrypted_content|reasoning|thinking|"
    "stop_reason|finish_reason|session_id|sessionId|messages"
)
_RECORD_TEXT = re.compile(rf'"({_RECORD_KEYS})"\s*:')
_RECORD_BYTES = re.compile(rf'"(?:{_RECORD_KEYS})"\s*:'.encode())  # no nested repeat: linear on any bytes
# A conversation's speakers, as a message table's `role` column holds them (Goose's and Crush's `messages`).
_ROLES = CONVERSATION_ROLES | ASSISTANT_ROLES
# A table the message tables refer to as their session, naming a model per row under a model column or in a JSON
# column's object (Goose's `sessions.model_config_json = {"model_name": …}` with `provider_name`): the sessions'
# own settings. The model keys are the session records' own.
_MODEL_KEY = re.compile('"(?:' + "|".join(map(re.escape, sorted(MODEL_KEYS))) + r')"\s*:\s*"')
_SESSION_COLUMNS = frozenset(k.lower() for k in SESSION_KEYS)
_MAX_STATEMENTS = 500
_STATEMENT = 8000


def sniff(data: bytes) -> bool:
    """Whether a SQLite file may keep model calls or session records: its schema declares a table of model calls,
    or its first pages hold JSON text with one of a session record's keys."""
    return has_model_table(data) or bool(_RECORD_BYTES.search(data, 0, SNIFF_BYTES))


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


class StoreRead:
    """Whether the store held a table of model calls (its rows are a log of them, whatever they name)."""

    __slots__ = ("calls",)

    def __init__(self) -> None:
        self.calls = False


def read(data: bytes, notes: ReadNotes, found: StoreRead, budget: int = WORK_BUDGET) -> Iterator[Record]:
    """The rows of the store's record tables, as records; `budget` is the SQLite steps the read may take."""
    return read_store(data, budget, notes, lambda con: _tables(con, notes, found))


def _tables(con: sqlite3.Connection, notes: ReadNotes, found: StoreRead) -> Iterator[Record]:
    shaped = _shaped(con, notes, found)
    if len(shaped) > MAX_TABLES:
        notes.limit(SkipReason.CAP_REACHED, f"SQLite store: {len(shaped) - MAX_TABLES} table(s) past {MAX_TABLES}")
    left = MAX_ROWS
    for name, columns, parsed, keyed in shaped[:MAX_TABLES]:
        for record in _rows(con, name, columns, parsed, left, notes, keyed):
            left -= 1
            yield record
        if left <= 0:
            break


_Table = tuple[str, list[str], frozenset[str], bool]  # name, columns, JSON columns parsed, its `id` a session's


def _shaped(con: sqlite3.Connection, notes: ReadNotes, found: StoreRead) -> list[_Table]:
    """(table, stored columns, columns whose JSON is parsed, whether its `id` is a session's) of every real table of a
    record table's shape: a table of model calls, of JSON session records, or of messages by role; and, in a store
    that has one of those, each table that names a model per row (the sessions' settings: its `id` is a session's
    when the other tables refer to it by a session column)."""
    schema = con.execute(
        f"SELECT name, type, sql FROM sqlite_master WHERE type IN ('table', 'view') LIMIT {MAX_SCHEMA}"
    )
    shaped, settings = [], []
    for name, kind, sql in schema.fetchall():
        if not isinstance(name, str) or str(sql or "").lstrip().upper().startswith("CREATE VIRTUAL"):
            continue
        columns_of = _columns(con, name)
        if columns_of is None:
            continue
        columns, generated = columns_of
        every = set(columns) | set(generated)
        calls = bool(_MODEL_COLUMNS & every and _REPLY_COLUMNS & every)
        if kind == "view":
            if calls:
                notes.limit(SkipReason.CAP_REACHED, f"SQLite store: view {name[:80]} never read (only tables are)")
            continue
        sample = _Sample(con, name, columns)
        held = frozenset() if calls else sample.record_columns()
        spoken = sample.spoken()
        if not calls and not held and not spoken:
            if "id" in columns and sample.names_models():
                settings.append((name, columns, frozenset(c for c in columns if c.endswith("_json")), True))
            continue
        # A table of model calls, or of a conversation's messages: the store is a log of model calls by itself.
        found.calls = found.calls or calls or spoken
        if generated:
            # What the schema computes on read could be anything (a 900 MB string per row): never computed.
            detail = f"SQLite store: generated column(s) {', '.join(generated)[:120]} of {name[:80]} never read"
            notes.limit(SkipReason.CAP_REACHED, detail)
        parsed = held | sample.json_columns() | {c for c in columns if c.endswith("_json") or c in _REPLY_COLUMNS}
        shaped.append((name, columns, frozenset(parsed), False))
    if not shaped:
        return []
    # A table naming models that no record table refers to (a list of models offered) is read as nothing.
    referred = _session_refs(con, shaped) if settings else set()
    return [t for t in settings if _ids_referred(con, t[0], referred)] + shaped


def _session_refs(con: sqlite3.Connection, tables: list[_Table]) -> set[str]:
    """The session ids the record tables refer to (their session column's values, bounded)."""
    out: set[str] = set()
    for name, columns, *_ in tables:
        for column in _SESSION_COLUMNS.intersection(columns):
            query = f"SELECT DISTINCT CAST({_quoted(column)} AS TEXT) FROM {_quoted(name)} LIMIT {MAX_ROWS}"
            out.update(str(v) for (v,) in con.execute(query) if v is not None)
    return out


def _ids_referred(con: sqlite3.Connection, table: str, referred: set[str]) -> bool:
    """Whether a table's first rows' `id`s are among the sessions the record tables refer to."""
    rows = con.execute(f'SELECT CAST("id" AS TEXT) FROM {_quoted(table)} LIMIT {SAMPLE_ROWS}').fetchall()
    return bool(rows) and any(str(v) in referred for (v,) in rows)


def _columns(con: sqlite3.Connection, name: str) -> tuple[list[str], list[str]] | None:
    """A table's stored column names and its generated ones (lower case); a view's come from compiling its
    declaration, never from running it."""
    try:
        rows = con.execute(f"PRAGMA table_xinfo({_quoted(name)})").fetchall()
    except sqlite3.Error:
        return None
    rows = rows[:MAX_COLUMNS]
    # hidden: 0 a stored column, 1 a virtual table's own, 2 and 3 generated (computed on every read)
    return [str(r[1]).lower() for r in rows if r[6] == 0], [str(r[1]).lower() for r in rows if r[6] in (2, 3)]


class _Sample:
    """The heads of a table's first rows, column by column: what its values look like."""

    def __init__(self, con: sqlite3.Connection, table: str, columns: list[str]) -> None:
        self.columns = columns
        self.heads: dict[str, list[str]] = {c: [] for c in columns}
        if not columns:
            return
        heads = ", ".join(f"substr(CAST({_quoted(c)} AS TEXT), 1, {SAMPLE_BYTES})" for c in columns)
        for row in con.execute(f"SELECT {heads} FROM {_quoted(table)} LIMIT {SAMPLE_ROWS}"):
            for column, head in zip(columns, row, strict=True):
                if isinstance(head, str):
                    self.heads[column].append(head)

    def record_columns(self) -> frozenset[str]:
        """The columns whose values are JSON objects showing two of a session record's keys between them."""
        keys: dict[str, set[str]] = {}
        for column, heads in self.heads.items():
            for head in heads:
                if head.lstrip()[:1] == "{":
                    keys.setdefault(column, set()).update(_RECORD_TEXT.findall(head))
        return frozenset(column for column, seen in keys.items() if len(seen) >= 2)

    def json_columns(self) -> frozenset[str]:
        """The columns whose values are JSON objects or lists (a message's parts, its metadata)."""
        return frozenset(c for c, heads in self.heads.items() if heads and all(
            h.lstrip()[:1] in ("{", "[") for h in heads))

    def spoken(self) -> bool:
        """Whether the table holds the messages of sessions: a `role` column whose values are speakers, and a column
        naming each message's session (a message tree of hashes alone is read through the tables that hold its
        turns)."""
        return bool(_SESSION_COLUMNS.intersection(self.columns)) and any(
            h.strip().lower() in _ROLES for h in self.heads.get("role", ()))

    def names_models(self) -> bool:
        """Whether the rows name a model: a model column with values, or a JSON object with a model key."""
        if any(h.strip() for c in _MODEL_COLUMNS & set(self.columns) for h in self.heads[c]):
            return True
        return any(_MODEL_KEY.search(h) for heads in self.heads.values() for h in heads if h.lstrip()[:1] == "{")


def _rows(
    con: sqlite3.Connection, table: str, columns: list[str], parsed: frozenset[str], budget: int, notes: ReadNotes,
    keyed: bool = False,
) -> Iterator[Record]:
    """Each row as a record of its columns; a sessions table's (`keyed`) names its session by its `id`."""
    fields = ", ".join(capped(_quoted(c)) for c in columns)
    over = " + ".join(f"(length(CAST({_quoted(c)} AS BLOB)) > {MAX_VALUE})" for c in sorted(parsed)) or "0"
    query = f"SELECT {fields}, {over} FROM {_quoted(table)} LIMIT ?"
    cut = 0
    for number, row in enumerate(con.execute(query, (budget + 1,)), 1):
        if number > budget:
            notes.limit(SkipReason.CAP_REACHED, f"SQLite store: rows of {table[:80]} past the first {budget} not read")
            break
        cut += int(row[-1] or 0)
        value: dict[str, Any] = {}
        for column, cell in zip(columns, row[:-1], strict=True):
            value[column] = _cell(cell, column in parsed)
        if keyed and value.get("id") is not None:
            value.setdefault("session_id", str(value["id"]))
        yield Record(number, value)
    if cut:
        detail = f"SQLite store: {cut} value(s) of {table[:80]} over {MAX_VALUE >> 20} MiB not read"
        notes.limit(SkipReason.CAP_REACHED, detail)


def _cell(cell: Any, parse: bool) -> Any:
    """A cell as the record holds it: the JSON text of a parsed column read, bytes as text, the rest as is."""
    if isinstance(cell, bytes):
        cell = cell.decode("utf-8", "replace")
    if parse and isinstance(cell, str) and cell.lstrip()[:1] in ("{", "["):
        with contextlib.suppress(ValueError, RecursionError):
            return json.loads(cell)
    return cell

"""Reading a SQLite file from an untrusted target, bounded in time, memory and side effects.

The database is deserialized from the bytes already read (the target's file is never opened again), made
query-only, and keeps every temporary b-tree and sort in memory (`temp_store=MEMORY`): a hostile schema
cannot make SQLite write a temp file on the host (a recursive view grew one to 2.7 GB in /var/tmp).
Work is bounded by a progress handler, memory by SQLite's heap limit and its string/blob length limit,
and only real tables are read (never a view, whose query could be anything), with values over a cap
counted and not fetched.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Callable, Iterator
from contextlib import contextmanager

from scanner.model import SkipReason
from scanner.sessions.reader import ReadNotes, Record

MAX_VALUE = 4 << 20  # bytes of one fetched value
# Longest string or blob SQLite may make or load: above MAX_VALUE so that a stored value over it is refused by
# `capped` (and the read goes on), low enough that a computed one (`printf('%.*c', 900000000, …)`) fails at once.
MAX_LENGTH = 16 << 20
WORK_BUDGET = 200_000_000  # SQLite virtual-machine steps per file
_TICK = 10_000  # steps between two progress-handler calls
_HEAP_SLACK = 128 << 20  # SQLite heap beyond the database image itself


class StoreBudgetExceeded(Exception):
    """The file needed more work than its budget, or more memory than the heap limit; what was read before
    stays read."""


class _Budget:
    def __init__(self, steps: int) -> None:
        self.ticks_left = max(1, steps // _TICK)
        self.exceeded = False

    def __call__(self) -> int:
        self.ticks_left -= 1
        if self.ticks_left <= 0:
            self.exceeded = True
            return 1  # non-zero aborts the running statement (sqlite3.OperationalError: interrupted)
        return 0


def _rollback_journal(data: bytes) -> bytes:
    """The database as a rollback-journal file: SQLite will not open an in-memory image of a WAL-mode database
    (header bytes 18-19 = 2), and what its `-wal` file holds beside it is not part of this file anyway."""
    if data[18:20] == b"\x02\x02":
        return data[:18] + b"\x01\x01" + data[20:]
    return data


def _lenient_text(raw: bytes) -> str:
    return raw.decode("utf-8", "replace")


def _pragma_int(con: sqlite3.Connection, pragma: str) -> int:
    row = con.execute(f"PRAGMA {pragma}").fetchone()
    return int(row[0]) if row else 0


@contextmanager
def open_store(data: bytes, budget: int = WORK_BUDGET) -> Iterator[sqlite3.Connection]:
    """A query-only, in-memory connection over `data`; raises StoreBudgetExceeded when the work budget ran out."""
    con = sqlite3.connect(":memory:")
    # A target's text need not be UTF-8 (its schema's or a row's): undecodable bytes become U+FFFD, never an error.
    con.text_factory = _lenient_text
    # The heap limit is process-wide in SQLite: set for this read, put back after.
    previous_heap = _pragma_int(con, "hard_heap_limit")
    meter = _Budget(budget)
    try:
        con.execute(f"PRAGMA hard_heap_limit = {len(data) + _HEAP_SLACK}")
        con.setlimit(sqlite3.SQLITE_LIMIT_LENGTH, MAX_LENGTH)
        con.setlimit(sqlite3.SQLITE_LIMIT_SQL_LENGTH, 1 << 20)
        con.deserialize(_rollback_journal(data))
        con.execute("PRAGMA temp_store = MEMORY")
        con.execute("PRAGMA query_only = ON")
        con.execute("PRAGMA trusted_schema = OFF")
        con.set_progress_handler(meter, _TICK)
        try:
            yield con
        except sqlite3.OperationalError:
            if meter.exceeded:
                raise StoreBudgetExceeded(f"SQLite work budget of {budget} steps exceeded") from None
            raise
        except MemoryError:  # SQLITE_NOMEM: the heap limit, reached by a sort or a temp b-tree kept in memory
            raise StoreBudgetExceeded(f"SQLite memory limit of {len(data) + _HEAP_SLACK} bytes reached") from None
    finally:
        con.close()
        with sqlite3.connect(":memory:") as reset:
            reset.execute(f"PRAGMA hard_heap_limit = {previous_heap}")
        reset.close()


def read_store(
    data: bytes, budget: int, notes: ReadNotes, rows: Callable[[sqlite3.Connection], Iterator[Record]]
) -> Iterator[Record]:
    """The records `rows` reads from the store; a budget overrun or a store that will not open or read (corrupt,
    a value past SQLite's own limits) ends the read with a recorded skip, what was read before it kept."""
    try:
        with open_store(data, budget) as con:
            yield from rows(con)
    except StoreBudgetExceeded as exc:
        notes.limit(SkipReason.BUDGET_EXCEEDED, f"SQLite store: {exc}")
    except (sqlite3.Error, MemoryError, OverflowError, UnicodeDecodeError) as exc:
        # UnicodeDecodeError: SQLite's message about a malformed schema quotes its bytes, which need not be UTF-8.
        notes.limit(SkipReason.PARSE_ERROR, f"SQLite store not readable: {type(exc).__name__}: {str(exc)[:200]}")


def is_table(con: sqlite3.Connection, name: str) -> bool:
    """Whether `name` is a real table (a view or a virtual table is never read)."""
    row = con.execute("SELECT sql FROM sqlite_master WHERE type = 'table' AND name = ?", (name,)).fetchone()
    return row is not None and not str(row[0] or "").lstrip().upper().startswith("CREATE VIRTUAL")


def capped(column: str, limit: int = MAX_VALUE) -> str:
    """SQL giving a column's value when it is at most `limit` bytes, else NULL: the size is checked in SQL."""
    return f"CASE WHEN length(CAST({column} AS BLOB)) <= {int(limit)} THEN {column} END"

"""SQLite stores of model calls that fail or are hostile end and leave a recorded skip with its reason: a corrupt
database, an endless recursive view, a view or a generated column with huge rows, a table past the row cap. Each
store is built in tmp_path and scanned in a child process (tests/scan_child.py) with a guard against a hang; the
tests assert the work the store was allowed, and `make bench` times the same scans (scripts/bench_bombs.py)."""

from __future__ import annotations

import json
import os
import sqlite3
import subprocess
import sys
from pathlib import Path
from typing import Any

from scanner.sessions.formats.sqlite_rows import MAX_ROWS
from tests.bombs import sqlite_file
from tests.conftest import REPO
from tests.scan_child import record_figures

STORE = "home/dev/.config/io.datasette.llm/logs.db"
HANG_GUARD_S = 120  # a hang, not a speed: `make bench` times these scans (scripts/bench_bombs.py)
# The shape of a log of model calls (the `llm` CLI's `turns`): a model column and the provider's reply.
TURNS = "CREATE TABLE turns (id TEXT PRIMARY KEY, thread_id TEXT, model TEXT, datetime_utc TEXT, response_json TEXT)"
REPLY = '{"id": "chatcmpl-D8Z5f52zQqikDBEKQMQoYcWMcWPeU", "object": "chat.completion", "model": "gpt-4o-mini"}'


def scan_store(root: Path) -> dict[str, Any]:
    """Scan `root` in a child process, guarded against a hang; return what it reports. The bound each test asserts
    is the work the store was allowed (a view never run, rows up to the cap), recorded as a skip."""
    proc = subprocess.run(
        [sys.executable, "-m", "tests.scan_child", str(root)],
        cwd=REPO,
        capture_output=True,
        text=True,
        timeout=HANG_GUARD_S,
        env=dict(os.environ),
        check=False,
    )
    assert proc.returncode == 0, proc.stderr[-2000:]
    result: dict[str, Any] = json.loads(proc.stdout)
    record_figures(root.parent.name, result)
    return result


def store_skips(result: dict[str, Any]) -> list[tuple[str, str]]:
    return [(s["reason"], s["detail"]) for s in result["skipped"] if s["path"] == "/" + STORE]


def test_a_corrupt_store_is_a_recorded_parse_error(tmp_path: Path) -> None:
    root = tmp_path / "vm"
    db = sqlite_file(
        root / STORE,
        [TURNS, f"WITH RECURSIVE r(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM r LIMIT 2000) "
         f"INSERT INTO turns SELECT i, 't', 'gpt-4o-mini', '2026-01-01', '{REPLY}' FROM r"],
    )
    data = bytearray(db.read_bytes())
    page = int.from_bytes(data[16:18], "big")
    data[page * 2 : page * 6] = b"\xff" * (page * 4)  # the table's b-tree pages: garbage; the schema page is whole
    db.write_bytes(bytes(data))
    result = scan_store(root)
    assert [r for r, d in store_skips(result) if "not readable" in d] == ["parse-error"]


def test_an_endless_recursive_view_is_never_run_and_is_recorded(tmp_path: Path) -> None:
    root = tmp_path / "vm"
    sqlite_file(
        root / STORE,
        [
            TURNS,
            "CREATE VIEW all_turns AS WITH RECURSIVE r(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM r) "
            "SELECT i AS id, 'gpt-4o' AS model, printf('%.*c', 1000, 'x') AS response_json FROM r ORDER BY 3, 1",
        ],
    )
    result = scan_store(root)
    assert ("cap-reached", "session log: SQLite store: view all_turns never read (only tables are)") in store_skips(
        result
    )


def test_a_view_of_huge_rows_is_never_run_and_is_recorded(tmp_path: Path) -> None:
    root = tmp_path / "vm"
    sqlite_file(
        root / STORE,
        [
            TURNS,
            "INSERT INTO turns VALUES ('1', 't', 'gpt-4o-mini', '2026-01-01', '{}')",
            "CREATE VIEW wide AS SELECT id, model, printf('%.*c', 900000000, 'x') AS response_json FROM turns",
        ],
    )
    result = scan_store(root)
    assert ("cap-reached", "session log: SQLite store: view wide never read (only tables are)") in store_skips(result)
    assert result["sessions"] == 1  # the real table is read


def test_a_generated_column_of_huge_rows_is_refused_and_recorded(tmp_path: Path) -> None:
    root = tmp_path / "vm"
    sqlite_file(
        root / STORE,
        [
            "CREATE TABLE turns (id TEXT, model TEXT, datetime_utc TEXT,"
            " response_json TEXT GENERATED ALWAYS AS (printf('%.*c', 9, 'x')) VIRTUAL)",
            "INSERT INTO turns (id, model, datetime_utc) VALUES ('1', 'gpt-4o-mini', '2026-01-01')",
            # Made hostile after the insert, as an attacker edits the schema text: 900 MB per row on read.
            "PRAGMA writable_schema = ON",
            "UPDATE sqlite_master SET sql = replace(sql, '9,', '900000000,') WHERE name = 'turns'",
        ],
    )
    result = scan_store(root)
    assert result["rss_mb"] < 300
    assert (
        "cap-reached",
        "session log: SQLite store: generated column(s) response_json of turns never read",
    ) in store_skips(result)


def test_a_table_past_the_row_cap_is_read_up_to_it_and_recorded(tmp_path: Path) -> None:
    root = tmp_path / "vm"
    path = root / STORE
    path.parent.mkdir(parents=True)
    con = sqlite3.connect(path)
    con.execute(TURNS)
    con.execute(
        f"WITH RECURSIVE r(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM r LIMIT {MAX_ROWS + 5}) "
        f"INSERT INTO turns SELECT i, 't1', 'gpt-4o-mini', '2026-01-01T00:00:00', '{REPLY}' FROM r"
    )
    con.commit()
    con.close()
    result = scan_store(root)
    assert (
        "cap-reached",
        f"session log: SQLite store: rows of turns past the first {MAX_ROWS} not read",
    ) in store_skips(result)
    assert result["sessions"] == 1


def test_a_store_in_wal_mode_is_read(tmp_path: Path) -> None:
    # Agents SDK's SQLiteSession and many others turn on WAL; the file's own pages are read, its -wal is not.
    root = tmp_path / "vm"
    path = root / STORE
    path.parent.mkdir(parents=True)
    con = sqlite3.connect(path)
    con.execute("PRAGMA journal_mode = WAL")
    con.execute(TURNS)
    con.execute(f"INSERT INTO turns VALUES ('1', 't1', 'gpt-4o-mini', '2026-01-01T00:00:00', '{REPLY}')")
    con.commit()
    con.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    con.close()
    assert path.read_bytes()[18:20] == b"\x02\x02"
    result = scan_store(root)
    assert result["sessions"] == 1 and not store_skips(result)

"""Hostile images (issue 11): every decompressor and container is bounded, and a bound reached is recorded.

The bomb tests scan in a child process and assert its peak RSS (VmHWM) stays under 300 MB; each
fixture is built in tmp_path and is small on disk.
"""

from __future__ import annotations

import json
import os
import sqlite3
import struct
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from scanner.formats import elf, ziparchive
from scanner.formats.ziparchive import ProblemKind, ZipProblem
from scanner.model import SkipReason
from scanner.sessions.formats import sqlite_rows
from scanner.sessions.reader import ReadNotes
from scanner.sessions.sqlite_store import StoreBudgetExceeded, open_store
from tests.bombs import deflate_zeros, gzip_zeros, lying_jar, many_member_jar, sqlite_file, zip_one_member
from tests.conftest import REPO, ScanFn, write

RSS_LIMIT_MB = 300


def scan_in_child(root: Path, env: dict[str, str] | None = None) -> dict[str, Any]:
    proc = subprocess.run(
        [sys.executable, "-m", "tests.scan_child", str(root)],
        cwd=REPO,
        capture_output=True,
        text=True,
        timeout=600,
        env={**os.environ, **(env or {})},
        check=False,
    )
    assert proc.returncode == 0, proc.stderr[-2000:]
    result: dict[str, Any] = json.loads(proc.stdout)
    # Shown with -s: the figures the report quotes. ru_maxrss can only overstate (see tests/scan_child.py).
    print(f"peak RSS {result['rss_mb']:.0f} MB (ru_maxrss {result['maxrss_mb']:.0f} MB)")
    # The child's own high-water mark: ru_maxrss carries the forking pytest process's over exec, so in a long
    # test run it measures pytest, not the scan.
    assert result["rss_mb"] < RSS_LIMIT_MB
    return result


def reasons(skipped: list[dict[str, Any]]) -> set[str]:
    return {s["reason"] for s in skipped}


# --- zip members -------------------------------------------------------------------------------------


def test_a_jar_member_lying_about_its_size_inflates_bounded(tmp_path: Path) -> None:
    root = tmp_path / "vm"
    jar = lying_jar(root / "opt/app/lib/bomb.jar")
    assert jar.stat().st_size < 2 << 20  # ~1 MB on disk, 1 GiB inflated
    result = scan_in_child(root)
    assert result["rss_mb"] < RSS_LIMIT_MB
    assert "detector-error" not in reasons(result["skipped"])
    # The member declares 100 bytes: reading stops there, and the CRC it cannot match is a recorded parse error.
    assert "parse-error" in reasons(result["skipped"])


def test_a_jar_member_declaring_a_huge_size_hits_the_cap(tmp_path: Path) -> None:
    root = tmp_path / "vm"
    data = zip_one_member("META-INF/maven/g/a/pom.properties", deflate_zeros(256 << 20), 256 << 20)
    write(root, "/opt/app/lib/big.jar", data)
    result = scan_in_child(root)
    assert result["rss_mb"] < RSS_LIMIT_MB
    limits = [s for s in result["skipped"] if s["reason"] == "decompression-limit"]
    assert limits and "pom.properties" in limits[0]["detail"]


def test_compression_ratio_is_capped_below_the_size_cap() -> None:
    problems: list[ZipProblem] = []
    data = zip_one_member("x.txt", deflate_zeros(16 << 20), 16 << 20)
    assert list(ziparchive.members(data, lambda n: True, problems, max_member=64 << 20, max_ratio=100)) == []
    assert [p.kind for p in problems] == [ProblemKind.LIMIT] and "ratio" in problems[0].detail


@pytest.mark.parametrize(
    ("data", "cause"),
    [
        # zip version 6.4: zipfile raised NotImplementedError, once caught only as a detector error
        (zip_one_member("META-INF/maven/g/a/pom.properties", b"x", 1, method=0, version=64), "NotImplementedError"),
        # an archive cut in its directory
        (zip_one_member("META-INF/maven/g/a/pom.properties", b"ab", 2, method=0)[:-1], "archive not readable"),
        # a member cut short: zipfile raised EOFError
        (zip_one_member("META-INF/maven/g/a/pom.properties", b"ab", 5000, method=0, compressed=5000), "EOFError"),
        # bzip2 would be inflated in one unbounded call: never read
        (zip_one_member("META-INF/maven/g/a/pom.properties", b"BZh9", 10, method=12), "compression method"),
    ],
    ids=["version-6.4", "cut-archive", "cut-member", "bzip2"],
)
def test_fuzz_found_zips_are_recorded_parse_errors(tmp_path: Path, scan_dir: ScanFn, data: bytes, cause: str) -> None:
    write(tmp_path, "/opt/app/lib/odd.jar", data)
    inv, _ = scan_dir(tmp_path)
    skips = [s for s in inv.skipped if s.path == "/opt/app/lib/odd.jar"]
    assert [s.reason for s in skips] == [SkipReason.PARSE_ERROR], skips
    assert cause in skips[0].detail


def test_a_truncated_deflated_member_raises_no_eoferror() -> None:
    whole = zip_one_member("a/pom.properties", deflate_zeros(16 << 20), 16 << 20)
    local_end = 30 + len("a/pom.properties")
    cut = whole[: local_end + 3000]  # the member's data stops after 3000 bytes
    problems: list[ZipProblem] = []
    assert list(ziparchive.members(cut + whole[-(46 + 16 + 22) :], lambda n: True, problems)) == []
    assert problems and problems[0].kind is ProblemKind.UNREADABLE


def test_a_real_jar_still_gives_its_coordinates(tmp_path: Path, scan_dir: ScanFn) -> None:
    import zipfile

    jar = tmp_path / "root/.m2/repository/com/anthropic/anthropic-java/2.1.0/anthropic-java-2.1.0.jar"
    jar.parent.mkdir(parents=True)
    with zipfile.ZipFile(jar, "w", zipfile.ZIP_DEFLATED) as z:
        z.writestr("META-INF/maven/com.anthropic/anthropic-java/pom.properties", "groupId=com.anthropic\n"
                   "artifactId=anthropic-java\nversion=2.1.0\n")
    inv, _ = scan_dir(tmp_path)
    assert [(s.name, s.version) for s in inv.sdks if s.ecosystem == "maven"] == [
        ("com.anthropic:anthropic-java", "2.1.0")
    ]
    assert not inv.skipped


def test_past_the_entry_cap_the_walk_stops_and_says_how_far() -> None:
    data = many_member_jar(1_000, last=("META-INF/maven/g/a/pom.properties", b"version=1\n"))
    problems: list[ZipProblem] = []
    assert list(ziparchive.members(data, lambda n: n.endswith(".properties"), problems, max_entries=600)) == []
    assert problems == [
        ZipProblem(ProblemKind.CAP, "zip entries past the first 600 not looked at (1,001 in all by the end record; "
                                    "0 wanted)")
    ]
    assert [m.name for m in ziparchive.members(data, lambda n: n.endswith(".properties"), [])] == [
        "META-INF/maven/g/a/pom.properties"
    ]


# --- ELF ----------------------------------------------------------------------------------------------


def test_an_elf_section_table_past_2_to_the_63_is_no_overflow(tmp_path: Path, scan_dir: ScanFn) -> None:
    header = bytearray(64)
    header[:6] = b"\x7fELF\x02\x01"
    struct.pack_into("<Q", header, 0x28, 0xFFFF_FFFF_FFFF_FF00)  # e_shoff
    struct.pack_into("<HHH", header, 0x3A, 64, 3, 1)  # e_shentsize, e_shnum, e_shstrndx
    data = bytes(header) + bytes(4096)
    assert elf.section(data, ".dep-v0") is None  # was OverflowError from struct
    write(tmp_path, "/usr/local/bin/odd", data)
    inv, _ = scan_dir(tmp_path)
    assert not [s for s in inv.skipped if s.reason is SkipReason.DETECTOR_ERROR]


def test_an_elf_entry_size_smaller_than_a_header_reads_nothing() -> None:
    header = bytearray(64)
    header[:6] = b"\x7fELF\x01\x01"
    struct.pack_into("<I", header, 0x20, 64)
    struct.pack_into("<HHH", header, 0x2E, 1, 4, 0)
    assert elf.section(bytes(header) + bytes(256), ".dep-v0") is None


# --- SQLite session stores ------------------------------------------------------------------------------

_RECURSIVE_VIEW = (
    "CREATE VIEW agent_messages AS WITH RECURSIVE r(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM r) "
    "SELECT i AS id, 's' AS session_id, printf('%.*c', 1000, 'x') AS message_data, i AS created_at "
    "FROM r ORDER BY message_data, i"
)


def test_a_recursive_view_is_never_run_and_writes_no_temp_file(tmp_path: Path) -> None:
    root = tmp_path / "vm"
    db = sqlite_file(root / "home/dev/.agents/session.db", ["CREATE TABLE t(x)", _RECURSIVE_VIEW])
    assert db.stat().st_size <= 8192
    temp = tmp_path / "sqlite-temp"
    temp.mkdir()
    result = scan_in_child(root, {"SQLITE_TMPDIR": str(temp), "TMPDIR": str(temp)})
    assert result["rss_mb"] < RSS_LIMIT_MB
    assert list(temp.iterdir()) == []
    assert "detector-error" not in reasons(result["skipped"])


def test_the_work_budget_stops_a_runaway_query_in_memory(tmp_path: Path) -> None:
    db = sqlite_file(tmp_path / "s.db", ["CREATE TABLE t(x)"])
    temp = tmp_path / "sqlite-temp"
    temp.mkdir()
    os.environ["SQLITE_TMPDIR"] = str(temp)
    try:
        with pytest.raises(StoreBudgetExceeded), open_store(db.read_bytes(), budget=2_000_000) as con:
            con.execute(_RECURSIVE_VIEW.split(" AS ", 1)[1]).fetchall()
    finally:
        del os.environ["SQLITE_TMPDIR"]
    assert list(temp.iterdir()) == []
    with open_store(db.read_bytes()) as con:
        # Temp b-trees and sorts stay in memory (SQLite unlinks its temp files at once: a listing cannot tell).
        assert con.execute("PRAGMA temp_store").fetchone() == (2,)
        with pytest.raises(sqlite3.OperationalError, match="readonly"):
            con.execute("INSERT INTO t VALUES (1)")  # and the store stays read-only


def test_a_sort_past_the_heap_limit_is_a_budget_overrun(tmp_path: Path) -> None:
    db = sqlite_file(tmp_path / "s.db", ["CREATE TABLE t(x)"])
    sort = _RECURSIVE_VIEW.split(" AS ", 1)[1]  # an endless sort, kept in memory: the heap limit ends it
    with pytest.raises(StoreBudgetExceeded, match="memory limit|work budget"), open_store(db.read_bytes()) as con:
        con.execute(sort).fetchall()


def test_huge_rows_from_a_4_kb_store_are_refused_not_fetched(tmp_path: Path) -> None:
    root = tmp_path / "vm"
    sqlite_file(
        root / "home/dev/.agents/session.db",
        [
            "CREATE TABLE agent_messages (id INTEGER PRIMARY KEY, session_id TEXT, created_at TEXT,"
            " message_data TEXT GENERATED ALWAYS AS (printf('%.*c', 9, 'x')) VIRTUAL)",
            "INSERT INTO agent_messages (session_id, created_at) VALUES ('s1', '2026-01-01')",
            # Made hostile after the insert, as an attacker edits the schema text: 900 MB per row on read.
            "PRAGMA writable_schema = ON",
            "UPDATE sqlite_master SET sql = replace(sql, '9,', '900000000,') WHERE name = 'agent_messages'",
        ],
    )
    result = scan_in_child(root)
    assert result["rss_mb"] < RSS_LIMIT_MB
    assert "detector-error" not in reasons(result["skipped"])


def test_a_stored_row_over_the_cap_is_counted_and_the_rest_read(tmp_path: Path) -> None:
    db = sqlite_file(
        tmp_path / "s.db",
        [
            "CREATE TABLE agent_messages (id INTEGER PRIMARY KEY, session_id TEXT, message_data TEXT, created_at TEXT)",
            "INSERT INTO agent_messages (session_id, message_data)"
            " VALUES ('s', '{\"a\": \"' || printf('%.*c', 5000000, 'x') || '\"}')",
            "INSERT INTO agent_messages (session_id, message_data)"
            " VALUES ('s', '{\"role\": \"user\", \"content\": \"hi\"}')",
        ],
    )
    notes = ReadNotes()
    read = list(sqlite_rows.read(db.read_bytes(), notes, sqlite_rows.StoreRead()))
    assert [r.value["message_data"] for r in read] == [None, {"role": "user", "content": "hi"}]
    assert [reason for reason, _ in notes.skips()] == [SkipReason.CAP_REACHED]  # the value over the cap, counted


def test_a_budget_overrun_is_recorded_as_a_skip(tmp_path: Path) -> None:
    db = sqlite_file(
        tmp_path / "s.db",
        [
            "CREATE TABLE agent_messages (id INTEGER PRIMARY KEY, session_id TEXT, message_data TEXT, created_at TEXT)",
            "WITH RECURSIVE r(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM r LIMIT 5000) "
            "INSERT INTO agent_messages (session_id, message_data)"
            " SELECT 's', '{\"role\": \"user\", \"content\": \"hi\"}' FROM r",
        ],
    )
    notes = ReadNotes()
    read = list(sqlite_rows.read(db.read_bytes(), notes, sqlite_rows.StoreRead(), budget=20_000))
    assert 0 < len(read) < 5000  # what was read before the budget ran out stays read
    assert [reason for reason, _ in notes.skips()] == [SkipReason.BUDGET_EXCEEDED]
    assert len(list(sqlite_rows.read(db.read_bytes(), ReadNotes(), sqlite_rows.StoreRead()))) == 5000


# --- gzip logs ------------------------------------------------------------------------------------------

_KEY = "sk-ant-api03-" + "gZ7" * 31 + "AA"


def test_a_key_inside_a_jsonl_gz_is_a_credential(tmp_path: Path, scan_dir: ScanFn) -> None:
    import gzip

    line = json.dumps({"role": "user", "content": f"export ANTHROPIC_API_KEY={_KEY}", "model": "claude-opus-4-1"})
    write(tmp_path, "/home/dev/.agent/logs/run.jsonl.gz", gzip.compress((line + "\n").encode()))
    inv, doc = scan_dir(tmp_path)
    assert [c.type for c in inv.credentials] == ["anthropic-api-key"]
    assert inv.credentials[0].locations[0].location.path == "/home/dev/.agent/logs/run.jsonl.gz"
    assert _KEY not in json.dumps(doc)


def test_a_gzip_log_past_the_inflation_cap_is_recorded(tmp_path: Path) -> None:
    root = tmp_path / "vm"
    head = json.dumps({"role": "user", "content": "hi", "model": "claude-opus-4-1"}).encode() + b"\n"
    write(root, "/home/dev/.agent/logs/big.jsonl.gz", gzip_zeros(head, 576 << 20))
    result = scan_in_child(root)
    assert result["rss_mb"] < RSS_LIMIT_MB
    limits = [s["detail"] for s in result["skipped"] if s["reason"] == "decompression-limit"]
    assert any(d.startswith("session log: gzip inflated only up to") for d in limits), result["skipped"]
    assert any("gzip content matched only" in d for d in limits)

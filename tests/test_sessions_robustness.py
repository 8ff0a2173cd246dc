"""Bad session logs never crash a scan and never cost more than a bounded amount of memory."""

from __future__ import annotations

import gzip
import json
import os
import random
import tracemalloc
import zlib
from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st

from scanner.catalog import Catalog
from scanner.sessions.collect import collect
from scanner.sessions.reader import MAX_INFLATED, MAX_LINE, ReadNotes, records
from tests.conftest import ScanFn, examples, write

DATA = Path(__file__).parent / "data" / "sessions"
SUBAGENT = (
    Path(__file__).parent.parent / "sample_vm/home/agent/.jarvis/sessions/2026-11-20/subagent-ec964d3d4496eba5.jsonl"
)


def test_truncated_last_line_keeps_every_complete_record(scan_dir: ScanFn, tmp_path: Path) -> None:
    data = SUBAGENT.read_bytes()
    cut = data[: data.rfind(b"\n", 0, len(data) - 1) + 40]  # the last record, cut 40 bytes in
    write(tmp_path, "/home/a/.jarvis/sessions/s.jsonl", cut)
    _, doc = scan_dir(tmp_path)
    (s,) = doc["sessions"]
    assert s["records"] == 9
    assert any("truncated" in n for n in s["notes"])
    assert s["providers"][0]["vendor"] == "openai"


def test_malformed_lines_are_counted_not_fatal(scan_dir: ScanFn, tmp_path: Path) -> None:
    lines = SUBAGENT.read_bytes().splitlines(keepends=True)
    mixed = b"".join(lines[:3]) + b"{not json\n" + b'"a string"\n' + b"\xff\xfe\x00garbage\n" + b"".join(lines[3:])
    write(tmp_path, "/var/log/agent/s.jsonl", mixed)
    _, doc = scan_dir(tmp_path)
    (s,) = doc["sessions"]
    assert s["records"] == 10
    assert "3 malformed line(s) skipped" in s["notes"]


def test_binary_garbage_named_like_a_log_is_no_session(scan_dir: ScanFn, tmp_path: Path) -> None:
    rng = random.Random(7)
    write(tmp_path, "/home/a/.claude/projects/p/x.jsonl", b"{" + rng.randbytes(300_000))
    write(tmp_path, "/var/log/agent/y.jsonl.gz", b"\x1f\x8b" + rng.randbytes(10_000))
    inv, doc = scan_dir(tmp_path)
    assert doc["sessions"] == []
    assert not [s for s in inv.skipped if s.reason.value == "detector-error"]


def test_gzip_rotated_log_and_json_gz(scan_dir: ScanFn, tmp_path: Path) -> None:
    write(tmp_path, "/home/a/.jarvis/sessions/old/subagent.jsonl.gz", gzip.compress(SUBAGENT.read_bytes()))
    write(
        tmp_path,
        "/var/log/capture/azure.json.gz",
        gzip.compress((DATA / "api-azure-openai/azure-tool-call.1.json").read_bytes()),
    )
    _, doc = scan_dir(tmp_path)
    vias = sorted((s["format"], s["providers"][0]["served_via"]) for s in doc["sessions"])
    assert vias == [("api-response", "azure"), ("generic", "azure")]


def test_gzip_bomb_is_inflated_only_up_to_the_bound() -> None:
    # 2 GiB of one endless line, compressed to about 2 MiB: neither the bytes nor the line may be held.
    comp = zlib.compressobj(9, zlib.DEFLATED, 31)
    block = b"{" + b"a" * ((1 << 20) - 1)
    bomb = b"".join(comp.compress(block) for _ in range(2048)) + comp.flush()
    assert len(bomb) < 8 << 20
    notes = ReadNotes()
    tracemalloc.start()
    try:
        found = list(records(bomb, notes, max_inflated=MAX_INFLATED))
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert found == []
    assert notes.inflate_capped and notes.long_lines == 1
    assert peak < 2 * MAX_LINE + (8 << 20)


def test_keys_a_log_invents_are_classed_not_kept(catalog: Catalog) -> None:
    """The walk's caches of key classes hold short keys only: a log whose records invent 16 KB keys (an id-like
    `…_id`, so a fingerprint rule may read it) costs its records' memory while they are read, never after."""
    lines = (
        json.dumps({f"{n:05d}{i}{'k' * (16 << 10)}_id": "call_df1db1afefc8cb0e1936524a9ad401f8" for i in range(5)})
        for n in range(100)
    )
    data = "\n".join(lines).encode()
    tracemalloc.start()
    try:
        collect("/var/log/a.jsonl", "/var/log/a.jsonl", None, data, catalog)
        kept, _ = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert kept < len(data) // 8, kept  # 8 MB of keys read; kept, they would be all of it


def test_many_sessions_in_one_file_are_bounded(catalog: Catalog) -> None:
    lines = (
        json.dumps({"session_id": f"s{i}", "model": "m", "id": "call_df1db1afefc8cb0e1936524a9ad401f8"})
        for i in range(800)
    )
    data = "\n".join(lines).encode()
    sessions, _ = collect("/var/log/a.jsonl", "/var/log/a.jsonl", None, data, catalog)
    assert len(sessions) == 500
    assert "300 record(s) of sessions beyond 500 per file not attributed" in sessions[0].notes


@settings(max_examples=examples(200), deadline=None)
@given(st.binary(max_size=4096))
def test_any_bytes_are_read_without_error(data: bytes) -> None:
    notes = ReadNotes()
    for record in records(data, notes):
        assert isinstance(record.value, dict)
    for prefix in (b"{", b"[", b"\x1f\x8b"):
        list(records(prefix + data, ReadNotes()))


@settings(max_examples=examples(100), deadline=None)
@given(
    st.lists(
        st.dictionaries(
            st.sampled_from(
                [
                    "id",
                    "call_id",
                    "type",
                    "model",
                    "encrypted_content",
                    "signature",
                    "content",
                    "session_id",
                    "timestamp",
                ]
            ),
            st.recursive(
                st.none() | st.booleans() | st.integers() | st.text(max_size=60),
                lambda c: st.lists(c, max_size=3) | st.dictionaries(st.text(max_size=8), c, max_size=3),
                max_leaves=8,
            ),
        ),
        max_size=6,
    )
)
def test_any_record_shapes_are_attributed_without_error(catalog: Catalog, rows: list[dict[str, object]]) -> None:
    data = "\n".join(json.dumps(r) for r in rows).encode()
    collect("/var/log/x.jsonl", "/var/log/x.jsonl", None, data, catalog)


def test_a_huge_log_is_read_only_up_to_the_file_size_limit(scan_dir: ScanFn, tmp_path: Path) -> None:
    line = SUBAGENT.read_bytes().splitlines(keepends=True)[2]
    path = write(tmp_path, "/var/log/agent/big.jsonl", b"")
    with path.open("wb") as fh:
        for _ in range((3 << 20) // len(line) + 1):
            fh.write(line)
    inv, doc = scan_dir(tmp_path, max_file_size=1 << 20)
    assert [s.reason.value for s in inv.skipped] == ["too-large"]
    (s,) = doc["sessions"]
    assert s["providers"][0]["vendor"] == "openai"
    assert os.path.getsize(path) > 3 << 20


# --- every record reads as the stdlib's json reads it -------------------------------------------

_NUMBER_TEXT = st.one_of(
    st.integers(min_value=-(10**40), max_value=10**40).map(str),  # past 64 bits too: those stay ints
    st.floats(allow_nan=True, allow_infinity=True).map(repr),  # nan / inf: the stdlib's own extension
    st.from_regex(r"-?(0|[1-9][0-9]{0,25})(\.[0-9]{1,20})?([eE][+-]?[0-9]{1,3})?", fullmatch=True),
)
_SCALAR_TEXT = st.one_of(
    _NUMBER_TEXT,
    st.text(max_size=20).map(json.dumps),  # with \u escapes, lone surrogates included
    st.text(max_size=20).map(lambda t: json.dumps(t, ensure_ascii=False)),
    st.sampled_from(["true", "false", "null", '"\\ud800"', '"a\\u0000b"']),
)


@st.composite
def _json_text(draw: st.DrawFn, depth: int = 0) -> str:
    if depth > 3 or draw(st.booleans()):
        return draw(_SCALAR_TEXT)
    items = draw(st.lists(_json_text(depth + 1), max_size=4))
    if draw(st.booleans()):
        return "[" + ", ".join(items) + "]"
    keys = draw(st.lists(st.text(max_size=6).map(json.dumps), min_size=len(items), max_size=len(items)))
    return "{" + ",".join(f"{k}: {v}" for k, v in zip(keys, items, strict=True)) + "}"


def _stdlib(line: bytes) -> object:
    try:
        return json.loads(line)
    except (ValueError, RecursionError):
        return None


@settings(max_examples=examples(400), deadline=None)
@given(_json_text(), st.sampled_from([b"", b" ", b"\t", b"\xef\xbb\xbf", b"x", b"\x00"]), st.booleans())
def test_records_read_exactly_as_the_stdlib_reads_each_line(text: str, noise: bytes, before: bool) -> None:
    body = text.encode("utf-8", "surrogatepass")
    line = noise + body if before else body + noise
    expected = _stdlib(line)
    got = [r.value for r in records(b'{"first": 1}\n' + line + b"\n", ReadNotes())][1:]
    if isinstance(expected, dict):
        assert len(got) == 1 and repr(got[0]) == repr(expected)  # repr: 1 and 1.0, -0.0 and nan told apart
    else:
        assert got == []


@settings(max_examples=examples(300), deadline=None)
@given(st.lists(st.sampled_from([b"\n", b"\r\n", b" ", b"{}", b'{"a": 1}', b"\xff", b"x" * 70_000]), max_size=40))
def test_a_plain_logs_lines_are_those_its_pieces_give(parts: list[bytes]) -> None:
    # Lines cut from a plain file's bytes directly are the lines its 1 MiB pieces gave (CHUNK-spanning ones too).
    from scanner.sessions.reader import all_lines, chunks, lines

    data = b"".join(parts) * 2  # up to 5.6 MB: lines span pieces, none past MAX_LINE
    direct, pieced = ReadNotes(), ReadNotes()
    assert list(all_lines(data, direct)) == list(lines(chunks(data, notes=pieced), pieced))
    assert direct == pieced

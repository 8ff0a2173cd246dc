"""The session reader's work bounds, unit by unit: blank runs and repeats counted at C speed (with the right line
numbers, in one piece or many), the work budget's cut and its counts, and a JSON document too big to build; and
a hit's line looked up without rescanning a long line."""

from __future__ import annotations

import gzip
import json

import pytest
from hypothesis import given
from hypothesis import strategies as st

from scanner.catalog import Catalog
from scanner.catalog.matcher import PatternKind
from scanner.fileview.view import FileView, Window
from scanner.formats.jsonsize import MAX_CONTAINERS as MAX_DOCUMENT_CONTAINERS
from scanner.model import FileMeta, SkipReason
from scanner.sessions.budget import WorkBudget
from scanner.sessions.formats import transcript
from scanner.sessions.reader import Fold, ReadNotes, all_lines, lines, records
from scanner.targets.base import FileEntry


def _reference(text: bytes, fold: bool) -> tuple[list[tuple[int, bytes]], int, int]:
    """(number, line) of every non-blank line, the blank count and the repeat count, read one line at a time."""
    out: list[tuple[int, bytes]] = []
    blank = repeats = 0
    previous: bytes | None = None
    body, _, tail = text.rpartition(b"\n")
    for number, line in enumerate(body.split(b"\n") if body or text.startswith(b"\n") else [], 1):
        if not line or line.isspace():
            blank += 1
            previous = None
        elif fold and line == previous:
            repeats += 1
        else:
            out.append((number, line))
            previous = line
    return out, blank, repeats


_LINE = st.sampled_from([b"", b" ", b"\t\r", b"{}", b'{"a":1}', b"x", b"{}  "])


@given(st.lists(_LINE, max_size=40), st.lists(st.integers(0, 400), max_size=6), st.booleans())
def test_lines_in_pieces_are_the_lines_read_one_by_one(parts: list[bytes], cuts: list[int], fold: bool) -> None:
    text = b"\n".join(parts) + b"\n"
    expected, blank, repeats = _reference(text, fold)
    # One piece: exactly the reference.
    notes = ReadNotes()
    assert [(n, line) for n, line, _ in all_lines(text, notes, fold=Fold(fold))] == expected
    assert (notes.blank, notes.repeats) == (blank, repeats)
    # Many pieces (a gzip stream's): the same lines at the same numbers; a repeat met across a piece's edge
    # may be yielded again rather than folded, never lost.
    edges = sorted({min(c, len(text)) for c in cuts} | {0, len(text)})
    pieces = [text[a:b] for a, b in zip(edges, edges[1:], strict=False)]
    notes = ReadNotes()
    got = [(n, line) for n, line, _ in lines(iter(pieces), notes, Fold(fold))]
    assert set(expected) <= set(got) and all(text.split(b"\n")[n - 1] == line for n, line in got)
    assert len(got) + notes.blank + notes.repeats == len(expected) + blank + repeats


def test_a_blank_run_keeps_the_line_numbers() -> None:
    data = b'{"role":"user","sessionId":"a"}\n' + b"\n" * 100_000 + b"  \r\n\t\n" + b'{"role":"assistant"}\n'
    notes = ReadNotes()
    assert [r.line for r in records(data, notes)] == [1, 100_004]
    assert notes.blank == 100_002 and notes.budget.lines == 2


def test_repeats_are_folded_in_a_jsonl_log_only() -> None:
    notes = ReadNotes()
    jsonl = b'{"a":1}\n' * 5 + b'{"a":2}\n' + b'{"a":1}\n'
    assert [(r.line, r.value) for r in records(jsonl, notes)] == [(1, {"a": 1}), (6, {"a": 2}), (7, {"a": 1})]
    assert notes.repeats == 4
    assert "4 line(s) identical to the line before them read once" in notes.summary()
    # In a JSON document a repeated line is part of the value.
    document = b'[\n{"a":\n[\n0,\n0,\n0\n]\n},\n{"a":\n[\n0,\n0,\n0\n]\n}\n]\n'
    notes = ReadNotes()
    assert [r.value for r in records(document, notes)] == [{"a": [0, 0, 0]}] * 2
    assert notes.repeats == 0


def test_the_line_budget_cuts_and_says_where_with_its_counts() -> None:
    data = b"".join(b'{"n":%d}\n' % i for i in range(10))
    notes = ReadNotes(budget=WorkBudget(max_lines=5))
    assert [r.value["n"] for r in records(data, notes)] == [0, 1, 2, 3, 4]
    [(reason, detail)] = notes.skips()
    assert reason is SkipReason.BUDGET_EXCEEDED
    assert detail.startswith("work budget of 5 lines spent at line 6 (0 records, 5 lines, 0 parser events read)")


def test_the_line_budget_holds_for_a_markdown_history_too() -> None:
    data = b"".join(b"# aider chat started at 2025-04-20 12:%02d:00\n" % (i % 60) for i in range(50))
    notes = ReadNotes(budget=WorkBudget(max_lines=10))
    assert len(list(transcript.read(data, notes))) == 10
    assert notes.budget.cut and notes.budget.cut_line == 11


def test_a_gzip_log_of_blank_lines_is_counted_not_looped() -> None:
    data = gzip.compress(b'{"sessionId":"a"}\n' + b"\n" * (8 << 20) + b'{"sessionId":"a","n":2}\n')
    notes = ReadNotes()
    assert [r.line for r in records(data, notes)] == [1, (8 << 20) + 2]
    assert notes.blank == 8 << 20 and notes.budget.lines == 2


def test_a_json_document_of_too_many_objects_is_not_built() -> None:
    data = b"[" + b"{}," * MAX_DOCUMENT_CONTAINERS + b"{}]"
    notes = ReadNotes()
    assert list(records(data, notes)) == []
    [(reason, detail)] = notes.skips()
    assert reason is SkipReason.BUDGET_EXCEEDED
    assert detail.startswith(f"JSON document of {MAX_DOCUMENT_CONTAINERS + 2:,} objects and arrays")
    # A real document, however long, is read whole.
    real = json.dumps([{"role": "user", "content": "x" * 100, "n": i} for i in range(20_000)]).encode()
    notes = ReadNotes()
    assert len(list(records(real, notes))) == 20_000 and not notes.skips()


@given(st.lists(st.sampled_from([b"a", b"#", b"\n", b" ", b"xy"]), max_size=60), st.lists(st.integers(0, 80)))
def test_line_text_is_the_head_of_the_line_in_any_order(
    catalog: Catalog, parts: list[bytes], offsets: list[int]
) -> None:
    # A line's start is searched back only to the last offset asked (thousands of hits on one long line never
    # rescan it); asked in any order, the answer is the naive one.
    data = b"".join(parts)
    entry = FileEntry("/etc/x.conf", len(data), 0o100644, 0, 0)
    view = FileView(entry, data, catalog, lambda e: FileMeta("0644", "root:root"), lambda p, n: None)
    for offset in (min(o, len(data)) for o in offsets):
        start = data.rfind(b"\n", 0, offset) + 1
        end = data.find(b"\n", offset)
        assert view.line_text(offset) == data[start : end if end != -1 else len(data)][:4096].decode()


@given(st.lists(st.integers(0, 3000), min_size=1, max_size=60), st.lists(st.floats(0, 1), max_size=40))
def test_line_of_is_the_line_in_any_order(catalog: Catalog, lengths: list[int], where: list[float]) -> None:
    # Lines are counted on from the last offset asked, or from the nearest mark behind an offset asked again (a
    # second pass over a log's hits); asked in any order, the answer is the naive one.
    data = b"".join(b"x" * n + b"\n" for n in lengths)
    entry = FileEntry("/var/log/x.log", len(data), 0o100644, 0, 0)
    view = FileView(entry, data, catalog, lambda e: FileMeta("0644", "root:root"), lambda p, n: None)
    offsets = [int(w * len(data)) for w in where]
    for offset in [*offsets, *sorted(offsets), *offsets]:
        assert view.line_of(offset) == 1 + data.count(b"\n", 0, offset)


def test_a_views_line_bookkeeping_is_neither_passed_in_nor_compared(catalog: Catalog) -> None:
    # Cursors and marks are made by asking lines: a view asked some lines is still the view of the same file.
    data = b"a\nb\n" * 5000
    entry = FileEntry("/var/log/x.log", len(data), 0o100644, 0, 0)
    owner, read = (lambda e: FileMeta("0644", "root:root")), (lambda p, n: None)
    asked, fresh = FileView(entry, data, catalog, owner, read), FileView(entry, data, catalog, owner, read)
    assert asked.line_of(len(data) - 1) == 10_000 and asked.line_text(5) == "a"
    assert asked == fresh
    with pytest.raises(TypeError):
        FileView(entry, data, catalog, owner, read, _line_cursor=(0, 7))  # type: ignore[call-arg]


@given(st.lists(st.sampled_from(["gpt-4o", "anthropic/claude-sonnet-4-5", "prose", "\n", "\n\n", " "]), max_size=40))
def test_a_logs_mentions_are_on_the_lines_line_of_gives(catalog: Catalog, parts: list[str]) -> None:
    # The mentions count their lines apart from `line_of`, forward from the first: the same lines.
    data = "".join(parts).encode()
    entry = FileEntry("/var/log/agent/x.jsonl", len(data), 0o100644, 0, 0)
    view = FileView(entry, data, catalog, lambda e: FileMeta("0644", "root:root"), lambda p, n: None)
    expected: dict[int, set[str]] = {}
    for hit in view.hits:
        if hit.kind in (PatternKind.MODEL, PatternKind.HOSTED):
            expected.setdefault(1 + data.count(b"\n", 0, hit.start), set()).add(hit.text.decode())
    assert view._mentions() == expected


@given(st.lists(st.sampled_from(["gpt-4o", "anthropic/claude-sonnet-4-5", "prose", "\n", "\n\n", " "]), max_size=40),
       st.integers(1, 10_000))  # fmt: skip
def test_a_windows_mentions_and_lines_are_the_whole_files(catalog: Catalog, parts: list[str], line_base: int) -> None:
    # A later window of a big file counts its lines on from its first byte's line in the file (`line_base`).
    data = "".join(parts).encode()
    entry = FileEntry("/var/log/agent/x.jsonl", 1 << 30, 0o100644, 0, 0)
    window = Window(offset=1 << 20, owned_from=0, owned_to=len(data), line_base=line_base)
    view = FileView(entry, data, catalog, lambda e: FileMeta("0644", "root:root"), lambda p, n: None, window=window)
    expected: dict[int, set[str]] = {}
    for hit in view.hits:
        if hit.kind in (PatternKind.MODEL, PatternKind.HOSTED):
            expected.setdefault(line_base + data.count(b"\n", 0, hit.start), set()).add(hit.text.decode())
    assert view._mentions() == expected
    for hit in view.hits:
        assert view.line_of(hit.start) == line_base + data.count(b"\n", 0, hit.start)

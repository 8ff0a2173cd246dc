"""Records out of a log's bytes, streamed: JSONL, a JSON array or object, gzip-compressed or not.

Memory is bounded whatever the input: gzip is inflated in chunks up to MAX_INFLATED bytes, a line longer
than MAX_LINE is dropped (and counted), a whole-document JSON file is parsed only up to MAX_DOCUMENT
bytes, and only one line or document is held at a time. Work is bounded too: a file may cost at most its
`WorkBudget` of lines, records and parser events, so a file of millions of tiny records stops in seconds.
A run of blank lines, and in a JSONL log a run of identical lines, is counted at C speed and costs one
step. Nothing raises: what could not be read is counted in `ReadNotes`.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any

import msgspec

from scanner.formats import deflate, jsonsize
from scanner.model import SkipReason
from scanner.sessions.budget import WorkBudget

GZIP_MAGIC = b"\x1f\x8b"
CHUNK = 1 << 20
MAX_LINE = 8 << 20
MAX_DOCUMENT = 32 << 20
MAX_INFLATED = 512 << 20
# A file whose first lines are all garbage is not a log: stop reading it early.
_GIVE_UP_AFTER = 64
_BLANKS = re.compile(rb"[ \t\r\n\f\v]*\n")  # a run of blank lines, up to its last newline (one C call)
_FOLD_BLOCK = 1 << 20  # repeats of one line are compared in blocks up to this size


@dataclass
class ReadNotes:
    malformed: int = 0  # complete lines that were not a JSON object
    long_lines: int = 0  # lines over MAX_LINE, skipped
    truncated_tail: bool = False  # the last line ended mid-record (a log cut while written)
    inflate_capped: bool = False  # gzip output stopped at MAX_INFLATED
    inflate_error: bool = False  # gzip stream corrupt or cut; what came before it was read
    document_too_large: bool = False
    gave_up: bool = False
    extra: list[str] = field(default_factory=list)
    limits: list[tuple[SkipReason, str]] = field(default_factory=list)  # bounds reached, recorded as skips too
    budget: WorkBudget = field(default_factory=WorkBudget)
    blank: int = 0  # blank lines, skipped as runs
    repeats: int = 0  # lines of a JSONL log equal to the line before them, read once

    def limit(self, reason: SkipReason, detail: str) -> None:
        self.limits.append((reason, detail))
        self.extra.append(detail)

    def skips(self) -> list[tuple[SkipReason, str]]:
        """What a bound cut from this file, as (reason, detail) for `skipped`: never only a note in a session."""
        out = []
        if self.inflate_capped:
            out.append((SkipReason.DECOMPRESSION_LIMIT, f"gzip inflated only up to {MAX_INFLATED >> 20} MiB"))
        if self.long_lines:
            out.append((SkipReason.CAP_REACHED, f"{self.long_lines} line(s) over {MAX_LINE >> 20} MiB not read"))
        if self.document_too_large:
            out.append((SkipReason.CAP_REACHED, f"JSON document over {MAX_DOCUMENT >> 20} MiB not parsed"))
        if self.budget.cut:
            out.append((SkipReason.BUDGET_EXCEEDED, self.budget.detail()))
        if self.budget.bodies_cut:
            out.append((SkipReason.BUDGET_EXCEEDED, self.budget.bodies_detail()))
        return out + self.limits

    def summary(self) -> tuple[str, ...]:
        out = []
        if self.truncated_tail:
            out.append("last record truncated (cut mid-line); every complete record was read")
        if self.malformed:
            out.append(f"{self.malformed} malformed line(s) skipped")
        if self.long_lines:
            out.append(f"{self.long_lines} line(s) over {MAX_LINE >> 20} MiB skipped")
        if self.inflate_capped:
            out.append(f"gzip inflated only up to {MAX_INFLATED >> 20} MiB")
        if self.inflate_error:
            out.append("gzip stream corrupt or cut; the readable part was read")
        if self.document_too_large:
            out.append(f"JSON document over {MAX_DOCUMENT >> 20} MiB not parsed")
        if self.gave_up:
            out.append("not a log after the first lines; stopped reading")
        if self.repeats:
            out.append(f"{self.repeats} line(s) identical to the line before them read once")
        if self.budget.cut:
            out.append(self.budget.detail())
        if self.budget.bodies_cut:
            out.append(self.budget.bodies_detail())
        return tuple(out + self.extra)


@dataclass(slots=True)
class Record:
    """One record of a log (one per line: slotted, not frozen, to build cheaply)."""

    line: int | None  # 1-based line of a JSONL record; None inside a JSON document
    value: dict[str, Any]
    end: int | None = None  # the last line of a record that spans several (a transcript's turn)


def chunks(data: bytes, max_inflated: int = MAX_INFLATED, notes: ReadNotes | None = None) -> Iterator[bytes]:
    """The file's bytes in bounded pieces, gzip (all members) inflated on the way."""
    if not data.startswith(GZIP_MAGIC):
        for start in range(0, len(data), CHUNK):
            yield data[start : start + CHUNK]
        return
    produced = 0
    pos = 0
    inflater = deflate.decompressobj(wbits=31)
    pending = b""
    while produced < max_inflated:
        if not pending:
            if pos >= len(data):
                break
            pending, pos = data[pos : pos + CHUNK], pos + CHUNK
        try:
            out = inflater.decompress(pending, min(CHUNK, max_inflated - produced))
        except deflate.error:
            if notes:
                notes.inflate_error = True
            return
        pending = inflater.unconsumed_tail
        if out:
            produced += len(out)
            yield out
        if inflater.eof:
            rest = inflater.unused_data + pending + data[pos:]
            if not rest.startswith(GZIP_MAGIC):
                return
            data, pos, pending = rest, 0, b""
            inflater = deflate.decompressobj(wbits=31)
    else:
        if notes:
            notes.inflate_capped = True
        return
    if not inflater.eof and notes:
        notes.inflate_error = True


class Fold:
    """Whether a line reader folds a run of identical lines into its first (a JSONL log's repeats carry
    nothing new; in a JSON document or a Markdown history a repeated line is part of the text)."""

    __slots__ = ("on",)

    def __init__(self, on: bool = False) -> None:
        self.on = on


def _skip_repeats(data: bytes, unit: bytes, pos: int) -> tuple[int, int]:
    """(end, count) of the copies of `unit` (a line with its newline) at `pos`: compared in blocks that double
    up to _FOLD_BLOCK bytes and halve again at the end, a few dozen C calls for millions of copies."""
    count, block, k = 0, unit, 1
    while True:
        if data.startswith(block, pos):
            pos += len(block)
            count += k
            if len(block) < _FOLD_BLOCK:
                block += block
                k *= 2
        elif k > 1:
            k //= 2
            block = block[: len(unit) * k]
        else:
            return pos, count


def _blank_run(data: bytes, start: int, notes: ReadNotes) -> tuple[int, int]:
    """(end, lines) of the blank lines from `start` (one already found blank) up to the last newline of the run."""
    m = _BLANKS.match(data, start)
    end = m.end() if m else start
    run = data.count(b"\n", start, end)
    notes.blank += run
    return end, run


def lines(pieces: Iterator[bytes], notes: ReadNotes, fold: Fold | None = None) -> Iterator[tuple[int, bytes, bool]]:
    """(line number, line, complete) for every non-blank line; the last one may be incomplete (no newline).
    Each line yielded is charged to the notes' work budget; past it, the lines stop (`budget.cut`)."""
    buf = bytearray()
    number = 0
    skipping = False
    budget = notes.budget
    fold = fold or Fold()
    for piece in pieces:
        start = 0
        while True:
            nl = piece.find(b"\n", start)
            if nl == -1:
                if not skipping:
                    buf += piece[start:]
                    if len(buf) > MAX_LINE:
                        buf.clear()
                        skipping = True
                break
            number += 1
            if skipping:
                notes.long_lines += 1
                skipping = False
                start = nl + 1
                continue
            if buf:
                buf += piece[start:nl]
                line = bytes(buf)
                buf.clear()
            else:
                line = piece[start:nl]  # the usual line, whole in one piece: one copy
            start = nl + 1
            if not line or line.isspace():
                notes.blank += 1
                start, run = _blank_run(piece, start, notes)
                number += run
                continue
            if not budget.take_line(number):
                return
            yield number, line, True
            if fold.on and piece.startswith(line, start):
                start, repeats = _skip_repeats(piece, line + b"\n", start)
                number += repeats
                notes.repeats += repeats
    if skipping:
        notes.long_lines += 1
    elif buf.strip():
        yield number + 1, bytes(buf), False


def all_lines(
    data: bytes, notes: ReadNotes, max_inflated: int = MAX_INFLATED, fold: Fold | None = None
) -> Iterator[tuple[int, bytes, bool]]:
    """`lines` of the file's content: a plain file's lines are cut from its bytes directly (no piece copies),
    a gzip file's from its inflated pieces."""
    if data.startswith(GZIP_MAGIC):
        return lines(chunks(data, max_inflated, notes), notes, fold)
    return _plain_lines(data, notes, fold or Fold())


def _plain_lines(data: bytes, notes: ReadNotes, fold: Fold) -> Iterator[tuple[int, bytes, bool]]:
    find, size = data.find, len(data)
    budget = notes.budget
    number = start = 0
    while start < size:
        nl = find(b"\n", start)
        end = size if nl == -1 else nl
        number += 1
        if end - start > MAX_LINE:
            notes.long_lines += 1
        elif nl != -1:
            line = data[start:end]
            if not line or line.isspace():
                start, run = _blank_run(data, start, notes)
                number += run - 1
                continue
            budget.lines += 1  # `budget.take_line`, inline: this loop runs once a line of every log
            if budget.lines > budget.max_lines:
                budget.stop(number)
                return
            yield number, line, True
            if fold.on and data.startswith(line, nl + 1):
                start, repeats = _skip_repeats(data, line + b"\n", nl + 1)
                number += repeats
                notes.repeats += repeats
                continue
        elif data[start:end].strip():
            yield number, data[start:end], False
        if nl == -1:
            return
        start = nl + 1


_DECODE: Callable[[bytes], Any] = msgspec.json.Decoder().decode


def _load(raw: bytes) -> Any:
    """One JSON value, as `json.loads` reads it; None when it is not JSON. msgspec reads strict JSON (nearly
    every record) at C speed; what it refuses, the stdlib reads with its own wider rules, or refuses too."""
    try:
        return _DECODE(raw)
    except (msgspec.DecodeError, RecursionError):
        return _stdlib_load(raw)


def _stdlib_load(raw: bytes) -> Any:
    try:
        return json.loads(raw)
    except (ValueError, RecursionError):
        return None


def records(data: bytes, notes: ReadNotes, max_inflated: int = MAX_INFLATED) -> Iterator[Record]:
    """Every JSON object record of a log, in order."""
    fold = Fold()
    stream = all_lines(data, notes, max_inflated, fold)
    first = next(stream, None)  # the line reader skips blank lines
    if first is None:
        return
    head = first[1].lstrip()
    value = _load(first[1]) if head.startswith(b"{") else None
    if isinstance(value, dict):
        fold.on = True
        yield Record(first[0], value)
        yield from _jsonl(stream, notes, seen=1)
    elif head.startswith((b"{", b"[")):
        del stream
        yield from _document(data, notes, max_inflated)
    else:
        notes.malformed += 1
        fold.on = True
        yield from _jsonl(stream, notes, seen=0)


def _jsonl(stream: Iterator[tuple[int, bytes, bool]], notes: ReadNotes, seen: int) -> Iterator[Record]:
    decode = _DECODE
    for number, raw, complete in stream:
        try:  # `_load`, inline: once a record
            value = decode(raw)
        except (msgspec.DecodeError, RecursionError):
            value = _stdlib_load(raw)
        if isinstance(value, dict):
            seen += 1
            yield Record(number, value)
        elif not complete:
            notes.truncated_tail = True
        else:
            notes.malformed += 1
            if seen == 0 and notes.malformed >= _GIVE_UP_AFTER:
                notes.gave_up = True
                return


def _document(data: bytes, notes: ReadNotes, max_inflated: int) -> Iterator[Record]:
    """The records of a file that is one JSON value (an array of records, or an object holding them)."""
    if data.startswith(GZIP_MAGIC):
        buf = bytearray()
        for piece in chunks(data, max_inflated, notes):
            buf += piece
            if len(buf) > MAX_DOCUMENT:
                break
        text = bytes(buf)
        del buf
    else:
        text = data
    if len(text) > MAX_DOCUMENT:
        notes.document_too_large = True
        return
    refused = jsonsize.too_big(text)  # every object and array of the value would be built at once
    if refused:
        notes.limit(SkipReason.BUDGET_EXCEEDED, f"{refused}; its text is matched by patterns")
        return
    value = _load(text)
    del text
    if isinstance(value, dict):
        yield Record(None, value)
    elif isinstance(value, list):
        for item in value:
            if isinstance(item, dict):
                yield Record(None, item)
    else:
        notes.malformed += 1

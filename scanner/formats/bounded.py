"""A bounded sequential reader over a positional read, for headers whose lengths the file itself declares.

Weight files (GGUF, safetensors, ONNX) open with a header that says how long its own parts are. A hostile
or damaged header claims 2^40 keys or a 2^60-byte string; a reader that trusts it allocates or loops
forever. Every length read here is checked against what is left of the file and against a budget of header
bytes before anything is read for it, and the reader holds one buffer of at most `_PIECE` bytes however long
the header, so a lie costs a `FormatFailure`, never memory.
"""

from __future__ import annotations

import struct
from collections.abc import Callable
from dataclasses import dataclass
from enum import Enum

# (offset, size) -> at most `size` bytes of the file from `offset` (fewer at its end).
ReadAt = Callable[[int, int], bytes]

_PIECE = 1 << 20


class FailureKind(str, Enum):
    NOT_THIS_FORMAT = "not-this-format"  # the magic is not there
    TRUNCATED = "truncated"  # the header runs past the file's end
    LIMIT = "limit"  # a count, length or the header's size is past the reader's cap
    MALFORMED = "malformed"  # a value the format does not allow (an unknown type, bad JSON)


@dataclass(frozen=True)
class FormatFailure:
    """Why a header was not read; the caller records it as a skip. `detail` may quote target text."""

    format: str
    kind: FailureKind
    detail: str


class Refused(Exception):
    """Raised inside a reader and turned into a `FormatFailure` at its edge; never escapes a parser."""

    def __init__(self, kind: FailureKind, detail: str) -> None:
        super().__init__(detail)
        self.kind = kind
        self.detail = detail


def bytes_reader(data: bytes) -> ReadAt:
    """A positional read over bytes in memory (tests, small files read whole)."""
    return lambda offset, size: data[offset : offset + size]


class Cursor:
    """Reads a header front to back through `read`, at most `budget` bytes of it, never past `size`."""

    def __init__(self, read: ReadAt, size: int, budget: int, start: int = 0) -> None:
        self._read, self.size, self.budget = read, size, budget
        self.pos = start
        self.walked = 0  # bytes taken or skipped so far: what the budget counts (a `jump` is free)
        self._buf, self._buf_at = b"", start

    def left(self) -> int:
        """Bytes of the file after the cursor."""
        return max(0, self.size - self.pos)

    def need(self, count: int, what: str, walk: bool = True) -> None:
        """Refuses `count` bytes that the file or the budget cannot hold, before anything is read for them."""
        if count < 0 or count > self.left():
            raise Refused(FailureKind.TRUNCATED, f"{what} claims {count} bytes, {self.left()} left in the file")
        if walk and self.walked + count > self.budget:
            raise Refused(FailureKind.LIMIT, f"{what} runs past the {self.budget}-byte header cap")

    def take(self, count: int, what: str) -> bytes:
        self.need(count, what)
        end = self.pos + count
        if self.pos < self._buf_at or end > self._buf_at + len(self._buf):
            self._buf_at = self.pos
            self._buf = self._read(self.pos, max(count, min(_PIECE, self.size - self.pos)))
        got = self._buf[self.pos - self._buf_at : end - self._buf_at]
        if len(got) < count:
            raise Refused(FailureKind.TRUNCATED, f"{what}: the file ended early")
        self.pos = end
        self.walked += count
        return got

    def skip(self, count: int, what: str) -> None:
        """Steps over `count` bytes of header (counted against the budget)."""
        self.need(count, what)
        self.pos += count
        self.walked += count

    def jump(self, count: int, what: str) -> None:
        """Steps over `count` bytes that are not header (a model's tensors), within the file, unread."""
        self.need(count, what, walk=False)
        self.pos += count

    def skip_strings(self, count: int, length: str, what: str) -> None:
        """Skips `count` strings each prefixed by a `length` struct field (a vocabulary), in one tight loop:
        a 260k-token vocabulary is walked in a fraction of the time one `uint` and `skip` per token take."""
        field = struct.Struct(length)
        width = field.size
        start, end_of_file = self.pos, min(self.size, self.pos + self.budget - self.walked)
        for i in range(count):
            if self.pos + width > self._buf_at + len(self._buf):
                self.need(width, f"{what}[{i}]")
                self._buf_at, self._buf = self.pos, self._read(self.pos, min(_PIECE, self.size - self.pos))
                if len(self._buf) < width:
                    raise Refused(FailureKind.TRUNCATED, f"{what}[{i}]: the file ended early")
            (n,) = field.unpack_from(self._buf, self.pos - self._buf_at)
            self.pos += width
            if self.pos + n > end_of_file:
                self.walked += self.pos - start
                self.need(n, f"{what}[{i}]")  # raises: past the file or the budget
            self.pos += n
        self.walked += self.pos - start

    def unpack(self, fmt: str, what: str) -> tuple[int | float, ...]:
        return struct.unpack(fmt, self.take(struct.calcsize(fmt), what))

    def uint(self, fmt: str, what: str) -> int:
        (value,) = self.unpack(fmt, what)
        return int(value)

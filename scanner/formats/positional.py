"""A read-only, seekable file over a positional read, for the stdlib's archive readers (zipfile, tarfile)."""

from __future__ import annotations

import io
from collections.abc import Callable
from typing import Any


class PositionalFile(io.RawIOBase):
    """A file over `read(offset, size) -> bytes` (a target's bounded positional read, a container layer's
    `read_at`): the reader asks only for what it parses, never the whole. A short read is the end of the file.
    `size` is the file's length, or None for a stream whose end is not known (it cannot be sought from).
    `past_end` is called for each read asked to start at or past the end (a disk image's tables pointing past
    the end of its file: a truncated image)."""

    def __init__(
        self, read: Callable[[int, int], bytes], size: int | None = None, past_end: Callable[[], None] | None = None
    ) -> None:
        super().__init__()
        self._read, self._size, self._pos, self._past_end = read, size, 0, past_end

    def read_at(self, offset: int, size: int) -> bytes:
        """Up to `size` bytes at `offset`, without moving the position."""
        if self._size is not None:
            size = min(size, self._size - offset)
        return self._read(offset, size) if size > 0 else b""

    def readable(self) -> bool:
        return True

    def seekable(self) -> bool:
        return True

    def tell(self) -> int:
        return self._pos

    def seek(self, offset: int, whence: int = io.SEEK_SET) -> int:
        if whence == io.SEEK_END and self._size is None:
            raise OSError("seek from the end of a stream of unknown length")
        base = {io.SEEK_SET: 0, io.SEEK_CUR: self._pos, io.SEEK_END: self._size or 0}[whence]
        if base + offset < 0:
            raise ValueError("negative seek position")
        self._pos = base + offset
        return self._pos

    def readinto(self, buffer: Any) -> int:
        want = len(buffer) if self._size is None else min(len(buffer), max(0, self._size - self._pos))
        if not want and len(buffer) and self._past_end is not None:
            self._past_end()
        got = self._read(self._pos, want) if want else b""
        buffer[: len(got)] = got
        self._pos += len(got)
        return len(got)

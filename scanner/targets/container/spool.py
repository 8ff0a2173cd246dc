"""Where the files of compressed layers are put once inflated: one unlinked temporary file per image ($TMPDIR),
holding only the files the squashed image shows, read back by position (so forked workers share it).

A compressed layer cannot be read at an offset without inflating it from its start; the walk goes in path order,
not in the layers' order. So each layer is inflated once, in its own order, and what the walk will read is copied
here as it passes. Plain layers need no copy: their files are read in place.
"""

from __future__ import annotations

import os
import tempfile
from dataclasses import dataclass
from typing import IO

PIECE = 1 << 20


@dataclass(frozen=True)
class SpoolSlice:
    """A file's bytes at `start` in the spool."""

    fd: int
    start: int

    def read_at(self, offset: int, size: int) -> bytes:
        return os.pread(self.fd, size, self.start + offset)


class Spool:
    def __init__(self) -> None:
        self._file: IO[bytes] | None = None
        self.size = 0

    def _fd(self) -> int:
        if self._file is None:
            # Kept open as long as the image: the walk reads from it after the layers are squashed.
            self._file = tempfile.TemporaryFile(prefix="modelcensus-layers-", buffering=0)  # noqa: SIM115
        return self._file.fileno()

    def copy(self, source: IO[bytes], size: int) -> SpoolSlice:
        """`size` bytes of `source` put at the spool's end, a piece at a time; raises OSError (a full disk) and
        whatever `source` raises (its layer's stream failing); EOFError if `source` ends early."""
        fd = self._fd()
        start = self.size
        left = size
        while left:
            piece = source.read(min(PIECE, left))
            if not piece:
                raise EOFError(f"the layer's tar ends inside this file ({size - left} of {size} bytes)")
            view = memoryview(piece)
            while view:
                written = os.pwrite(fd, view, self.size)
                view = view[written:]
                self.size += written
            left -= len(piece)
        return SpoolSlice(fd, start)

    def close(self) -> None:
        if self._file is not None:
            self._file.close()
            self._file = None

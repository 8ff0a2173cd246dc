"""Where compressed layers are put once inflated: unlinked temporary files ($TMPDIR), read back by position (so
forked workers share them), kept open as long as the image.

A compressed layer cannot be read at an offset without inflating it from its start; the walk goes in path order, not
in the layers' order. So each layer's tar stream is inflated once, in its own order, into a file of its own
(`temporary`, written by `layer_source.LayerSource`), and its members are read there in place. The one member kind a
tar cannot give in place (a sparse file, whose holes are not in the tar) has its data copied out (`copy`), its holes
left holes. Plain layers need neither: their files are read in place in their blobs.
"""

from __future__ import annotations

import os
import tempfile
from dataclasses import dataclass
from typing import IO

PIECE = 1 << 20


@dataclass(frozen=True, slots=True)  # one for each file of an image: no __dict__ each
class SpoolSlice:
    """A file's bytes at `start` in the spool."""

    fd: int
    start: int

    def read_at(self, offset: int, size: int) -> bytes:
        return os.pread(self.fd, size, self.start + offset)


class Spool:
    def __init__(self) -> None:
        self._file: IO[bytes] | None = None
        self._layers: list[IO[bytes]] = []
        self.size = 0

    def temporary(self) -> int:
        """A new, empty temporary file, closed with the spool: its descriptor."""
        opened = tempfile.TemporaryFile(prefix="modelcensus-layer-", buffering=0)  # noqa: SIM115
        self._layers.append(opened)
        return opened.fileno()

    def _fd(self) -> int:
        if self._file is None:
            # Kept open as long as the image: the walk reads from it after the layers are squashed.
            self._file = tempfile.TemporaryFile(prefix="modelcensus-layers-", buffering=0)  # noqa: SIM115
        return self._file.fileno()

    def copy(self, source: IO[bytes], size: int, regions: list[tuple[int, int]]) -> SpoolSlice:
        """A sparse file of `size` bytes put at the spool's end: only its data `regions` ((offset, length), as
        tarfile gives them) read from `source` and written, a piece at a time, so its holes stay holes of the
        temporary file and take no room in $TMPDIR, whatever size it claims. Raises OSError (a full disk) and
        whatever `source` raises (its layer's stream failing); EOFError if `source` ends early or a region lies past
        the size."""
        fd = self._fd()
        start = self.size
        for offset, length in regions:
            if offset < 0 or length < 0 or offset + length > size:
                raise EOFError(f"the sparse map puts data past the file's size ({offset}+{length} of {size} bytes)")
            source.seek(offset)
            _put(fd, source, start + offset, length)
        self.size = start + size
        os.ftruncate(fd, self.size)  # a file that ends in a hole
        return SpoolSlice(fd, start)

    def close(self) -> None:
        if self._file is not None:
            self._file.close()
            self._file = None
        for opened in self._layers:
            opened.close()
        self._layers.clear()


def _put(fd: int, source: IO[bytes], at: int, size: int) -> None:
    """`size` bytes of `source` written at `at`, a piece at a time."""
    left = size
    while left:
        piece = source.read(min(PIECE, left))
        if not piece:
            raise EOFError(f"the layer's tar ends inside this file ({size - left} of {size} bytes)")
        view = memoryview(piece)
        while view:
            written = os.pwrite(fd, view, at)
            view, at = view[written:], at + written
        left -= len(piece)

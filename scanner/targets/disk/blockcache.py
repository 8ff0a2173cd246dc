"""The volume under each filesystem read in blocks, the most recently used kept: under the filesystem, above what
dissect stacks under it (an LVM mapping, a partition's range, the disk, the format's own mapping: a qcow2's
cluster tables, a vmdk's grains, a VHDX's blocks), each a stream of its own.

The walk does not read a filesystem in the order it lies on the disk (names sorted, not as the files were
written), so it comes back to the same blocks again and again: a small file's data, a neighbour's, an inode
table's block. dissect's streams each keep the one block they read last; a block read again here costs a
dictionary lookup instead of a pass down every layer and a system call. A file whose stream dissect makes from its
runs (`RunlistStream`: ext4, xfs) is read by those runs from the cache directly (`RunsOnDisk`), without the
stream's own buffering. A block whose read reached past the end of
an image file (a truncated image) is never kept: every read of it goes down again, and is counted again, so each
file it holds is failed, not served zeros once the first was.
"""

from __future__ import annotations

import io
from bisect import bisect_right
from collections.abc import Callable
from itertools import accumulate
from typing import Any

from dissect.util.stream import AlignedStream, RunlistStream

from scanner.targets.disk.recent import Recent

BLOCK = 64 << 10
BLOCKS_KEPT = 64  # 4 MiB of all an image's volumes together, in each scan process
PASSING = 4 * BLOCK  # a read larger than this goes past the cache (a big file would only push the rest out)


Blocks = Recent[tuple[int, int], bytes]  # (volume, offset) -> its block, shared by an image's volumes


class CachedDisk(AlignedStream):  # type: ignore[misc]
    def __init__(self, inner: Any, past_end: Callable[[], int], blocks: Blocks | None = None) -> None:
        size = getattr(inner, "size", None)
        if not isinstance(size, int):
            size = inner.seek(0, io.SEEK_END)
            inner.seek(0)
        super().__init__(size, align=BLOCK)
        self._inner = inner
        self._past_end = past_end
        self._blocks: Blocks = Recent(BLOCKS_KEPT) if blocks is None else blocks
        self._me = id(self)  # the volume's part of a key: it lives as long as the image, which holds the blocks

    def _read(self, offset: int, length: int) -> bytes:
        pieces = []
        at, end = offset - offset % BLOCK, min(offset + length, self.size)
        while at < end:
            block = self._block(at)
            pieces.append(block)
            if len(block) < BLOCK:
                break
            at += BLOCK
        data = b"".join(pieces) if len(pieces) != 1 else pieces[0]
        skip = offset % BLOCK
        return data[skip : skip + length] if skip or len(data) > length else data

    def read_at(self, offset: int, size: int) -> bytes:
        """At most `size` bytes at `offset` (fewer at the end), without moving the stream's position."""
        size = min(size, self.size - offset)
        if size <= 0:
            return b""
        if size > PASSING:
            self._inner.seek(offset)
            return bytes(self._inner.read(size))
        return self._read(offset, size)

    def _block(self, at: int) -> bytes:
        found = self._blocks.get((self._me, at))
        if found is not None:
            return found
        before = self._past_end()
        self._inner.seek(at)
        data = bytes(self._inner.read(min(BLOCK, self.size - at)))
        if self._past_end() == before and len(data) == min(BLOCK, self.size - at):
            self._blocks.put((self._me, at), data)
        return data


def cache_volumes(target: Any, past_end: Callable[[], int]) -> None:
    """Each volume a filesystem was found on reads through a `CachedDisk` (a dissect `Volume` reads through its
    `fh`, so the filesystem already opened on it reads through the cache too), all of them through one bound."""
    blocks: Blocks = Recent(BLOCKS_KEPT)
    for fs in getattr(target, "filesystems", []) or []:
        volumes = getattr(fs, "volume", None)
        for volume in volumes if isinstance(volumes, list) else [volumes]:
            fh = getattr(volume, "fh", None)
            if volume is not None and fh is not None and not isinstance(fh, CachedDisk):
                volume.fh = CachedDisk(fh, past_end, blocks)


class RunsOnDisk:
    """A file's bytes read by its runs (dissect's, as its `RunlistStream` holds them: (block or None for a hole,
    count); a btrfs file's extents, in bytes) from the cached volume under it, as that stream reads them: a hole
    reads as zeros, an empty run is passed over, and a read stops where the runs end."""

    def __init__(self, disk: CachedDisk, runs: list[tuple[int | None, int]], block_size: int, size: int) -> None:
        self._disk, self._runs, self._block, self.size = disk, runs, block_size, size
        self._ends = list(accumulate(count for _, count in runs))  # each run's end, in blocks

    def read_at(self, offset: int, size: int) -> bytes:
        size = min(size, self.size - offset)
        pieces = []
        index = bisect_right(self._ends, offset // self._block)
        while size > 0 and index < len(self._runs):
            block, count = self._runs[index]
            within = offset - (self._ends[index - 1] if index else 0) * self._block
            take = min(size, count * self._block - within)
            if take < 0:
                break
            if take:
                pieces.append(bytes(take) if block is None else self._disk.read_at(block * self._block + within, take))
            offset, size, index = offset + take, size - take, index + 1
        return pieces[0] if len(pieces) == 1 else b"".join(pieces)

    def read(self) -> bytes:
        """The whole file (a symlink's text)."""
        return self.read_at(0, self.size)

    def close(self) -> None:
        pass


class Seeking:
    """Any other stream dissect opens a file as, read at an offset by seeking it."""

    def __init__(self, fh: Any) -> None:
        self._fh = fh

    def read_at(self, offset: int, size: int) -> bytes:
        self._fh.seek(offset)
        return bytes(self._fh.read(size))

    def close(self) -> None:
        self._fh.close()


def direct(fh: Any) -> RunsOnDisk | Seeking:
    """A file's stream as dissect opened it, read by its runs from the cache where it is made of runs on a cached
    volume."""
    if isinstance(fh, (RunsOnDisk, Seeking)):
        return fh
    if isinstance(fh, RunlistStream):
        disk = getattr(fh._fh, "fh", None)  # the stream runs on a dissect Volume, which reads through its fh
        if isinstance(disk, CachedDisk):
            return RunsOnDisk(disk, list(fh.runlist), fh.block_size, fh.size)
    return Seeking(fh)

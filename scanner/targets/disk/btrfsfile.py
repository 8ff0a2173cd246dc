"""A btrfs inode as the walk reads it: its inode item and its file extents found through the tree's kept leaves
(`btrfsfast`) and parsed with `struct`, without dissect's inode object (which makes two caches of its own for each
inode) or its cstruct parsers. What is read, and how, stays dissect's: the same extent list as `INode.open` builds,
read by its `ExtentStream`; an inline extent decoded by its `decode_extent`.

The layout is the on-disk format's `btrfs_file_extent_item`: generation u64, ram_bytes u64, compression u8,
encryption u8, other_encoding u16, type u8 (the data of an inline extent follows); a regular or preallocated
extent goes on with disk_bytenr u64, disk_num_bytes u64, offset u64, num_bytes u64.
"""

from __future__ import annotations

import io
import struct
from bisect import bisect_right
from typing import Any, BinaryIO

from dissect.btrfs.stream import Extent, ExtentStream, decode_extent
from dissect.util.stream import BufferedStream

from scanner.targets.disk.blockcache import CachedDisk, RunsOnDisk
from scanner.targets.disk.btrfsfast import run_of
from scanner.targets.disk.inodes import btrfs_inode

_HEAD = struct.Struct("<QQBBHB")
_REGULAR = struct.Struct("<QQQQ")
_INLINE, _REG = 0, 1  # BTRFS_FILE_EXTENT_INLINE, _REG (a preallocated extent reads as zeros, as a gap)
_INODE_ITEM_KEY, _EXTENT_DATA_KEY = 1, 108


class BtrfsInode:
    """An inode of a subvolume, by number, with what dissect's `INode` offers the walk (`subvolume`, `inum`, its
    inode item kept in `__dict__["inode"]` as `inodes.btrfs_inode` keeps it there, `open()`, `link`)."""

    def __init__(self, subvolume: Any, inum: int) -> None:
        self.subvolume = subvolume
        self.inum = inum

    def __repr__(self) -> str:
        return f"<btrfs inode {self.subvolume.objectid}:{self.inum}>"

    @property
    def size(self) -> int:
        return int(btrfs_inode(self).size)

    @property
    def link(self) -> str:
        """A symlink's text (its data), undecoded bytes kept as surrogates."""
        fh = self.open()
        try:
            return bytes(fh.read()).decode(errors="surrogateescape")
        finally:
            fh.close()

    def open(self) -> BinaryIO | RunsOnDisk:
        """The file's bytes, as dissect's `INode.open` gives them; read straight from the cached device where
        every extent is a hole or plain data in a chunk that is not striped (`_on_disk`)."""
        size = self.size
        if not size:
            return BufferedStream(io.BytesIO(), size=0)  # type: ignore[no-any-return]
        btrfs = self.subvolume.btrfs
        offset = 0
        extents = []
        for item, data in run_of(self.subvolume.tree, self.inum, _EXTENT_DATA_KEY):
            _, _, compression, encryption, _, kind = _HEAD.unpack_from(data)
            if kind == _INLINE:
                held = decode_extent(data[_HEAD.size :], compression, encryption, btrfs.sector_size)
                return io.BytesIO(held[:size])  # as dissect's stream of it, which ends at the size
            disk_at, disk_size, within, length = _REGULAR.unpack_from(data, _HEAD.size)
            if kind != _REG:
                continue
            if offset < item.key.offset:
                gap = item.key.offset - offset
                extents.append(Extent(0, 0, 0, 0, 0, gap))
                offset += gap
            extents.append(Extent(compression, encryption, disk_at, disk_size, within, length))
            offset += length
        if offset < size:
            extents.append(Extent(0, 0, 0, 0, 0, size - offset))
        found = _on_disk(btrfs._logical_fh, extents, size)
        if found is not None:
            return found
        return ExtentStream(btrfs._logical_fh, extents, size, btrfs.sector_size)  # type: ignore[no-any-return]


def _on_disk(chunks: Any, extents: list[Any], size: int) -> RunsOnDisk | None:
    """The extents as runs of bytes on the one cached device they lie on, mapped as dissect's `ChunkStream` maps
    them (a chunk that is not striped, RAID0, RAID10 or RAID5/6, holds its data at its first stripe's offset on, in
    order); None if any is compressed, or lies across chunks or in another kind of chunk or device."""
    starts, table = _linear(chunks)
    disk: CachedDisk | None = None
    runs: list[tuple[int | None, int]] = []
    for extent in extents:
        if (extent.disk_offset, extent.disk_length) == (0, 0):
            runs.append((None, extent.length))
            continue
        if extent.compression or extent.encryption:
            return None
        logical = extent.disk_offset + extent.offset
        index = bisect_right(starts, logical) - 1
        if index < 0:
            return None
        start, length, physical, device = table[index]
        if device is None or logical + extent.length > start + length or (disk is not None and device is not disk):
            return None
        disk = device
        runs.append((physical + logical - start, extent.length))
    return RunsOnDisk(disk, runs, 1, size) if disk is not None else None


def _linear(chunks: Any) -> tuple[list[int], list[tuple[int, int, int, CachedDisk | None]]]:
    """A filesystem's chunks (kept on its `ChunkStream`): their logical starts, and each one's (start, length, its
    first stripe's offset, its device's cache if the chunk is not striped and the device reads through one)."""
    found = chunks.__dict__.get("_fast_linear")
    if found is None:
        from dissect.btrfs.c_btrfs import BTRFS_BLOCK_GROUP_STRIPE_MASK

        table = []
        for chunk in chunks.chunks:
            stripe = chunk.stripes[0] if chunk.stripes else None
            device = getattr(getattr(stripe, "fh", None), "fh", None)  # a dissect Volume reads through its fh
            plain = stripe is not None and not (chunk.type & BTRFS_BLOCK_GROUP_STRIPE_MASK)
            table.append((int(chunk.offset), int(chunk.length), int(stripe.offset) if stripe else 0,
                          device if plain and isinstance(device, CachedDisk) else None))
        found = chunks.__dict__["_fast_linear"] = ([t[0] for t in table], table)
    return found  # type: ignore[no-any-return]

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
from typing import Any, BinaryIO

from dissect.btrfs.stream import Extent, ExtentStream, decode_extent
from dissect.util.stream import BufferedStream

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
        with self.open() as fh:
            return bytes(fh.read()).decode(errors="surrogateescape")

    def open(self) -> BinaryIO:
        """The file's bytes, as dissect's `INode.open` gives them."""
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
        return ExtentStream(btrfs._logical_fh, extents, size, btrfs.sector_size)  # type: ignore[no-any-return]

"""dissect.extfs reading a file's extent tree with `struct`: its `_parse_extents` parsed every header, extent and
index with a cstruct structure, for every file opened (a sixth of an ext4 read's time). The layouts are ext4's own,
little-endian, 12 bytes each: the header (magic u16 0xF30A, entries u16, max u16, depth u16, generation u32); in a
leaf, an extent (first logical block u32, length u16, start high u16, start low u32); in an index node, an index
(first logical block u32, leaf low u32, leaf high u16, unused u16). What it yields, and what it raises for a short
or bad tree, are dissect's; one that reaches a node twice is refused. Installed once, when a disk image is opened.
"""

from __future__ import annotations

import io
import struct
from collections import namedtuple
from collections.abc import Callable, Iterator
from typing import Any

from scanner.targets.disk.patched import replace_once

_HEADER = struct.Struct("<HHHHI")
_ENTRY = struct.Struct("<IHHI")
_INDEX = struct.Struct("<IIHH")
_MAGIC = 0xF30A

Extent = namedtuple("Extent", "ee_block ee_len ee_start_hi ee_start_lo")
replaced: Callable[..., Any] | None = None  # dissect's own, once installed


def _take(buf: Any, size: int) -> bytes:
    data = buf.read(size)
    if len(data) < size:
        raise EOFError(f"read {len(data)} bytes, needed {size}")
    return bytes(data)


def parse_extents(inode: Any, buf: Any, seen: set[int] | None = None) -> Iterator[Any]:
    """Every extent of the tree whose root is at `buf`'s position, in order, as dissect's `_parse_extents`; a tree
    that reaches one of its nodes twice (`seen`: the nodes reached so far) is refused, as no mkfs or kernel writes
    one: a node whose entries all point at the next node would be read once for each path to it, 340^depth times."""
    from dissect.extfs.exceptions import Error

    magic, entries, _, depth, _ = _HEADER.unpack(_take(buf, _HEADER.size))
    if magic != _MAGIC:
        raise Error("Invalid extent_header magic")
    if depth == 0:
        for _ in range(entries):
            yield Extent._make(_ENTRY.unpack(_take(buf, _ENTRY.size)))
        return
    seen = set() if seen is None else seen
    for _ in range(entries):
        _, leaf_lo, leaf_hi, _ = _INDEX.unpack(_take(buf, _INDEX.size))
        block = (leaf_hi << 32) | leaf_lo
        if block in seen:
            raise Error(f"the extent tree reaches its block {block} twice")
        seen.add(block)
        fh = inode.extfs.fh
        fh.seek(block * inode.extfs.block_size)
        yield from parse_extents(inode, io.BytesIO(fh.read(inode.extfs.block_size)), seen)


def install() -> None:
    global replaced
    from dissect.extfs import extfs

    replaced = replace_once(extfs, "_parse_extents", parse_extents) or replaced

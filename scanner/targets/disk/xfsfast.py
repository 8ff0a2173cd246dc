"""dissect.xfs reading a file's extents with `struct`: its `parse_fsblock` built a new cstruct array type for every
record it parsed (a class per file opened), a third of an xfs read's time; and an inode whose extents it holds
itself (the extents format, nearly every file) gets its runs from the inode's bytes directly, and its stream
without comparing cstruct enums (an int compared with one costs a Python call). The record layout is xfs's own:
128 bits, most significant first: flag (1), file offset (54), start block (52), block count (21). What is made of
them is dissect's (`INode.dataruns`, `INode.open`); any other format is left to dissect. Installed once, when a
disk image is opened."""

from __future__ import annotations

import struct
from collections.abc import Callable
from functools import cached_property
from typing import Any

from scanner.targets.disk.patched import replace_once

_RECORD = struct.Struct(">QQ")
replaced: Callable[[bytes], Any] | None = None  # dissect's own, once installed
_dissect: dict[str, Any] = {}  # dissect's own dataruns and open, once replaced
_FORMATS: dict[str, int] = {}  # the data fork formats (XFS_DINODE_FMT_*), as ints


def parse_fsblock(record: bytes) -> tuple[int, int, int, int]:
    """(file offset, start block, block count, flag) of one extent record, as dissect.xfs returns them."""
    l0, l1 = _RECORD.unpack_from(record)
    return (l0 & ((1 << 63) - 1)) >> 9, (l0 & ((1 << 9) - 1)) << 43 | (l1 >> 21), l1 & ((1 << 21) - 1), l0 >> 63


def dataruns(inode: Any) -> list[tuple[int | None, int]]:
    """dissect's `INode.dataruns`: (filesystem block or None for a hole, count), in file order, up to the size."""
    n = inode.inode
    if n.di_format != _FORMATS["extents"]:
        return _dissect["dataruns"](inode)  # type: ignore[no-any-return]
    start = 0xB0 if n.di_version == 3 else 0x64
    room = n.di_forkoff * 8 if n.di_forkoff else inode.ag.sb.sb_inodesize - start
    count = inode.data_extents
    held = inode._buf.getvalue()[start : start + min(count * 16, max(0, room))]
    sb, block_size = inode.ag.sb, inode.xfs.block_size
    runs: list[tuple[int | None, int]] = []
    at = 0
    for index in range(count):
        offset, block, blocks, _ = parse_fsblock(held[index * 16 : index * 16 + 16])
        if offset != at:
            runs.append((None, offset - at))
            at = offset
        runs.append(((block >> sb.sb_agblklog) * inode.xfs.sb.sb_agblocks + (block & ((1 << sb.sb_agblklog) - 1)),
                     blocks))
        at += blocks
    expected = (inode.size + block_size - 1) // block_size
    if at < expected:
        runs.append((None, expected - at))
    return runs


def open_inode(inode: Any) -> Any:
    """dissect's `INode.open`, its data fork's format compared as an int."""
    from dissect.util.stream import RunlistStream

    form = inode.inode.di_format
    if form == _FORMATS["local"]:
        return inode.datafork()
    if form in (_FORMATS["extents"], _FORMATS["btree"]):
        return RunlistStream(inode.xfs.fh, inode.dataruns, inode.size, inode.xfs.block_size)
    return _dissect["open"](inode)  # it says what it cannot read


def install() -> None:
    global replaced
    from dissect.xfs import xfs
    from dissect.xfs.c_xfs import c_xfs

    replaced = replace_once(xfs, "parse_fsblock", parse_fsblock) or replaced
    if _dissect or not isinstance(xfs.INode.__dict__.get("dataruns"), cached_property):
        return
    formats = c_xfs.xfs_dinode_fmt
    _FORMATS.update(local=int(formats.XFS_DINODE_FMT_LOCAL.value), extents=int(formats.XFS_DINODE_FMT_EXTENTS.value),
                    btree=int(formats.XFS_DINODE_FMT_BTREE.value))
    _dissect.update(dataruns=xfs.INode.dataruns.func, open=xfs.INode.open)
    runs = cached_property(dataruns)
    runs.__set_name__(xfs.INode, "dataruns")
    xfs.INode.dataruns = runs
    xfs.INode.open = open_inode

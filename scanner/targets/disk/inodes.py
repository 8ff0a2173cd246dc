"""A filesystem inode's facts as an `os.stat_result`, read from dissect's inode objects directly, and an ext
directory's entries.

dissect.target's `lstat` builds a stat from the same inode, plus four datetimes and nanosecond fields a scan does
not use (a fifth of a walk's time), and for btrfs resolves a symlink's target first (failing with it). Here each
type reads only the fields a walk needs: mode, number, links, owner (with the high 16 bits ext4 keeps apart),
size, allocated blocks and modification time. The device is left 0: the caller gives each mount its own.
"""

from __future__ import annotations

import io
import os
import struct
from collections import namedtuple
from typing import Any

from scanner.targets.disk.blockcache import direct
from scanner.targets.disk.recent import Recent

_EXT4_HUGE_FILE = 0x40000  # i_blocks counts filesystem blocks, not 512-byte sectors
# struct ext4_inode as dissect.extfs declares it (the kernel's layout): the first 160 bytes, then i_extra.
_EXT4 = struct.Struct("<HHIIIIIHHIII60sIIIIHHHHHHHHIIIIIII")
_EXT4_FIELDS = (
    "i_mode", "i_uid", "i_size_lo", "i_atime", "i_ctime", "i_mtime", "i_dtime", "i_gid", "i_links_count",
    "i_blocks_lo", "i_flags", "i_reserved_1", "i_block", "i_generation", "i_file_acl_lo", "i_size_high",
    "i_obso_faddr", "i_blocks_high", "i_file_acl_high", "i_uid_high", "i_gid_high", "i_checksum_lo", "i_reserved",
    "i_extra_isize", "i_checksum_hi", "i_ctime_extra", "i_mtime_extra", "i_atime_extra", "i_crtime",
    "i_crtime_extra", "i_version_hi", "i_projid",
)


_EXTRA_ISIZE = _EXT4_FIELDS.index("i_extra_isize")


class Ext4Inode(namedtuple("Ext4Inode", (*_EXT4_FIELDS, "i_extra"))):  # type: ignore[misc]
    """An ext4 on-disk inode with the fields dissect.extfs reads, parsed with one `struct` call into a tuple (its
    fields read as attributes): dissect's own parser (cstruct, with a size that depends on a field) was half of a
    walk's time."""

    __slots__ = ()

    def __new__(cls, raw: bytes) -> Ext4Inode:
        values = _EXT4.unpack_from(raw)
        extra = 128 - values[_EXTRA_ISIZE]
        return tuple.__new__(cls, (*values, raw[_EXT4.size : _EXT4.size + max(0, extra)]))


# struct xfs_dinode as dissect.xfs declares it (big-endian, its unions flattened as it flattens them): 176 bytes.
_XFS = struct.Struct(">HHBBHIIIHHQQQQQQIIHBbIHHIIIQQQI12sQQ16s")
_XFS_FIELDS = (
    "di_magic", "di_mode", "di_version", "di_format", "di_onlink", "di_uid", "di_gid", "di_nlink", "di_projid_lo",
    "di_projid_hi", "di_big_nextents", "di_atime", "di_mtime", "di_ctime", "di_size", "di_nblocks", "di_extsize",
    "di_big_anextents", "di_nrext64_pad", "di_forkoff", "di_aformat", "di_dmevmask", "di_dmstate", "di_flags",
    "di_gen", "di_next_unlinked", "di_crc", "di_changecount", "di_lsn", "di_flags2", "di_cowextsize", "di_pad2",
    "di_crtime", "di_ino", "di_uuid",
)
_XFS_MAGIC = 0x494E  # "IN"


class XfsInode(namedtuple("XfsInode", _XFS_FIELDS)):  # type: ignore[misc]
    """An xfs on-disk inode core with the fields dissect.xfs reads, parsed with one `struct` call into a tuple."""

    __slots__ = ()

    def __new__(cls, raw: bytes) -> XfsInode:
        return tuple.__new__(cls, _XFS.unpack_from(raw))


def xfs_inode(inode: Any) -> Any:
    """dissect's xfs INode's on-disk inode, parsed fast, kept where dissect keeps its own (`inode.inode`, and the
    whole inode's bytes in `inode._buf`, which its fork readers seek in)."""
    kept = inode.__dict__.get("inode")
    if kept is not None:
        return kept
    ag = inode.ag
    size = ag.sb.sb_inodesize
    raw = _block_cached(ag, ag.fh, inode.relative_inum * size, size, ag.xfs.block_size)
    if len(raw) < _XFS.size:
        raise OSError("inode cut short")
    parsed = XfsInode(raw)
    if parsed.di_magic != _XFS_MAGIC:  # type: ignore[attr-defined]
        raise OSError(f"inode {inode.inum}: bad magic")
    inode._buf = io.BytesIO(raw)
    inode.__dict__["inode"] = parsed
    return parsed


# struct btrfs_inode_item (160 bytes): the fields, then four timespecs (sec u64, nsec u32).
_BTRFS = struct.Struct("<QQQQQIIIIQQQ32sQIQIQIQI")
_BTRFS_INODE_ITEM_KEY = 1
Timespec = namedtuple("Timespec", "sec nsec")


_BTRFS_FIELDS = ("generation", "transid", "size", "nbytes", "block_group", "nlink", "uid", "gid", "mode", "rdev",
                 "flags", "sequence", "reserved", "atime_sec", "atime_nsec", "ctime_sec", "ctime_nsec", "mtime_sec",
                 "mtime_nsec", "otime_sec", "otime_nsec")


class BtrfsInodeItem(namedtuple("BtrfsInodeItem", _BTRFS_FIELDS)):  # type: ignore[misc]
    """A btrfs inode item with the fields dissect.btrfs reads, parsed with one `struct` call into a tuple; its
    times are dissect's (sec, nsec) pairs, made when asked."""

    __slots__ = ()

    def __new__(cls, raw: Any) -> BtrfsInodeItem:
        return tuple.__new__(cls, _BTRFS.unpack_from(raw))

    atime = property(lambda self: Timespec(self.atime_sec, self.atime_nsec))
    ctime = property(lambda self: Timespec(self.ctime_sec, self.ctime_nsec))
    mtime = property(lambda self: Timespec(self.mtime_sec, self.mtime_nsec))
    otime = property(lambda self: Timespec(self.otime_sec, self.otime_nsec))


def btrfs_inode(inode: Any) -> Any:
    """dissect's btrfs INode's inode item, parsed fast and kept where dissect keeps its own (`inode.inode`)."""
    kept = inode.__dict__.get("inode")
    if kept is not None:
        return kept
    _, data = inode.subvolume.tree.find(inode.inum, _BTRFS_INODE_ITEM_KEY)
    if len(data) < _BTRFS.size:
        raise OSError(f"inode {inode.inum}: item cut short")
    parsed = BtrfsInodeItem(data)
    inode.__dict__["inode"] = parsed
    return parsed


_TABLE_BLOCKS_KEPT = 512  # 2 MiB of 4 KiB blocks: the inodes of a directory's entries are mostly neighbours
_TABLE_BLOCKS: Recent[tuple[int, int], bytes] = Recent(_TABLE_BLOCKS_KEPT)  # (filesystem, block) -> its bytes


def _block_cached(owner: Any, fh: Any, at: int, size: int, block_size: int) -> bytes:
    """`size` bytes at `at` of `fh`, through a small cache of whole blocks: the inodes of a directory's entries
    are mostly neighbours in one inode table block."""
    block, within = divmod(at, block_size)
    key = (id(owner), block)
    data = _TABLE_BLOCKS.get(key)
    if data is None:
        fh.seek(block * block_size)
        data = fh.read(block_size)
        _TABLE_BLOCKS.put(key, data)
    if within + size <= block_size:
        return data[within : within + size]
    fh.seek(at)  # an inode larger than a block (never in practice)
    return bytes(fh.read(size))


def ext4_inode(inode: Any) -> Any:
    """dissect's ext INode's on-disk inode, parsed fast and kept where dissect keeps its own (`inode.inode`)."""
    kept = inode.__dict__.get("inode")
    if kept is not None:
        return kept
    extfs = inode.extfs
    group, index = divmod(inode.inum - 1, extfs.sb.s_inodes_per_group)
    desc = extfs._read_group_desc(group)
    table = desc.bg_inode_table_lo | ((getattr(desc, "bg_inode_table_hi", 0) or 0) << 32)
    size = extfs.sb.s_inode_size
    raw = _block_cached(extfs, extfs.fh, table * extfs.block_size + index * size, size, extfs.block_size)
    if len(raw) < min(size, 128):
        raise OSError("inode table cut short")
    if len(raw) < 256:  # a 128-byte inode has no extra fields: zeros, not the next inode's bytes
        raw = raw[:128].ljust(256, b"\0")
    parsed = Ext4Inode(raw)
    inode.__dict__["inode"] = parsed  # dissect's cached_property slot: its reads use the same fields
    return parsed


def inode_stat(fstype: str, inode: Any, block_size: int = 4096, dev: int = 0) -> os.stat_result:
    """The inode's stat on device `dev`, in plain ints (what dissect hands over, its inode number and size, may be
    its own int types, which do not pickle: results cross back from forked workers). Raises what dissect raises
    for an inode it cannot read."""
    if fstype == "ext":
        n = ext4_inode(inode)
        blocks = n.i_blocks_lo | (n.i_blocks_high << 32)
        if n.i_flags & _EXT4_HUGE_FILE:
            blocks *= block_size // 512
        fields = (n.i_mode, int(inode.inum), dev, n.i_links_count, n.i_uid | (n.i_uid_high << 16),
                  n.i_gid | (n.i_gid_high << 16), int(inode.size), n.i_mtime, n.i_mtime, n.i_mtime)
        return os.stat_result(fields, {"st_blocks": blocks})
    if fstype == "xfs":
        n = xfs_inode(inode)
        mtime = int(inode.mtime_ns) // 1_000_000_000
        fields = (n.di_mode, int(inode.inum), dev, n.di_nlink, n.di_uid, n.di_gid, n.di_size, mtime, mtime, mtime)
        return os.stat_result(fields, {"st_blocks": n.di_nblocks * (block_size // 512)})
    if fstype == "btrfs":
        n = btrfs_inode(inode)
        mtime = n.mtime_sec
        # nbytes: the bytes its file extents hold (holes, and preallocated ranges, hold none).
        fields = (n.mode, int(inode.inum), dev, n.nlink, n.uid, n.gid, n.size, mtime, mtime, mtime)
        return os.stat_result(fields, {"st_blocks": (n.nbytes + 511) // 512})
    raise ValueError(fstype)


_FILETYPE_FEATURE = 0x2  # EXT2_FEATURE_INCOMPAT_FILETYPE: entries carry a type byte, names are at most 255
_DIRENT = struct.Struct("<IHH")


def ext_listing(inode: Any) -> dict[str, int]:
    """An ext directory's entries (name -> inode number) from its blocks, as dissect.extfs walks them (each
    entry's record length to the next; inode 0 is an unused record, an htree node or a checksum tail), without an
    inode object per entry: dissect's own listing made one, with a parsed structure, for every name."""
    extfs = inode.extfs
    data = direct(inode.open()).read_at(0, inode.size)
    typed = bool(extfs.sb.s_feature_incompat & _FILETYPE_FEATURE)
    limit, count = min(len(data), inode.size) - 12, extfs.sb.s_inodes_count
    out: dict[str, int] = {}
    offset = 0
    while 0 <= offset < limit:
        number, rec_len, name_len = _DIRENT.unpack_from(data, offset)
        if rec_len == 0:
            break
        if typed:
            name_len &= 0xFF
        if 0 < number < count:
            name = data[offset + 8 : offset + 8 + name_len].decode("utf-8", "surrogateescape")
            if name not in (".", ".."):
                out[name] = number
        offset += rec_len
    return out


def block_size(fstype: str, fs: Any) -> int:
    owner = {"ext": "extfs", "xfs": "xfs", "btrfs": "btrfs"}.get(fstype)
    inner = getattr(fs, owner, None) if owner else None
    size = getattr(inner, "block_size", None) or getattr(inner, "sector_size", None)
    return int(size) if size else 4096

"""A zip's central directory counted and walked in a bounded stream, before zipfile parses any of it.

zipfile builds one `ZipInfo` per entry of the whole directory before a caller sees the first (a 600,000-member
jar: ~300 MB). Here the end record is read first (its entry count, the directory's place and size, zip64 too),
then the directory is walked in 1 MiB blocks, one entry at a time, and only the records of the entries the
caller wants are kept, byte for byte. zipfile is then handed a view of the archive whose directory holds those
records alone (the archive's bytes before its directory, then the kept records and a new end record): it
parses, checks and inflates them as it would in the real archive, never the rest. Damage is raised as
zipfile raises it (`BadZipFile`), so callers keep one way of recording it.
"""

from __future__ import annotations

import struct
import zipfile
from collections.abc import Callable
from dataclasses import dataclass

ReadAt = Callable[[int, int], bytes]

_END = struct.Struct("<4s4H2LH")  # end of central directory record
_LOCATOR = struct.Struct("<4sLQL")  # zip64 end of central directory locator
_END64 = struct.Struct("<4sQ2H2L4Q")  # zip64 end of central directory record
_CENTRAL = struct.Struct("<4s4B4HL2L5H2L")  # central directory file header
_MAX_COMMENT = 0xFFFF
_BLOCK = 1 << 20  # a record is at most 46 + 3 * 65535 bytes: one always fits in a block
_UTF8_NAME = 0x800


@dataclass(frozen=True)
class Directory:
    start: int  # where the central directory starts in the archive
    size: int  # its length in bytes
    entries: int  # the entry count the end record states
    offset: int  # the directory's offset as the end record states it (start - offset: bytes prepended)


@dataclass(frozen=True)
class Kept:
    """The wanted entries' directory records, and what the walk met."""

    records: bytes
    kept: int
    walked: int
    complete: bool  # the walk reached the end of the directory (not a cap)


def directory(read: ReadAt, size: int) -> Directory:
    """The end record's account of the central directory (zip64 when present); `BadZipFile` when there is none."""
    tail_size = min(size, _END.size + _MAX_COMMENT)
    tail = read(size - tail_size, tail_size)
    at = tail.rfind(b"PK\x05\x06")
    if at < 0 or len(tail) - at < _END.size:
        raise zipfile.BadZipFile("File is not a zip file")
    _, _, _, _, entries, cd_size, cd_offset, _ = _END.unpack_from(tail, at)
    end = size - tail_size + at
    if end >= _LOCATOR.size + _END64.size:
        locator = read(end - _LOCATOR.size, _LOCATOR.size)
        if locator[:4] == b"PK\x06\x07":
            _, disk, _, disks = _LOCATOR.unpack(locator)
            if disk != 0 or disks > 1:
                raise zipfile.BadZipFile("zipfiles that span multiple disks are not supported")
            end -= _LOCATOR.size + _END64.size
            record = read(end, _END64.size)
            if record[:4] != b"PK\x06\x06":
                raise zipfile.BadZipFile("Zip64 end of central directory record not found")
            _, _, _, _, _, _, _, entries, cd_size, cd_offset = _END64.unpack(record)
    start = end - cd_size
    if start < 0 or start - cd_offset < 0:
        raise zipfile.BadZipFile("Bad offset for central directory")
    return Directory(start, cd_size, entries, cd_offset)


def keep_wanted(
    read: ReadAt, found: Directory, wanted: Callable[[str], bool], max_walked: int, max_kept: int
) -> Kept:
    """The records of the entries `wanted` accepts (directories never), walking at most `max_walked` entries
    and keeping at most `max_kept`."""
    out = bytearray()
    kept = walked = 0
    pos, end = found.start, found.start + found.size
    while pos < end:
        block = read(pos, min(_BLOCK, end - pos))
        at = 0
        while at + _CENTRAL.size <= len(block) and walked < max_walked and kept < max_kept:
            fields = _CENTRAL.unpack_from(block, at)
            if fields[0] != b"PK\x01\x02":
                raise zipfile.BadZipFile("Bad magic number for central directory")
            length = _CENTRAL.size + fields[12] + fields[13] + fields[14]
            if at + length > len(block):
                break
            walked += 1
            raw = block[at + _CENTRAL.size : at + _CENTRAL.size + fields[12]]
            name = raw.decode("utf-8" if fields[5] & _UTF8_NAME else "cp437", "replace")
            if not name.endswith("/") and wanted(name):
                out += block[at : at + length]
                kept += 1
            at += length
        if walked >= max_walked or kept >= max_kept:
            return Kept(bytes(out), kept, walked, pos + at >= end)
        if at == 0:
            raise zipfile.BadZipFile("Truncated central directory")
        pos += at
    return Kept(bytes(out), kept, walked, True)


def narrowed(read: ReadAt, found: Directory, records: bytes, count: int) -> tuple[ReadAt, int]:
    """A view of the archive whose central directory holds `records` alone: its bytes up to the directory,
    then the records, a zip64 end record and locator, and an end record. Returns (read, size) of the view."""
    at = found.start + len(records)
    tail = records + _END64.pack(
        b"PK\x06\x06", _END64.size - 12, 45, 45, 0, 0, count, count, len(records), found.offset
    )
    tail += _LOCATOR.pack(b"PK\x06\x07", 0, at, 1)
    tail += _END.pack(b"PK\x05\x06", 0, 0, 0xFFFF, 0xFFFF, 0xFFFFFFFF, 0xFFFFFFFF, 0)
    start = found.start

    def read_view(offset: int, size: int) -> bytes:
        if offset >= start:
            return tail[offset - start : offset - start + size]
        head = read(offset, min(size, start - offset))
        if offset + size <= start or len(head) < start - offset:
            return head
        return head + tail[: offset + size - start]

    return read_view, start + len(tail)

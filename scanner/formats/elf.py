"""ELF section lookup by name, from the section headers alone (nothing is loaded or executed)."""

from __future__ import annotations

import struct

ELF_MAGIC = b"\x7fELF"
_MAX_SECTIONS = 4096
_WIDE_HEADER = struct.calcsize("<IIQQQQ")
_NARROW_HEADER = struct.calcsize("<IIIIII")


def section(data: bytes, wanted: str) -> bytes | None:
    """The bytes of the named section, or None when the file has no such section (or no headers)."""
    if len(data) < 64 or not data.startswith(ELF_MAGIC) or data[4] not in (1, 2) or data[5] not in (1, 2):
        return None
    wide = data[4] == 2
    order = "<" if data[5] == 1 else ">"
    try:
        if wide:
            (shoff,) = struct.unpack_from(order + "Q", data, 0x28)
            shentsize, shnum, shstrndx = struct.unpack_from(order + "HHH", data, 0x3A)
        else:
            (shoff,) = struct.unpack_from(order + "I", data, 0x20)
            shentsize, shnum, shstrndx = struct.unpack_from(order + "HHH", data, 0x2E)
        if shoff == 0 or shnum == 0 or shnum > _MAX_SECTIONS or shstrndx >= shnum:
            return None
        # A hostile e_shoff (up to 2**64) or entry size must not reach struct with an offset past the bytes:
        # a table outside the file (or outside what was read of it) means no section is readable.
        if shentsize < (_WIDE_HEADER if wide else _NARROW_HEADER) or shoff + shnum * shentsize > len(data):
            return None
        headers = [_header(data, shoff + i * shentsize, wide, order) for i in range(shnum)]
        names_off, names_size = headers[shstrndx][1], headers[shstrndx][2]
        names = data[names_off : names_off + names_size]
        for name_idx, off, size in headers:
            end = names.find(b"\0", name_idx)
            if end != -1 and names[name_idx:end] == wanted.encode():
                return data[off : off + size] if off + size <= len(data) else None
    except struct.error:
        return None
    return None


def _header(data: bytes, at: int, wide: bool, order: str) -> tuple[int, int, int]:
    """(name index, file offset, size) of one section header."""
    if wide:
        name, _type, _flags, _addr, off, size = struct.unpack_from(order + "IIQQQQ", data, at)
    else:
        name, _type, _flags, _addr, off, size = struct.unpack_from(order + "IIIIII", data, at)
    return name, off, size

"""ELF section lookup by name, from the section headers alone (nothing is loaded or executed).

The bytes come through a positional reader, so a section of a large executable (its headers sit at the
end of the file) is found with a few bounded reads instead of the whole file in memory.
"""

from __future__ import annotations

import struct
from collections.abc import Callable

ELF_MAGIC = b"\x7fELF"
_MAX_SECTIONS = 4096
_MAX_NAMES = 1 << 20  # the section-name table (a few hundred bytes in practice)
_WIDE_HEADER = struct.calcsize("<IIQQQQ")
_NARROW_HEADER = struct.calcsize("<IIIIII")

# (offset, size) -> at most `size` bytes of the file from `offset` (fewer at its end).
ReadAt = Callable[[int, int], bytes]


def section(data: bytes, wanted: str) -> bytes | None:
    """The bytes of the named section, or None when the file has no such section (or no headers)."""
    return section_at(lambda off, size: data[off : off + size], len(data), wanted, len(data))


def section_at(read: ReadAt, file_size: int, wanted: str, max_size: int) -> bytes | None:
    """The named section of a file of `file_size` bytes read through `read`; None past `max_size` bytes."""
    head = read(0, 64)
    if len(head) < 64 or not head.startswith(ELF_MAGIC) or head[4] not in (1, 2) or head[5] not in (1, 2):
        return None
    wide = head[4] == 2
    order = "<" if head[5] == 1 else ">"
    try:
        if wide:
            (shoff,) = struct.unpack_from(order + "Q", head, 0x28)
            shentsize, shnum, shstrndx = struct.unpack_from(order + "HHH", head, 0x3A)
        else:
            (shoff,) = struct.unpack_from(order + "I", head, 0x20)
            shentsize, shnum, shstrndx = struct.unpack_from(order + "HHH", head, 0x2E)
        if shoff == 0 or shnum == 0 or shnum > _MAX_SECTIONS or shstrndx >= shnum:
            return None
        # A hostile e_shoff (up to 2**64) or entry size must not reach struct with an offset past the bytes:
        # a table outside the file (or outside what was read of it) means no section is readable.
        if shentsize < (_WIDE_HEADER if wide else _NARROW_HEADER) or shoff + shnum * shentsize > file_size:
            return None
        table = read(shoff, shnum * shentsize)
        if len(table) < shnum * shentsize:
            return None
        headers = [_header(table, i * shentsize, wide, order) for i in range(shnum)]
        names_off, names_size = headers[shstrndx][1], headers[shstrndx][2]
        names = read(names_off, min(names_size, _MAX_NAMES)) if names_off < file_size else b""
        for name_idx, off, size in headers:
            end = names.find(b"\0", name_idx)
            if end != -1 and names[name_idx:end] == wanted.encode():
                if off + size > file_size or size > max_size:
                    return None
                got = read(off, size)
                return got if len(got) == size else None
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

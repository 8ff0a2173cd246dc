"""tarfile's member header parsed faster: a layer of tens of thousands of files is two headers a file (a pax header,
then the file's own), and tarfile parses each field of each with a function call of its own, half of a container
image's opening. Here the 512-byte header is split with one `struct` call and its checksum summed once; what is
made of it, and what is raised for a bad one, are tarfile's (`TarInfo.frombuf`). An empty, cut or all-zero block
and the old GNU sparse form are left to tarfile itself.

The layout is POSIX ustar's: name 100, mode 8, uid 8, gid 8, size 12, mtime 12, chksum 8, typeflag 1, linkname 100,
magic and version 8, uname 32, gname 32, devmajor 8, devminor 8, prefix 155, then 12 bytes unused.
"""

from __future__ import annotations

import struct
import tarfile
from collections.abc import Callable
from typing import Any

_HEADER = struct.Struct("100s8s8s8s12s12s8sc100s8x32s32s8s8s155s12x")
_ZEROS = bytes(tarfile.BLOCKSIZE)
_BASE256 = (0o200, 0o377)  # a number's first byte when it is binary, not octal text (tarfile's `nti`)
# tarfile's own helpers and the error its header parser raises (not in its stubs)
_nti: Callable[[bytes], int] = tarfile.nti  # type: ignore[attr-defined]
_checksums: Callable[[bytes], tuple[int, int]] = tarfile.calc_chksums  # type: ignore[attr-defined]
_InvalidHeader: type[Exception] = tarfile.InvalidHeaderError  # type: ignore[attr-defined]


def _text(field: bytes, encoding: str, errors: str) -> str:
    end = field.find(b"\0")
    return (field if end < 0 else field[:end]).decode(encoding, errors)


def _number(field: bytes) -> int:
    if field[0] in _BASE256:
        return _nti(field)
    end = field.find(b"\0")
    try:
        return int((field if end < 0 else field[:end]).decode("ascii").strip() or "0", 8)
    except ValueError:
        raise _InvalidHeader("invalid header") from None


class FastTarInfo(tarfile.TarInfo):
    @classmethod
    def frombuf(cls, buf: bytes | bytearray, encoding: str, errors: str) -> Any:
        if len(buf) != tarfile.BLOCKSIZE or buf == _ZEROS or buf[156:157] == tarfile.GNUTYPE_SPARSE:
            return super().frombuf(buf, encoding, errors)
        (name, mode, uid, gid, size, mtime, chksum, kind, linkname, uname, gname, major, minor,
         prefix) = _HEADER.unpack(buf)
        expected = _number(chksum)
        # unsigned bytes, the checksum field counted as spaces; tarfile also takes the signed sum (Sun, NeXT)
        if expected != 256 + sum(buf) - sum(chksum) and expected not in _checksums(bytes(buf)):
            raise _InvalidHeader("bad checksum")
        obj = cls()
        obj.name = _text(name, encoding, errors)
        obj.mode, obj.uid, obj.gid = _number(mode), _number(uid), _number(gid)
        obj.size, obj.mtime = _number(size), _number(mtime)
        obj.chksum = expected
        obj.type = kind
        obj.linkname = _text(linkname, encoding, errors)
        obj.uname, obj.gname = _text(uname, encoding, errors), _text(gname, encoding, errors)
        obj.devmajor, obj.devminor = _number(major), _number(minor)
        before = _text(prefix, encoding, errors)
        if obj.type == tarfile.AREGTYPE and obj.name.endswith("/"):  # a V7 directory: a file named with a slash
            obj.type = tarfile.DIRTYPE
        if obj.isdir():
            obj.name = obj.name.rstrip("/")
        if before and obj.type not in tarfile.GNU_TYPES:
            obj.name = before + "/" + obj.name
        return obj

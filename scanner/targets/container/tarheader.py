"""tarfile's member header parsed faster: a layer of tens of thousands of files is two headers a file (a pax header,
then the file's own), and tarfile parses each field of each with a function call of its own, half of a container
image's opening. Here the 512-byte header is split with one `struct` call and its checksum summed once; what is
made of it, and what is raised for a bad one, are tarfile's (`TarInfo.frombuf`). An empty, cut or all-zero block
and the old GNU sparse form are left to tarfile itself.

What follows a header is bounded here before tarfile reads it (`_proc_member`): tarfile reads a pax or GNU long-name
header whole into memory, follows a chain of them by recursion, reads a sparse map until it ends, and moves back for
a negative size. A header past MAX_EXTENDED bytes, a chain past MAX_CHAINED headers, a sparse map that does not end
within MAX_EXTENDED bytes, a negative size, or a damaged extended header (a number that is no number: tarfile's
`ValueError` or `IndexError`) is a `SubsequentHeaderError`, which tarfile raises as the `ReadError` of a damaged tar;
so is a header after the first that is not one (a bad checksum, a number that is no number), which tarfile takes for
the end of the archive.

The layout is POSIX ustar's: name 100, mode 8, uid 8, gid 8, size 12, mtime 12, chksum 8, typeflag 1, linkname 100,
magic and version 8, uname 32, gname 32, devmajor 8, devminor 8, prefix 155, then 12 bytes unused.
"""

from __future__ import annotations

import struct
import tarfile
from collections.abc import Callable
from typing import Any

MAX_EXTENDED = 1 << 20  # bytes of one extended header or sparse map (a path, a link, xattrs: kilobytes in real tars)
MAX_CHAINED = 32  # extended headers before one member (a global pax header, a pax header, a long name and link)
_EXTENDED = (tarfile.GNUTYPE_LONGNAME, tarfile.GNUTYPE_LONGLINK, tarfile.XHDTYPE, tarfile.XGLTYPE,
             tarfile.SOLARIS_XHDTYPE)
_HEADER = struct.Struct("100s8s8s8s12s12s8sc100s8x32s32s8s8s155s12x")
_ZEROS = bytes(tarfile.BLOCKSIZE)
_BASE256 = (0o200, 0o377)  # a number's first byte when it is binary, not octal text (tarfile's `nti`)
# tarfile's own helpers and the error its header parser raises (not in its stubs)
_nti: Callable[[bytes], int] = tarfile.nti  # type: ignore[attr-defined]
_checksums: Callable[[bytes], tuple[int, int]] = tarfile.calc_chksums  # type: ignore[attr-defined]
_InvalidHeader: type[Exception] = tarfile.InvalidHeaderError  # type: ignore[attr-defined]
_Refused: type[Exception] = tarfile.SubsequentHeaderError  # type: ignore[attr-defined]


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

    @classmethod
    def fromtarfile(cls, tarfile: Any) -> Any:
        """tarfile's; but a damaged header after the first is a damaged tar, where tarfile would take it for the
        archive's end and leave every member after it unread, silently."""
        try:
            return super().fromtarfile(tarfile)
        except _InvalidHeader as exc:
            if tarfile.offset:
                raise _Refused(f"a damaged header at byte {tarfile.offset} ({exc})") from None
            raise

    def _proc_member(self, tarfile: Any) -> Any:
        """tarfile's, once what follows the header is bounded (above); the chain's depth is kept on the archive."""
        if self.size < 0:
            raise _Refused(f"a member of negative size ({self.size})")
        depth = vars(tarfile).get("_chained", 0)
        if self.type in _EXTENDED:
            if self.size > MAX_EXTENDED:
                raise _Refused(f"an extended header of {self.size} bytes, more than {MAX_EXTENDED}")
            if depth >= MAX_CHAINED:
                raise _Refused(f"more than {MAX_CHAINED} extended headers in a row")
        tarfile._chained = depth + 1
        try:
            return super()._proc_member(tarfile)  # type: ignore[misc]
        except (ValueError, IndexError) as exc:
            raise _Refused(f"a damaged extended header ({type(exc).__name__})") from None  # its text quotes the tar
        finally:
            tarfile._chained = depth

    def _proc_sparse(self, tarfile: Any) -> Any:
        """tarfile's, once the old GNU sparse map's extension blocks are found to end within MAX_EXTENDED bytes."""
        if self._sparse_structs[1]:  # type: ignore[attr-defined]  # more of the map follows in blocks of its own
            _ends_within(tarfile.fileobj, _last_extension_block)
        return super()._proc_sparse(tarfile)  # type: ignore[misc]

    def _proc_gnusparse_10(self, next: Any, pax_headers: Any, tarfile: Any) -> Any:
        """tarfile's, once the sparse map is found to end within MAX_EXTENDED bytes."""
        _ends_within(tarfile.fileobj, _sparse_map_end)
        return super()._proc_gnusparse_10(next, pax_headers, tarfile)  # type: ignore[misc]


def _last_extension_block(held: bytes) -> int:
    """Where the old GNU sparse map's extension blocks end (the first whose "extended" byte is 0), or -1."""
    for at in range(0, len(held) - tarfile.BLOCKSIZE + 1, tarfile.BLOCKSIZE):
        if not held[at + 504]:
            return at + tarfile.BLOCKSIZE
    return -1


def _sparse_map_end(held: bytes) -> int:
    """Where a GNU sparse 1.0 map (a count of regions, then two numbers a region, a line each) ends, or -1."""
    at = -1
    for _ in range(int(held.split(b"\n", 1)[0]) * 2 + 1):
        at = held.find(b"\n", at + 1)
        if at < 0:
            return -1
    return at


def _ends_within(fileobj: Any, end: Callable[[bytes], int]) -> None:
    """Raises unless `end` finds where a map that starts at `fileobj`'s position ends within MAX_EXTENDED bytes;
    the position is left as it was."""
    at = fileobj.tell()
    held = fileobj.read(MAX_EXTENDED)
    fileobj.seek(at)
    if end(held) < 0:
        raise _Refused(f"a sparse map that does not end within {MAX_EXTENDED} bytes")

"""Bounded reading of zip members (jars, wars, wheels): the declared sizes of a hostile archive are never trusted.

The archive is bytes in memory or, for a big one, a positional reader of the file (`PositionalFile`): only its
end (the central directory) and the members asked for are read, never the whole file. The directory is counted
and walked in a bounded stream before zipfile parses it, and zipfile sees only the entries asked for.

Members are inflated in small pieces with a cap on the bytes produced and on the compression ratio, so a
member that lies about its size costs at most the cap. Only stored and deflated members are read: the
stdlib inflates bzip2 and LZMA members in one unbounded call. Every way an archive can fail to open or a
member fail to read (a future zip version, a cut member, a corrupt stream, encryption) becomes a
`ZipProblem` the caller records as a skip; nothing raises.
"""

from __future__ import annotations

import io
import struct
import zipfile
import zlib
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from enum import Enum

from scanner.formats import zipdirectory
from scanner.formats.positional import PositionalFile

_PIECE = 64 << 10
MAX_MEMBER = 1 << 20  # inflated bytes read from one member
MAX_RATIO = 200  # inflated / compressed; deflate tops out near 1032 only on crafted input
MAX_ENTRIES = 1_000_000  # central-directory entries walked (~1.5 us each, a few bytes of memory)
MAX_WANTED = 100_000  # wanted entries handed to zipfile (each a ZipInfo of ~500 bytes)
_READABLE = frozenset({zipfile.ZIP_STORED, zipfile.ZIP_DEFLATED})
# What zipfile raises on hostile or damaged archives (each seen by fuzzing or by reading zipfile.py).
_FAILURES = (
    zipfile.BadZipFile,
    zipfile.LargeZipFile,
    NotImplementedError,  # a zip version over 6.3, strong encryption, patched data
    EOFError,  # a member cut short
    zlib.error,
    RuntimeError,  # an encrypted member without a password
    OSError,
    ValueError,  # includes UnicodeDecodeError of a member name
    OverflowError,
    IndexError,
    KeyError,
    struct.error,  # a record of the directory cut short (read in place from a file that changed)
)


class ProblemKind(str, Enum):
    UNREADABLE = "unreadable"  # the archive or a member could not be parsed
    LIMIT = "limit"  # a member inflated past MAX_MEMBER or MAX_RATIO
    CAP = "cap"  # more central-directory entries than MAX_ENTRIES, or wanted ones than MAX_WANTED


@dataclass(frozen=True)
class ZipProblem:
    kind: ProblemKind
    detail: str  # names the member and the cause; may carry target text (the caller scrubs output)


@dataclass(frozen=True)
class Member:
    name: str
    data: bytes


Source = bytes | PositionalFile


def _why(exc: BaseException) -> str:
    text = str(exc).splitlines()[0][:200] if str(exc) else ""
    return f"{type(exc).__name__}: {text}" if text else type(exc).__name__


def members(
    data: Source,
    wanted: Callable[[str], bool],
    problems: list[ZipProblem],
    max_member: int = MAX_MEMBER,
    max_ratio: int = MAX_RATIO,
    max_entries: int = MAX_ENTRIES,
) -> Iterator[Member]:
    """The inflated bytes of every member whose name `wanted` accepts; what could not be read lands in `problems`.
    The central directory is counted and walked in a bounded stream first (`zipdirectory`): zipfile sees only
    the wanted entries, so memory follows them, not the archive's entry count."""
    try:
        read, size = _reader(data)
        found = zipdirectory.directory(read, size)
        kept = zipdirectory.keep_wanted(read, found, wanted, max_entries, MAX_WANTED)
        view, view_size = zipdirectory.narrowed(read, found, kept.records, kept.kept)
        archive = zipfile.ZipFile(io.BufferedReader(PositionalFile(view, view_size), _PIECE))
    except _FAILURES as exc:
        problems.append(ZipProblem(ProblemKind.UNREADABLE, f"archive not readable ({_why(exc)})"))
        return
    if not kept.complete:
        detail = (
            f"zip entries past the first {kept.walked:,} not looked at ({found.entries:,} in all by the end record;"
            f" {kept.kept:,} wanted)"
        )
        problems.append(ZipProblem(ProblemKind.CAP, detail))
    with archive:
        for info in archive.infolist():
            if info.compress_type not in _READABLE:
                detail = f"member {info.filename!r}: compression method {info.compress_type} not read"
                problems.append(ZipProblem(ProblemKind.UNREADABLE, detail))
                continue
            body = _inflate(archive, info, max_member, max_ratio, problems)
            if body is not None:
                yield Member(info.filename, body)


def _reader(data: Source) -> tuple[zipdirectory.ReadAt, int]:
    if isinstance(data, bytes):
        return (lambda offset, size: data[offset : offset + size]), len(data)
    return data.read_at, data.seek(0, io.SEEK_END)


def _inflate(
    archive: zipfile.ZipFile, info: zipfile.ZipInfo, max_member: int, max_ratio: int, problems: list[ZipProblem]
) -> bytes | None:
    out = bytearray()
    # The ratio is checked against the bytes really consumed, not the declared compressed size alone.
    budget = min(max_member, max(info.compress_size, 1) * max_ratio)
    try:
        with archive.open(info) as member:
            while True:
                piece = member.read(_PIECE)
                if not piece:
                    return bytes(out)
                out += piece
                if len(out) > budget:
                    why = "size" if budget == max_member else "compression ratio"
                    detail = f"member {info.filename!r}: inflated past its {why} cap ({budget} bytes)"
                    problems.append(ZipProblem(ProblemKind.LIMIT, detail))
                    return None
    except _FAILURES as exc:
        problems.append(ZipProblem(ProblemKind.UNREADABLE, f"member {info.filename!r}: {_why(exc)}"))
        return None

"""Go build info, read from the bytes of a Go binary without running it.

The linker writes a header (`\\xff Go buildinf:`) and, since Go 1.18, the Go version and the module
info inline after it as varint-prefixed strings. Older binaries point to them instead; the module
info is still findable in any Go binary by the 16-byte sentinels the go command wraps it in.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

MAGIC = b"\xff Go buildinf:"
_INFO_START = bytes.fromhex("3077af0c9274080241e1c107e6d618e6")
_INFO_END = bytes.fromhex("f932433186182072008242104116d8f2")
_FLAG_INLINE = 0x2
_MAX_INFO = 1 << 20
# The bytes from a header that the inline info can take: the header, two varints and their strings.
SPAN = 32 + 2 * (10 + _MAX_INFO)


@dataclass(frozen=True)
class GoModule:
    path: str
    version: str


@dataclass(frozen=True)
class GoBuildInfo:
    go_version: str | None
    path: str | None  # the main package path
    main: GoModule | None
    deps: tuple[GoModule, ...]


def _varint(data: bytes, at: int) -> tuple[int, int]:
    value = shift = 0
    while at < len(data) and shift < 64:
        byte = data[at]
        value |= (byte & 0x7F) << shift
        at += 1
        if not byte & 0x80:
            return value, at
        shift += 7
    raise ValueError("truncated varint")


def _inline_strings(data: bytes, header: int) -> tuple[str | None, bytes | None]:
    try:
        size, at = _varint(data, header + 32)
        version = data[at : at + size].decode("utf-8", "replace")
        size2, at2 = _varint(data, at + size)
        return version, data[at2 : at2 + min(size2, _MAX_INFO)]
    except ValueError:
        return None, None


def is_inline(data: bytes, header: int) -> bool:
    """Whether the header at `header` says its info follows it (Go 1.18+); older binaries point elsewhere
    (their info is found by its sentinels, wherever it lies)."""
    return header + 16 > len(data) or bool(data[header + 15] & _FLAG_INLINE)


def inline_past(data: bytes, header: int) -> bool:
    """Whether the header's inline info may run past the end of `data`."""
    return header + SPAN > len(data) and is_inline(data, header)


def find_info(read: Callable[[int, int], bytes], file_size: int, step: int = 8 << 20) -> GoBuildInfo | None:
    """The module info of an older Go binary too large to hold, found by its sentinels in bounded reads."""
    offset = 0
    while offset < file_size:
        chunk = read(offset, step + len(_INFO_START) - 1)
        begin = chunk.find(_INFO_START)
        if begin != -1:
            region = read(offset + begin, 16 + _MAX_INFO + 16)
            close = region.find(_INFO_END, 16)
            return _modinfo(None, region[16:close]) if close != -1 else None
        offset += step
    return None


def parse(data: bytes, start: int = 0, end: int | None = None) -> GoBuildInfo | None:
    """The build info of a Go binary; None when the bytes hold none.

    `start` and `end` bound where the header may begin (one window of a large binary); what follows it
    may lie past `end`.
    """
    stop = len(data) if end is None else end
    header = data.find(MAGIC, start, stop + len(MAGIC) - 1)
    if header == -1 or header + 32 > len(data):
        return None
    go_version, info = None, None
    if data[header + 15] & _FLAG_INLINE:
        go_version, info = _inline_strings(data, header)
    if not info or not info.startswith(_INFO_START):
        begin = data.find(_INFO_START, start)
        close = data.find(_INFO_END, begin + 16, begin + 16 + _MAX_INFO) if begin != -1 else -1
        info = data[begin : close + 16] if close != -1 else None
    if not info:
        return GoBuildInfo(go_version, None, None, ()) if go_version else None
    return _modinfo(go_version, info[16:-16] if info.endswith(_INFO_END) else info[16:])


def _modinfo(go_version: str | None, raw: bytes) -> GoBuildInfo:
    path, main = None, None
    deps: list[GoModule] = []
    for line in raw.decode("utf-8", "replace").splitlines():
        fields = line.split("\t")
        if fields[0] == "path" and len(fields) > 1:
            path = fields[1]
        elif fields[0] == "mod" and len(fields) > 2:
            main = GoModule(fields[1], fields[2])
        elif fields[0] == "dep" and len(fields) > 2:
            deps.append(GoModule(fields[1], fields[2]))
        elif fields[0] == "=>" and len(fields) > 2 and fields[2].startswith("v") and deps:
            # A module replacement names the version really built; a local directory ("(devel)") does not.
            deps[-1] = GoModule(deps[-1].path, fields[2])
    return GoBuildInfo(go_version, path, main, tuple(deps))

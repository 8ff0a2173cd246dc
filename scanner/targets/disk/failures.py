"""Read failures per mounted filesystem, in memory shared with forked scan workers: a worker's failed read
counts against its filesystem in the image-level result the parent gives."""

from __future__ import annotations

import mmap
import struct

_DETAIL = 240  # bytes of the first failure's text kept per filesystem
_SLOT = 8 + _DETAIL


class Failures:
    """A count and the first failure's detail for each mount point, in an anonymous shared mapping."""

    def __init__(self, points: list[str]) -> None:
        self._index = {p: i for i, p in enumerate(points)}
        self._shared = mmap.mmap(-1, max(1, len(points)) * _SLOT)  # MAP_SHARED: the same pages after fork

    def add(self, point: str, detail: str) -> None:
        i = self._index.get(point)
        if i is None:
            return
        at = i * _SLOT
        (count,) = struct.unpack_from("<q", self._shared, at)
        if count == 0:
            text = detail.encode("utf-8", "replace")[:_DETAIL]
            self._shared[at + 8 : at + 8 + _DETAIL] = text.ljust(_DETAIL, b"\0")
        struct.pack_into("<q", self._shared, at, count + 1)  # racy across workers at worst by a count

    def count(self, point: str) -> int:
        i = self._index.get(point)
        return 0 if i is None else int(struct.unpack_from("<q", self._shared, i * _SLOT)[0])

    def first(self, point: str) -> str:
        i = self._index.get(point)
        if i is None:
            return ""
        at = i * _SLOT + 8
        return bytes(self._shared[at : at + _DETAIL]).rstrip(b"\0").decode("utf-8", "replace")

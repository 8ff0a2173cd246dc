"""A bounded mapping of what a disk image's walk asked lately (listings, inode objects, stats): past its bound, the
least recently used entries are forgotten, so its memory does not grow with the image."""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Callable, Hashable
from typing import Generic, TypeVar

K = TypeVar("K", bound=Hashable)
V = TypeVar("V")


def _one(_: object) -> int:
    return 1


class Recent(Generic[K, V]):
    """At most `most` in weight (each value weighs `weight(value)`; one by default), the newest kept; the newest
    one is kept whatever it weighs."""

    def __init__(self, most: int, weight: Callable[[V], int] = _one) -> None:
        self.most = most
        self._weight = weight
        self._held: OrderedDict[K, V] = OrderedDict()
        self.weight = 0

    def get(self, key: K) -> V | None:
        found = self._held.get(key)
        if found is not None:
            self._held.move_to_end(key)
        return found

    def put(self, key: K, value: V) -> None:
        old = self._held.pop(key, None)
        if old is not None:
            self.weight -= self._weight(old)
        self._held[key] = value
        self.weight += self._weight(value)
        while self.weight > self.most and len(self._held) > 1:
            _, dropped = self._held.popitem(last=False)
            self.weight -= self._weight(dropped)

    def __len__(self) -> int:
        return len(self._held)

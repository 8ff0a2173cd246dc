"""A value computed on first read and kept on the instance: `functools.cached_property` without its lock.

Python 3.11's `cached_property` takes a lock shared by every instance on each first read; a file's view makes a
few such reads (its name, its context, whether it is a session log) and is read by one thread only, so over a
scan of 100k files the lock was most of what the reads cost.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Generic, TypeVar, overload

T = TypeVar("T")


class once(Generic[T]):
    """A non-data descriptor: the computed value, stored in the instance's `__dict__` under the same name, hides
    it from then on (a value that raised is computed again on the next read, as `cached_property` does)."""

    def __init__(self, compute: Callable[[Any], T]) -> None:
        self.compute = compute
        self.name = compute.__name__
        self.__doc__ = compute.__doc__

    def __set_name__(self, owner: type, name: str) -> None:
        self.name = name

    @overload
    def __get__(self, instance: None, owner: type | None = None) -> once[T]: ...

    @overload
    def __get__(self, instance: object, owner: type | None = None) -> T: ...

    def __get__(self, instance: object | None, owner: type | None = None) -> T | once[T]:
        if instance is None:
            return self
        value = instance.__dict__[self.name] = self.compute(instance)
        return value

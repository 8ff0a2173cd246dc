"""What the session reader keeps per catalog (its fingerprinter, the rules it made of hosts and served models, its
conclusions), held only while the catalog lives.

The reader asks for them once a record or more; a `WeakKeyDictionary` lookup builds a weak reference and runs
Python code every time, so the catalog asked last and its value are kept apart and found with one call.
"""

from __future__ import annotations

import weakref
from collections.abc import Callable
from typing import Generic, TypeVar

from scanner.catalog import Catalog

V = TypeVar("V")


class PerCatalog(Generic[V]):
    """A value per catalog, made by `make` the first time a catalog asks."""

    __slots__ = ("_by_catalog", "_last", "_make")

    def __init__(self, make: Callable[[Catalog], V]) -> None:
        self._make = make
        self._by_catalog: weakref.WeakKeyDictionary[Catalog, V] = weakref.WeakKeyDictionary()
        # The catalog asked last and its value, as one tuple: replaced whole, so a thread never reads a mix.
        self._last: tuple[weakref.ref[Catalog], V] | None = None

    def of(self, catalog: Catalog) -> V:
        last = self._last
        if last is not None and last[0]() is catalog:
            return last[1]
        found = self._by_catalog.get(catalog)
        if found is None:
            found = self._by_catalog[catalog] = self._make(catalog)
        self._last = (weakref.ref(catalog), found)
        return found

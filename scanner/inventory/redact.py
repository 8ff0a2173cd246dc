"""The one redaction step every output string passes: the inventory, as built, scrubbed whole.

Detectors hand over target text in many slots (paths and file names, symlink targets in skip details,
session ids and labels, MCP arguments, config values, notes). Rather than trusting each slot's author to
call `Catalog.scrub`, every `str` in the finished inventory goes through it here, once, before any
renderer sees it. Only a credential's own redacted form and hash are left as they are.

Running every credential regex over every string costs ~0.1 ms a string (10 s for 100k paths), so the
strings are first joined and searched in one pass of the catalog's compiled matcher; only a string a
credential pattern touches is scrubbed.
"""

from __future__ import annotations

import bisect
import dataclasses
from collections.abc import Callable
from enum import Enum
from typing import Any, TypeVar

from scanner.catalog import Catalog
from scanner.catalog.matcher import PatternKind

T = TypeVar("T")
Scrub = Callable[[str], str]

# Fields that already are the safe form of a secret (and a hex digest a loose pattern might match).
_KEEP = frozenset({"redacted", "sha256"})
# Each string stands on a line of its own, so that a pattern that ends at a line's end (`master_key: sk-…` in a
# YAML line) matches a string as it matches the file it came from; the NUL between them no credential pattern spans
# (none admits one); a hit that did would mark both sides.
_SEPARATOR = b"\n\x00\n"


def redact_all(value: T, catalog: Catalog) -> T:
    """`value` with every string in it (through dataclasses, tuples, lists and dicts) scrubbed of credentials."""
    strings: set[str] = set()
    _collect(value, strings)
    dirty = _touched(sorted(strings), catalog)
    if not dirty:
        return value
    out: T = _walk(value, lambda s: catalog.scrub(s) if s in dirty else s)
    return out


def _touched(ordered: list[str], catalog: Catalog) -> set[str]:
    """The strings a credential pattern matches in, found in one matcher pass over all of them."""
    starts: list[int] = []
    parts: list[bytes] = []
    at = 0
    for s in ordered:
        raw = s.encode("utf-8", "surrogatepass")
        starts.append(at)
        parts.append(raw)
        at += len(raw) + len(_SEPARATOR)
    blob = _SEPARATOR.join(parts)
    dirty: set[str] = set()
    for hit in catalog.matcher.scan(blob):
        if hit.kind is not PatternKind.CREDENTIAL:
            continue
        first = bisect.bisect_right(starts, hit.start) - 1
        last = bisect.bisect_right(starts, max(hit.start, hit.end - 1)) - 1
        dirty.update(ordered[first : last + 1])
    return dirty


def _collect(value: Any, strings: set[str]) -> None:
    """Every string `_walk` would visit in `value`, added to `strings`. The walk's first pass, which visits every
    value of the inventory (hundreds of thousands of locations): a value that holds no string (a number, None, an
    enum) is passed over where it is found, without a call."""
    kind = type(value)
    if kind is str:
        strings.add(value)
        return
    if kind is tuple or kind is list:
        items: Any = value
    elif kind is dict:
        strings.update(k for k in value if type(k) is str)
        items = [k for k in value if type(k) is not str] + list(value.values())
    else:
        names = _fields_of(kind)
        if not names:
            return
        items = [getattr(value, name) for name in names]
    for item in items:
        t = type(item)
        if t is str:
            strings.add(item)
        elif t not in _NO_STRINGS:
            _collect(item, strings)


# Types that hold no string (an enum's members, a str subclass, are never scrubbed either: `_fields_of` gives none).
_NO_STRINGS = frozenset({int, bool, float, type(None)})


def _walk(value: Any, scrub: Scrub) -> Any:
    kind = type(value)
    if kind is str:
        return scrub(value)
    if kind is tuple or kind is list:
        items = [_walk(v, scrub) for v in value]
        return value if all(a is b for a, b in zip(items, value, strict=True)) else kind(items)
    if kind is dict:
        return {_walk(k, scrub): _walk(v, scrub) for k, v in value.items()}
    names = _fields_of(kind)
    if not names:
        return value  # numbers, None, enums (a str subclass: never scrubbed)
    changes = {}
    for name in names:
        old = getattr(value, name)
        new = _walk(old, scrub)
        if new is not old:
            changes[name] = new
    return dataclasses.replace(value, **changes) if changes else value


_FIELDS: dict[type, tuple[str, ...]] = {}


def _fields_of(kind: type) -> tuple[str, ...]:
    """The fields of a dataclass type worth walking (cached: the walk visits ~10^5 values on a big scan)."""
    names = _FIELDS.get(kind)
    if names is None:
        is_record = dataclasses.is_dataclass(kind) and not issubclass(kind, Enum)
        names = tuple(f.name for f in dataclasses.fields(kind) if f.name not in _KEEP) if is_record else ()
        _FIELDS[kind] = names
    return names

"""What a whole JSON document costs to build, told before it is built.

`json.loads` builds every object and array of a document at once, and their number, not the bytes, is its
memory: 32 MB of `{},` is ten million dicts (~800 MB). Counting braces and brackets is one C pass; a document
past the bound is recorded as such rather than built. Real documents hold ~10-20k of them per MB (a 32 MB
one ~600k), so the bound cuts only crafted ones.
"""

from __future__ import annotations

MAX_CONTAINERS = 1_000_000  # ~64 MB of empty dicts


def containers(text: str | bytes) -> int:
    """The objects and arrays the document would build, at most (braces inside strings count too)."""
    if isinstance(text, str):
        return text.count("{") + text.count("[")
    return text.count(b"{") + text.count(b"[")


def too_big(text: str | bytes) -> str | None:
    """Why the document is not built (a skip's detail), or None when it may be."""
    found = containers(text)
    if found <= MAX_CONTAINERS:
        return None
    return f"JSON document of {found:,} objects and arrays (over {MAX_CONTAINERS:,}) not parsed"

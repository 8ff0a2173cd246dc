"""The one redaction step every output string passes: the inventory, as built or as loaded, scrubbed whole.

Detectors hand over target text in many slots (paths and file names, symlink targets in skip details,
session ids and labels, MCP arguments, config values, notes). Rather than trusting each slot's author to
call `Catalog.scrub`, every `str` in the finished inventory goes through it here, once, before any
renderer sees it. Only a credential's own redacted form and hash are left as they are.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from enum import Enum
from typing import Any, TypeVar

T = TypeVar("T")
Scrub = Callable[[str], str]

# Fields that already are the safe form of a secret (and a hex digest a loose pattern might match).
_KEEP = frozenset({"redacted", "sha256"})


def redact_all(value: T, scrub: Scrub) -> T:
    """`value` with every string in it (through dataclasses, tuples, lists and dicts) scrubbed."""
    out: T = _walk(value, scrub)
    return out


def _walk(value: Any, scrub: Scrub) -> Any:
    if isinstance(value, Enum) or value is None or isinstance(value, bool | int | float):
        return value
    if isinstance(value, str):
        return scrub(value)
    if isinstance(value, tuple):
        return tuple(_walk(v, scrub) for v in value)
    if isinstance(value, list):
        return [_walk(v, scrub) for v in value]
    if isinstance(value, dict):
        return {_walk(k, scrub): _walk(v, scrub) for k, v in value.items()}
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        changes = {}
        for f in dataclasses.fields(value):
            if f.name in _KEEP:
                continue
            old = getattr(value, f.name)
            new = _walk(old, scrub)
            if new is not old and new != old:
                changes[f.name] = new
        return dataclasses.replace(value, **changes) if changes else value
    return value

"""JSON text indented by two spaces, ASCII only: the text of `json.dumps(value, indent=2, ensure_ascii=True)`, made
in C.

The standard library encodes with its C encoder only when there is no indent; with one it walks the value in Python,
one call per container and value (a fifth of a second for a 10 MB report). Here the C encoder writes the compact text
and msgspec's formatter lays it out: it copies strings and numbers as they are and puts the whitespace `json.dumps`
puts around them, so the text is the same.
"""

from __future__ import annotations

import json
from typing import Any

import msgspec


def compact_json(value: Any) -> str:
    """`value` as JSON text without whitespace, ASCII only (what `indented_json` lays out)."""
    return json.dumps(value, ensure_ascii=True)


def indented_json(value: Any, compact: str | None = None) -> str:
    """`json.dumps(value, indent=2, ensure_ascii=True)`, the same text; `compact` is `compact_json(value)` when the
    caller made it already."""
    try:
        text: str = msgspec.json.format(compact_json(value) if compact is None else compact, indent=2)
    except msgspec.DecodeError:  # NaN or Infinity, which json.dumps writes and strict JSON does not have
        return json.dumps(value, indent=2, ensure_ascii=True)
    return text

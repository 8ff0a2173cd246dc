"""The inventory as JSON (the `modelcensus/inventory@1` contract).

Undecodable bytes a name carried (lone surrogates from `surrogateescape`) are written as `\\xNN` text, the same as
every other format shows them: a lone surrogate is not valid Unicode and strict JSON readers reject it. Findings the
ignore file accepts keep their place and gain `ignored` with the reason.
"""

from __future__ import annotations

import io
import json
import re
from typing import Any

import msgspec

from scanner.inventory.document import to_document
from scanner.kinds import Inventory
from scanner.render._view import DEFAULT, ReportOptions
from scanner.textsafe import unsurrogate

description = "the full inventory as JSON (schema modelcensus/inventory@1)"


def clean(value: Any) -> Any:
    """`value` with every string made valid Unicode, in place: the document of a large scan is not copied."""
    if isinstance(value, str):
        return unsurrogate(value)
    if isinstance(value, dict):
        if any(isinstance(k, str) and unsurrogate(k) is not k for k in value):
            return {unsurrogate(k) if isinstance(k, str) else k: clean(v) for k, v in value.items()}
        for k, v in value.items():
            new = clean(v)
            if new is not v:
                value[k] = new  # same keys: allowed while iterating
        return value
    if isinstance(value, list):
        for i, v in enumerate(value):
            new = clean(v)
            if new is not v:
                value[i] = new
        return value
    return value


def document(inv: Inventory, opts: ReportOptions = DEFAULT) -> dict[str, Any]:
    doc: dict[str, Any] = clean(to_document(inv))
    _mark_ignored(doc, opts)
    return doc


def _mark_ignored(doc: dict[str, Any], opts: ReportOptions) -> bool:
    """Findings the ignore file accepts gain `ignored` with the reason; whether any did."""
    marked = False
    for f in doc["findings"]:
        reason = opts.ignored.get(f["id"])
        if reason:
            f["ignored"] = {"reason": reason}
            marked = True
    return marked


def render(inv: Inventory, opts: ReportOptions = DEFAULT) -> str:
    # ensure_ascii: a control or bidi character from a hostile file name never reaches a terminal raw.
    # The text of json.dumps(indent=2), made at C speed: the compact text by the stdlib's C encoder, indented by
    # msgspec, which copies every string and number as written (the pure-Python indenting encoder took seconds
    # for a large scan). The compact text says whether any string holds a lone surrogate (written as a
    # `\udc..` escape): only then is the document cleaned, a walk over all of it.
    doc = to_document(inv)
    text = _COMPACT.encode(doc)
    cleaned = _SURROGATE_ESCAPE.search(text) is not None
    if cleaned:
        doc = clean(doc)
    if _mark_ignored(doc, opts) or cleaned:
        text = _COMPACT.encode(doc)
    return dumps(doc, text)


def dumps(doc: Any, compact: str | None = None) -> str:
    """`json.dumps(doc, indent=2, ensure_ascii=True)` and a newline, from `doc`'s compact text when given."""
    try:
        return msgspec.json.format(_COMPACT.encode(doc) if compact is None else compact, indent=2) + "\n"
    except (msgspec.DecodeError, ValueError):  # what strict JSON cannot hold (NaN): the stdlib's own indenting
        # Chunk by chunk: dumps first lists every chunk (millions of small strings for a large scan) before
        # joining them.
        out = io.StringIO()
        for chunk in _ENCODER.iterencode(doc):
            out.write(chunk)
        out.write("\n")
        return out.getvalue()


_ENCODER = json.JSONEncoder(indent=2, ensure_ascii=True)
_COMPACT = json.JSONEncoder(ensure_ascii=True, separators=(",", ":"))
# Any UTF-16 surrogate escape, a pair's half (an emoji) or a lone one: a pair only costs a walk that changes nothing.
_SURROGATE_ESCAPE = re.compile(r"\\u[dD][89a-fA-F]")

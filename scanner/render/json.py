"""The inventory as JSON (the `modelcensus/inventory@1` contract).

Undecodable bytes a name carried (lone surrogates from `surrogateescape`) are written as `\\xNN` text, the same as
every other format shows them: a lone surrogate is not valid Unicode and strict JSON readers reject it. Findings the
ignore file accepts keep their place and gain `ignored` with the reason.
"""

from __future__ import annotations

import io
import json
import re
from collections.abc import Callable
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
    doc = to_document(inv)
    _mark_ignored(doc, opts)
    cleaned: dict[str, Any] = clean(doc)
    return cleaned


def _mark_ignored(doc: dict[str, Any], opts: ReportOptions) -> None:
    """Findings the ignore file accepts gain `ignored` with the reason. Before cleaning: the ignore file's answers
    are keyed by the finding's own id, which cleaning would change where it holds an undecodable byte."""
    for f in doc["findings"]:
        reason = opts.ignored.get(f["id"])
        if reason:
            f["ignored"] = {"reason": reason}


def render(inv: Inventory, opts: ReportOptions = DEFAULT) -> str:
    # ensure_ascii: a control or bidi character from a hostile file name never reaches a terminal raw.
    # The text of json.dumps(indent=2), made at C speed: the compact text by the stdlib's C encoder, indented by
    # msgspec, which copies every string and number as written (the pure-Python indenting encoder took seconds
    # for a large scan). The document is let go before the indenting: the end-of-scan peak is its objects and
    # the compact text, then the two texts, never the document and two texts.
    return _indent(_compact(inv, opts), lambda: document(inv, opts))


def dumps(value: Any) -> str:
    """`json.dumps(value, indent=2, ensure_ascii=True)` and a newline."""
    return _indent(_COMPACT.encode(value), lambda: value)


def _compact(inv: Inventory, opts: ReportOptions) -> str:
    """The document's compact text. Only a text that holds a surrogate escape (a lone surrogate is written as a
    `\\udc..` escape) has its document cleaned, a walk over all of it."""
    doc = to_document(inv)
    _mark_ignored(doc, opts)
    text = _COMPACT.encode(doc)
    if _SURROGATE_ESCAPE.search(text) is not None:
        text = _COMPACT.encode(clean(doc))
    return text


def _indent(compact: str, value_of: Callable[[], Any]) -> str:
    """The compact text indented, and a newline; what strict JSON cannot hold (NaN) is the stdlib's to indent."""
    # As bytes (the text is ASCII), each copy let go once the next is made: at most two texts held at a time.
    raw = compact.encode("ascii")
    del compact  # the caller passed its only reference
    try:
        indented = msgspec.json.format(raw, indent=2)
    except msgspec.DecodeError:
        return _indented(value_of())
    del raw
    text = indented.decode("ascii")
    del indented
    return text + "\n"


def _indented(value: Any) -> str:
    # Chunk by chunk: dumps first lists every chunk (millions of small strings for a large scan) before joining them.
    out = io.StringIO()
    for chunk in _ENCODER.iterencode(value):
        out.write(chunk)
    out.write("\n")
    return out.getvalue()


_ENCODER = json.JSONEncoder(indent=2, ensure_ascii=True)
_COMPACT = json.JSONEncoder(ensure_ascii=True, separators=(",", ":"))
# Any UTF-16 surrogate escape, a pair's half (an emoji) or a lone one: a pair only costs a walk that changes nothing.
_SURROGATE_ESCAPE = re.compile(r"\\u[dD][89a-fA-F]")

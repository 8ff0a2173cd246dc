"""The inventory as JSON (the `modelcensus/inventory@1` contract).

Undecodable bytes a name carried (lone surrogates from `surrogateescape`) are written as `\\xNN` text, the same as
every other format shows them: a lone surrogate is not valid Unicode and strict JSON readers reject it. Findings the
ignore file accepts keep their place and gain `ignored` with the reason.
"""

from __future__ import annotations

from typing import Any

from scanner.inventory.document import to_document
from scanner.kinds import Inventory
from scanner.render._indented import compact_json, indented_json
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
    return _with_ignored(clean(to_document(inv)), opts)


def _with_ignored(doc: dict[str, Any], opts: ReportOptions) -> dict[str, Any]:
    for f in doc["findings"]:
        reason = opts.ignored.get(f["id"])
        if reason:
            f["ignored"] = {"reason": reason}
    return doc


def render(inv: Inventory, opts: ReportOptions = DEFAULT) -> str:
    # ensure_ascii: a control or bidi character from a hostile file name never reaches a terminal raw.
    doc = _with_ignored(to_document(inv), opts)
    compact = compact_json(doc)
    # A lone surrogate is written `\udXXX` (so is half of a character past U+FFFF, and a text that spells it): only
    # then may a string need cleaning, which walks the whole document.
    if _MAYBE_SURROGATE in compact:
        doc = document(inv, opts)
        compact = compact_json(doc)
    return indented_json(doc, compact) + "\n"


_MAYBE_SURROGATE = "\\ud"

"""The inventory as JSON (the `modelcensus/inventory@1` contract).

Undecodable bytes a name carried (lone surrogates from `surrogateescape`) are written as `\\xNN` text, the same as
every other format shows them: a lone surrogate is not valid Unicode and strict JSON readers reject it. Findings the
ignore file accepts keep their place and gain `ignored` with the reason.
"""

from __future__ import annotations

import io
import json
import re
from collections.abc import Callable, Iterator
from typing import Any

import msgspec

from scanner.inventory.document import entry_sections, head_document, to_document
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
        _mark_finding(f, opts)


def render(inv: Inventory, opts: ReportOptions = DEFAULT) -> str:
    # ensure_ascii: a control or bidi character from a hostile file name never reaches a terminal raw.
    return b"".join(chunks(inv, opts)).decode("ascii")


def chunks(inv: Inventory, opts: ReportOptions = DEFAULT) -> Iterator[bytes]:
    """The report's bytes, piece by piece, for a writer that streams (`render` joins them): each entry of a section
    is encoded and indented on its own and let go, so a scan whose sessions mention thousands of models (~350,000
    locations) never holds its whole document, nor its whole text. Joined, the pieces are `json.dumps(indent=2)` of
    the document: each value indented as a document of its own, then shifted to its depth."""
    pieces = [b"{"]
    for i, (key, value) in enumerate(head_document(inv).items()):
        pieces.append(b"%s\n  %s: %s" % (b"," if i else b"", _key(key), _indented_piece(value, _DEPTH_1)))
    yield b"".join(pieces)
    for key, entries in entry_sections(inv):
        pieces = [b',\n  %s: [' % _key(key)]
        count = 0
        for entry in entries:
            if key == "findings":
                _mark_finding(entry, opts)
            pieces.append(b"%s\n    %s" % (b"," if count else b"", _indented_piece(entry, _DEPTH_2)))
            count += 1
            if len(pieces) >= _PIECES_PER_CHUNK:
                yield b"".join(pieces)
                pieces = []
        pieces.append(b"\n  ]" if count else b"]")
        yield b"".join(pieces)
    yield b"\n}\n"


_DEPTH_1, _DEPTH_2 = b"\n  ", b"\n    "  # a value's line breaks at the depth of a head key, of a section's entry
_PIECES_PER_CHUNK = 256


def _key(key: str) -> bytes:
    return _COMPACT.encode(key).encode("ascii")


def _indented_piece(value: Any, depth: bytes) -> bytes:
    """`json.dumps(value, indent=2)` as `render` makes it (compact by the C encoder, cleaned only when it holds a
    surrogate escape, indented by msgspec, the stdlib's indenting where strict JSON cannot hold it), each line
    break followed by the indent of `depth`. A JSON string never holds a raw line break, so only the layout's move."""
    compact = _COMPACT.encode(value)
    if _SURROGATE_ESCAPE.search(compact) is not None:
        value = clean(value)
        compact = _COMPACT.encode(value)
    try:
        indented = msgspec.json.format(compact.encode("ascii"), indent=2)
    except msgspec.DecodeError:
        indented = _ENCODER.encode(clean(value)).encode("ascii")
    return indented.replace(b"\n", depth)


def _mark_finding(finding: dict[str, Any], opts: ReportOptions) -> None:
    """A finding the ignore file accepts gains `ignored` with the reason (see `_mark_ignored`)."""
    reason = opts.ignored.get(finding["id"])
    if reason:
        finding["ignored"] = {"reason": reason}


def dumps(value: Any) -> str:
    """`json.dumps(value, indent=2, ensure_ascii=True)` and a newline."""
    return _indent(_COMPACT.encode(value), lambda: value)


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

"""The inventory as JSON (the `modelcensus/inventory@1` contract).

Undecodable bytes a name carried (lone surrogates from `surrogateescape`) are written as `\\xNN` text, the same as
every other format shows them: a lone surrogate is not valid Unicode and strict JSON readers reject it. Findings the
ignore file accepts keep their place and gain `ignored` with the reason.
"""

from __future__ import annotations

import io
import json
import re
from collections.abc import Iterator
from typing import Any

import msgspec

from scanner.inventory.document import entry_sections, head_document
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
        pieces.append(b"%s\n  %s: %s" % (b"," if i else b"", _key(key), _indented(value, _DEPTH_1)))
    yield b"".join(pieces)
    for key, entries in entry_sections(inv):
        pieces = [b',\n  %s: [' % _key(key)]
        count = 0
        for entry in entries:
            if key == "findings":
                _mark_finding(entry, opts)
            pieces.append(b"%s\n    %s" % (b"," if count else b"", _indented(entry, _DEPTH_2)))
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


def _indented(value: Any, depth: bytes = b"\n", cleaned: bool = True) -> bytes:
    """`json.dumps(value, indent=2, ensure_ascii=True)`, made at C speed: the compact text by the stdlib's C encoder
    (`cleaned`: made valid Unicode first when it holds a surrogate escape), indented by msgspec, which copies every
    string and number as written; the stdlib's indenting where strict JSON cannot hold the value (NaN). Each line
    break is followed by the indent of `depth`: a JSON string never holds a raw line break, so only the layout's
    move."""
    compact = _COMPACT.encode(value)
    if cleaned and _SURROGATE_ESCAPE.search(compact) is not None:
        value = clean(value)
        compact = _COMPACT.encode(value)
    raw = compact.encode("ascii")
    del compact  # at most two texts of a large value are held at a time
    try:
        indented = msgspec.json.format(raw, indent=2)
    except msgspec.DecodeError:
        # Chunk by chunk: the stdlib's encode lists every chunk (millions of small strings) before joining them.
        out = io.StringIO()
        for chunk in _ENCODER.iterencode(clean(value) if cleaned else value):
            out.write(chunk)
        indented = out.getvalue().encode("ascii")
    del raw
    return indented if depth == b"\n" else indented.replace(b"\n", depth)


def _mark_finding(finding: dict[str, Any], opts: ReportOptions) -> None:
    """A finding the ignore file accepts gains `ignored` with the reason. Before cleaning: the ignore file's answers
    are keyed by the finding's own id, which cleaning would change where it holds an undecodable byte."""
    reason = opts.ignored.get(finding["id"])
    if reason:
        finding["ignored"] = {"reason": reason}


def dumps(value: Any) -> str:
    """`json.dumps(value, indent=2, ensure_ascii=True)` and a newline (strings as they are, lone surrogates too)."""
    return _indented(value, cleaned=False).decode("ascii") + "\n"


_ENCODER = json.JSONEncoder(indent=2, ensure_ascii=True)
_COMPACT = json.JSONEncoder(ensure_ascii=True, separators=(",", ":"))
# Any UTF-16 surrogate escape, a pair's half (an emoji) or a lone one: a pair only costs a walk that changes nothing.
_SURROGATE_ESCAPE = re.compile(r"\\u[dD][89a-fA-F]")

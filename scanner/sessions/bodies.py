"""HTTP bodies as captures and proxy logs keep them: JSON text, a server-sent-event stream, gzip bytes, or either
of those in base64. Each is read to a JSON value, bounded: a body is inflated only up to MAX_BODY bytes, and the
bodies of one file only up to its `WorkBudget`'s room; an event stream gives at most MAX_EVENTS events, and
nothing raises (what is not a readable body gives None)."""

from __future__ import annotations

import base64
import binascii
import contextlib
import json
import re
from typing import Any

from scanner.formats import deflate
from scanner.sessions.budget import WorkBudget

MAX_BODY = 4 << 20
MAX_EVENTS = 500
_GZIP = b"\x1f\x8b"
_BASE64 = re.compile(r"[A-Za-z0-9+/_\-\r\n]{16,}={0,2}")
_EVENT = re.compile(r"^data:\s*(\{.*\})\s*$", re.MULTILINE)


def decode_body(raw: Any, budget: WorkBudget, limit: int = MAX_BODY) -> Any:
    """The JSON value a body holds, or None. `raw` is the body as stored: text or bytes; what it inflates to is
    charged to `budget`, the file's."""
    if isinstance(raw, bytes | bytearray):
        return _from_bytes(bytes(raw), budget, limit, depth=0)
    if isinstance(raw, str):
        return _from_text(raw, budget, limit, depth=0)
    return None


def _from_bytes(raw: bytes, budget: WorkBudget, limit: int, depth: int) -> Any:
    if raw.startswith(_GZIP):
        room = budget.inflate_room()
        if not room:
            return None
        raw = _inflate(raw, min(limit + 1, room))
        budget.inflated += len(raw)
        if budget.inflated >= budget.max_inflated:  # this one may have been cut by it: recorded
            budget.bodies_cut = True
    if len(raw) > limit:
        return None
    return _from_text(raw.decode("utf-8", "replace"), budget, limit, depth)


def _from_text(text: str, budget: WorkBudget, limit: int, depth: int) -> Any:
    if len(text) > limit * 2:
        return None
    head = text.lstrip()[:1]
    if head in ("{", "["):
        with contextlib.suppress(ValueError, RecursionError):
            return json.loads(text)
        return None
    if text.lstrip().startswith(("data:", "event:")):
        events = []
        for m in _EVENT.finditer(text):
            with contextlib.suppress(ValueError, RecursionError):
                events.append(json.loads(m.group(1)))
            if len(events) >= MAX_EVENTS:
                break
        return events or None
    if depth == 0 and _BASE64.fullmatch(text.strip()):
        packed = "".join(text.split())
        altchars = b"-_" if "-" in packed or "_" in packed else None
        with contextlib.suppress(binascii.Error, ValueError):
            raw = base64.b64decode(packed + "=" * (-len(packed) % 4), altchars=altchars)
            return _from_bytes(raw, budget, limit, depth + 1)
    return None


def _inflate(raw: bytes, limit: int) -> bytes:
    """A gzip body inflated up to `limit` bytes (a bomb stops there); what a corrupt stream gave before its error."""
    inflater = deflate.decompressobj(wbits=31)
    try:
        return inflater.decompress(raw, limit)
    except deflate.error:
        return b""

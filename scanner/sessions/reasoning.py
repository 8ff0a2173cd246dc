"""Whether a session's reasoning is readable by the operator, encrypted at the source, or absent.

Each record's reasoning states come from the shape walk (`shape.read_shape`), which asks here what each string
says (`text_reasoning`): a reasoning or thinking block with text, a summary, a `think` part or `<think>` text is
visible, whatever blob travels beside it; a record that carries only an `encrypted_content` blob, a signature or
`redacted_thinking` data is encrypted. A session (or a provider's share of it) with records of both kinds is
`mixed`.
"""

from __future__ import annotations

import json
import re
from typing import Any

from scanner.sessions.keys import REASONING, SECRET, STRONG_SECRET, TEXT

VISIBLE = "visible"
ENCRYPTED = "encrypted"
ABSENT = "absent"
MIXED = "mixed"
_BLOB = re.compile(r"[A-Za-z0-9+/=_\-:.]{16}")  # a prefix of 16 says as much as the whole run
# A stand-in where text was removed (`[trimmed for fixture]`, `<redacted>`): one bracketed note, no reasoning.
_PLACEHOLDER = re.compile(r"(?:\[[^\[\]\n]{1,60}\]|<[^<>\n]{1,60}>)\s*$")


def session_reasoning(states: set[str]) -> str:
    if VISIBLE in states and ENCRYPTED in states:
        return MIXED
    if VISIBLE in states:
        return VISIBLE
    if ENCRYPTED in states:
        return ENCRYPTED
    return ABSENT


def is_blob(value: str) -> bool:
    """An opaque token (base64, Fernet, a signature, maybe cut with a `…<truncated>` mark), not words."""
    return bool(_BLOB.match(value))


_MAX_EMBEDDED = 1 << 16


def embedded_item(value: str) -> dict[str, Any] | None:
    """The JSON object a reasoning block's signature holds as text (pi keeps OpenAI's whole reasoning item there),
    bounded in size; None when it is no JSON object."""
    if len(value) > _MAX_EMBEDDED:
        return None
    try:
        decoded = json.loads(value)
    except (ValueError, RecursionError):  # not JSON, or nested past the parser's depth
        return None
    return decoded if isinstance(decoded, dict) else None


_REPLY_TEXT_KEYS = ("content", "text", "response", "message", "output")


def is_reply_text(node: dict[str, Any], key: str, value: str) -> bool:
    """A reasoning key whose text is the record's reply itself (SWE-agent's `thought` beside the same `content` or
    `response`) is the reply under a second name, no reasoning channel."""
    return any(node.get(k) == value for k in _REPLY_TEXT_KEYS if k != key)


def text_reasoning(flags: int, block: bool, token: bool, value: str) -> str | None:
    """What one string value says of reasoning: visible text, an encrypted blob, or nothing."""
    if flags & STRONG_SECRET or (block and flags & SECRET):
        return ENCRYPTED if token and is_blob(value) else None
    if block and flags & TEXT:
        # A blob where the text would be is encrypted; anything else there is the reasoning, readable.
        if token and len(value) > 40 and is_blob(value):
            return ENCRYPTED
        return None if value[0] in "[<" and _PLACEHOLDER.match(value) else VISIBLE
    if flags & REASONING and not block:
        if not token:
            # prose under a reasoning key (`reasoning_content`, OpenRouter `reasoning`)
            return None if value[0] in "[<" and _PLACEHOLDER.match(value) else VISIBLE
        return ENCRYPTED if len(value) > 40 and is_blob(value) else None
    return None

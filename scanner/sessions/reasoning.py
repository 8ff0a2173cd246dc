"""Whether a session's reasoning is readable by the operator, encrypted at the source, or absent.

Each record's reasoning states come from the shape walk (`shape.read_shape`): a reasoning or thinking block
with text, a summary, a `think` part or `<think>` text is visible, whatever blob travels beside it; a record that
carries only an `encrypted_content` blob, a signature or `redacted_thinking` data is encrypted. A session (or a
provider's share of it) with records of both kinds is `mixed`.
"""

from __future__ import annotations

from typing import Any

from scanner.sessions.shape import ENCRYPTED, VISIBLE, read_shape

ABSENT = "absent"
MIXED = "mixed"
__all__ = ["ABSENT", "ENCRYPTED", "MIXED", "VISIBLE", "record_reasoning", "session_reasoning"]


def record_reasoning(record: dict[str, Any]) -> set[str]:
    """The reasoning states present in one record: a subset of {visible, encrypted}."""
    return read_shape(record).reasoning


def session_reasoning(states: set[str]) -> str:
    if VISIBLE in states and ENCRYPTED in states:
        return MIXED
    if VISIBLE in states:
        return VISIBLE
    if ENCRYPTED in states:
        return ENCRYPTED
    return ABSENT

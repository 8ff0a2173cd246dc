"""Whether a record's reasoning is readable by the operator, encrypted at the source, or absent.

Shapes, not formats: a `reasoning` / `thinking` block with text is visible; one that carries only an
`encrypted_content` blob, a signature or `redacted_thinking` data is encrypted. A summary alone is not the
reasoning (it is what the provider chose to show), so it does not make reasoning visible.
"""

from __future__ import annotations

from collections import deque
from typing import Any

VISIBLE = "visible"
ENCRYPTED = "encrypted"
ABSENT = "absent"
MIXED = "mixed"

_BLOCK_TYPES = {"reasoning", "thinking"}
_TEXT_KEYS = ("reasoning", "thinking", "text")
_SECRET_KEYS = ("encrypted_content", "signature", "thinkingSignature", "data")
_MAX_NODES = 5_000


def _nonempty(value: Any) -> bool:
    if isinstance(value, str):
        return bool(value.strip())
    if isinstance(value, list):
        return any(_nonempty(v.get("text") if isinstance(v, dict) else v) for v in value)
    return False


def record_reasoning(record: dict[str, Any]) -> set[str]:
    """The reasoning states present in one record: a subset of {visible, encrypted}."""
    found: set[str] = set()
    queue: deque[Any] = deque([record])
    nodes = 0
    while queue and nodes < _MAX_NODES:
        node = queue.popleft()
        nodes += 1
        if isinstance(node, list):
            queue.extend(node)
            continue
        if not isinstance(node, dict):
            continue
        kind = node.get("type") if isinstance(node.get("type"), str) else None
        if kind == "redacted_thinking" or "redactedContent" in node:
            found.add(ENCRYPTED)
        elif kind in _BLOCK_TYPES or "reasoningText" in node:
            inner = node.get("reasoningText")
            block: dict[str, Any] = inner if isinstance(inner, dict) else node
            if any(_nonempty(block.get(k)) for k in _TEXT_KEYS) or _nonempty(block.get("content")):
                found.add(VISIBLE)
            elif any(_nonempty(block.get(k)) for k in _SECRET_KEYS):
                found.add(ENCRYPTED)
        if _nonempty(node.get("reasoning_content")) or (kind is None and _nonempty(node.get("reasoning"))):
            found.add(VISIBLE)
        if node.get("thought") is True and _nonempty(node.get("text")):
            found.add(VISIBLE)
        if isinstance(node.get("thoughts"), list) and node["thoughts"]:
            found.add(VISIBLE)
        queue.extend(v for v in node.values() if isinstance(v, dict | list))
    return found


def session_reasoning(states: set[str]) -> str:
    if VISIBLE in states and ENCRYPTED in states:
        return MIXED
    if VISIBLE in states:
        return VISIBLE
    if ENCRYPTED in states:
        return ENCRYPTED
    return ABSENT

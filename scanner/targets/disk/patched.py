"""dissect's own functions replaced by the faster readers of this package (`extfast`, `xfsfast`): once, and only
where dissect still has what they replace (a dissect that moved or renamed it keeps its own)."""

from __future__ import annotations

from typing import Any


def replace_once(module: Any, name: str, ours: Any) -> Any | None:
    """`module.name` set to `ours`; what it was, if this call replaced it (None: absent, or already ours)."""
    current = getattr(module, name, None)
    if current is None or current is ours:
        return None
    setattr(module, name, ours)
    return current

"""A diff as a JSON document (`modelcensus/diff@1`); `schema.json` beside it describes the same shape."""

from __future__ import annotations

import json
from importlib import resources
from typing import Any

from scanner import __version__
from scanner.diff.changes import SEVERITY_RANK, Change, InventoryDiff, Side
from scanner.policy.ignore import IgnoreEntry

SCHEMA_ID = "modelcensus/diff@1"


def _side(side: Side) -> dict[str, Any]:
    return {
        "tool_version": side.tool_version,
        "target": {"kind": side.target.kind, "location": side.target.location},
        "catalogs": [{"name": c.name, "version": c.version, "origin": c.origin} for c in side.catalogs],
    }


def _change(c: Change) -> dict[str, Any]:
    return {
        "id": c.id,
        "section": c.section,
        "key": c.key,
        "kind": c.kind.value,
        "field": c.field,
        "severity": c.severity.value,
        "title": c.title,
        "old": c.old,
        "new": c.new,
        "where": list(c.where),
        "ignored": c.ignored,
        "part_of": c.part_of,
    }


def entry_document(e: IgnoreEntry) -> dict[str, Any]:
    return {
        "id": e.id,
        "path": e.path,
        "sha256": e.sha256,
        "reason": e.reason,
        "expires": e.expires.isoformat() if e.expires else None,
    }


def to_document(diff: InventoryDiff, expired: tuple[IgnoreEntry, ...] = ()) -> dict[str, Any]:
    active = diff.active()
    return {
        "schema": SCHEMA_ID,
        "tool": {"name": "modelcensus", "version": __version__},
        "old": _side(diff.old),
        "new": _side(diff.new),
        "summary": {
            "changes": len(active),
            "ignored": len(diff.changes) - len(active),
            "folded": sum(1 for c in active if c.part_of is not None),
            "by_severity": {
                s.value: sum(1 for c in active if c.severity is s)
                for s in sorted(SEVERITY_RANK, key=SEVERITY_RANK.__getitem__, reverse=True)
            },
        },
        "changes": [_change(c) for c in diff.changes],
        "expired_ignores": [entry_document(e) for e in expired],
    }


def dumps(diff: InventoryDiff, expired: tuple[IgnoreEntry, ...] = ()) -> str:
    return json.dumps(to_document(diff, expired), indent=2, ensure_ascii=True) + "\n"


def load_schema() -> dict[str, Any]:
    text = resources.files("scanner.diff").joinpath("schema.json").read_text(encoding="utf-8")
    result: dict[str, Any] = json.loads(text)
    return result

"""The diff as JSON (the `modelcensus/diff@1` contract, schema in scanner/diff/schema.json)."""

from __future__ import annotations

from scanner.diff.changes import InventoryDiff
from scanner.diff.diff_document import dumps
from scanner.policy.ignore import IgnoreEntry

description = "every change as JSON (schema modelcensus/diff@1)"


def render(diff: InventoryDiff, expired: tuple[IgnoreEntry, ...] = ()) -> str:
    return dumps(diff, expired)

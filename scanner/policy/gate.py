"""`--fail-on SEVERITY`: exit 1 when something at or above it is left after the ignore entries."""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable
from datetime import date

from scanner.diff.changes import SEVERITY_RANK, Change, ChangeKind, InventoryDiff
from scanner.model import Finding, Severity
from scanner.policy.ignore import IgnoreEntry, Subject, first_match, hashes_in

SEVERITIES = tuple(sorted(SEVERITY_RANK, key=SEVERITY_RANK.__getitem__))


def at_or_above(severity: Severity, threshold: Severity) -> bool:
    return SEVERITY_RANK[severity] >= SEVERITY_RANK[threshold]


def finding_subject(f: Finding) -> Subject:
    return Subject(f.id, tuple(sorted({loc.path for loc in f.locations})), hashes_in(f.id))


def change_subject(c: Change) -> Subject:
    keys = [str(v.get("key", "")) for v in (c.old, c.new) if isinstance(v, dict)]
    return Subject(c.id, c.where, hashes_in(c.id, *keys))


def split_findings(
    findings: Iterable[Finding], entries: tuple[IgnoreEntry, ...], today: date
) -> tuple[tuple[Finding, ...], tuple[tuple[Finding, IgnoreEntry], ...]]:
    """(findings still active, findings suppressed with the entry that suppressed each)."""
    kept, suppressed = [], []
    for f in findings:
        entry = first_match(entries, finding_subject(f), today)
        if entry is None:
            kept.append(f)
        else:
            suppressed.append((f, entry))
    return tuple(kept), tuple(suppressed)


def apply_ignores(diff: InventoryDiff, entries: tuple[IgnoreEntry, ...], today: date) -> InventoryDiff:
    changes = []
    for c in diff.changes:
        entry = first_match(entries, change_subject(c), today)
        changes.append(dataclasses.replace(c, ignored=entry.reason) if entry else c)
    return dataclasses.replace(diff, changes=tuple(changes))


def findings_fail(findings: Iterable[Finding], threshold: Severity | None) -> bool:
    return threshold is not None and any(at_or_above(f.severity, threshold) for f in findings)


def failing_changes(diff: InventoryDiff, threshold: Severity | None, new_only: bool = False) -> list[Change]:
    """The changes at or above `threshold`. With `new_only` (a baseline), what went away never fails: only what is
    new or different since."""
    if threshold is None:
        return []
    return [c for c in diff.active()
            if at_or_above(c.severity, threshold) and not (new_only and c.kind is ChangeKind.REMOVED)]


def changes_fail(diff: InventoryDiff, threshold: Severity | None, new_only: bool = False) -> bool:
    return bool(failing_changes(diff, threshold, new_only))

"""What a diff is made of: changes between two inventories, each keyed by a stable identity.

A change never depends on where a thing was found (paths and lines are context, in `where`), so a file
moved between releases is not a change and a baseline written today still matches tomorrow.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import Enum
from typing import Any

from scanner.model import CatalogRef, Severity, TargetInfo


class ChangeKind(str, Enum):
    ADDED = "added"
    REMOVED = "removed"
    CHANGED = "changed"  # the same thing, one of its facts differs (`field` names which)
    ROTATED = "rotated"  # a credential replaced by another at the same place
    DRIFT = "drift"  # what the catalogs know of the same model differs (lifecycle, canonical id, …)


INVERSE_KIND = {
    ChangeKind.ADDED: ChangeKind.REMOVED,
    ChangeKind.REMOVED: ChangeKind.ADDED,
    ChangeKind.CHANGED: ChangeKind.CHANGED,
    ChangeKind.ROTATED: ChangeKind.ROTATED,
    ChangeKind.DRIFT: ChangeKind.DRIFT,
}

SEVERITY_RANK = {s: s.rank for s in Severity}  # the one ranking, Severity.rank, as a table


@dataclass(frozen=True)
class Change:
    section: str  # the inventory section: models, sdks, endpoints, credentials, kill_switches, …
    key: str  # the thing's identity inside its section (never a location)
    kind: ChangeKind
    field: str | None  # for `changed` and `drift`: which fact changed
    old: Any  # JSON-compatible; None when the thing did not exist on that side
    new: Any
    severity: Severity
    title: str
    where: tuple[str, ...] = ()  # inside-target paths, for context only
    ignored: str | None = None  # the reason of the ignore entry that suppresses it, if any
    part_of: str | None = None  # the id of the change this one details (a product upgrade, a config edit)

    @property
    def id(self) -> str:
        """Stable across runs and releases: what baselines and ignore files name."""
        return f"{self.section}:{self.key}" + (f":{self.field}" if self.field else "")


@dataclass(frozen=True)
class Side:
    """What a diff says about each inventory it compared."""

    tool_version: str
    target: TargetInfo
    catalogs: tuple[CatalogRef, ...]


@dataclass(frozen=True)
class InventoryDiff:
    old: Side
    new: Side
    changes: tuple[Change, ...]

    def active(self) -> tuple[Change, ...]:
        """The changes no ignore entry suppresses."""
        return tuple(c for c in self.changes if c.ignored is None)

    def details(self, parent: Change) -> tuple[Change, ...]:
        """The changes folded under `parent`, in the diff's order."""
        return tuple(c for c in self.changes if c.part_of == parent.id)

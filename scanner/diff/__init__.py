"""Compare two inventories (two releases of an agent image) by stable identity, never by location."""

from scanner.diff.changes import INVERSE_KIND, SEVERITY_RANK, Change, ChangeKind, InventoryDiff, Side
from scanner.diff.compare import diff_inventories

__all__ = ["INVERSE_KIND", "SEVERITY_RANK", "Change", "ChangeKind", "InventoryDiff", "Side", "diff_inventories"]

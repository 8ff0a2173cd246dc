"""Compare two inventories (two releases of an agent image) by stable identity, never by location.

`compare.diff_inventories` does it; the package itself holds only what a diff is (`changes`), which the gate of
every scan reads, so a scan does not load the comparison.
"""

from scanner.diff.changes import INVERSE_KIND, SEVERITY_RANK, Change, ChangeKind, InventoryDiff, Side

__all__ = ["INVERSE_KIND", "SEVERITY_RANK", "Change", "ChangeKind", "InventoryDiff", "Side"]

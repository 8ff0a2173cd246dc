"""Pieces both text formats of a diff share: the headline and the catalog versions on each side."""

from __future__ import annotations

from scanner.diff.model import InventoryDiff, Side
from scanner.textsafe import escape_control
from scanner.vocab import SEVERITIES_WORST_FIRST

_MAX_WHERE = 2


def catalogs(side: Side) -> str:
    return ", ".join(f"{c.name} {c.version}" for c in side.catalogs) or "none"


def headline(diff: InventoryDiff) -> str:
    active = diff.active()
    counts = {s: sum(1 for c in active if c.severity == s) for s in SEVERITIES_WORST_FIRST}
    shown = ", ".join(f"{n} {s}" for s, n in counts.items() if n) or "none"
    ignored = len(diff.changes) - len(active)
    return f"{len(active)} change(s): {shown}" + (f"; {ignored} ignored" if ignored else "")


def catalog_note(diff: InventoryDiff) -> str | None:
    before, after = catalogs(diff.old), catalogs(diff.new)
    return None if before == after else f"catalogs differ: {before} → {after}"


def where(paths: tuple[str, ...]) -> str:
    more = f" (+{len(paths) - _MAX_WHERE})" if len(paths) > _MAX_WHERE else ""
    return escape_control(", ".join(paths[:_MAX_WHERE]) + more)

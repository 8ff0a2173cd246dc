"""Pieces both text formats of a diff share: the headline and the catalog versions on each side."""

from __future__ import annotations

from scanner.diff.changes import SEVERITY_RANK, Change, InventoryDiff, Side
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
    folded = sum(1 for c in active if c.part_of is not None)
    return (f"{len(active)} change(s): {shown}" + (f"; {folded} shown under a product" if folded else "")
            + (f"; {ignored} ignored" if ignored else ""))


def grouped(diff: InventoryDiff) -> list[tuple[Change, int]]:
    """The active changes, most severe group first, each detail (depth 1) right under the change it details.
    A group ranks by its most severe member, so a high detail is never buried under an info parent."""
    active = diff.active()
    ids = {c.id for c in active}
    tops = [c for c in active if c.part_of not in ids]
    details = {c.id: [d for d in active if d.part_of == c.id] for c in tops}

    def rank(c: Change) -> int:
        return max(SEVERITY_RANK[x.severity] for x in (c, *details[c.id]))

    out: list[tuple[Change, int]] = []
    for top in sorted(tops, key=lambda c: -rank(c)):
        out.append((top, 0))
        out += [(d, 1) for d in sorted(details[top.id], key=lambda c: -SEVERITY_RANK[c.severity])]
    return out


def catalog_note(diff: InventoryDiff) -> str | None:
    before, after = catalogs(diff.old), catalogs(diff.new)
    return None if before == after else f"catalogs differ: {before} → {after}"


def where(paths: tuple[str, ...]) -> str:
    more = f" (+{len(paths) - _MAX_WHERE})" if len(paths) > _MAX_WHERE else ""
    return escape_control(", ".join(paths[:_MAX_WHERE]) + more)

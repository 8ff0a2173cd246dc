"""The diff as a table for a terminal: the changes by severity, then what was ignored and what expired."""

from __future__ import annotations

from tabulate import tabulate

from scanner.diff.model import InventoryDiff
from scanner.diffrender.common import catalog_note, grouped, headline, where
from scanner.policy.ignore import IgnoreEntry
from scanner.textsafe import escape_control

description = "human-readable table of changes, most severe first"


def render(diff: InventoryDiff, expired: tuple[IgnoreEntry, ...] = ()) -> str:
    old, new = diff.old.target.location, diff.new.target.location
    out = [f"modelcensus diff: {escape_control(old)} → {escape_control(new)}", headline(diff)]
    note = catalog_note(diff)
    if note:
        out.append(escape_control(note))
    active = grouped(diff)
    if active:
        rows = [[c.severity.value, c.kind.value, "  └ " * depth + escape_control(c.title), where(c.where)]
                for c, depth in active]
        out += ["", tabulate(rows, headers=["severity", "change", "what", "where"], tablefmt="simple")]
    ignored = [c for c in diff.changes if c.ignored is not None]
    if ignored:
        rows = [[escape_control(c.id), escape_control(c.ignored or "")] for c in ignored]
        out += ["", f"Ignored ({len(ignored)})", tabulate(rows, headers=["change", "reason"], tablefmt="simple")]
    if expired:
        rows = [[escape_control(e.id or e.sha256 or ""), str(e.expires), escape_control(e.reason)] for e in expired]
        out += ["", f"Expired ignore entries ({len(expired)}): no longer suppressing"]
        out.append(tabulate(rows, headers=["entry", "expired", "reason"], tablefmt="simple"))
    return "\n".join(out) + "\n"

"""The diff as a table for a terminal: the changes by severity, then what was ignored and what expired."""

from __future__ import annotations

from scanner.diff.changes import InventoryDiff
from scanner.diffrender._text_parts import catalog_note, grouped, headline, where
from scanner.policy.ignore import IgnoreEntry
from scanner.render._view import DEFAULT, ReportOptions
from scanner.render.table import COLOURS, fit_line, grid

description = "human-readable table of changes, most severe first, each with its id; fits the terminal"


def render(diff: InventoryDiff, expired: tuple[IgnoreEntry, ...] = (), opts: ReportOptions = DEFAULT) -> str:
    old, new = diff.old.target.location, diff.new.target.location
    out = [fit_line(f"modelcensus diff: {old} → {new}", opts), fit_line(headline(diff), opts)]
    note = catalog_note(diff)
    if note:
        out.append(fit_line(note, opts))
    active = grouped(diff)
    if active:
        rows = [[c.severity.value, c.kind.value, "└ " * depth + f"{c.title}\nid: {c.id}", where(c.where)]
                for c, depth in active]
        paints = [COLOURS[c.severity] for c, _ in active]
        out += ["", *grid(["severity", "change", "what", "where"], rows, opts, paints, wrap=2)]
    ignored = [c for c in diff.changes if c.ignored is not None]
    if ignored:
        rows = [[c.id, c.ignored or ""] for c in ignored]
        out += ["", f"Ignored ({len(ignored)})", *grid(["change", "reason"], rows, opts, main=0)]
    if expired:
        rows = [[e.id or e.sha256 or "", str(e.expires), e.reason] for e in expired]
        out += ["", f"Expired ignore entries ({len(expired)}): no longer suppressing"]
        out += grid(["entry", "expired", "reason"], rows, opts, main=0)
    return "\n".join(out) + "\n"

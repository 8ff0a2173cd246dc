"""The diff as Markdown, for a pull-request comment: a summary line, then one table of changes."""

from __future__ import annotations

from scanner.diff.changes import InventoryDiff
from scanner.diffrender._text_parts import catalog_note, grouped, headline, where
from scanner.policy.ignore import IgnoreEntry
from scanner.textsafe import escape_control

description = "Markdown for a pull-request comment"


def cell(text: str) -> str:
    # A pipe or a newline from a hostile file name would break the table; backticks would open code spans.
    return escape_control(text).replace("|", "\\|").replace("`", "'").replace("\n", " ")


def render(diff: InventoryDiff, expired: tuple[IgnoreEntry, ...] = ()) -> str:
    out = ["### modelcensus: model wiring changes", "", f"**{headline(diff)}**", ""]
    note = catalog_note(diff)
    if note:
        out += [f"_{cell(note)}_", ""]
    active = grouped(diff)
    if active:
        out += ["| severity | change | what | where |", "|---|---|---|---|"]
        out += [
            f"| {c.severity.value} | {c.kind.value} | {'↳ ' * depth}{cell(c.title)} | {cell(where(c.where))} |"
            for c, depth in active
        ]
    else:
        out.append("No change in models, SDKs, endpoints, credentials or kill switches.")
    ignored = [c for c in diff.changes if c.ignored is not None]
    if ignored:
        out += ["", "<details><summary>Ignored changes</summary>", ""]
        out += [f"- `{cell(c.id)}`: {cell(c.ignored or '')}" for c in ignored]
        out += ["", "</details>"]
    if expired:
        out += ["", "**Expired ignore entries** (no longer suppressing):", ""]
        out += [f"- `{cell(e.id or e.sha256 or '')}` expired {e.expires}: {cell(e.reason)}" for e in expired]
    return "\n".join(out) + "\n"

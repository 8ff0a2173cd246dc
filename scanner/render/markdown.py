"""The table report as GitHub-flavoured Markdown, to paste into a ticket or a pull request.

The same sections as the table, cut to stay within what a pull-request comment holds (65,536 characters): the
headline and findings first, then rows of each section while they fit; the end says what was left out.
Everything that comes from the target (paths, model ids, values) is escaped, so a hostile file name cannot add
links, HTML or table cells to the page it is pasted into.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from scanner.kinds import Inventory
from scanner.kinds.base import ReportTable
from scanner.render._headline import Line, finding_rows, headline, not_wiring_lines
from scanner.render._view import DEFAULT, ReportOptions, detail_sections
from scanner.textsafe import safe

description = "the table report as GitHub-flavoured Markdown (for tickets and pull requests), within 65,536 chars"
LIMIT = 65_536
_RESERVE = 2_000  # kept for the closing note that says what was cut
_SPECIAL = re.compile(r"([\\`*_\[\]<>|~#!])")


def md(value: object) -> str:
    """Target text made inert in a GFM table cell: one line, punctuation escaped, `&` as an entity."""
    text = safe(value).replace("&", "&amp;")
    return _SPECIAL.sub(r"\\\1", text)


def _bullets(lines: Sequence[Line]) -> str:
    return (
        "\n".join(
            ("  " * ln.depth)
            + "- "
            + ("**" + md(ln.text) + "**" if ln.depth == 0 and ":" not in ln.text else md(ln.text))
            for ln in lines
        )
        + "\n"
    )


def _head(s: ReportTable) -> list[str]:
    if not s.rows:
        return [f"### {s.title}", "", f"{md(s.empty).capitalize()}."]
    title = s.title if s.key == "findings" else f"{s.title} ({len(s.rows)})"  # findings: counted, not rows
    return [f"### {title}", "", "| " + " | ".join(s.headers) + " |", "|" + "---|" * len(s.headers)]


def render(inv: Inventory, opts: ReportOptions = DEFAULT) -> str:
    catalogs = ", ".join(md(f"{c.name}@{c.version}") for c in inv.catalogs) or "none"
    parts = [
        f"## modelcensus report: {md(inv.target.location)}\n",
        f"modelcensus {md(inv.tool_version)}, {inv.target.kind} target, catalogs: {catalogs}\n",
        "### What this machine is wired to\n",
        _bullets(headline(inv)),
    ]
    rows = finding_rows(inv, opts)
    hidden = f"; {opts.hidden_findings} more hidden by --severity" if opts.hidden_findings else ""
    finding_table = ReportTable(
        "findings",
        f"Findings ({len(inv.findings)}{hidden})",
        ("severity", "finding", "id", "where"),
        tuple(
            (
                f"**{r.severity.value}**" if r.ignored is None else f"ignored ({r.severity.value})",
                md(r.title) + (f" — *ignored: {md(r.ignored)}*" if r.ignored else ""),
                md(r.label or r.ids[0]),
                md(r.where),
            )
            for r in rows
        ),
        empty="no findings",
    )
    nw = not_wiring_lines(inv) if not opts.all else []
    sections = [finding_table] + [
        ReportTable(s.key, s.title, s.headers, tuple(tuple(md(c) for c in r) for r in s.rows), s.empty, s.note)
        for s in detail_sections(inv, opts)
    ]
    used = sum(len(p) + 1 for p in parts) + (len(_bullets(nw)) if nw else 0)
    budget = LIMIT - _RESERVE
    blocks: list[list[str]] = [_head(s) for s in sections]
    used += sum(len("\n".join(b)) + 2 for b in blocks)
    left: list[tuple[str, int]] = []
    for s, block in zip(sections, blocks, strict=True):
        dropped = 0
        for row in s.rows:
            text = "| " + " | ".join(row) + " |"
            if dropped or used + len(text) + 1 > budget:
                dropped += 1
                continue
            block.append(text)
            used += len(text) + 1
        if s.note:
            block += ["", md(s.note)]
        if dropped:
            block += ["", f"*{dropped:,} more row(s) left out to fit {LIMIT:,} characters.*"]
            left.append((s.title.lower(), dropped))
    out = "\n".join(parts) + "\n" + "\n\n".join("\n".join(b) for b in blocks[:1]) + "\n"
    if nw:
        out += "\n### Not wiring\n\n" + _bullets(nw[1:] if len(nw) > 1 else nw)
    out += "\n" + "\n\n".join("\n".join(b) for b in blocks[1:]) + "\n"
    if left:
        what = ", ".join(f"{n:,} {title}" for title, n in left)
        out += (
            f"\n**Cut:** this report was cut to stay within {LIMIT:,} characters; left out: {what} row(s). "
            "The JSON inventory has everything.\n"
        )
    return out

"""The inventory as one self-contained HTML page an auditor can mail around.

The headline and findings first, then every kind's detail table as the kind declares it (its title, columns and
rows, the same the table and Markdown formats show; `Kind.cells` says how a column is laid out here), with a picture
above the sessions (per day by vendor) and the routes (aliases to vendors). Inline CSS and SVG only:
no script, no font, no image, and a Content-Security-Policy that forbids loading anything, so the page makes no
network request even if a value from the target slipped through. Every value from the target is escaped.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from html import escape

from scanner.inventory.document import session_document
from scanner.kinds import Inventory
from scanner.kinds.base import Cell, ReportTable
from scanner.render._headline import Line, finding_rows, headline, not_wiring_lines
from scanner.render._html_style import CSS as _CSS
from scanner.render._svg import NEVER, Edge, routes_diagram, session_vendors, sessions_chart, vendor_colours
from scanner.render._view import DEFAULT, ReportOptions, detail_sections
from scanner.textsafe import safe
from scanner.vocab import SEVERITIES_WORST_FIRST

description = "one self-contained HTML page with charts (sessions per day, routes), for people"

_MAX_ROWS = 200  # per table, unless --all
_MORE = re.compile(r" \(\+(\d+)\)$")  # how many places `where` left out
_NOT_CLASS = re.compile(r"[^a-z0-9-]")
_LIST_COMMA = re.compile(r",(?=[^\s\d])")  # not in a number (2,000) nor before a space, where a line may break
_CSP = "default-src 'none'; style-src 'unsafe-inline'; img-src data:"


def e(value: object) -> str:
    return escape(safe(value), quote=True)


def _places(value: str) -> str:
    """What `where` wrote ("a:1, b:2 (+3)"): one place a line, and how many more as a note."""
    more = _MORE.search(value)
    places = value[: more.start()] if more else value
    shown = "<br>".join(f"<code>{e(p)}</code>" for p in places.split(", ") if p)
    return shown + (f' <span class="note">(+{more[1]})</span>' if more else "")


def _host(host: str) -> str:
    """A host name breaks only after a dot, never inside a label."""
    return '<code class="host">' + e(host).replace(".", ".<wbr>") + "</code>"


def _badge(value: str) -> str:
    return f'<span class="badge st-{_NOT_CLASS.sub("", value.lower())}">{e(value)}</span>' if value else ""


_CELLS: Mapping[Cell, Callable[[str], str]] = {
    Cell.TEXT: lambda v: _LIST_COMMA.sub(",<wbr>", e(v)),  # a list ("binary,config") may wrap after its commas
    Cell.CODE: lambda v: f"<code>{e(v)}</code>" if v else "",
    Cell.HOST: _host,
    Cell.PLACES: _places,
    Cell.FLAG: lambda v: e(v) if v == "yes" else f'<span class="no">{e(v)}</span>',
    Cell.STATUS: _badge,
}


def _table(headers: Sequence[str], rows: Sequence[Sequence[str]], empty: str = "none") -> str:
    """Rows are already-escaped HTML fragments."""
    if not rows:
        return f'<p class="empty">{e(empty)}</p>'
    head = "".join(f"<th>{e(h)}</th>" for h in headers)
    body = "".join("<tr>" + "".join(f"<td>{c}</td>" for c in row) + "</tr>" for row in rows)
    return f'<div class="scroll"><table><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table></div>'


def _findings(inv: Inventory, opts: ReportOptions) -> str:
    rows = finding_rows(inv, opts)
    counts = Counter(f.severity for f in inv.findings if f.id not in opts.ignored)
    accepted = sum(f.id in opts.ignored for f in inv.findings)
    summary = f"{len(inv.findings)} finding(s): " + (
        ", ".join(f"{counts[s]} {s}" for s in SEVERITIES_WORST_FIRST if counts[s]) or "none")
    summary += f"; {accepted} ignored (accepted in the ignore file)" if accepted else ""
    summary += f"; {opts.hidden_findings} more hidden by --severity" if opts.hidden_findings else ""
    out = []
    for r in rows:
        if r.ignored is None:
            sev = (
                f'<span class="sev sev-{e(r.severity.value)}" title="{e(", ".join(r.ids))}">'
                f"{e(r.severity.value)}</span>"
            )
            title = e(r.title) + f'<br><code class="fid">id: {e(r.label or r.ids[0])}</code>'
        else:
            sev = f'<span class="sev sev-ignored" title="{e(", ".join(r.ids))}">ignored</span>'
            title = (
                f'<span class="ignored">{e(r.title)}</span> <span class="note">ignored ({e(r.severity.value)}): '
                f'{e(r.ignored)}</span><br><code class="fid">id: {e(r.label or r.ids[0])}</code>'
            )
        out.append([sev, title, f'<span class="first"><code>{e(r.where)}</code></span>' if r.where else ""])
    table = _table(["severity", "finding", "where"], out, "no findings")
    return f'<p class="meta">{e(summary)}</p><div class="findings">{table}</div>'


def _lines(lines: Sequence[Line], cls: str = "headline") -> str:
    """Depth-indented lines as nested lists."""
    out, depth = [f'<ul class="{cls}">'], 0
    base = min((ln.depth for ln in lines), default=0)
    lines = [Line(ln.depth - base, ln.text) for ln in lines]
    for i, ln in enumerate(lines):
        while depth < ln.depth:
            out.append("<ul>")
            depth += 1
        while depth > ln.depth:
            out.append("</ul></li>")
            depth -= 1
        nxt = lines[i + 1].depth if i + 1 < len(lines) else 0
        out.append(f"<li>{e(ln.text)}" + ("" if nxt > ln.depth else "</li>"))
    while depth > 0:
        out.append("</ul></li>")
        depth -= 1
    return "".join(out) + "</ul>"


def _detail(s: ReportTable, opts: ReportOptions) -> str:
    """A kind's declared table, each column laid out as the kind declares it; at most _MAX_ROWS rows unless --all."""
    rows = s.rows if opts.all else s.rows[:_MAX_ROWS]
    layout = [_CELLS[s.cells.get(h, Cell.TEXT)] for h in s.headers]
    out = _table(s.headers, [[cell(c) for cell, c in zip(layout, row, strict=True)] for row in rows], s.empty)
    if s.note:
        out += f'<p class="note">{e(s.note)}</p>'
    if len(s.rows) > len(rows):
        out += (f'<p class="note">and {len(s.rows) - len(rows)} more row(s) (--all lists them; the JSON inventory '
                "has every one)</p>")
    return out


def route_edges(inv: Inventory) -> list[Edge]:
    """Alias → route → vendor, from the inventory's routes when it has them, else from the wired models."""
    edges: list[Edge] = []
    for r in inv.routes:
        alias, route = r.alias, r.declared_via or "unstated"
        if r.observed_vendor:
            label = ", ".join(
                x
                for x in (
                    f"api {r.observed_api}" if r.observed_api else "",
                    f"sessions {r.sessions}" if r.sessions else "",
                )
                if x
            )
            edges.append((alias, route, r.observed_vendor, label))
        else:
            edges.append((alias, route, NEVER, "no session used it"))
    if edges:
        return edges
    for m in inv.models:
        if m.wired:
            alias = m.name + (f" (base {m.base_model})" if m.base_model and m.base_model != m.name else "")
            edges.append((alias, m.served_via or "unstated", m.vendor or "unknown", "configured"))
    return edges


def _routes_picture(inv: Inventory, colours: Mapping[str, str]) -> str:
    return f'<div class="figure">{routes_diagram(route_edges(inv), colours)}</div>'


def _sessions_picture(inv: Inventory, colours: Mapping[str, str]) -> str:
    # The pictures work on the sessions' JSON form: the same data a reader of the inventory sees.
    chart = sessions_chart([session_document(x) for x in inv.sessions], colours)
    caption = '<p class="note">A session that reached two vendors counts once for each.</p>' if inv.sessions else ""
    return f'<div class="figure">{chart}</div>{caption}'


# The pictures drawn above a kind's table, in the order the page shows them: the only kind-specific code of the page.
_PICTURES: Mapping[str, Callable[[Inventory, Mapping[str, str]], str]] = {
    "routes": _routes_picture,
    "sessions": _sessions_picture,
}


def vendor_colours_of(inv: Inventory) -> dict[str, str]:
    vendors = {m.vendor for m in inv.models if m.vendor} | {r.observed_vendor for r in inv.routes if r.observed_vendor}
    vendors |= {v for x in inv.sessions for v in session_vendors(session_document(x))}
    return vendor_colours(sorted(v for v in vendors if v))


def _files_read(inv: Inventory) -> str:
    """Files read, and what became of the others, so that the page never says "64/65 read" and "nothing skipped"
    without saying why."""
    st = inv.stats
    other = st.files_seen - st.files_read
    if other <= 0:
        return f"{st.files_read} files read"
    why = ("a second path (a hard link or a symlink) to a file read once" if not inv.skipped
           else "a second path to a file read once, or listed under Skipped")
    return f"{st.files_read} of {st.files_seen} files read (the other {other}: {why})"


def _skip_reasons(inv: Inventory) -> str:
    reasons = Counter(s.reason.value for s in inv.skipped)
    return "; skipped: " + ", ".join(f"{n} {r}" for r, n in sorted(reasons.items())) if reasons else ""


def render(inv: Inventory, opts: ReportOptions = DEFAULT) -> str:
    catalogs = ", ".join(f"{c.name}@{c.version}" for c in inv.catalogs) or "none"
    colours = vendor_colours_of(inv)
    nw = not_wiring_lines(inv) if not opts.all else []
    sections = [
        ("headline", "What this machine is wired to", _lines(headline(inv))),
        ("findings", "Findings", _findings(inv, opts)),
        *([("not-wiring", "Not wiring", _lines(nw[1:], "headline plain"))] if nw else []),
    ]
    # Every kind's declared table, a picture above the few that have one; those come first, as the page's summary
    # in pictures, and the rest in the order every human format shows them.
    rank = {key: i for i, key in enumerate(_PICTURES)}
    for s in sorted(detail_sections(inv, opts), key=lambda s: rank.get(s.key, len(rank))):
        picture = _PICTURES.get(s.key)
        shown = (picture(inv, colours) if picture else "") + _detail(s, opts)
        sections.append((s.key, f"{s.title} ({len(s.rows)})", shown))
    body = "".join(f'<section id="{sid}"><h2>{e(title)}</h2>{html}</section>' for sid, title, html in sections)
    return (
        '<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8">'
        f'<meta http-equiv="Content-Security-Policy" content="{_CSP}">'
        '<meta name="viewport" content="width=device-width, initial-scale=1">'
        f"<title>modelcensus report: {e(inv.target.location)}</title><style>{_CSS}</style></head><body>"
        f'<h1>modelcensus report</h1><p class="meta">{e(inv.target.kind)} <code>{e(inv.target.location)}</code>'
        f" · modelcensus {e(inv.tool_version)} · catalogs {e(catalogs)} · "
        f'<span class="stats">{e(_files_read(inv) + _skip_reasons(inv))}</span></p>'
        f"{body}</body></html>\n"
    )

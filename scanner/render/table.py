"""The inventory as text for a terminal: the answer on one screen, then (with `--all`) every detail table.

By default the report is the headline, the findings (each with its id, as `--ignore` and the ignore file name it)
and the mentions that are not wiring, each bounded, so that any tree gives at most a few hundred lines; every cut
says how much it left out. `--all` adds every section as a table and lists everything in full.

It fits the width it is given (`ReportOptions.width`; None, as for piped output, cuts nothing): a long cell is cut
with `…` (a path from its start, so the file name and line stay), findings wrap, a header is never cut or broken,
and a table whose headers alone are wider than the line is written as one block of `header: value` lines per row.
Every value from the target goes through `textsafe.safe`: valid UTF-8, no raw control characters.
"""

from __future__ import annotations

import textwrap
from collections import Counter
from collections.abc import Sequence

from scanner.kinds import Inventory
from scanner.kinds.base import ReportTable
from scanner.model import Severity
from scanner.render._headline import FindingRow, Line, finding_rows, headline, not_wiring_lines
from scanner.render._view import DEFAULT, ReportOptions, detail_sections
from scanner.textsafe import safe

description = "human-readable text: the headline and the findings with their ids (--all: every section)"

COLOURS = {Severity.HIGH: "\x1b[1;31m", Severity.MEDIUM: "\x1b[33m", Severity.LOW: "\x1b[36m", Severity.INFO: ""}
RESET = "\x1b[0m"
_MIN_COL = 6
_GAP = 2
_SOFT = frozenset({"where", "seen in", "path", "environment", "config", "first seen at", "file", "detail", "note",
                   "executable", "local", "remote"})
# Columns of paths: cut at the start, so the file name and line (the end) stay.
_TAIL = frozenset({"where", "path", "first seen at", "environment", "config", "file", "executable", "install path"})
_HEADLINE_WRAP = 3  # wrapped lines one headline item may take before its list is cut
# Bounds of the default report (lines); --all lifts them. Together with the fixed lines they stay under 400.
HEADLINE_LINES = 80
FINDING_LINES = 200
NOT_WIRING_SOURCES = 8
NOT_WIRING_LINES = 30


def fit_line(text: str, opts: ReportOptions) -> str:
    """A line of prose (a title naming the target, a summary) wrapped to the width; a long path breaks where it
    must, whole."""
    text = safe(text)
    if opts.wide or opts.width is None or len(text) <= opts.width:
        return text
    return "\n".join(textwrap.wrap(text, opts.width, break_on_hyphens=False, subsequent_indent="  ")) or text


def cut(text: str, width: int) -> str:
    return text if len(text) <= width else text[: max(0, width - 1)] + "…"


def cut_start(text: str, width: int) -> str:
    return text if len(text) <= width else "…" + text[len(text) - max(0, width - 1):]


def fit(natural: Sequence[int], available: int, floor: Sequence[int]) -> list[int]:
    """Column widths within `available`: the widest columns give way first, none below its floor."""
    if sum(natural) <= available:
        return list(natural)
    lo, hi = 0, max(natural)
    while lo < hi:  # the largest cap at which the columns still fit
        mid = (lo + hi + 1) // 2
        if sum(min(n, max(mid, f)) for n, f in zip(natural, floor, strict=True)) <= available:
            lo = mid
        else:
            hi = mid - 1
    return [min(n, max(lo, f)) for n, f in zip(natural, floor, strict=True)]


def _widths(headers: Sequence[str], natural: list[int], available: int, wrap: int | None,
            main: int | None) -> list[int] | None:
    """Column widths that fit `available` with every header whole; None when the headers alone do not fit."""
    floor = [max(len(h), min(n, _MIN_COL)) for n, h in zip(natural, headers, strict=True)]
    if wrap is not None:
        floor[wrap] = max(floor[wrap], min(natural[wrap], 20))
    if sum(floor) > available:
        return None
    if main is not None:
        floor[main] = min(natural[main], max(floor[main], min(available // 3, available - sum(floor) + floor[main])))
    if wrap is not None:  # the wrapped column keeps at least half the line; the others share the rest
        keep = min(natural[wrap], max(available // 2, floor[wrap]))
        others = [i for i in range(len(natural)) if i != wrap]
        fitted = fit([natural[i] for i in others], max(available - keep, sum(floor[i] for i in others)),
                     [floor[i] for i in others])
        widths = [0] * len(natural)
        for i, w in zip(others, fitted, strict=True):
            widths[i] = w
        widths[wrap] = max(floor[wrap], min(natural[wrap], available - sum(widths)))
        return widths
    # Where a thing was seen gives way before what the thing is.
    soft = [h in _SOFT for h in headers]
    firm = sum(n for n, sf in zip(natural, soft, strict=True) if not sf)
    cut_soft = iter(fit([n for n, sf in zip(natural, soft, strict=True) if sf], max(available - firm, 0),
                        [max(f, min(n, 24)) for n, f, sf in zip(natural, floor, soft, strict=True) if sf]))
    first = [min(n, next(cut_soft)) if sf else n for n, sf in zip(natural, soft, strict=True)]
    return fit(first, available, floor)


def _wrap(text: str, width: int) -> list[str]:
    out: list[str] = []
    for para in text.split("\n"):
        out += textwrap.wrap(para, width, break_on_hyphens=False, break_long_words=True) or [""]
    return out


def grid(headers: Sequence[str], rows: Sequence[Sequence[str]], opts: ReportOptions,
         paints: Sequence[str] | None = None, wrap: int | None = None, main: int | None = None) -> list[str]:
    """Rows under headers, columns fitted to the width: cells are cut with `…`, except the `wrap` column, whose
    cells wrap onto more lines (a newline in them starts a line). The `main` column (what a row is: the model,
    the host) is cut last. `paints` colours each row's first cell."""
    cells = [[safe(c) if i != wrap else "\n".join(safe(p) for p in c.split("\n")) for i, c in enumerate(row)]
             for row in rows]
    natural = [max([len(h)] + [max(len(p) for p in r[i].split("\n")) for r in cells]) for i, h in enumerate(headers)]
    width = None if opts.wide or opts.width is None else opts.width
    widths = natural if width is None else _widths(headers, natural, width - _GAP * (len(headers) - 1), wrap, main)
    if widths is None:
        return _records(headers, cells, width or 0, paints if opts.colour else None)

    def lines(values: Sequence[str], paint: str = "") -> list[str]:
        parts = [[v] for v in values]
        if wrap is not None:
            parts[wrap] = _wrap(values[wrap], widths[wrap]) if width is not None else values[wrap].split("\n")
        height = max(len(p) for p in parts)
        out = []
        for n in range(height):
            shown = [(cut_start if h in _TAIL else cut)(p[n] if n < len(p) else "", w).ljust(w)
                     for p, w, h in zip(parts, widths, headers, strict=True)]
            if paint and n == 0:
                shown[0] = paint + shown[0] + RESET
            out.append((" " * _GAP).join(shown).rstrip())
        return out

    out = lines(list(headers)) + [(" " * _GAP).join("-" * w for w in widths)]
    for i, row in enumerate(cells):
        out += lines(row, paints[i] if paints and opts.colour else "")
    return out


def _records(headers: Sequence[str], cells: Sequence[Sequence[str]], width: int,
             paints: Sequence[str] | None) -> list[str]:
    """A table too narrow for its headers: each row as `header: value` lines, rows apart."""
    pad = max(len(h) for h in headers) + 2
    out: list[str] = []
    for i, row in enumerate(cells):
        if i:
            out.append("")
        for j, (h, value) in enumerate(zip(headers, row, strict=True)):
            for k, part in enumerate(value.split("\n")):
                label = f"{h}:".ljust(pad) if k == 0 else " " * pad
                text = (cut_start if h in _TAIL else cut)(part, max(8, width - pad))
                if paints and j == 0 and k == 0 and paints[i]:
                    text = paints[i] + text + RESET
                out.append((label + text).rstrip())
    return out


def headline_text(lines: Sequence[Line], opts: ReportOptions, budget: int | None = None) -> list[str]:
    """The headline's lines fitted to the width: a list too long for three lines keeps its first items and says
    how many it left out; past `budget` lines, the rest is counted in one last line."""
    out: list[str] = []
    for i, ln in enumerate(lines):
        item = _headline_item(ln, opts)
        if budget is not None and len(out) + len(item) > budget - 1 and i < len(lines) - 1:
            out.append(f"… +{len(lines) - i} more line(s) (--all lists everything)")
            break
        out += item
    return out


def _headline_item(ln: Line, opts: ReportOptions) -> list[str]:
    indent = "  " * ln.depth
    if opts.wide or opts.width is None:
        return [indent + safe(ln.text)]
    room = max(20, opts.width - len(indent))

    def wrapped(text: str) -> list[str]:
        return textwrap.wrap(safe(text), width=room, break_on_hyphens=False, subsequent_indent="  ") or [""]

    lines = wrapped(ln.text)
    if len(lines) > _HEADLINE_WRAP and not opts.all:
        if ln.items:
            keep = len(ln.items)
            while keep > 1 and len(lines) > _HEADLINE_WRAP:
                keep -= 1
                lines = wrapped(ln.head + ", ".join(ln.items[:keep]) + f" (+{len(ln.items) - keep} more)")
        if len(lines) > _HEADLINE_WRAP:
            lines = lines[:_HEADLINE_WRAP]
            lines[-1] = cut(lines[-1], room - 2) + " …"
    return [indent + w for w in lines]


def section_text(s: ReportTable, opts: ReportOptions) -> str:
    if not s.rows:
        return f"{s.title}: {s.empty}\n" + (f"  {safe(s.note)}\n" if s.note else "")
    body = "\n".join(grid(s.headers, s.rows, opts, wrap=s.headers.index(s.wrap) if s.wrap else None,
                          main=s.headers.index(s.main) if s.main else None))
    note = f"  {safe(s.note)}\n" if s.note else ""
    return f"{s.title} ({len(s.rows)})\n{body}\n{note}"


# Below this width the findings table has two columns, where each was seen written under it: a third column would
# leave the finding a third of an 80-column line.
_WHERE_COLUMN = 150


def _finding_cell(r: FindingRow, with_where: bool) -> str:
    text = r.title + (f" (ignored: {r.ignored})" if r.ignored else "")
    where = f"\nat {r.where}" if with_where and r.where else ""
    return f"{text}{where}\nid: {r.label or r.ids[0]}"


def findings_text(inv: Inventory, opts: ReportOptions, budget: int | None = None) -> str:
    rows = finding_rows(inv, opts)
    count = len(inv.findings)
    notes = []
    accepted = sum(1 for f in inv.findings if f.id in opts.ignored)
    if accepted:
        notes.append(f"{accepted} accepted by an ignore entry")
    if opts.hidden_findings:
        notes.append(f"{opts.hidden_findings} more hidden by --severity")
    title = f"Findings ({count}" + "".join(f"; {n}" for n in notes) + ")"
    if not rows:
        return f"Findings: none{' (' + '; '.join(notes) + ')' if notes else ''}\n"
    column = opts.wide or opts.width is None or opts.width >= _WHERE_COLUMN
    table = [(r.severity.value if r.ignored is None else f"ignored ({r.severity.value})",
              _finding_cell(r, not column)) + ((r.where,) if column else ()) for r in rows]
    paints = [COLOURS[r.severity] if r.ignored is None else "" for r in rows]
    lines = grid(["severity", "finding", "where"][:3 if column else 2], table, opts, paints, wrap=1)
    if budget is not None and len(lines) > budget:
        lines, shown = _cut_rows(lines, budget)
        left = sum(1 for r in rows[shown:] for _ in r.ids)
        lines.append(f"… +{left} more finding(s) (--all lists them; --severity chooses which are shown)")
    return f"{title}\n" + "\n".join(lines) + "\n"


def _cut_rows(lines: list[str], budget: int) -> tuple[list[str], int]:
    """The grid's lines up to `budget`, cut before a row, at least one row kept: (lines kept, rows kept)."""
    starts = [i for i in range(2, len(lines)) if not lines[i].startswith(" ")] + [len(lines)]
    kept = 1
    while kept < len(starts) - 1 and starts[kept + 1] <= budget:
        kept += 1
    return lines[:starts[kept]], kept


def _index(inv: Inventory, opts: ReportOptions) -> str:
    parts = [f"{s.title.lower()} {len(s.rows)}" for s in detail_sections(inv, opts) if s.key != "skipped"]
    return "Details (--all shows them as tables; -f json or html has everything): " + ", ".join(parts)


def render(inv: Inventory, opts: ReportOptions = DEFAULT) -> str:
    bounded = not opts.all
    out = [fit_line(f"modelcensus {inv.tool_version}: {inv.target.kind} {inv.target.location}", opts) + "\n"]
    out.append("\n".join(headline_text(headline(inv), opts, HEADLINE_LINES if bounded else None)) + "\n")
    out.append(findings_text(inv, opts, FINDING_LINES if bounded else None))
    if bounded:
        nw = not_wiring_lines(inv, NOT_WIRING_SOURCES)
        if nw:
            out.append("\n".join(headline_text(nw, opts, NOT_WIRING_LINES)) + "\n")
    live = inv.target.live
    if live is not None:
        parts = ", ".join(f"{p.name} {p.status}" for p in live.parts)
        out.append(fit_line(f"Host {live.hostname}, kernel {live.kernel}, booted {live.boot_time or '?'}, "
                            f"audited {live.audit_time}; {live.processes_inspected} process(es) inspected; {parts}",
                            opts) + "\n")
    if bounded:
        out.append("\n".join(headline_text([Line(0, _index(inv, opts))], opts)) + "\n")
    for s in detail_sections(inv, opts):
        if s.key == "skipped":
            reasons = Counter(x.reason.value for x in inv.skipped)
            summary = ", ".join(f"{n} {r}" for r, n in sorted(reasons.items())) or "nothing"
            out.append(fit_line(f"Skipped: {summary}", opts) + "\n"
                       + (section_text(s, opts) if opts.all and s.rows else ""))
        elif not bounded:
            out.append(section_text(s, opts))
    st = inv.stats
    out.append(f"Scanned {st.files_read}/{st.files_seen} files, {st.bytes_read} bytes in {st.seconds:.2f}s\n")
    return "\n".join(out)

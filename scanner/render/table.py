"""The inventory as text for a terminal: the headline (the answer on one screen), the findings, then the details.

It fits the terminal width: a long cell is cut with `…` (`--wide` keeps cells whole). Colour marks severities only
on a TTY without NO_COLOR. Every value from the target goes through `textsafe.safe`: valid UTF-8, no raw control.
"""

from __future__ import annotations

import textwrap
from collections import Counter
from collections.abc import Sequence

from scanner.model import Inventory, Severity
from scanner.render._headline import Line, finding_rows, headline, not_wiring_lines
from scanner.render._view import DEFAULT, ReportOptions, Section, detail_sections
from scanner.textsafe import safe

description = "human-readable text: the headline, findings grouped per model, then every section as a table"

_COLOUR = {Severity.HIGH: "\x1b[1;31m", Severity.MEDIUM: "\x1b[33m", Severity.LOW: "\x1b[36m", Severity.INFO: ""}
_RESET = "\x1b[0m"
_MIN_COL = 6
_SOFT = frozenset({"where", "seen in", "path", "environment", "config", "first seen at", "file", "detail",
                   "executable", "local", "remote"})
# Columns of paths: cut at the start, so the file name and line (the end) stay.
_TAIL = frozenset({"where", "path", "first seen at", "environment", "config", "file", "executable", "install path"})
_HEADLINE_WRAP = 3  # wrapped lines one headline item may take before it is cut (unless --wide)


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


def grid(headers: Sequence[str], rows: Sequence[Sequence[str]], opts: ReportOptions,
         paints: Sequence[str] | None = None, wrap: int | None = None, main: int | None = None) -> list[str]:
    """Rows under headers, columns fitted to the width: cells are cut with `…`, except the `wrap` column, whose
    cells wrap onto more lines. The `main` column (what a row is: the model, the host) is cut last. `paints`
    colours each row's first cell."""
    cells = [[safe(c) for c in row] for row in rows]
    natural = [max([len(h)] + [len(r[i]) for r in cells]) for i, h in enumerate(headers)]
    available = opts.width - 2 * (len(headers) - 1)
    if opts.wide:
        widths = natural
    else:
        floor = [min(n, max(_MIN_COL, len(h))) for n, h in zip(natural, headers, strict=True)]
        if main is not None:
            floor[main] = min(natural[main], max(floor[main], available // 3))
        if wrap is not None:  # the wrapped column keeps at least half the line; the others share the rest
            keep = min(natural[wrap], max(available // 2, floor[wrap]))
            others = [n for i, n in enumerate(natural) if i != wrap]
            fitted = iter(fit(others, max(available - keep, sum(floor) - floor[wrap]),
                              [f for i, f in enumerate(floor) if i != wrap]))
            widths = [0 if i == wrap else next(fitted) for i in range(len(natural))]
            widths[wrap] = max(floor[wrap], min(natural[wrap], available - sum(widths)))
        else:
            # Where a thing was seen gives way before what the thing is.
            soft = [h in _SOFT for h in headers]
            firm = sum(n for n, sf in zip(natural, soft, strict=True) if not sf)
            cut_soft = iter(fit([n for n, sf in zip(natural, soft, strict=True) if sf], max(available - firm, 0),
                                [max(f, 24) for f, sf in zip(floor, soft, strict=True) if sf]))
            first = [min(n, next(cut_soft)) if sf else n for n, sf in zip(natural, soft, strict=True)]
            widths = fit(first, max(available, sum(floor)), floor)

    def lines(values: Sequence[str], paint: str = "") -> list[str]:
        parts = [[v] for v in values]
        if wrap is not None and not opts.wide:
            parts[wrap] = textwrap.wrap(values[wrap], widths[wrap], break_on_hyphens=False) or [""]
        height = max(len(p) for p in parts)
        out = []
        for n in range(height):
            shown = [(cut_start if h in _TAIL else cut)(p[n] if n < len(p) else "", w).ljust(w)
                     for p, w, h in zip(parts, widths, headers, strict=True)]
            if paint and n == 0:
                shown[0] = paint + shown[0] + _RESET
            out.append("  ".join(shown).rstrip())
        return out

    out = lines(list(headers)) + ["  ".join("-" * w for w in widths)]
    for i, row in enumerate(cells):
        out += lines(row, paints[i] if paints and opts.colour else "")
    return out


def headline_text(lines: Sequence[Line], opts: ReportOptions) -> list[str]:
    out = []
    for ln in lines:
        indent = "  " * ln.depth
        text = safe(ln.text)
        if opts.wide:
            out.append(indent + text)
            continue
        wrapped = textwrap.wrap(text, width=max(20, opts.width - len(indent) - 2), break_on_hyphens=False,
                                subsequent_indent="  ") or [""]
        if len(wrapped) > _HEADLINE_WRAP:
            wrapped = wrapped[:_HEADLINE_WRAP]
            wrapped[-1] = cut(wrapped[-1], max(20, opts.width - len(indent) - 4)) + " …"
        out.extend(indent + w for w in wrapped)
    return out


def section_text(s: Section, opts: ReportOptions) -> str:
    if not s.rows:
        return f"{s.title}: {s.empty}\n" + (f"  {safe(s.note)}\n" if s.note else "")
    body = "\n".join(grid(s.headers, s.rows, opts, wrap=s.headers.index(s.wrap) if s.wrap else None,
                          main=s.headers.index(s.main) if s.main else None))
    note = f"  {safe(s.note)}\n" if s.note else ""
    return f"{s.title} ({len(s.rows)})\n{body}\n{note}"


def findings_text(inv: Inventory, opts: ReportOptions) -> str:
    rows = finding_rows(inv, opts)
    if not rows:
        return "Findings: none\n"
    accepted = sum(r.ignored is not None for r in rows)
    title = f"Findings ({len(rows)}" + (f", {accepted} accepted by the ignore file" if accepted else "") + ")"
    table = [(r.severity.value if r.ignored is None else f"ignored ({r.severity.value})",
              r.title + (f" (ignored: {r.ignored})" if r.ignored else ""), r.where) for r in rows]
    paints = [_COLOUR[r.severity] if r.ignored is None else "" for r in rows]
    return f"{title}\n" + "\n".join(grid(["severity", "finding", "first seen at"], table, opts, paints, wrap=1)) + "\n"


def render(inv: Inventory, opts: ReportOptions = DEFAULT) -> str:
    out = [f"modelcensus {inv.tool_version}: {inv.target.kind} {safe(inv.target.location)}\n"]
    out.append("\n".join(headline_text(headline(inv), opts)) + "\n")
    out.append(findings_text(inv, opts))
    if not opts.all:
        nw = not_wiring_lines(inv)
        if nw:
            out.append("\n".join(headline_text(nw, opts)) + "\n")
    live = inv.target.live
    if live is not None:
        parts = ", ".join(f"{p.name} {p.status}" for p in live.parts)
        out.append(safe(f"Host {live.hostname}, kernel {live.kernel}, booted {live.boot_time or '?'}, "
                        f"audited {live.audit_time}; {live.processes_inspected} process(es) inspected; {parts}")
                   + "\n")
    for s in detail_sections(inv, opts):
        if s.key == "skipped":
            reasons = Counter(x.reason.value for x in inv.skipped)
            summary = ", ".join(f"{n} {r}" for r, n in sorted(reasons.items())) or "nothing"
            out.append(f"Skipped: {summary}\n" + (section_text(s, opts) if opts.all and s.rows else ""))
        else:
            out.append(section_text(s, opts))
    st = inv.stats
    out.append(f"Scanned {st.files_read}/{st.files_seen} files, {st.bytes_read} bytes in {st.seconds:.2f}s\n")
    return "\n".join(out)

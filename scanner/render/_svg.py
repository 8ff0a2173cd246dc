"""Inline SVG pictures for the HTML report: sessions per day by vendor, and the routes from aliases to vendors.

Pure functions from plain data to SVG text; every label is escaped here. No script, no external reference:
the picture must show in a mailed file opened offline with JavaScript off.
"""

from __future__ import annotations

import re
from collections import Counter, defaultdict
from collections.abc import Mapping, Sequence
from datetime import date, timedelta
from html import escape

# Colour-blind-safe palette (Okabe-Ito), then greys; vendors take colours in sorted order, so a vendor keeps its
# colour between two reports of the same VM.
_PALETTE = ("#0072B2", "#E69F00", "#009E73", "#CC79A7", "#D55E00", "#56B4E9", "#F0E442", "#000000")
_UNKNOWN = "#999999"
_DAY = re.compile(r"^(\d{4})-(\d{2})-(\d{2})")
_MAX_DAYS = 366


def vendor_colours(vendors: Sequence[str]) -> dict[str, str]:
    named = sorted(v for v in set(vendors) if v != "unknown")
    colours = {v: _PALETTE[i % len(_PALETTE)] for i, v in enumerate(named)}
    colours["unknown"] = _UNKNOWN
    return colours


def _day(value: object) -> date | None:
    m = _DAY.match(value) if isinstance(value, str) else None
    if not m:
        return None
    try:
        return date(int(m.group(1)), int(m.group(2)), int(m.group(3)))
    except ValueError:
        return None


def session_vendors(session: Mapping[str, object]) -> list[str]:
    providers = session.get("providers")
    found = {str(p.get("vendor") or "unknown") for p in providers if isinstance(p, Mapping)} \
        if isinstance(providers, list) else set()
    return sorted(found) or ["unknown"]


def sessions_per_day(sessions: Sequence[Mapping[str, object]]) -> tuple[list[date], dict[date, Counter[str]], int]:
    """Days shown (gaps filled), sessions per vendor per day, and how many sessions had no usable start date."""
    per_day: dict[date, Counter[str]] = defaultdict(Counter)
    undated = 0
    for s in sessions:
        d = _day(s.get("started_at"))
        if d is None:
            undated += 1
            continue
        per_day[d].update(session_vendors(s))
    if not per_day:
        return [], {}, undated
    first, last = min(per_day), max(per_day)
    span = (last - first).days + 1
    days = [first + timedelta(n) for n in range(span)] if span <= _MAX_DAYS else sorted(per_day)
    return days, per_day, undated


def sessions_chart(sessions: Sequence[Mapping[str, object]]) -> str:
    days, per_day, undated = sessions_per_day(sessions)
    if not days:
        return '<p class="empty">no sessions found</p>'
    vendors = sorted({v for c in per_day.values() for v in c})
    colours = vendor_colours(vendors)
    top = max(sum(c.values()) for c in per_day.values())
    left, bottom, height = 40, 40, 200
    bar = max(4, min(40, 720 // len(days)))
    legend_x = [left + sum(24 + 7 * len(v) for v in vendors[:i]) for i in range(len(vendors) + 1)]
    width = max(left + bar * len(days) + 20, legend_x[-1] + 10)
    out = [f'<svg class="chart" role="img" aria-labelledby="sessions-title" xmlns="http://www.w3.org/2000/svg" '
           f'width="{width}" height="{height + bottom + 10}" viewBox="0 0 {width} {height + bottom + 10}">',
           '<title id="sessions-title">Sessions per day, coloured by the vendor observed in them</title>',
           f'<line x1="{left}" y1="{height}" x2="{width - 10}" y2="{height}" class="axis"/>',
           f'<text x="{left - 6}" y="{height}" class="tick" text-anchor="end">0</text>',
           f'<text x="{left - 6}" y="12" class="tick" text-anchor="end">{top}</text>']
    label_every = max(1, len(days) // 10)
    for i, d in enumerate(days):
        x = left + i * bar
        y = float(height)
        for v in vendors:
            n = per_day.get(d, Counter())[v]
            if not n:
                continue
            h = (height - 10) * n / top
            y -= h
            out.append(f'<rect x="{x + 1}" y="{y:.1f}" width="{bar - 2}" height="{h:.1f}" fill="{colours[v]}">'
                       f'<title>{d.isoformat()}: {n} session(s) with {escape(v)}</title></rect>')
        if i % label_every == 0:
            out.append(f'<text x="{x + bar / 2:.1f}" y="{height + 14}" class="tick" text-anchor="middle">'
                       f'{d.strftime("%m-%d")}</text>')
    for v, lx in zip(vendors, legend_x[:-1], strict=True):
        out.append(f'<rect x="{lx}" y="{height + 24}" width="10" height="10" fill="{colours[v]}"/>'
                   f'<text x="{lx + 14}" y="{height + 33}" class="legend">{escape(v)}</text>')
    out.append("</svg>")
    note = f'<p class="note">{undated} session(s) without a start date are not drawn.</p>' if undated else ""
    return "".join(out) + note


Edge = tuple[str, str, str, str]  # alias, route, vendor, label of the route→vendor link


def routes_diagram(edges: Sequence[Edge]) -> str:
    """Three columns (alias → route → vendor) joined by lines; one node per distinct name in each column."""
    if not edges:
        return '<p class="empty">no routes found</p>'
    columns = [sorted({e[i] for e in edges}) for i in range(3)]
    row, col_w, box_w = 26, 300, 240
    height = row * max(len(c) for c in columns) + 20
    ypos = [{name: 10 + j * row for j, name in enumerate(col)} for col in columns]
    colours = vendor_colours(columns[2])
    out = [f'<svg class="routes" role="img" aria-labelledby="routes-title" xmlns="http://www.w3.org/2000/svg" '
           f'width="{col_w * 2 + box_w + 10}" height="{height}" viewBox="0 0 {col_w * 2 + box_w + 10} {height}">',
           '<title id="routes-title">Routes from model aliases to hosting routes to vendors</title>']
    drawn: set[tuple[int, str, str]] = set()
    for alias, route, vendor, label in sorted(edges):
        for c, a, b, text in ((0, alias, route, ""), (1, route, vendor, label)):
            if (c, a, b) in drawn:
                continue
            drawn.add((c, a, b))
            x1, y1 = c * col_w + box_w, ypos[c][a] + 9
            x2, y2 = (c + 1) * col_w, ypos[c + 1][b] + 9
            mid = (x1 + x2) / 2
            out.append(f'<path d="M{x1},{y1} C{mid},{y1} {mid},{y2} {x2},{y2}" class="edge">'
                       f'<title>{escape(a)} → {escape(b)}{escape(": " + text) if text else ""}</title></path>')
    for c, col in enumerate(columns):
        for name in col:
            y = ypos[c][name]
            fill = colours.get(name, _UNKNOWN) if c == 2 else "#f4f4f4"
            cls = "node vendor" if c == 2 else "node"
            shown = name if len(name) <= 34 else name[:33] + "…"
            out.append(f'<rect x="{c * col_w}" y="{y}" width="{box_w}" height="18" rx="3" fill="{fill}" '
                       f'class="{cls}"/><text x="{c * col_w + 6}" y="{y + 13}" class="label">{escape(shown)}'
                       f'<title>{escape(name)}</title></text>')
    out.append("</svg>")
    return "".join(out)

"""Inline SVG pictures for the HTML report: sessions per day by vendor, and the routes from aliases to vendors.

Pure functions from plain data to SVG text; every label is escaped here. No script, no external reference:
the picture must show in a mailed file opened offline with JavaScript off.
"""

from __future__ import annotations

import re
import zlib
from collections import Counter, defaultdict
from collections.abc import Mapping, Sequence
from datetime import date, timedelta
from html import escape

# Colour-blind-safe palette (Okabe-Ito). A vendor's colour follows from its name (a hash into the palette), so it is
# the same in every report, single-target or fleet, whatever other vendors share the page; two vendors whose
# names hash alike on one page take the next free colour in sorted order.
_PALETTE = ("#0072B2", "#E69F00", "#009E73", "#CC79A7", "#D55E00", "#56B4E9", "#F0E442", "#000000")
_UNKNOWN = "#999999"
_NEVER = "#ffffff"
NEVER = "never observed"  # an alias no session used: not the same as a session whose vendor is unknown
_DAY = re.compile(r"^(\d{4})-(\d{2})-(\d{2})")


def vendor_colours(vendors: Sequence[str]) -> dict[str, str]:
    """One colour per vendor for every chart of a report: the caller passes all the report's vendors at once."""
    named = sorted(v for v in set(vendors) if v not in ("unknown", NEVER))
    colours: dict[str, str] = {}
    for v in named:
        start = zlib.crc32(v.encode("utf-8", "surrogateescape")) % len(_PALETTE)
        free = [_PALETTE[(start + i) % len(_PALETTE)] for i in range(len(_PALETTE))
                if _PALETTE[(start + i) % len(_PALETTE)] not in colours.values()]
        colours[v] = free[0] if free else _PALETTE[start]
    colours["unknown"] = _UNKNOWN
    colours[NEVER] = _NEVER
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
    found = (
        {str(p.get("vendor") or "unknown") for p in providers if isinstance(p, Mapping)}
        if isinstance(providers, list)
        else set()
    )
    return sorted(found) or ["unknown"]


def sessions_per_day(sessions: Sequence[Mapping[str, object]]) -> tuple[list[date], dict[date, Counter[str]], int]:
    """Days with sessions (sorted), sessions per vendor per day, and how many sessions had no usable start date."""
    per_day: dict[date, Counter[str]] = defaultdict(Counter)
    undated = 0
    for s in sessions:
        d = _day(s.get("started_at"))
        if d is None:
            undated += 1
            continue
        per_day[d].update(session_vendors(s))
    return sorted(per_day), per_day, undated


def _ticks(first: date, last: date) -> list[date]:
    """Tick days on a real calendar: every day for a short span, else month starts, else year starts."""
    span = (last - first).days
    if span <= 14:
        return [first + timedelta(n) for n in range(span + 1)]
    if span <= 900:
        out, d = [], date(first.year, first.month, 1)
        step = max(1, span // 300)  # at most about 10 month ticks
        while d <= last:
            if d >= first:
                out.append(d)
            d = date(d.year + (d.month + step - 1) // 12, (d.month + step - 1) % 12 + 1, 1)
        return out or [first]
    return [date(y, 1, 1) for y in range(first.year + 1, last.year + 1)] or [first]


def sessions_chart(sessions: Sequence[Mapping[str, object]], colours: Mapping[str, str] | None = None) -> str:
    """Sessions per day on a real time axis (dates with the year; empty days keep their place)."""
    days, per_day, undated = sessions_per_day(sessions)
    if not days:
        return '<p class="empty">no sessions found</p>'
    vendors = sorted({v for c in per_day.values() for v in c})
    colours = colours or vendor_colours(vendors)
    top = max(sum(c.values()) for c in per_day.values())
    left, bottom, height, plot = 40, 48, 200, 1000
    first, last = days[0], days[-1]
    span = (last - first).days + 1
    scale = plot / span
    bar = max(1.0, min(40.0, scale))
    legend_x = [left + sum(24 + 7 * len(v) for v in vendors[:i]) for i in range(len(vendors) + 1)]
    width = max(left + plot + 40, legend_x[-1] + 10)
    out = [
        f'<svg class="chart" role="img" aria-labelledby="sessions-title" xmlns="http://www.w3.org/2000/svg" '
        f'width="{width}" height="{height + bottom + 10}" viewBox="0 0 {width} {height + bottom + 10}">',
        f'<title id="sessions-title">Sessions per day from {first.isoformat()} to {last.isoformat()}, coloured by '
        "the vendor observed in them</title>",
        f'<line x1="{left}" y1="{height}" x2="{left + plot}" y2="{height}" class="axis"/>',
        f'<text x="{left - 6}" y="{height}" class="tick" text-anchor="end">0</text>',
        f'<text x="{left - 6}" y="12" class="tick" text-anchor="end">{top}</text>',
    ]
    for d in days:
        x = left + (d - first).days * scale
        y = float(height)
        for v in vendors:
            n = per_day[d][v]
            if not n:
                continue
            h = (height - 10) * n / top
            y -= h
            out.append(
                f'<rect x="{x:.1f}" y="{y:.1f}" width="{max(1.0, bar - 1):.1f}" height="{h:.1f}" '
                f'fill="{colours.get(v, _UNKNOWN)}"><title>{d.isoformat()}: {n} session(s) with {escape(v)}'
                "</title></rect>"
            )
    for t in _ticks(first, last):
        x = left + (t - first).days * scale + bar / 2
        out.append(
            f'<line x1="{x:.1f}" y1="{height}" x2="{x:.1f}" y2="{height + 4}" class="axis"/>'
            f'<text x="{x:.1f}" y="{height + 16}" class="tick" text-anchor="middle">{t.isoformat()}</text>'
        )
    for v, lx in zip(vendors, legend_x[:-1], strict=True):
        out.append(
            f'<rect x="{lx}" y="{height + 30}" width="10" height="10" fill="{colours.get(v, _UNKNOWN)}"/>'
            f'<text x="{lx + 14}" y="{height + 39}" class="legend">{escape(v)}</text>'
        )
    out.append("</svg>")
    note = f'<p class="note">{undated} session(s) without a start date are not drawn.</p>' if undated else ""
    return "".join(out) + note


Edge = tuple[str, str, str, str]  # alias, route, vendor, label of the route→vendor link


def routes_diagram(edges: Sequence[Edge], colours: Mapping[str, str] | None = None) -> str:
    """Three columns (alias → route → vendor) joined by lines; one node per distinct name in each column. Aliases
    and routes are ordered by the vendor they lead to, so the lines of one vendor stay together and do not cross."""
    if not edges:
        return '<p class="empty">no routes found</p>'
    lead = {e[0]: (e[2], e[1]) for e in sorted(edges, reverse=True)}
    via = {e[1]: e[2] for e in sorted(edges, reverse=True)}
    columns = [
        sorted({e[0] for e in edges}, key=lambda a: (*lead[a], a)),
        sorted({e[1] for e in edges}, key=lambda r: (via[r], r)),
        sorted({e[2] for e in edges}, key=lambda v: (v in ("unknown", NEVER), v)),
    ]
    row, col_w, box_w = 26, 300, 240
    height = row * max(len(c) for c in columns) + 20
    ypos = [{name: 10 + j * row for j, name in enumerate(col)} for col in columns]
    colours = colours or vendor_colours(columns[2])
    out = [
        f'<svg class="routes" role="img" aria-labelledby="routes-title" xmlns="http://www.w3.org/2000/svg" '
        f'width="{col_w * 2 + box_w + 10}" height="{height}" viewBox="0 0 {col_w * 2 + box_w + 10} {height}">',
        '<title id="routes-title">Routes from model aliases to hosting routes to vendors</title>',
    ]
    drawn: set[tuple[int, str, str]] = set()
    for alias, route, vendor, label in sorted(edges):
        for c, a, b, text in ((0, alias, route, ""), (1, route, vendor, label)):
            if (c, a, b) in drawn:
                continue
            drawn.add((c, a, b))
            x1, y1 = c * col_w + box_w, ypos[c][a] + 9
            x2, y2 = (c + 1) * col_w, ypos[c + 1][b] + 9
            mid = (x1 + x2) / 2
            out.append(
                f'<path d="M{x1},{y1} C{mid},{y1} {mid},{y2} {x2},{y2}" class="edge">'
                f"<title>{escape(a)} → {escape(b)}{escape(': ' + text) if text else ''}</title></path>"
            )
    for c, col in enumerate(columns):
        for name in col:
            y = ypos[c][name]
            fill = colours.get(name, _UNKNOWN) if c == 2 else "#f4f4f4"
            cls = ("node never" if name == NEVER else "node vendor") if c == 2 else "node"
            shown = name if len(name) <= 34 else name[:33] + "…"
            out.append(
                f'<rect x="{c * col_w}" y="{y}" width="{box_w}" height="18" rx="3" fill="{fill}" '
                f'class="{cls}"/><text x="{c * col_w + 6}" y="{y + 13}" class="label">{escape(shown)}'
                f"<title>{escape(name)}</title></text>"
            )
    out.append("</svg>")
    return "".join(out)

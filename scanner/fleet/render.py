"""How a fleet report and a fleet diff are shown: table, JSON, Markdown, HTML (with a chart per release)."""

from __future__ import annotations

import html
import json
from collections import defaultdict
from collections.abc import Callable, Sequence

from tabulate import tabulate

from scanner.fleet.fleetdiff import FleetDiff
from scanner.fleet.report import FleetReport
from scanner.render._svg import vendor_colours
from scanner.textsafe import escape_control

_MAX_NAMES = 6


def _names(items: Sequence[str], most: int = _MAX_NAMES) -> str:
    shown = ", ".join(items[:most])
    return shown + (f", … (+{len(items) - most})" if len(items) > most else "")


def _sections(r: FleetReport) -> list[tuple[str, list[str], list[list[str]]]]:
    """Every section as rows of cells, each cell already safe to print (control characters escaped)."""
    return [
        (title, headers, [[escape_control(c) for c in row] for row in rows])
        for title, headers, rows in [
            (
                "Wired vendors and routes",
                ["vendor", "route", "targets", "models"],
                [[w.vendor, w.route, str(w.targets), _names(w.models)] for w in r.wiring],
            ),
            (
                "Targets whose sessions an external provider served, or whose labels mismatch",
                ["target", "external vendors", "sessions", "label mismatch"],
                [
                    [s.target, ", ".join(s.vendors) or "-", str(s.sessions), "yes" if s.label_mismatch else "no"]
                    for s in r.external_sessions
                ],
            ),
            (
                "Targets with a disarmed kill switch",
                ["target", "kill switch", "value"],
                [[d.target, d.name, d.value or ""] for d in r.disarmed_switches],
            ),
            (
                "Credentials seen in more than one target",
                ["sha256", "type", "vendor", "redacted", "targets"],
                [
                    [
                        c.sha256[:16],
                        c.type or "",
                        c.vendor or "?",
                        c.redacted or "",
                        f"{len(c.targets)}: {_names(c.targets)}",
                    ]
                    for c in r.shared_credentials
                ],
            ),
            ("Failed targets", ["target", "error"], [[n, e] for n, e in r.failed]),
        ]
    ]


def report_table(r: FleetReport) -> str:
    out = [f"Fleet: {r.targets} target(s) scanned, {len(r.failed)} failed", ""]
    for title, headers, rows in _sections(r):
        out.append(f"{title} ({len(rows)})")
        out.append(tabulate(rows, headers=headers) if rows else "none")
        out.append("")
    return "\n".join(out)


def report_json(r: FleetReport) -> str:
    return json.dumps(r.to_json(), indent=2, sort_keys=False, ensure_ascii=False) + "\n"


def _md_cell(text: str) -> str:
    return escape_control(text).replace("|", "\\|")  # idempotent on cells _sections already escaped


def report_markdown(r: FleetReport) -> str:
    out = ["# modelcensus fleet report", "", f"{r.targets} target(s) scanned, {len(r.failed)} failed.", ""]
    for title, headers, rows in _sections(r):
        out.append(f"## {title} ({len(rows)})")
        out.append("")
        if not rows:
            out += ["none", ""]
            continue
        out.append("| " + " | ".join(headers) + " |")
        out.append("|" + "---|" * len(headers))
        out += ["| " + " | ".join(_md_cell(c) for c in row) + " |" for row in rows]
        out.append("")
    return "\n".join(out)


def _release_chart(r: FleetReport) -> str:
    """Grouped bars: per release, targets wired to each vendor, one colour per vendor."""
    if not r.by_release:
        return "<p>No target has a <code>release</code> label.</p>"
    releases = sorted({x.release for x in r.by_release})
    vendors = sorted({x.vendor for x in r.by_release})
    colours = vendor_colours(vendors)
    counts: dict[tuple[str, str], int] = defaultdict(int)
    for x in r.by_release:
        counts[(x.release, x.vendor)] = x.targets
    top = max(counts.values()) or 1
    bar, gap, height = 14, 24, 160
    width = len(releases) * (len(vendors) * bar + gap) + 60
    parts = [f'<svg role="img" aria-label="targets per vendor per release" width="{width}" height="{height + 60}">']
    left = 40
    for rel in releases:
        for v in vendors:
            n = counts[(rel, v)]
            h = int(height * n / top)
            parts.append(
                f'<rect x="{left}" y="{height - h + 10}" width="{bar - 2}" height="{h}" fill="{colours[v]}">'
                f"<title>{html.escape(rel)} · {html.escape(v)}: {n}</title></rect>"
            )
            left += bar
        parts.append(
            f'<text x="{left - len(vendors) * bar}" y="{height + 30}" font-size="11">{html.escape(rel)}</text>'
        )
        left += gap
    parts.append("</svg>")
    legend = " ".join(f'<span style="color:{colours[v]}">■</span> {html.escape(v)}' for v in vendors)
    return "".join(parts) + f"<p>{legend}</p>"


def report_html(r: FleetReport) -> str:
    body = [
        f"<h1>modelcensus fleet report</h1><p>{r.targets} target(s) scanned, {len(r.failed)} failed.</p>",
        "<h2>Targets wired to each vendor, per release</h2>",
        _release_chart(r),
    ]
    for title, headers, rows in _sections(r):
        body.append(f"<h2>{html.escape(title)} ({len(rows)})</h2>")
        if not rows:
            body.append("<p>none</p>")
            continue
        head = "".join(f"<th>{html.escape(h)}</th>" for h in headers)
        cells = "".join("<tr>" + "".join(f"<td>{html.escape(c)}</td>" for c in row) + "</tr>" for row in rows)
        body.append(f'<div class="wrap"><table><thead><tr>{head}</tr></thead><tbody>{cells}</tbody></table></div>')
    css = (
        "body{font-family:system-ui,sans-serif;margin:2rem;max-width:1400px}table{border-collapse:collapse}"
        "td,th{border:1px solid #ccc;padding:.25rem .5rem;text-align:left;overflow-wrap:anywhere}"
        ".wrap{overflow-x:auto}"
    )
    return (
        '<!doctype html><html lang="en"><head><meta charset="utf-8">'
        "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; style-src 'unsafe-inline'\">"
        f"<title>modelcensus fleet report</title><style>{css}</style></head><body>{''.join(body)}</body></html>\n"
    )


REPORT_FORMATS: dict[str, Callable[[FleetReport], str]] = {
    "table": report_table,
    "json": report_json,
    "markdown": report_markdown,
    "html": report_html,
}


def diff_table(d: FleetDiff) -> str:
    head = (
        f"Fleet diff {d.old_label} → {d.new_label}: {d.pairs} target pair(s) "
        f"({d.unpaired_old} only in old, {d.unpaired_new} only in new)"
    )
    rows = [
        [escape_control(c.change_id), c.kind, c.severity, f"{c.targets} of {d.pairs}", escape_control(c.title)]
        for c in d.changes
    ]
    table = tabulate(rows, headers=["change", "kind", "severity", "targets", "example"]) if rows else "no changes"
    return escape_control(head) + "\n\n" + table + "\n"


def diff_json(d: FleetDiff) -> str:
    return json.dumps(d.to_json(), indent=2, ensure_ascii=False) + "\n"


def diff_markdown(d: FleetDiff) -> str:
    out = [
        f"# Fleet diff {d.old_label} → {d.new_label}",
        "",
        f"{d.pairs} target pair(s); {d.unpaired_old} only in old, {d.unpaired_new} only in new.",
        "",
    ]
    if d.changes:
        out += ["| change | kind | severity | targets | example |", "|---|---|---|---|---|"]
        out += [
            f"| {_md_cell(c.change_id)} | {c.kind} | {c.severity} | {c.targets} of {d.pairs} | {_md_cell(c.title)} |"
            for c in d.changes
        ]
    else:
        out.append("No changes.")
    return "\n".join(out) + "\n"


DIFF_FORMATS: dict[str, Callable[[FleetDiff], str]] = {
    "table": diff_table,
    "json": diff_json,
    "markdown": diff_markdown,
}

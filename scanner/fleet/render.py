"""How a fleet report and a fleet diff are shown: table, JSON, Markdown, HTML (with a chart per release).

The table fits the width it is given and colours severities, as the single-target table does; the HTML chart has
an axis, a value on every bar and the vendor colours of the single-target report. Every list cut for room says
how much it left out.
"""

from __future__ import annotations

import html
import json
from collections import defaultdict
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

import typer

from scanner.fleet.fleetdiff import FleetDiff
from scanner.fleet.report import FleetReport
from scanner.model import Severity
from scanner.render._svg import vendor_colours
from scanner.render._view import ReportOptions
from scanner.render.table import COLOURS, fit_line, grid
from scanner.textsafe import escape_control, safe

_MAX_NAMES = 6


@dataclass(frozen=True)
class ViewOptions:
    table: ReportOptions = field(default_factory=ReportOptions)


def _names(items: Sequence[str], total: int | None = None, most: int = _MAX_NAMES) -> str:
    """The first names and how many more there are (`total`: when `items` is already a cut list)."""
    count = len(items) if total is None else total
    shown = ", ".join(items[:most])
    return shown + (f", … (+{count - min(most, len(items))})" if count > min(most, len(items)) else "")


Table = tuple[str, list[str], list[list[str]], list[str]]  # title, headers, rows, severity per row ("" for none)


def _sections(r: FleetReport) -> list[Table]:
    """Every section as rows of cells, each cell already safe to print (control characters escaped)."""
    tables: list[Table] = [
        ("Findings across the fleet", ["severity", "finding", "targets", "example"],
         [[f.severity if f.id not in r.ignored else f"ignored ({f.severity})",
           f"{f.title}\nid: {f.id}" + (f" (ignored: {r.ignored[f.id]})" if f.id in r.ignored else ""),
           f"{f.targets} of {r.targets}", _names(f.examples, f.targets)] for f in r.findings],
         [f.severity if f.id not in r.ignored else "" for f in r.findings]),
        ("Wired vendors and routes", ["vendor", "route", "targets", "models"],
         [[w.vendor, w.route, str(w.targets), _names(w.models)] for w in r.wiring], []),
        ("Targets whose sessions an external provider served, or whose labels mismatch",
         ["target", "external vendors", "sessions", "label mismatch"],
         [[s.target, ", ".join(s.vendors) or "-", str(s.sessions), "yes" if s.label_mismatch else "no"]
          for s in r.external_sessions], []),
        ("Targets with a disarmed kill switch", ["target", "kill switch", "value"],
         [[d.target, d.name, d.value or ""] for d in r.disarmed_switches], []),
        ("Credentials seen in more than one target", ["sha256", "type", "vendor", "redacted", "targets"],
         [[c.sha256[:16], c.type or "", c.vendor or "?", c.redacted or "", f"{len(c.targets)}: {_names(c.targets)}"]
          for c in r.shared_credentials], []),
        ("Failed targets", ["target", "error"], [[n, e] for n, e in r.failed], []),
    ]
    return [(title, headers, [[escape_control(c) for c in row] for row in rows], sev)
            for title, headers, rows, sev in tables]


def _head(r: FleetReport) -> str:
    hidden = f"; {r.hidden_findings} finding(s) hidden by --severity" if r.hidden_findings else ""
    return f"{r.targets} target(s) scanned, {len(r.failed)} failed{hidden}"


def report_table(r: FleetReport, view: ViewOptions | None = None) -> str:
    opts = (view or ViewOptions()).table
    out = [fit_line(f"Fleet: {_head(r)}", opts), ""]
    for title, headers, rows, sev in _sections(r):
        out.append(f"{title} ({len(rows)})")
        if not rows:
            out += ["none", ""]
            continue
        paints = [COLOURS.get(Severity(s), "") if s else "" for s in sev] if sev else None
        wrap = headers.index("finding") if "finding" in headers else None
        out += grid(headers, rows, opts, paints, wrap=wrap, main=0 if wrap is None else None)
        out.append("")
    return "\n".join(out) + "\n"


def report_json(r: FleetReport, view: ViewOptions | None = None) -> str:
    return json.dumps(r.to_json(), indent=2, sort_keys=False, ensure_ascii=False) + "\n"


def _md_cell(text: str) -> str:
    return escape_control(text).replace("|", "\\|").replace("\n", " ")  # idempotent on escaped cells


def report_markdown(r: FleetReport, view: ViewOptions | None = None) -> str:
    out = ["# modelcensus fleet report", "", _head(r) + ".", ""]
    for title, headers, rows, _ in _sections(r):
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
    """Grouped bars: per release, targets wired to each vendor, one colour per vendor (the single-target report's),
    with a value on each bar and an axis of target counts."""
    if not r.by_release:
        return "<p>No target has a <code>release</code> label.</p>"
    releases = sorted({x.release for x in r.by_release})
    vendors = sorted({x.vendor for x in r.by_release})
    colours = vendor_colours(vendors)
    counts: dict[tuple[str, str], int] = defaultdict(int)
    for x in r.by_release:
        counts[(x.release, x.vendor)] = x.targets
    top = max(counts.values()) or 1
    bar, gap, height, left0, base = 22, 28, 160, 48, 24
    width = left0 + len(releases) * (len(vendors) * bar + gap) + 20
    parts = [f'<svg role="img" aria-label="targets wired to each vendor, per release" width="{width}" '
             f'height="{height + base + 50}">']
    for tick in sorted({0, top // 2, top}):  # the axis: target counts
        y = base + height - int(height * tick / top)
        parts.append(f'<line class="axis" x1="{left0 - 4}" y1="{y}" x2="{width - 10}" y2="{y}" stroke="#ddd"/>'
                     f'<text x="{left0 - 8}" y="{y + 4}" text-anchor="end" class="tick">{tick}</text>')
    parts.append(f'<text x="4" y="{base - 8}" class="tick">targets</text>')
    left = left0
    for rel in releases:
        start = left
        for v in vendors:
            n = counts[(rel, v)]
            h = int(height * n / top)
            y = base + height - h
            parts.append(
                f'<rect x="{left}" y="{y}" width="{bar - 3}" height="{h}" fill="{colours[v]}">'
                f"<title>{html.escape(rel)} · {html.escape(v)}: {n} target(s)</title></rect>"
                f'<text x="{left + (bar - 3) / 2}" y="{y - 3}" text-anchor="middle" class="value">{n}</text>'
            )
            left += bar
        parts.append(f'<text x="{(start + left) / 2}" y="{base + height + 18}" text-anchor="middle">'
                     f"{html.escape(rel)}</text>")
        left += gap
    parts.append(f'<line class="axis" x1="{left0 - 4}" y1="{base + height}" x2="{width - 10}" '
                 f'y2="{base + height}" stroke="#888"/></svg>')
    legend = " ".join(f'<span class="key"><span style="color:{colours[v]}">■</span> {html.escape(v)}</span>'
                      for v in vendors)
    return "".join(parts) + f'<p class="legend">{legend}</p>'


_CSS = (
    "body{font-family:system-ui,sans-serif;margin:2rem;max-width:1400px}table{border-collapse:collapse}"
    "td,th{border:1px solid #ccc;padding:.25rem .5rem;text-align:left;vertical-align:top}"
    "th{white-space:nowrap;background:#f4f4f4}td{overflow-wrap:break-word;word-break:normal}"
    ".wrap{overflow-x:auto}svg text{font:11px system-ui,sans-serif}svg .tick{fill:#555}"
    ".key{white-space:nowrap;margin-right:1em}.sev{font-weight:600;white-space:nowrap}"
)


def report_html(r: FleetReport, view: ViewOptions | None = None) -> str:
    body = [
        f"<h1>modelcensus fleet report</h1><p>{html.escape(_head(r))}.</p>",
        "<h2>Targets wired to each vendor, per release</h2>",
        _release_chart(r),
    ]
    for title, headers, rows, _ in _sections(r):
        body.append(f"<h2>{html.escape(title)} ({len(rows)})</h2>")
        if not rows:
            body.append("<p>none</p>")
            continue
        head = "".join(f"<th>{html.escape(h)}</th>" for h in headers)
        cells = "".join("<tr>" + "".join(f"<td>{_html_cell(c)}</td>" for c in row) + "</tr>" for row in rows)
        body.append(f'<div class="wrap"><table><thead><tr>{head}</tr></thead><tbody>{cells}</tbody></table></div>')
    return (
        '<!doctype html><html lang="en"><head><meta charset="utf-8">'
        "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; style-src 'unsafe-inline'\">"
        f"<title>modelcensus fleet report</title><style>{_CSS}</style></head><body>{''.join(body)}</body></html>\n"
    )


def _html_cell(text: str) -> str:
    # A host or target name may break after a dot or a dash, never inside a word.
    return "<br>".join(html.escape(part).replace(".", ".<wbr>") for part in text.split("\n"))


ReportFormat = Callable[[FleetReport, "ViewOptions | None"], str]
REPORT_FORMATS: dict[str, ReportFormat] = {
    "table": report_table,
    "json": report_json,
    "markdown": report_markdown,
    "html": report_html,
}


def gate_report(r: FleetReport, threshold: Severity | None) -> None:
    """`fleet report --fail-on`: exit 1 when a finding left after the ignore entries is at or above the threshold
    in some target; the line names the most severe."""
    if threshold is None:
        return
    tripped = [f for f in r.findings if f.id not in r.ignored and Severity(f.severity).rank >= threshold.rank]
    if tripped:
        worst = max(tripped, key=lambda f: Severity(f.severity).rank)
        typer.echo(safe(f"modelcensus: --fail-on {threshold.value}: {len(tripped)} finding(s) at or above it "
                        f"across the fleet; the most severe: {worst.severity} {worst.id} in {worst.targets} "
                        f"target(s), e.g. {worst.examples[0] if worst.examples else '?'}"), err=True)
        raise typer.Exit(1)


def _diff_head(d: FleetDiff) -> str:
    head = (f"Fleet diff {d.old_label} → {d.new_label}: {d.pairs} target pair(s) "
            f"({d.unpaired_old} only in old, {d.unpaired_new} only in new)")
    if d.population_old or d.population_new:
        head += (f"; unpaired targets compared as populations ({d.population_old} {d.old_label}, "
                 f"{d.population_new} {d.new_label})")
    return head


def diff_table(d: FleetDiff, view: ViewOptions | None = None) -> str:
    opts = (view or ViewOptions()).table
    out = [fit_line(_diff_head(d), opts), ""]
    if d.pairs:
        rows = [[c.severity, c.kind, f"{c.title}\nid: {c.change_id}", f"{c.targets} of {d.pairs}"]
                for c in d.changes]
        paints = [COLOURS[Severity(c.severity)] for c in d.changes]
        out += (["Changes over the pairs"] + grid(["severity", "kind", "change", "pairs"], rows, opts, paints, wrap=2)
                if rows else ["Changes over the pairs: none"])
        out.append("")
    if d.population_old or d.population_new:
        rows = [[c.severity, f"{c.title}\nid: {c.fact_id}"] for c in d.populations]
        paints = [COLOURS[Severity(c.severity)] for c in d.populations]
        out += (["Differences between the populations"] + grid(["severity", "difference"], rows, opts, paints, wrap=1)
                if rows else ["Differences between the populations: none (every fact has the same share)"])
        out.append("")
    if not d.pairs and not (d.population_old or d.population_new):
        out.append("nothing compared")
    return "\n".join(out) + "\n"


def diff_json(d: FleetDiff, view: ViewOptions | None = None) -> str:
    return json.dumps(d.to_json(), indent=2, ensure_ascii=False) + "\n"


def diff_markdown(d: FleetDiff, view: ViewOptions | None = None) -> str:
    out = [f"# Fleet diff {d.old_label} → {d.new_label}", "", _diff_head(d) + ".", ""]
    if d.pairs:
        out += ["## Changes over the pairs", ""]
        if d.changes:
            out += ["| change | kind | severity | pairs | example |", "|---|---|---|---|---|"]
            out += [f"| {_md_cell(c.change_id)} | {c.kind} | {c.severity} | {c.targets} of {d.pairs} | "
                    f"{_md_cell(c.title)} |" for c in d.changes]
        else:
            out.append("No changes.")
        out.append("")
    if d.population_old or d.population_new:
        out += ["## Differences between the populations", ""]
        if d.populations:
            out += ["| fact | severity | difference |", "|---|---|---|"]
            out += [f"| {_md_cell(c.fact_id)} | {c.severity} | {_md_cell(c.title)} |" for c in d.populations]
        else:
            out.append("None: every fact has the same share.")
        out.append("")
    return "\n".join(out)


DiffFormat = Callable[[FleetDiff, "ViewOptions | None"], str]
DIFF_FORMATS: dict[str, DiffFormat] = {
    "table": diff_table,
    "json": diff_json,
    "markdown": diff_markdown,
}

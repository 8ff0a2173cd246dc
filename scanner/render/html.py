"""The inventory as one self-contained HTML page an auditor can mail around.

Findings first, then the pictures (sessions per day by vendor, routes from aliases to vendors), then the models by
vendor, SDKs per environment, credentials (redacted), kill switches and what was skipped. Inline CSS and SVG only:
no script, no font, no image, and a Content-Security-Policy that forbids loading anything, so the page makes no
network request even if a value from the target slipped through. Every value from the target is escaped.
"""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Iterable, Mapping, Sequence
from html import escape

from scanner.inventory.document import session_document
from scanner.kinds import Inventory
from scanner.kinds.base import ReportTable
from scanner.kinds.models import ModelEntry
from scanner.model import Location
from scanner.render._headline import Line, finding_rows, headline, not_wiring_lines
from scanner.render._html_style import CSS as _CSS
from scanner.render._svg import NEVER, Edge, routes_diagram, session_vendors, sessions_chart, vendor_colours
from scanner.render._view import DEFAULT, DETAILED, FILESYSTEM_ONLY, ReportOptions, filesystem_inspected, table_of
from scanner.textsafe import safe
from scanner.vocab import SEVERITIES_WORST_FIRST

description = "one self-contained HTML page with charts (sessions per day, routes), for people"

_MAX_WHERE = 3
_MAX_SKIPPED = 200
_MAX_SESSIONS = 50
_CSP = "default-src 'none'; style-src 'unsafe-inline'; img-src data:"
def e(value: object) -> str:
    return escape(safe(value), quote=True)


def _where(locs: Sequence[Location], most: int = _MAX_WHERE, cut: int = 0) -> str:
    unique = list(dict.fromkeys(f"{loc.path}:{loc.line}" if loc.line else loc.path for loc in locs))
    shown = "<br>".join(f"<code>{e(u)}</code>" for u in unique[:most])
    left = max(0, len(unique) - most) + cut
    return shown + (f' <span class="note">(+{left})</span>' if left else "")


def _host(host: str) -> str:
    """A host name breaks only after a dot, never inside a label."""
    return '<code class="host">' + e(host).replace(".", ".<wbr>") + "</code>"


def _contexts(locs: Iterable[Location]) -> str:
    return e(", ".join(sorted({loc.context.value for loc in locs})))


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


def _generic(s: ReportTable | None) -> str:
    if s is None:
        return ""
    return _table(list(s.headers), [[e(c) for c in row] for row in s.rows], s.empty)


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


def _routes(inv: Inventory, colours: Mapping[str, str]) -> str:
    rows = [
        [
            f"<code>{e(r.alias)}</code>",
            e(r.declared_via or ""),
            e(r.base_model or ""),
            e("/".join(x for x in (r.observed_vendor, r.observed_via) if x))
            if r.observed_vendor
            else '<span class="no">never observed</span>',
            e(r.sessions),
        ]
        for r in sorted(inv.routes, key=lambda r: (r.observed_vendor or "~", r.declared_via or "", r.alias))
    ]
    table = _table(["alias", "declared via", "base model", "observed", "sessions"], rows, "no routes in configs")
    return (
        f'<div class="pair"><div class="figure">{routes_diagram(route_edges(inv), colours)}</div>'
        f"<div>{table}</div></div>"
    )


def _sessions(inv: Inventory, colours: Mapping[str, str], opts: ReportOptions) -> str:
    rows = []
    # The pictures work on the sessions' JSON form: the same data a reader of the inventory sees.
    sessions = [session_document(x) for x in inv.sessions]
    for s in sessions if opts.all else sessions[:_MAX_SESSIONS]:
        providers = s.get("providers")
        plist = [p for p in providers if isinstance(p, Mapping)] if isinstance(providers, list) else []
        shown = "<br>".join(
            e(" ".join(str(p.get(k)) for k in ("vendor", "served_via", "api", "records") if p.get(k) not in (None, "")))
            for p in plist
        )
        labels = s.get("labels")
        label_text = ", ".join(map(str, labels)) if isinstance(labels, list) else ""
        rows.append(
            [
                f"<code>{e(s.get('session_id'))}</code>",
                e(s.get("started_at")),
                e(s.get("records")),
                shown,
                e(label_text),
                f"<code>{e(s.get('path'))}</code>",
            ]
        )
    table = (
        _table(
            ["session", "started", "records", "providers (vendor, route, api, records)", "labels", "file"],
            rows,
            "no sessions found",
        )
        if rows
        else ""
    )
    caption = '<p class="note">A session that reached two vendors counts once for each.</p>' if rows else ""
    if len(sessions) > len(rows):
        table += (
            f'<p class="note">and {len(sessions) - len(rows)} more session(s) (--all lists them; the JSON '
            "inventory has every one)</p>"
        )
    return f'<div class="figure">{sessions_chart(sessions, colours)}</div>{caption}{table}'


def _lifecycle(m: ModelEntry) -> str:
    lc = m.lifecycle or "unknown"
    cls = lc if lc in ("active", "deprecated", "retired") else "unknown"
    return f'<span class="badge lc-{cls}">{e(lc)}</span>'


def _models(inv: Inventory, opts: ReportOptions) -> str:
    groups: dict[str, list[ModelEntry]] = defaultdict(list)
    for m in inv.models:
        if not (m.wired or opts.all):
            continue
        groups[m.vendor or "unknown vendor"].append(m)
    out = []
    for vendor in sorted(groups, key=lambda v: (v == "unknown vendor", v)):
        models = sorted(groups[vendor], key=lambda m: (not m.wired, m.name))
        wired = sum(m.wired for m in models)
        rows = [
            [
                f"<code>{e(m.name)}</code>",
                e(m.canonical or ""),
                e(m.served_via or ""),
                e(m.base_model or ""),
                _lifecycle(m),
                e(m.catalog),
                "yes" if m.wired else '<span class="no">no</span>',
                _contexts(m.locations),
                _where(m.locations, cut=m.locations_cut),
            ]
            for m in models
        ]
        out.append(f'<h3>{e(vendor)} <span class="meta">({len(models)} models, {wired} wired)</span></h3>')
        out.append(
            _table(["model", "canonical", "via", "base", "lifecycle", "catalog", "wired", "seen in", "where"], rows)
        )
    left = sum(not m.wired for m in inv.models) if not opts.all else 0
    note = (
        f'<p class="note">{left} model id(s) that are not wiring are counted above under "Not wiring" '
        "(--all lists them).</p>"
        if left
        else ""
    )
    return ("".join(out) or '<p class="empty">no wired models found</p>') + note


def _sdks(inv: Inventory) -> str:
    groups: dict[str, list[list[str]]] = defaultdict(list)
    for s in inv.sdks:
        groups[s.environment or "(no environment)"].append(
            [
                e(s.ecosystem),
                f"<code>{e(s.name)}</code>",
                e(s.version or ""),
                e(s.vendor or ""),
                "installed" if s.installed else "declared",
            ]
        )
    return (
        "".join(
            f"<h3><code>{e(env)}</code></h3>" + _table(["ecosystem", "name", "version", "vendor", "state"], rows)
            for env, rows in sorted(groups.items())
        )
        or '<p class="empty">no SDKs found</p>'
    )


def _credentials(inv: Inventory) -> str:
    rows = [
        [
            e(c.type),
            e(c.vendor or "?"),
            f"<code>{e(c.redacted)}</code>",
            f"<code>{e(c.sha256[:16])}</code>",
            "<br>".join(e(x.owner or "?") for x in c.locations),
            "<br>".join(e(x.mode or "?") for x in c.locations),
            _where([x.location for x in c.locations]),
        ]
        for c in inv.credentials
    ]
    return _table(["type", "vendor", "redacted", "sha256", "owner", "mode", "where"], rows, "no credentials found")


def _switches(inv: Inventory) -> str:
    rows = [
        [
            f"<code>{e(k.name)}</code>",
            e(k.value or ""),
            e(k.state.value),
            e(k.note or ""),
            _contexts(k.locations),
            _where(k.locations, cut=k.locations_cut),
        ]
        for k in inv.kill_switches
    ]
    return _table(["name", "value", "state", "note", "seen in", "where"], rows, "no kill switches found")


def _endpoints(inv: Inventory) -> str:
    rows = [
        [
            _host(x.host),
            e(x.vendor or "?"),
            e(x.served_via or ""),
            "yes" if x.wired else '<span class="no">no</span>',
            _contexts(x.locations),
            _where(x.locations, cut=x.locations_cut),
        ]
        for x in inv.endpoints
    ]
    return _table(["host", "vendor", "via", "wired", "seen in", "where"], rows, "no endpoints found")


def _skipped(inv: Inventory) -> str:
    reasons = Counter(s.reason.value for s in inv.skipped)
    summary = ", ".join(f"{n} {r}" for r, n in sorted(reasons.items())) or "nothing: every file was read"
    rows = [[f"<code>{e(s.path)}</code>", e(s.reason.value), e(s.detail)] for s in inv.skipped[:_MAX_SKIPPED]]
    more = (
        f'<p class="note">and {len(inv.skipped) - _MAX_SKIPPED} more (see the JSON inventory)</p>'
        if len(inv.skipped) > _MAX_SKIPPED
        else ""
    )
    return f'<p class="meta">{e(summary)}</p>' + (_table(["path", "reason", "detail"], rows) if rows else "") + more


def vendor_colours_of(inv: Inventory) -> dict[str, str]:
    vendors = {m.vendor for m in inv.models if m.vendor} | {r.observed_vendor for r in inv.routes if r.observed_vendor}
    vendors |= {v for x in inv.sessions for v in session_vendors(session_document(x))}
    return vendor_colours(sorted(v for v in vendors if v))


def _models_title(inv: Inventory, opts: ReportOptions) -> str:
    """The count over the rows is the count of the rows: wired models, or every model with --all."""
    if opts.all:
        return f"Models by vendor ({len(inv.models)})"
    return f"Wired models by vendor ({sum(m.wired for m in inv.models)})"


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


# The kinds this page lays out itself (pictures, grouped tables); every other kind shows its declared table.
_OWN_LAYOUT = frozenset({"routes", "sessions", "models", "sdks", "endpoints", "credentials", "kill_switches",
                         "agents", "clients", "mcp_servers", "processes", "connections", "skipped"})


def render(inv: Inventory, opts: ReportOptions = DEFAULT) -> str:
    catalogs = ", ".join(f"{c.name}@{c.version}" for c in inv.catalogs) or "none"
    colours = vendor_colours_of(inv)
    nw = not_wiring_lines(inv) if not opts.all else []
    live = [(k, k.title(), _generic(s)) for k in ("processes", "connections") if (s := table_of(k, inv, opts))]
    # A kind this page does not lay out itself: its declared table, titled with its count.
    more = [
        (s.key, f"{s.title} ({len(getattr(inv, k.key))})", _generic(s))
        for k in DETAILED if k.key not in _OWN_LAYOUT and (s := table_of(k.key, inv, opts)) is not None
    ]
    sections = [
        ("headline", "What this machine is wired to", _lines(headline(inv))),
        ("findings", "Findings", _findings(inv, opts)),
        *([("not-wiring", "Not wiring", _lines(nw[1:], "headline plain"))] if nw else []),
        ("routes", "Routes: alias → route → vendor", _routes(inv, colours)),
        ("sessions", f"Sessions per day ({len(inv.sessions)})", _sessions(inv, colours, opts)),
        ("models", _models_title(inv, opts), _models(inv, opts)),
        ("sdks", f"SDKs per environment ({len(inv.sdks)})", _sdks(inv)),
        ("endpoints", f"Endpoints ({len(inv.endpoints)})", _endpoints(inv)),
        ("credentials", f"Credentials ({len(inv.credentials)}, redacted)", _credentials(inv)),
        ("kill-switches", f"Kill switches ({len(inv.kill_switches)})", _switches(inv)),
        ("agents", f"Agents ({len(inv.agents)})", _generic(table_of("agents", inv, opts))),
        ("clients", f"Clients ({len(inv.clients)})", _generic(table_of("clients", inv, opts))),
        ("mcp-servers", f"MCP servers ({len(inv.mcp_servers)})", _generic(table_of("mcp_servers", inv, opts))),
        *live,
        *more,
        ("skipped", f"Skipped ({len(inv.skipped)})", _skipped(inv)),
    ]
    if not filesystem_inspected(inv):  # --live-only: what only files tell was not looked at, so it is not shown
        sections = [x for x in sections if x[0] not in FILESYSTEM_ONLY]
    body = "".join(f'<section id="{sid}"><h2>{e(title)}</h2>{html}</section>' for sid, title, html in sections)
    return (
        '<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8">'
        f'<meta http-equiv="Content-Security-Policy" content="{_CSP}">'
        '<meta name="viewport" content="width=device-width, initial-scale=1">'
        f"<title>modelcensus report: {e(inv.target.location)}</title><style>{_CSS}</style></head><body>"
        f'<h1>modelcensus report</h1><p class="meta">{e(inv.target.kind)} <code>{e(inv.target.location)}</code>'
        f" · modelcensus {e(inv.tool_version)} · catalogs {e(catalogs)} · "
        f'<span class="stats">{e(_files_read(inv))}</span></p>'
        f"{body}</body></html>\n"
    )

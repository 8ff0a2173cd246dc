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
from scanner.model import Inventory, Location, ModelEntry
from scanner.render._svg import Edge, routes_diagram, sessions_chart

description = "one self-contained HTML page with charts (sessions per day, routes), for people"

_MAX_WHERE = 3
_MAX_SKIPPED = 200
_CSP = "default-src 'none'; style-src 'unsafe-inline'; img-src data:"
_CSS = """
body{font:14px/1.45 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;margin:2em auto;max-width:1200px;
color:#1b1b1b;padding:0 1em}
h1{font-size:1.6em;margin-bottom:.2em}h2{border-bottom:2px solid #ddd;padding-bottom:.2em;margin-top:1.8em}
h3{margin:1.2em 0 .4em}.meta,.note,.empty{color:#555}
table{border-collapse:collapse;width:100%;margin:.4em 0 1em}th,td{border:1px solid #ddd;padding:3px 6px;
text-align:left;vertical-align:top}th{background:#f4f4f4}code,.mono{font-family:ui-monospace,Menlo,Consolas,monospace;
font-size:.92em;word-break:break-all}
.sev{font-weight:600;border-radius:3px;padding:1px 6px;color:#fff}.sev-high{background:#b00020}
.sev-medium{background:#c75c00}.sev-low{background:#8a6d00}.sev-info{background:#4a6fa5}
.badge{border-radius:8px;padding:0 7px;font-size:.85em;border:1px solid #bbb}.lc-active{background:#e3f4e6}
.lc-deprecated{background:#fff1c2}.lc-retired{background:#f9d4d4}.lc-unknown{background:#eee}
.no{color:#777}svg text{font:11px system-ui,sans-serif}svg .axis{stroke:#888}svg .tick{fill:#555}
svg .edge{fill:none;stroke:#8895a7;stroke-width:1.4}svg .node{stroke:#aaa}svg rect.vendor+text{fill:#fff}
.figure{overflow-x:auto;margin:.5em 0 1em}.first code{white-space:nowrap;word-break:normal}
@media print{body{margin:0;max-width:none;font-size:11px}h2{break-after:avoid}tr,svg{break-inside:avoid}
.sev{color:#000;border:1px solid #000;background:none}}
"""


def e(value: object) -> str:
    return escape("" if value is None else str(value), quote=True)


def _where(locs: Sequence[Location], most: int = _MAX_WHERE) -> str:
    unique = list(dict.fromkeys(f"{loc.path}:{loc.line}" if loc.line else loc.path for loc in locs))
    shown = "<br>".join(f"<code>{e(u)}</code>" for u in unique[:most])
    return shown + (f' <span class="note">(+{len(unique) - most})</span>' if len(unique) > most else "")


def _contexts(locs: Iterable[Location]) -> str:
    return e(", ".join(sorted({loc.context.value for loc in locs})))


def _table(headers: Sequence[str], rows: Sequence[Sequence[str]], empty: str = "none") -> str:
    """Rows are already-escaped HTML fragments."""
    if not rows:
        return f'<p class="empty">{e(empty)}</p>'
    head = "".join(f"<th>{e(h)}</th>" for h in headers)
    body = "".join("<tr>" + "".join(f"<td>{c}</td>" for c in row) + "</tr>" for row in rows)
    return f"<table><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>"


def _findings(inv: Inventory) -> str:
    counts = Counter(f.severity.value for f in inv.findings)
    summary = ", ".join(f"{counts[s]} {s}" for s in ("high", "medium", "low", "info") if counts[s]) or "none"
    # One line per finding, so the pictures below are in sight: the first place only, the id in a tooltip.
    rows = [[f'<span class="sev sev-{e(f.severity.value)}" title="{e(f.id)}">{e(f.severity.value)}</span>',
             e(f.title), f'<span class="first">{_where(f.locations, 1)}</span>'] for f in inv.findings]
    return f'<p class="meta">{e(summary)}</p>' + _table(["severity", "finding", "first seen at"], rows, "no findings")


def route_edges(inv: Inventory) -> list[Edge]:
    """Alias → route → vendor, from the inventory's routes when it has them, else from the wired models."""
    edges: list[Edge] = []
    for r in inv.routes:
        alias, route = r.alias, r.declared_via or "unstated"
        if r.observed_vendor:
            label = ", ".join(x for x in (f"api {r.observed_api}" if r.observed_api else "",
                                          f"sessions {r.sessions}" if r.sessions else "") if x)
            edges.append((alias, route, r.observed_vendor, label))
        else:
            edges.append((alias, route, "unknown", "not observed"))
    if edges:
        return edges
    for m in inv.models:
        if m.wired:
            alias = m.name + (f" (base {m.base_model})" if m.base_model and m.base_model != m.name else "")
            edges.append((alias, m.served_via or "unstated", m.vendor or "unknown", "configured"))
    return edges


def _sessions(inv: Inventory) -> str:
    rows = []
    # The pictures work on the sessions' JSON form: the same data a reader of the inventory sees.
    sessions = [session_document(x) for x in inv.sessions]
    for s in sessions:
        providers = s.get("providers")
        plist = [p for p in providers if isinstance(p, Mapping)] if isinstance(providers, list) else []
        shown = "<br>".join(
            e(" ".join(str(p.get(k)) for k in ("vendor", "served_via", "api", "records") if p.get(k) not in (None, "")))
            for p in plist)
        labels = s.get("labels")
        label_text = ", ".join(map(str, labels)) if isinstance(labels, list) else ""
        rows.append([f"<code>{e(s.get('session_id'))}</code>", e(s.get("started_at")), e(s.get("records")), shown,
                     e(label_text), f"<code>{e(s.get('path'))}</code>"])
    table = _table(["session", "started", "records", "providers (vendor, route, api, records)", "labels", "file"],
                   rows, "no sessions found") if rows else ""
    caption = ('<p class="note">A session that reached two vendors counts once for each.</p>' if rows else "")
    return f'<div class="figure">{sessions_chart(sessions)}</div>{caption}{table}'


def _lifecycle(m: ModelEntry) -> str:
    lc = m.lifecycle or "unknown"
    cls = lc if lc in ("active", "deprecated", "retired") else "unknown"
    return f'<span class="badge lc-{cls}">{e(lc)}</span>'


def _models(inv: Inventory) -> str:
    groups: dict[str, list[ModelEntry]] = defaultdict(list)
    for m in inv.models:
        groups[m.vendor or "unknown vendor"].append(m)
    out = []
    for vendor in sorted(groups, key=lambda v: (v == "unknown vendor", v)):
        models = sorted(groups[vendor], key=lambda m: (not m.wired, m.name))
        wired = sum(m.wired for m in models)
        rows = [[f"<code>{e(m.name)}</code>", e(m.canonical or ""), e(m.served_via or ""), e(m.base_model or ""),
                 _lifecycle(m), e(m.catalog), "yes" if m.wired else '<span class="no">no</span>',
                 _contexts(m.locations), _where(m.locations)] for m in models]
        out.append(f"<h3>{e(vendor)} <span class=\"meta\">({len(models)} models, {wired} wired)</span></h3>")
        out.append(_table(["model", "canonical", "via", "base", "lifecycle", "catalog", "wired", "seen in", "where"],
                          rows))
    return "".join(out) or '<p class="empty">no models found</p>'


def _sdks(inv: Inventory) -> str:
    groups: dict[str, list[list[str]]] = defaultdict(list)
    for s in inv.sdks:
        groups[s.environment or "(no environment)"].append(
            [e(s.ecosystem), f"<code>{e(s.name)}</code>", e(s.version or ""), e(s.vendor or ""),
             "installed" if s.installed else "declared"])
    return "".join(f"<h3><code>{e(env)}</code></h3>" + _table(["ecosystem", "name", "version", "vendor", "state"], rows)
                   for env, rows in sorted(groups.items())) or '<p class="empty">no SDKs found</p>'


def _credentials(inv: Inventory) -> str:
    rows = [[e(c.type), e(c.vendor or "?"), f"<code>{e(c.redacted)}</code>", f"<code>{e(c.sha256[:16])}</code>",
             "<br>".join(e(x.owner or "?") for x in c.locations), "<br>".join(e(x.mode or "?") for x in c.locations),
             _where([x.location for x in c.locations])] for c in inv.credentials]
    return _table(["type", "vendor", "redacted", "sha256", "owner", "mode", "where"], rows, "no credentials found")


def _switches(inv: Inventory) -> str:
    rows = [[f"<code>{e(k.name)}</code>", e(k.value or ""), e(k.state.value), e(k.note or ""),
             _contexts(k.locations), _where(k.locations)] for k in inv.kill_switches]
    return _table(["name", "value", "state", "note", "seen in", "where"], rows, "no kill switches found")


def _endpoints(inv: Inventory) -> str:
    rows = [[f"<code>{e(x.host)}</code>", e(x.vendor or "?"), e(x.served_via or ""),
             "yes" if x.wired else '<span class="no">no</span>', _contexts(x.locations), _where(x.locations)]
            for x in inv.endpoints]
    return _table(["host", "vendor", "via", "wired", "seen in", "where"], rows, "no endpoints found")


def _agents(inv: Inventory) -> str:
    rows = []
    for a in inv.agents:
        for c in a.configs or (None,):
            rows.append([f"<code>{e(a.name)}</code>", e(a.version or ""), f"<code>{e(a.install_path or '')}</code>",
                         e(len(a.ships)), e(c.user or "(system)") if c else "", e(", ".join(c.models)) if c else "",
                         e(c.served_via or "") if c else "", e(", ".join(c.mcp_servers)) if c else ""])
    return _table(["agent", "version", "install path", "ships", "user", "models", "via", "mcp servers"], rows,
                  "no agent products found")


def _skipped(inv: Inventory) -> str:
    reasons = Counter(s.reason.value for s in inv.skipped)
    summary = ", ".join(f"{n} {r}" for r, n in sorted(reasons.items())) or "nothing: every file was read"
    rows = [[f"<code>{e(s.path)}</code>", e(s.reason.value), e(s.detail)] for s in inv.skipped[:_MAX_SKIPPED]]
    more = (f'<p class="note">and {len(inv.skipped) - _MAX_SKIPPED} more (see the JSON inventory)</p>'
            if len(inv.skipped) > _MAX_SKIPPED else "")
    return f'<p class="meta">{e(summary)}</p>' + (_table(["path", "reason", "detail"], rows) if rows else "") + more


def render(inv: Inventory) -> str:
    st = inv.stats
    catalogs = ", ".join(f"{c.name}@{c.version}" for c in inv.catalogs) or "none"
    sections = [
        ("findings", f"Findings ({len(inv.findings)})", _findings(inv)),
        ("sessions", f"Sessions per day ({len(inv.sessions)})", _sessions(inv)),
        ("routes", "Routes: alias → route → vendor", f'<div class="figure">{routes_diagram(route_edges(inv))}</div>'),
        ("models", f"Models by vendor ({len(inv.models)})", _models(inv)),
        ("sdks", f"SDKs per environment ({len(inv.sdks)})", _sdks(inv)),
        ("endpoints", f"Endpoints ({len(inv.endpoints)})", _endpoints(inv)),
        ("credentials", f"Credentials ({len(inv.credentials)}, redacted)", _credentials(inv)),
        ("kill-switches", f"Kill switches ({len(inv.kill_switches)})", _switches(inv)),
        ("agents", f"Agents ({len(inv.agents)})", _agents(inv)),
        ("skipped", f"Skipped ({len(inv.skipped)})", _skipped(inv)),
    ]
    body = "".join(f'<section id="{sid}"><h2>{e(title)}</h2>{html}</section>' for sid, title, html in sections)
    return (
        "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
        f'<meta http-equiv="Content-Security-Policy" content="{_CSP}">'
        '<meta name="viewport" content="width=device-width, initial-scale=1">'
        f"<title>modelcensus report: {e(inv.target.location)}</title><style>{_CSS}</style></head><body>"
        f"<h1>modelcensus report</h1><p class=\"meta\">{e(inv.target.kind)} <code>{e(inv.target.location)}</code>"
        f" · modelcensus {e(inv.tool_version)} · catalogs {e(catalogs)} · "
        f'<span class="stats">{st.files_read}/{st.files_seen} files read</span></p>'
        f"{body}</body></html>\n"
    )

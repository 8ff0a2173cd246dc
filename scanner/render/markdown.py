"""The table report as GitHub-flavoured Markdown, to paste into a ticket or a pull request.

Everything that comes from the target (paths, model ids, values) is escaped, so a hostile file name cannot add
links, HTML or table cells to the page it is pasted into.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Sequence

from scanner.model import Inventory, Location
from scanner.textsafe import escape_control

description = "the table report as GitHub-flavoured Markdown (for tickets and pull requests)"
_MAX_WHERE = 3
_SPECIAL = re.compile(r"([\\`*_\[\]<>|~#!])")


def md(value: object) -> str:
    """Target text made inert in a GFM table cell: one line, punctuation escaped, `&` as an entity."""
    text = escape_control("" if value is None else str(value)).replace("&", "&amp;")
    return _SPECIAL.sub(r"\\\1", text)


def _where(locs: Sequence[Location]) -> str:
    unique = list(dict.fromkeys(f"{loc.path}:{loc.line}" if loc.line else loc.path for loc in locs))
    shown = ", ".join(md(u) for u in unique[:_MAX_WHERE])
    return shown + (f" (+{len(unique) - _MAX_WHERE})" if len(unique) > _MAX_WHERE else "")


def _contexts(locs: Sequence[Location]) -> str:
    return ", ".join(sorted({loc.context.value for loc in locs}))


def _table(title: str, headers: list[str], rows: list[list[str]]) -> str:
    if not rows:
        return f"### {title}\n\nNone.\n"
    out = [f"### {title} ({len(rows)})", "", "| " + " | ".join(headers) + " |", "|" + "---|" * len(headers)]
    out += ["| " + " | ".join(row) + " |" for row in rows]
    return "\n".join(out) + "\n"


def render(inv: Inventory) -> str:
    parts = [f"## modelcensus report: {md(inv.target.location)}\n",
             f"modelcensus {md(inv.tool_version)}, {inv.target.kind} target, "
             f"catalogs: {', '.join(md(f'{c.name}@{c.version}') for c in inv.catalogs) or 'none'}\n"]
    parts.append(_table("Findings", ["severity", "finding", "id"],
                        [[f"**{f.severity.value}**", md(f.title), md(f.id)] for f in inv.findings]))
    parts.append(_table(
        "Models", ["vendor", "model", "canonical", "via", "base", "catalog", "lifecycle", "wired", "seen in", "where"],
        [[md(m.vendor or "?"), md(m.name), md(m.canonical or ""), md(m.served_via or ""), md(m.base_model or ""),
          m.catalog, md(m.lifecycle or ""), "yes" if m.wired else "no", _contexts(m.locations), _where(m.locations)]
         for m in inv.models]))
    parts.append(_table(
        "SDKs", ["ecosystem", "name", "version", "vendor", "installed", "environment"],
        [[md(s.ecosystem), md(s.name), md(s.version or ""), md(s.vendor or ""),
          "yes" if s.installed else "declared", md(s.environment or "")] for s in inv.sdks]))
    parts.append(_table(
        "Endpoints", ["host", "vendor", "via", "wired", "seen in", "where"],
        [[md(e.host), md(e.vendor or "?"), md(e.served_via or ""), "yes" if e.wired else "no",
          _contexts(e.locations), _where(e.locations)] for e in inv.endpoints]))
    parts.append(_table(
        "Credentials", ["type", "vendor", "redacted", "sha256", "mode", "owner", "where"],
        [[md(c.type), md(c.vendor or "?"), md(c.redacted), f"`{c.sha256[:16]}`",
          md(",".join(sorted({x.mode or "?" for x in c.locations}))),
          md(",".join(sorted({x.owner or "?" for x in c.locations}))),
          _where([x.location for x in c.locations])] for c in inv.credentials]))
    parts.append(_table(
        "Kill switches", ["name", "value", "state", "seen in", "where"],
        [[md(k.name), md(k.value or ""), k.state.value, _contexts(k.locations), _where(k.locations)]
         for k in inv.kill_switches]))
    parts.append(_agents(inv))
    reasons = Counter(s.reason.value for s in inv.skipped)
    summary = ", ".join(f"{n} {r}" for r, n in sorted(reasons.items())) or "nothing"
    parts.append(f"**Skipped:** {summary}\n")
    return "\n".join(parts)


def _agents(inv: Inventory) -> str:
    """Agent products: one row per (install, user who configures it)."""
    rows = []
    for a in inv.agents:
        for c in a.configs or (None,):
            rows.append([md(a.name), md(a.version or ""), md(a.install_path or "(not installed)"), str(len(a.ships)),
                         md(c.user or "(system)") if c else "", md(", ".join(c.models)) if c else "",
                         md(c.served_via or "") if c else "", md(", ".join(c.mcp_servers)) if c else ""])
    return _table("Agents", ["agent", "version", "install path", "ships", "user", "models", "via", "mcp servers"],
                  rows)

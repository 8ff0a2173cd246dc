"""The inventory as tables for a terminal: findings first, then models, SDKs, endpoints, secrets."""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence

from tabulate import tabulate

from scanner.model import Inventory, Location
from scanner.sessions import report as sessions_report
from scanner.textsafe import escape_control

description = "human-readable tables (findings, models, SDKs, endpoints, credentials, kill switches, sessions, routes)"
_MAX_WHERE = 3


def _where(locs: Sequence[Location]) -> str:
    unique = list(dict.fromkeys(f"{loc.path}:{loc.line}" if loc.line else loc.path for loc in locs))
    parts = unique[:_MAX_WHERE]
    more = f" (+{len(unique) - _MAX_WHERE})" if len(unique) > _MAX_WHERE else ""
    return ", ".join(parts) + more


def _contexts(locs: Sequence[Location]) -> str:
    return ",".join(sorted({loc.context.value for loc in locs}))


def _section(title: str, headers: list[str], rows: list[list[object]]) -> str:
    if not rows:
        return f"{title}: none\n"
    safe = [[escape_control("" if c is None else str(c)) for c in row] for row in rows]
    return f"{title} ({len(rows)})\n{tabulate(safe, headers=headers, tablefmt='simple')}\n"


def render(inv: Inventory) -> str:
    out = [f"modelcensus {inv.tool_version}: {inv.target.kind} {escape_control(inv.target.location)}\n"]
    out.append(_section("Findings", ["severity", "finding"], [[f.severity.value, f.title] for f in inv.findings]))
    out.append(
        _section(
            "Models",
            ["vendor", "model", "canonical", "via", "base", "catalog", "lifecycle", "wired", "seen in", "where"],
            [
                [
                    m.vendor or "?",
                    m.name,
                    m.canonical or "",
                    m.served_via or "",
                    m.base_model or "",
                    m.catalog,
                    m.lifecycle or "",
                    "yes" if m.wired else "no",
                    _contexts(m.locations),
                    _where(m.locations),
                ]
                for m in inv.models
            ],
        )
    )
    out.append(
        _section(
            "SDKs",
            ["ecosystem", "name", "version", "vendor", "installed", "environment"],
            [
                [
                    s.ecosystem,
                    s.name,
                    s.version or "",
                    s.vendor or "",
                    "yes" if s.installed else "declared",
                    s.environment or "",
                ]
                for s in inv.sdks
            ],
        )
    )
    out.append(
        _section(
            "Endpoints",
            ["host", "vendor", "via", "wired", "seen in", "where"],
            [
                [
                    e.host,
                    e.vendor or "?",
                    e.served_via or "",
                    "yes" if e.wired else "no",
                    _contexts(e.locations),
                    _where(e.locations),
                ]
                for e in inv.endpoints
            ],
        )
    )
    out.append(
        _section(
            "Credentials",
            ["type", "vendor", "redacted", "sha256", "mode", "owner", "where"],
            [
                [
                    c.type,
                    c.vendor or "?",
                    c.redacted,
                    c.sha256[:16],
                    ",".join(sorted({x.mode or "?" for x in c.locations})),
                    ",".join(sorted({x.owner or "?" for x in c.locations})),
                    _where([x.location for x in c.locations]),
                ]
                for c in inv.credentials
            ],
        )
    )
    out.append(
        _section(
            "Kill switches",
            ["name", "value", "state", "seen in", "where"],
            [
                [k.name, k.value or "", k.state.value, _contexts(k.locations), _where(k.locations)]
                for k in inv.kill_switches
            ],
        )
    )
    out.extend(sessions_report.sections(inv))
    out += _live_sections(inv)
    out.append(_clients_and_mcp(inv))
    out.append(_agents(inv))
    reasons = Counter(s.reason.value for s in inv.skipped)
    summary = ", ".join(f"{n} {r}" for r, n in sorted(reasons.items())) or "nothing"
    out.append(f"Skipped: {summary}\n")
    st = inv.stats
    out.append(f"Scanned {st.files_read}/{st.files_seen} files, {st.bytes_read} bytes in {st.seconds:.2f}s\n")
    return "\n".join(out)


def _live_sections(inv: Inventory) -> list[str]:
    """A live audit's host, parts, processes and connections; nothing for a directory scan."""
    out: list[str] = []
    live = inv.target.live
    if live is not None:
        parts = ", ".join(f"{p.name} {p.status}" for p in live.parts)
        out.append(
            escape_control(
                f"Host {live.hostname}, kernel {live.kernel}, booted {live.boot_time or '?'}, "
                f"audited {live.audit_time}; {live.processes_inspected} process(es) inspected; {parts}"
            )
            + "\n"
        )
    if inv.processes is not None:
        rows: list[list[object]] = [
            [
                p.pid,
                p.user or "?",
                p.exe or p.name,
                ", ".join(p.relevance),
                ", ".join(f"{v.name}={v.value or ''}" for v in p.environment),
                ", ".join(p.listening),
            ]
            for p in inv.processes
        ]
        out.append(_section("Processes", ["pid", "user", "executable", "why", "environment", "listening"], rows))
    if inv.connections is not None:
        rows = [
            [c.pid, c.process, c.protocol, c.local, c.remote or "", c.state, c.endpoint or ", ".join(c.candidates),
             c.mapped_by or ("candidates" if c.candidates else "")]
            for c in inv.connections
        ]  # fmt: skip
        headers = ["pid", "process", "proto", "local", "remote", "state", "endpoint", "mapped by"]
        out.append(_section("Connections", headers, rows))
    return out
def _clients_and_mcp(inv: Inventory) -> str:
    """Shipped provider clients ("anthropic client: request flow, …") and the agents' MCP servers."""
    clients = _section(
        "Clients",
        ["vendor", "client", "via", "kind", "what it does", "where"],
        [
            [
                c.vendor or "?",
                c.provider,
                c.served_via or "",
                c.kind,
                ", ".join(c.components),
                _where(c.locations),
            ]
            for c in inv.clients
        ],
    )
    servers = _section(
        "MCP servers",
        ["name", "transport", "command or url", "env", "user", "config"],
        [
            [m.name, m.transport, m.command or m.url or "", ",".join(m.env), m.user or "", m.config]
            for m in inv.mcp_servers
        ],
    )
    return clients + "\n" + servers


def _agents(inv: Inventory) -> str:
    """Installed agent products: one row per (install, user who configures it)."""
    rows: list[list[object]] = [
        [a.name, a.version or "", a.install_path or "(not installed)", len(a.ships),
         (c.user or "(system)") if c else "", ", ".join(c.models) if c else "", (c.served_via or "") if c else "",
         ", ".join(c.mcp_servers) if c else ""]
        for a in inv.agents
        for c in (a.configs or (None,))
    ]  # fmt: skip
    headers = ["agent", "version", "install path", "ships", "user", "models", "via", "mcp servers"]
    return _section("Agents (install, user)", headers, rows)

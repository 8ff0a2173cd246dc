"""What every report format is told besides the inventory, and the tabular sections the human formats share.

A section is data (title, headers, rows of plain text); the table, Markdown and HTML formats each lay it out their
own way. A new section is one function here returning a `Section`, added to `SECTIONS`.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field

from scanner.inventory.sections import SECTION, WALKED, walked_files
from scanner.kinds.local_models import views as local_views
from scanner.model import Inventory, Location, ModelEntry

MAX_WHERE = 3


@dataclass(frozen=True)
class ReportOptions:
    width: int | None = 120  # columns the table fits in; None: no limit (piped output, a file)
    wide: bool = False  # full cells, no cut
    all: bool = False  # list mentions that are not wiring in full
    colour: bool = False  # ANSI colour for severities (a TTY without NO_COLOR)
    ignored: Mapping[str, str] = field(default_factory=dict)  # finding id -> why it is accepted (ignore file)
    cyclonedx_version: str = "1.6"  # the CycloneDX schema a BOM is written for (1.6 or 1.7)
    hidden_findings: int = 0  # findings --severity leaves out of the report (the report says how many)


DEFAULT = ReportOptions()


@dataclass(frozen=True)
class Section:
    key: str  # html id, and what a cut report names
    title: str
    headers: tuple[str, ...]
    rows: tuple[tuple[str, ...], ...]
    empty: str = "none"
    note: str = ""  # said under the table (e.g. what was collapsed)
    wrap: str | None = None  # the column whose cells wrap in a terminal rather than being cut
    main: str | None = None  # the column that says what a row is: the last a narrow terminal cuts


def where(locs: Sequence[Location], most: int = MAX_WHERE, cut: int = 0) -> str:
    """The first places, and how many more there are: those listed past `most`, and `cut` more that the
    inventory counted but did not keep."""
    unique = list(dict.fromkeys(f"{loc.path}:{loc.line}" if loc.line else loc.path for loc in locs))
    left = max(0, len(unique) - most) + cut
    return ", ".join(unique[:most]) + (f" (+{left})" if left else "")


def contexts(locs: Sequence[Location]) -> str:
    return ",".join(sorted({loc.context.value for loc in locs}))


def _section(key: str, rows: tuple[tuple[str, ...], ...], **extra: str) -> Section:
    """A detail section with its declared title and columns; its html id is the key with dashes."""
    declared = SECTION[key]
    return Section(key.replace("_", "-"), declared.title, declared.columns, rows, **extra)


def _s(value: object) -> str:
    return "" if value is None else str(value)


def _wired(m: ModelEntry) -> str:
    """`yes`, or `no` and how many sessions only mention the id in their conversation."""
    if m.wired:
        return "yes"
    return f"no, mentioned in {m.mentioned_in_sessions} session(s)" if m.mentioned_in_sessions else "no"


def models(inv: Inventory, opts: ReportOptions) -> Section:
    """Wired models (every model with --all, then with a `wired` column)."""
    shown = [m for m in inv.models if m.wired or opts.all]
    rows = tuple(
        (m.vendor or "?", m.name, _s(m.canonical), _s(m.served_via), _s(m.base_model), _s(m.lifecycle))
        + ((_wired(m),) if opts.all else ()) + (contexts(m.locations), where(m.locations, cut=m.locations_cut))
        for m in shown
    )
    left = len(inv.models) - len(shown)
    note = (f"{left:,} model id(s) that are not wiring are counted under \"Not wiring\" (--all lists them)"
            if left else "")
    cols = SECTION["models"].columns  # with --all, a `wired` column before where they were seen
    headers = cols[:6] + (("wired",) if opts.all else ()) + cols[6:]
    return Section("models", SECTION["models"].title if opts.all else "Wired models", headers, rows, note=note,
                   main="model")


def sdks(inv: Inventory, opts: ReportOptions) -> Section:
    rows = tuple((s.ecosystem, s.name, _s(s.version), _s(s.vendor), "yes" if s.installed else "declared",
                  _s(s.environment)) for s in inv.sdks)
    return _section("sdks", rows, main="name")


def endpoints(inv: Inventory, opts: ReportOptions) -> Section:
    rows = tuple((e.host, e.vendor or "?", _s(e.served_via), "yes" if e.wired else "no", contexts(e.locations),
                  where(e.locations, cut=e.locations_cut)) for e in inv.endpoints)
    return _section("endpoints", rows, main="host")


def credentials(inv: Inventory, opts: ReportOptions) -> Section:
    rows = tuple(
        (c.type, c.vendor or "?", c.redacted, c.sha256[:16], ",".join(sorted({x.mode or "?" for x in c.locations})),
         ",".join(sorted({x.owner or "?" for x in c.locations})),
         where([x.location for x in c.locations], cut=c.locations_cut))
        for c in inv.credentials
    )
    return _section("credentials", rows)


def kill_switches(inv: Inventory, opts: ReportOptions) -> Section:
    rows = tuple((k.name, _s(k.value), k.state.value, contexts(k.locations), where(k.locations, cut=k.locations_cut))
                 for k in inv.kill_switches)
    return _section("kill_switches", rows)


def sessions(inv: Inventory, opts: ReportOptions) -> Section:
    rows = []
    for s in inv.sessions:
        providers = "; ".join(
            f"{p.vendor}{'/' + p.served_via if p.served_via else ''}{' ' + p.api if p.api else ''} ×{p.records}"
            for p in s.providers)
        fernet = f"{s.fernet.consistent}/{s.fernet.tokens} ok" if s.fernet else ""
        labels = ", ".join(s.labels[:3]) + (f" (+{len(s.labels) - 3})" if len(s.labels) > 3 else "")
        rows.append((s.session_id, s.format, _s(s.started_at), str(s.records), labels,
                     providers or "unknown", s.reasoning, fernet, s.location.path))
    return _section("sessions", tuple(rows))


def routes(inv: Inventory, opts: ReportOptions) -> Section:
    rows = tuple(
        (r.alias, _s(r.declared_via), _s(r.base_model),
         "/".join(x for x in (r.observed_vendor, r.observed_via) if x) or "never observed", _s(r.observed_api),
         str(r.sessions), ", ".join(r.days[:3]) + (f" (+{len(r.days) - 3})" if len(r.days) > 3 else ""),
         _s(r.confidence))
        for r in inv.routes
    )
    return _section("routes", rows, main="alias")


def clients(inv: Inventory, opts: ReportOptions) -> Section:
    rows = tuple((c.vendor or "?", c.provider, _s(c.served_via), c.kind, ", ".join(c.components),
                  where(c.locations, cut=c.locations_cut))
                 for c in inv.clients)
    return _section("clients", rows, main="client")


def mcp_servers(inv: Inventory, opts: ReportOptions) -> Section:
    rows = tuple((m.name, m.transport, m.command or m.url or "", ",".join(m.env), _s(m.user), m.config)
                 for m in inv.mcp_servers)
    return _section("mcp_servers", rows)


def processes(inv: Inventory, opts: ReportOptions) -> Section | None:
    if inv.processes is None:  # not inspected: absent, not empty
        return None
    rows = tuple((str(p.pid), p.user or "?", p.exe or p.name, ", ".join(p.relevance),
                  ", ".join(f"{v.name}={v.value or ''}" for v in p.environment), ", ".join(p.listening))
                 for p in inv.processes)
    return _section("processes", rows, wrap="why")


def connections(inv: Inventory, opts: ReportOptions) -> Section | None:
    if inv.connections is None:
        return None
    rows = tuple((str(c.pid), c.process, c.protocol, c.local, c.remote or "", c.state,
                  c.endpoint or ", ".join(c.candidates), c.mapped_by or ("candidates" if c.candidates else ""))
                 for c in inv.connections)
    return _section("connections", rows)


def agents(inv: Inventory, opts: ReportOptions) -> Section:
    """Agent products: one row per (install, user who configures it)."""
    rows = []
    for a in inv.agents:
        # An editor extension says its editor; a product no catalog knows says so (its `evidence` is in the JSON).
        name = a.name + (f" ({a.editor})" if a.editor else "") + (" (unknown kind)" if a.catalog == "unknown" else "")
        for c in a.configs or (None,):
            rows.append((name, _s(a.version), a.install_path or "(not installed)", str(len(a.ships)),
                         (c.user or "(system)") if c else "", ", ".join(c.models) if c else "",
                         _s(c.served_via) if c else "", ", ".join(c.mcp_servers) if c else ""))
    return _section("agents", tuple(rows))


def skipped(inv: Inventory, opts: ReportOptions) -> Section:
    rows = tuple((s.path, s.reason.value, s.detail) for s in inv.skipped)
    return _section("skipped", rows, empty="nothing: every file was read")


def local_models(inv: Inventory, opts: ReportOptions) -> Section:
    return _section("local_models", local_views.rows(inv.local_models, where), main="model")


SectionFn = Callable[[Inventory, ReportOptions], "Section | None"]
# The detail sections, in the order every human format shows them after the headline and the findings.
SECTIONS: list[SectionFn] = [agents, models, local_models, sdks, endpoints, credentials, kill_switches, sessions,
                             routes, clients, mcp_servers, processes, connections, skipped]


# Sections only files fill (declared in sections.py), by html id: absent, not "none", when a live audit did not
# walk the filesystem (--live-only), as they are from its JSON.
FILESYSTEM_ONLY = frozenset(key.replace("_", "-") for key in WALKED)


def filesystem_inspected(inv: Inventory) -> bool:
    return walked_files(inv)


def detail_sections(inv: Inventory, opts: ReportOptions) -> list[Section]:
    walked = filesystem_inspected(inv)
    return [s for fn in SECTIONS if (s := fn(inv, opts)) is not None and (walked or s.key not in FILESYSTEM_ONLY)]

"""MCP servers: the tool servers agents' configs declare, with how each is started or reached."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass

from scanner.kinds.base import Cell, DiffIdentity, FoldContext, JsonShape, Kind, Locations, ReportTable, table_of, text
from scanner.model import Location


@dataclass(frozen=True)
class McpServerEvidence:
    """One MCP server of an agent's config; env carries variable names only, never values."""

    name: str
    transport: str  # stdio | http | sse | unknown
    command: str | None
    url: str | None
    env: tuple[str, ...]
    user: str | None
    location: Location


@dataclass(frozen=True)
class McpServerEntry:
    name: str
    transport: str
    command: str | None
    url: str | None
    env: tuple[str, ...]
    user: str | None
    config: str  # the config file that declares it
    locations: tuple[Location, ...]
    locations_cut: int = 0  # locations found past the kept ones (MAX_LOCATIONS): counted, not kept

_McpKey = tuple[str, str, str | None, str | None, tuple[str, ...], str | None, str]


class McpServerFold:
    def __init__(self, ctx: FoldContext) -> None:
        self.ctx = ctx
        self.servers: dict[_McpKey, Locations] = defaultdict(Locations)

    def add(self, ev: McpServerEvidence) -> None:
        shown = self.ctx.as_shown
        url = shown(ev.url) if ev.url else None
        command = shown(ev.command) if ev.command else None
        self.servers[(shown(ev.name), ev.transport, command, url, ev.env, ev.user, ev.location.path)].add(ev.location)

    def build(self) -> tuple[McpServerEntry, ...]:
        return tuple(
            McpServerEntry(n, t, c, u, e, user, cfg, locs.sorted(), locs.cut())
            for (n, t, c, u, e, user, cfg), locs in sorted(
                self.servers.items(), key=lambda kv: (kv[0][6], kv[0][0], kv[0][1], kv[0][2] or "", kv[0][3] or "")
            )
        )


def _paths(m: McpServerEntry) -> tuple[str, ...]:
    return (m.config, *sorted({loc.path for loc in m.locations}))


def _table(servers: Sequence[McpServerEntry], show_all: bool) -> ReportTable:
    rows = tuple((m.name, m.transport, m.command or m.url or "", ",".join(m.env), text(m.user), m.config)
                 for m in servers)
    return table_of(KIND, rows)


KIND: Kind[McpServerEntry] = Kind(
    key="mcp_servers",
    entry=McpServerEntry,
    evidence=(McpServerEvidence,),
    fold=McpServerFold,
    order=lambda m: (m.config, m.name, m.transport, m.command or "", m.url or ""),
    title="MCP servers",
    columns=("name", "transport", "command or url", "env", "user", "config"),
    cells={"command or url": Cell.CODE, "config": Cell.CODE},
    identity=DiffIdentity(lambda m: m.name, key_fields=frozenset({"name"}), paths=_paths),
    walked=True,
    shapes={McpServerEntry: JsonShape(omit_empty=frozenset({"locations_cut"}))},
    table=_table,
    report_rank=100,
)

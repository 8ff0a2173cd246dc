"""Connections: a live audit's sockets of relevant processes, mapped to the inventory's endpoints."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from scanner.kinds.base import Cell, Kind, ReportTable, table_of


@dataclass(frozen=True)
class ConnectionEntry:
    pid: int
    process: str
    protocol: str  # tcp | udp
    local: str  # "addr:port"
    remote: str | None
    state: str  # ESTABLISHED, LISTEN, NONE, …
    endpoint: str | None  # the inventory host it reaches, when the VM's own evidence says so
    vendor: str | None
    mapped_by: str | None  # base-url | etc-hosts | configured-host
    candidates: tuple[str, ...] = ()  # hosts it may reach (TLS on 443 from a process configured for them)


def _table(connections: Sequence[ConnectionEntry], show_all: bool) -> ReportTable:
    rows = tuple((str(c.pid), c.process, c.protocol, c.local, c.remote or "", c.state,
                  c.endpoint or ", ".join(c.candidates), c.mapped_by or ("candidates" if c.candidates else ""))
                 for c in connections)
    return table_of(KIND, rows)


KIND: Kind[ConnectionEntry] = Kind(
    key="connections",
    entry=ConnectionEntry,
    order=None,
    title="Connections",
    columns=("pid", "process", "proto", "local", "remote", "state", "endpoint", "mapped by"),
    cells={"local": Cell.CODE, "remote": Cell.CODE},
    optional=True,
    table=_table,
    report_rank=120,
)

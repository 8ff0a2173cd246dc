"""Connections: a live audit's sockets of relevant processes, mapped to the inventory's endpoints."""

from __future__ import annotations

from dataclasses import dataclass

from scanner.kinds.base import Kind


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


KIND: Kind[ConnectionEntry] = Kind(
    key="connections",
    entry=ConnectionEntry,
    order=None,
    title="Connections",
    columns=("pid", "process", "proto", "local", "remote", "state", "endpoint", "mapped by"),
    optional=True,
)

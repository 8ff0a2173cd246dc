"""Processes: running processes a live audit found relevant (an SDK loaded, a model setting in their
environment, a tie to a file the scan knows). Built by the live audit (`live/snapshot_entries.py`), not from
evidence."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from scanner.kinds.base import Cell, DiffIdentity, Kind, ReportTable, table_of
from scanner.vocab import SwitchState


@dataclass(frozen=True)
class ProcessSdk:
    ecosystem: str
    name: str
    vendor: str | None
    path: str  # a file the process holds open or mapped under the SDK's package directory


@dataclass(frozen=True)
class ProcessEnvVar:
    """An LLM-related variable of a running process; a credential's value is only ever its redacted form."""

    name: str
    role: str  # credential | base_url | model | kill_switch | config
    value: str | None
    state: SwitchState | None = None  # kill switches only


@dataclass(frozen=True)
class ProcessTie:
    """A file the filesystem scan knows (the executable, a script or config named on the command line)."""

    path: str  # inside path
    role: str  # exe | argument
    models: tuple[str, ...] = ()
    endpoints: tuple[str, ...] = ()
    kill_switches: tuple[str, ...] = ()
    credentials: tuple[str, ...] = ()  # redacted forms


@dataclass(frozen=True)
class ProcessEntry:
    pid: int
    ppid: int | None
    name: str
    user: str | None
    exe: str | None
    cmdline: tuple[str, ...]  # credentials scrubbed
    started: str | None  # ISO 8601 UTC
    relevance: tuple[str, ...]  # why the process is in the inventory, e.g. "sdk-loaded:anthropic"
    sdks: tuple[ProcessSdk, ...] = ()
    environment: tuple[ProcessEnvVar, ...] = ()
    ties: tuple[ProcessTie, ...] = ()
    listening: tuple[str, ...] = ()  # "127.0.0.1:8000/tcp"


def _table(processes: Sequence[ProcessEntry], show_all: bool) -> ReportTable:
    rows = tuple((str(p.pid), p.user or "?", p.exe or p.name, ", ".join(p.relevance),
                  ", ".join(f"{v.name}={v.value or ''}" for v in p.environment), ", ".join(p.listening))
                 for p in processes)
    return table_of(KIND, rows, wrap="why")


KIND: Kind[ProcessEntry] = Kind(
    # Live audits only, in the order the audit gathered them.
    key="processes",
    entry=ProcessEntry,
    order=None,
    title="Processes",
    columns=("pid", "user", "executable", "why", "environment", "listening"),
    cells={"executable": Cell.CODE},
    identity=DiffIdentity(lambda p: p.exe, key_fields=frozenset({"exe"}), paths=lambda p: ()),
    optional=True,
    table=_table,
    report_rank=110,
)

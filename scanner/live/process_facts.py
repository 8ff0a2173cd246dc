"""Plain facts about a process, as the psutil boundary (`snapshot`) reads them: a module without psutil, so the
modules that judge those facts, and the API's types, import them without importing psutil."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Socket:
    protocol: str  # tcp | udp
    local: tuple[str, int] | None
    remote: tuple[str, int] | None
    state: str


@dataclass(frozen=True)
class ProcessFacts:
    pid: int
    ppid: int | None
    name: str
    user: str | None
    exe: str | None
    cmdline: tuple[str, ...]
    started: float | None  # epoch seconds
    environ: tuple[tuple[str, str], ...] | None  # None: not readable
    files: tuple[str, ...]  # open files and memory-mapped files, sorted, unique
    sockets: tuple[Socket, ...]
    denied: tuple[tuple[str, str], ...] = ()  # (part, reason): what could not be read


@dataclass(frozen=True)
class Gone:
    """A process in scope that vanished or could not be looked at at all."""

    pid: int
    reason: str

"""Which processes a live audit inspects: plain data the command line fills in before psutil is loaded."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Scope:
    """Which processes an audit inspects; empty means every process the auditor can see."""

    pids: tuple[int, ...] = ()
    users: tuple[str, ...] = ()
    exe_globs: tuple[str, ...] = ()

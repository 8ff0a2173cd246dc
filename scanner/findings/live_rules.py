"""Findings only a live audit can make: the running environment against the configuration on disk.

The running value is the one in force. When a config file arms a kill switch and the daemon's own
environment disarms it (or the reverse), or points a base URL or a model elsewhere, the auditor must
read that first.
"""

from __future__ import annotations

import re
from collections import defaultdict
from collections.abc import Iterator

from scanner.findings.rule import FindingRule, RuleHit
from scanner.kinds import Inventory
from scanner.kinds.base import EnvSetting
from scanner.kinds.kill_switches import KillSwitchEntry
from scanner.model import Location, Severity, location_key
from scanner.vocab import SwitchState

_PROC_ENV = re.compile(r"^/proc/(\d+)/environ$")
_VERB = {SwitchState.ON: "arms", SwitchState.OFF: "disarms"}
_SHOWN = 80  # long URLs are cut in titles; the locations say where the whole value is


def _pid(loc: Location) -> int | None:
    m = _PROC_ENV.match(loc.path)
    return int(m.group(1)) if m else None


def kill_switch_runtime_differs(inv: Inventory) -> Iterator[RuleHit]:
    if not inv.processes:
        return
    names = {p.pid: p.name for p in inv.processes}
    by_name: dict[str, list[KillSwitchEntry]] = defaultdict(list)
    for k in inv.kill_switches:
        if k.state in _VERB:
            by_name[k.name].append(k)
    for name, entries in sorted(by_name.items()):
        files = [(k, loc) for k in entries for loc in k.locations if _pid(loc) is None]
        running = [(k, loc) for k in entries for loc in k.locations if _pid(loc) is not None]
        for run, run_loc in running:
            disagree = [(k, loc) for k, loc in files if k.state is not run.state]
            if not disagree:
                continue
            cfg, cfg_loc = min(disagree, key=lambda kl: location_key(kl[1]))
            pid = _pid(run_loc)
            who = f"process {pid} ({names.get(pid or 0, '?')})"
            yield RuleHit(
                f"{name}:{pid}",
                f"kill switch {name}: config {_VERB[cfg.state]} it ({name}={cfg.value} in {cfg_loc.path}); "
                f"the running {who} environment {_VERB[run.state]} it ({name}={run.value}); the running value wins",
                tuple(sorted({cfg_loc, run_loc}, key=location_key)),
                Severity.HIGH if run.state is SwitchState.OFF else Severity.MEDIUM,
            )


def setting_runtime_differs(inv: Inventory) -> Iterator[RuleHit]:
    """A process's base URL or model variable that differs from a file's assignment of the same variable."""
    if not inv.processes:
        return
    names = {p.pid: p.name for p in inv.processes}
    files: dict[tuple[str, str], list[EnvSetting]] = defaultdict(list)
    running: list[tuple[int, EnvSetting]] = []
    for s in inv.env_settings:
        pid = _pid(s.location)
        if pid is None:
            files[(s.name, s.role)].append(s)
        elif pid in names:
            running.append((pid, s))
    for pid, run in sorted(running, key=lambda ps: (ps[1].name, ps[0], ps[1].role, ps[1].value)):
        disagree = [s for s in files.get((run.name, run.role), []) if _same(s) != _same(run)]
        if not disagree:
            continue
        cfg = min(disagree, key=lambda s: location_key(s.location))
        if run.role == "model":
            severity = Severity.LOW
        else:
            # Traffic the config keeps with the vendor now leaves for another host.
            severity = Severity.HIGH if run.foreign and not cfg.foreign else Severity.MEDIUM
        yield RuleHit(
            f"{run.name}:{pid}",
            f"config sets {run.name}={_cut(cfg.value)} in {cfg.location.path}; the running process {pid} "
            f"({names[pid]}) has {_cut(run.value)}; the running value wins",
            tuple(sorted({cfg.location, run.location}, key=location_key)),
            severity,
        )


def _same(s: EnvSetting) -> str:
    """The value as compared: a trailing slash or a host's case does not make another URL."""
    return s.value.rstrip("/").lower() if s.role == "base_url" else s.value


def _cut(value: str) -> str:
    return value if len(value) <= _SHOWN else value[:_SHOWN] + "…"


def live_connections(inv: Inventory) -> Iterator[RuleHit]:
    """Which processes are talking to which endpoints right now (one finding per endpoint)."""
    if not inv.connections:
        return
    talkers: dict[str, set[str]] = defaultdict(set)
    for c in inv.connections:
        if c.endpoint and c.state == "ESTABLISHED":
            talkers[c.endpoint].add(f"{c.pid} ({c.process})")
    for host, procs in sorted(talkers.items()):
        shown = ", ".join(sorted(procs)[:5]) + (f" and {len(procs) - 5} more" if len(procs) > 5 else "")
        yield RuleHit(host, f"connected to {host} now: process {shown}")


LIVE_RULES = (
    FindingRule(
        "kill-switch-runtime-differs", Severity.HIGH, "A running process disagrees with the configured kill switch",
        "The environment of a running process sets a kill switch differently from the files on disk. The running "
        "value is the one in force.",
        kill_switch_runtime_differs,
    ),
    FindingRule(
        "setting-runtime-differs", Severity.HIGH, "A running process uses another base URL or model than configured",
        "A process's environment sets a base URL or model variable to a different value than the VM's files do. "
        "The running value is the one in force; the files do not describe what the agent does.",
        setting_runtime_differs,
    ),
    FindingRule(
        "live-connection", Severity.INFO, "A process is connected to a model endpoint",
        "At the time of the audit a process held a connection to this endpoint. Recorded so that live traffic can be "
        "compared with the configuration.",
        live_connections,
    ),
)

"""Findings only a live audit can make: the running environment against the configuration on disk.

The running value is the one in force. When a config file arms a kill switch and the daemon's own
environment disarms it (or the reverse), the auditor must read that first.
"""

from __future__ import annotations

import re
from collections import defaultdict
from collections.abc import Iterator

from scanner.model import Finding, Inventory, KillSwitchEntry, Location, Severity, SwitchState, location_key

_PROC_ENV = re.compile(r"^/proc/(\d+)/environ$")
_VERB = {SwitchState.ON: "arms", SwitchState.OFF: "disarms"}


def _pid(loc: Location) -> int | None:
    m = _PROC_ENV.match(loc.path)
    return int(m.group(1)) if m else None


def kill_switch_runtime_differs(inv: Inventory) -> Iterator[Finding]:
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
            yield Finding(
                f"kill-switch-runtime-differs:{name}:{pid}",
                Severity.HIGH if run.state is SwitchState.OFF else Severity.MEDIUM,
                f"kill switch {name}: config {_VERB[cfg.state]} it ({name}={cfg.value} in {cfg_loc.path}); "
                f"the running {who} environment {_VERB[run.state]} it ({name}={run.value}); the running value wins",
                tuple(sorted({cfg_loc, run_loc}, key=location_key)),
            )


def live_connections(inv: Inventory) -> Iterator[Finding]:
    """Which processes are talking to which endpoints right now (one finding per endpoint)."""
    if not inv.connections:
        return
    talkers: dict[str, set[str]] = defaultdict(set)
    for c in inv.connections:
        if c.endpoint and c.state == "ESTABLISHED":
            talkers[c.endpoint].add(f"{c.pid} ({c.process})")
    for host, procs in sorted(talkers.items()):
        shown = ", ".join(sorted(procs)[:5]) + (f" and {len(procs) - 5} more" if len(procs) > 5 else "")
        yield Finding(f"live-connection:{host}", Severity.INFO, f"connected to {host} now: process {shown}")

"""A one-shot live audit on one screen: processes -> their environment -> the filesystem scan -> ties.

The filesystem part is the directory scan itself (`pipeline.scan` over `live_target`); the processes'
environment evidence joins it in the same inventory builder, so a key in a daemon's environment and the
same key in a file are one credential with two locations. The processes join the built inventory before
its findings are derived, in the one place a scan derives them.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime, timezone

from scanner.catalog import Catalog
from scanner.kinds import Evidence, Inventory
from scanner.live.audit import LiveFacts, add_live, process_skips
from scanner.live.environ import read_environment
from scanner.live.snapshot import Gone, ProcessFacts, Scope, gather, host_facts
from scanner.model import Skip
from scanner.options import ScanOptions
from scanner.pipeline import Progress, scan
from scanner.targets.live import Unwalked, live_target
from scanner.targets.pathglob import PathFilter

Gather = Callable[[Scope], tuple[list[ProcessFacts], list[Gone]]]


@dataclass(frozen=True)
class AuditOptions:
    scope: Scope = Scope()
    live_only: bool = False
    root: str = "/"  # the filesystem part's root; `/` except in tests
    one_file_system: bool = True
    paths: PathFilter = PathFilter()  # --exclude and --skip-dirs


def audit(
    catalog: Catalog,
    options: ScanOptions,
    audit_options: AuditOptions,
    progress: Progress | None = None,
    gather_processes: Gather = gather,
) -> Inventory:
    audit_time = datetime.now(timezone.utc)
    facts, gone = gather_processes(audit_options.scope)
    readings = {f.pid: read_environment(f.pid, f.environ, catalog) for f in facts if f.environ is not None}
    extra: list[Evidence | Skip] = [ev for r in readings.values() for ev in r.evidence]
    extra += process_skips(facts, gone)
    root = audit_options.root
    walked = live_target(root, audit_options.one_file_system, options.include_pseudo, paths=audit_options.paths)
    target = Unwalked(walked) if audit_options.live_only else walked
    live = LiveFacts(facts, gone, readings, audit_time, host_facts(), root, audit_options.live_only)

    def with_processes(inv: Inventory) -> Inventory:
        return add_live(inv, live, catalog, target.read_path("/etc/hosts", 1 << 20))

    return scan(target, catalog, options, progress=progress, extra=extra, extend=with_processes)

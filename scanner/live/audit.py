"""A one-shot live audit on one screen: processes -> their environment -> the filesystem scan -> ties.

The filesystem part is the directory scan itself (`pipeline.scan` over `live_target`); the processes'
environment evidence joins it in the same inventory builder, so a key in a daemon's environment and the
same key in a file are one credential with two locations.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime, timezone

from scanner.catalog import Catalog
from scanner.inventory.findings import derive_findings
from scanner.live.connections import map_sockets, parse_hosts
from scanner.live.environ import EnvReading, read_environment
from scanner.live.processes import (
    FileIndex,
    SdkIndex,
    iso,
    process_entry,
    roles_of,
    scrub_cmdline,
    sdks_loaded,
    ties,
)
from scanner.live.snapshot import Gone, ProcessFacts, Scope, gather, host_facts
from scanner.model import (
    AuditPart,
    ConnectionEntry,
    Evidence,
    Inventory,
    LiveHost,
    ProcessEntry,
    Skip,
    SkipReason,
    TargetInfo,
)
from scanner.options import ScanOptions
from scanner.pipeline import Progress, scan
from scanner.targets.live import Unwalked, live_target
from scanner.textsafe import display_path

Gather = Callable[[Scope], tuple[list[ProcessFacts], list[Gone]]]
_PROC_FILE = {
    "environ": "environ",
    "open-files": "fd",
    "memory-maps": "maps",
    "connections": "net",
    "exe": "exe",
    "cmdline": "cmdline",
    "ppid": "stat",
    "create-time": "stat",
}


@dataclass(frozen=True)
class AuditOptions:
    scope: Scope = Scope()
    live_only: bool = False
    root: str = "/"  # the filesystem part's root; `/` except in tests
    one_file_system: bool = True


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
    walked = live_target(root, audit_options.one_file_system, options.include_pseudo)
    target = Unwalked(walked) if audit_options.live_only else walked
    inv = scan(target, catalog, options, progress=progress, extra=extra)
    processes, connections = _processes(facts, readings, inv, catalog, target.read_path("/etc/hosts", 1 << 20), root)
    hostname, kernel, boot = host_facts()
    live = LiveHost(
        hostname=hostname,
        kernel=kernel,
        boot_time=iso(boot),
        audit_time=audit_time.isoformat(timespec="seconds").replace("+00:00", "Z"),
        processes_inspected=len(facts),
        parts=audit_parts(facts, gone, inv.skipped, audit_options.live_only),
    )
    inv = dataclasses.replace(
        inv,
        target=TargetInfo("live", root, live),
        processes=processes,
        connections=connections,
    )
    return derive_findings(inv)


def _processes(
    facts: list[ProcessFacts],
    readings: dict[int, EnvReading],
    inv: Inventory,
    catalog: Catalog,
    hosts_file: bytes | None,
    root: str,
) -> tuple[tuple[ProcessEntry, ...], tuple[ConnectionEntry, ...]]:
    files = FileIndex(inv)
    sdk_index = SdkIndex(catalog)
    hosts = parse_hosts(hosts_file.decode("utf-8", "replace")) if hosts_file else {}
    known_hosts = frozenset(e.host for e in inv.endpoints)
    processes: list[ProcessEntry] = []
    connections: list[ConnectionEntry] = []
    for f in facts:
        reading = readings.get(f.pid)
        variables = reading.variables if reading else ()
        tied = ties(f, files, root)
        base_urls = [v.value for v in variables if v.role == "base_url" and v.value]
        configured = [h for t in tied for h in t.endpoints]
        conns = map_sockets(f.pid, f.name, f.sockets, base_urls, configured, hosts, known_hosts, catalog)
        cmdline = scrub_cmdline(f.cmdline, catalog)
        sdks = sdks_loaded(f.files, sdk_index)
        entry = process_entry(f, cmdline, variables, sdks, tied, conns, root, roles_of(f, catalog))
        if entry is not None:  # sockets of processes that have nothing to do with models are not listed
            processes.append(entry)
            connections += conns
    return tuple(processes), tuple(connections)


def process_skips(facts: list[ProcessFacts], gone: list[Gone]) -> list[Skip]:
    """Each part of a process that could not be read, as a skip naming its /proc file and why."""
    skips = [Skip(f"/proc/{g.pid}", SkipReason.PROCESS_GONE, g.reason) for g in gone]
    for f in facts:
        who = f"pid {f.pid} {display_path(f.name)}, user {f.user or '?'}"
        for part, why in f.denied:
            reason = SkipReason.PERMISSION_DENIED if why == "access denied" else SkipReason.READ_ERROR
            skips.append(Skip(f"/proc/{f.pid}/{_PROC_FILE.get(part, part)}", reason, f"{part}: {why} ({who})"))
    return skips


def audit_parts(
    facts: list[ProcessFacts], gone: list[Gone], skipped: tuple[Skip, ...], live_only: bool
) -> tuple[AuditPart, ...]:
    """Which parts of the audit saw everything they were asked to look at."""

    def part(name: str, parts: set[str]) -> AuditPart:
        short = [f for f in facts if any(p in parts for p, _ in f.denied)]
        if not short:
            return AuditPart(name, "complete", f"{len(facts)} process(es)")
        return AuditPart(name, "partial", f"{len(short)} of {len(facts)} process(es) not readable")

    if live_only:
        fs = AuditPart("filesystem", "skipped", "--live-only")
    else:
        denied = sum(1 for s in skipped if s.reason is SkipReason.PERMISSION_DENIED and not s.path.startswith("/proc/"))
        fs = (
            AuditPart("filesystem", "partial", f"{denied} path(s) not readable")
            if denied
            else AuditPart("filesystem", "complete", "walked")
        )
    procs = part("processes", {"exe", "cmdline", "ppid", "create-time"})
    if gone:
        procs = AuditPart("processes", "partial", f"{procs.detail}; {len(gone)} gone or not inspectable")
    return (
        fs,
        procs,
        part("environment", {"environ"}),
        part("open-files", {"open-files", "memory-maps"}),
        part("connections", {"connections"}),
    )

"""The live part of an audit: gathered process facts become the inventory's processes, connections and host.

Pure interpretation of what `snapshot` gathered, against the catalogs and the filesystem part's inventory; the
audit itself (the scan that runs it) is `scanner.api.audit`.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from datetime import datetime

from scanner.catalog import Catalog
from scanner.kinds import Inventory
from scanner.kinds.connections import ConnectionEntry
from scanner.kinds.processes import ProcessEntry
from scanner.live.environ import EnvReading
from scanner.live.process_facts import Gone, ProcessFacts
from scanner.live.relevance import (
    FileIndex,
    SdkIndex,
    iso,
    process_entry,
    roles_of,
    scrub_cmdline,
    sdks_loaded,
    ties,
)
from scanner.live.sockets import map_sockets, parse_hosts
from scanner.model import AuditPart, LiveHost, Skip, SkipReason, TargetInfo
from scanner.textsafe import display_path

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
class LiveFacts:
    """What an audit gathered of the running system before its filesystem part was scanned."""

    facts: list[ProcessFacts]
    gone: list[Gone]
    readings: dict[int, EnvReading]
    audit_time: datetime
    host: tuple[str, str, float | None]  # host name, kernel release, boot time (`snapshot.host_facts`)
    root: str
    live_only: bool


def add_live(inv: Inventory, live: LiveFacts, catalog: Catalog, hosts_file: bytes | None) -> Inventory:
    """The filesystem part's inventory with the live host, its processes and their connections."""
    processes, connections = _processes(live.facts, live.readings, inv, catalog, hosts_file, live.root)
    hostname, kernel, boot = live.host
    host = LiveHost(
        hostname=hostname,
        kernel=kernel,
        boot_time=iso(boot),
        audit_time=live.audit_time.isoformat(timespec="seconds").replace("+00:00", "Z"),
        processes_inspected=len(live.facts),
        parts=audit_parts(live.facts, live.gone, inv.skipped, live.live_only),
    )
    return dataclasses.replace(
        inv,
        target=TargetInfo("live", live.root, host),
        processes=processes,
        connections=connections,
    )


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

"""The library: one call for each thing modelcensus does to a target. The command line, `diff`, the fleet's
worker and the tests call these; nothing here prints, exits or reads the environment.

    from scanner import api
    inv = api.scan("/srv/vm")                       # a directory, a container image or a disk image
    inv = api.scan("vm.qcow2", api.ScanRequest(options=ScanOptions(jobs=4)))
    changes = api.diff(api.load_inventory(Path("old.json")), inv)
    report = api.sessions("/srv/vm")                # the inventory with the session findings only
"""

from __future__ import annotations

import dataclasses
import os
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path
from typing import TYPE_CHECKING

from scanner.catalog import Catalog
from scanner.catalog import load as load_catalogs
from scanner.detectors import DETECTORS, Detector
from scanner.diff.changes import InventoryDiff
from scanner.kinds import Evidence, Inventory
from scanner.live.environ import read_environment, settings_evidence
from scanner.live.scope import Scope
from scanner.model import Context, Finding, Location, Skip
from scanner.options import ScanOptions
from scanner.pipeline import Progress
from scanner.pipeline import scan as scan_target
from scanner.targets import Target, WalkOptions
from scanner.targets.live_root import Unwalked, live_target
from scanner.targets.pathglob import PathFilter
from scanner.targets.registry import DEFAULT_PLATFORM, ImageError, TargetKind, open_target

if TYPE_CHECKING:  # a scan of a directory or an image loads nothing of the live audit (tests/test_lazy_imports.py)
    from scanner.live.process_facts import Gone, ProcessFacts

    # Who lists the processes in scope: psutil's (`scanner.live.snapshot.gather`), or a test's own.
    Gather = Callable[[Scope], tuple[list[ProcessFacts], list[Gone]]]


class ScanError(Exception):
    """A target that cannot be scanned (missing, unreadable, an image that cannot be opened): one line, no
    secret."""


@dataclass(frozen=True)
class ScanRequest:
    options: ScanOptions = field(default_factory=ScanOptions)
    kind: TargetKind | None = None  # what the path is, when not what it looks like (--as)
    platform: str = DEFAULT_PLATFORM  # of a container image index (--platform)
    allow_backing: bool = False  # a disk image may read the files it names (--allow-backing-files)
    paths: PathFilter = field(default_factory=PathFilter)  # --exclude and --skip-dirs
    progress: Progress | None = None
    detectors: Sequence[Detector] = DETECTORS  # tests narrow it


@dataclass(frozen=True)
class AuditRequest:
    options: ScanOptions = field(default_factory=ScanOptions)
    scope: Scope = field(default_factory=Scope)
    live_only: bool = False
    root: str = "/"  # the filesystem part's root; `/` except in tests
    one_file_system: bool = True
    paths: PathFilter = field(default_factory=PathFilter)  # --exclude and --skip-dirs
    progress: Progress | None = None


def load_catalog(extra: Iterable[Path] = ()) -> Catalog:
    """The built-in catalogs and `extra` files or directories, compiled now (a bad pattern fails here, not
    mid-scan). Raises `CatalogError`."""
    catalog = load_catalogs(list(extra))
    _ = catalog.matcher
    return catalog


def scan(source: str | os.PathLike[str] | Target, request: ScanRequest | None = None,
         catalog: Catalog | None = None) -> Inventory:
    """The inventory of a path (a directory as a machine's root, a container image, a disk image) or of a target
    already open. Raises `ScanError`."""
    request = request or ScanRequest()
    catalog = catalog or load_catalog()
    if not isinstance(source, (str, os.PathLike)):
        return scan_target(source, catalog, request.options, request.detectors, request.progress)
    path = os.fspath(source)
    if not os.path.exists(path):
        raise ScanError(f"{path}: no such file or directory")
    walk = WalkOptions(request.options.include_pseudo, request.options.one_file_system, paths=request.paths)
    try:
        opened = open_target(path, request.kind, walk, request.platform, request.allow_backing)
    except ImageError as exc:
        raise ScanError(str(exc)) from None
    except OSError as exc:
        raise ScanError(f"{path}: {exc.strerror or exc}") from None
    try:
        extra: list[Evidence | Skip] = list(opened.skips)
        # What an image's config sets (its environment, its command line) reads as settings of the image.
        for where, pairs, env in opened.settings:
            extra += settings_evidence(pairs, catalog, Location(where, None, Context.ENV if env else Context.CONFIG),
                                       env)
        return scan_target(opened.target, catalog, request.options, request.detectors, request.progress, extra)
    finally:
        opened.close()


def audit(request: AuditRequest | None = None, catalog: Catalog | None = None,
          gather_processes: Gather | None = None) -> Inventory:
    """A one-shot live audit of the running machine: processes, their environments, the filesystem scanned as a
    directory and their ties, in one inventory (a key in a daemon's environment and the same key in a file are
    one credential with two locations). `gather_processes` defaults to psutil's view of the machine."""
    # psutil and the process interpretation are loaded by an audit only, not by every scan.
    from scanner.live.snapshot import gather, host_facts
    from scanner.live.snapshot_entries import LiveFacts, add_live, process_skips

    gather_processes = gather_processes or gather
    request = request or AuditRequest()
    catalog = catalog or load_catalog()
    audit_time = datetime.now(timezone.utc)
    facts, gone = gather_processes(request.scope)
    readings = {f.pid: read_environment(f.pid, f.environ, catalog) for f in facts if f.environ is not None}
    extra: list[Evidence | Skip] = [ev for r in readings.values() for ev in r.evidence]
    extra += process_skips(facts, gone)
    root = request.root
    walked = live_target(root, request.one_file_system, request.options.include_pseudo, paths=request.paths)
    target = Unwalked(walked) if request.live_only else walked
    live = LiveFacts(facts, gone, readings, audit_time, host_facts(), root, request.live_only)

    def with_processes(inv: Inventory) -> Inventory:
        return add_live(inv, live, catalog, target.read_path("/etc/hosts", 1 << 20))

    return scan_target(target, catalog, request.options, progress=request.progress, extra=extra,
                       extend=with_processes)


def session_findings(inv: Inventory) -> tuple[Finding, ...]:
    """The findings about sessions (`session-*`): who served them against what they were labelled, reasoning
    that cannot be read."""
    return tuple(f for f in inv.findings if f.id.startswith("session-"))


def sessions(source: str | os.PathLike[str] | Target, request: ScanRequest | None = None,
             catalog: Catalog | None = None) -> Inventory:
    """What the sessions report reads: the scan's inventory (its sessions and routes) with the session findings
    only. Raises `ScanError`."""
    inv = scan(source, request, catalog)
    return dataclasses.replace(inv, findings=session_findings(inv))


def load_inventory(path: Path) -> Inventory:
    """An inventory JSON document read back. Raises `InventoryLoadError` (one line)."""
    from scanner.inventory.load import load_file  # the reader and its schema check: `diff` only

    return load_file(path)


def diff(old: Inventory, new: Inventory, mentions: bool = False) -> InventoryDiff:
    """What changed from `old` to `new`, by each kind's identity."""
    from scanner.diff.compare import diff_inventories  # the comparison: `diff` only

    return diff_inventories(old, new, mentions)

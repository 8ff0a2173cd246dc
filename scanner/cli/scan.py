"""`modelcensus scan PATH`: a directory (as the root of an agent VM), a container image or a disk image."""

from __future__ import annotations

import dataclasses
import sys
from collections.abc import Collection
from dataclasses import dataclass
from pathlib import Path
from typing import Annotated

import typer

from scanner import api
from scanner.catalog import Catalog
from scanner.cli.arguments import fail, load_catalog, parse_jobs, parse_size, stderr_progress
from scanner.cli.detector_options import offering
from scanner.cli.output import refuse_inside, write_output
from scanner.cli.policy import gate, load_ignores, parse_fail_on, parse_severities, settle
from scanner.cli.settings import source
from scanner.cli.shared_options import (
    DEFAULT_SIZE,
    Config,
    CycloneDxVersion,
    Exclude,
    FailOn,
    Ignore,
    IgnoreFile,
    IncludePseudo,
    Jobs,
    MaxFileSize,
    OneFileSystem,
    Output,
    Quiet,
    Severity,
    ShowAll,
    SkipDirs,
    Wide,
    format_option,
)
from scanner.cli.shared_options import (
    Catalog as CatalogOpt,
)
from scanner.cli.terminal import terminal_for
from scanner.detectors import SETTINGS
from scanner.kinds import Inventory
from scanner.model import Severity as Level
from scanner.options import ScanOptions
from scanner.policy.ignore import IgnoreEntry
from scanner.render import RENDERERS, render_pieces
from scanner.render._incomplete import incomplete_lines
from scanner.render._view import CYCLONEDX_VERSIONS, ReportOptions
from scanner.targets import WalkOptions
from scanner.targets.pathglob import PathFilter
from scanner.targets.registry import DEFAULT_PLATFORM, TargetKind
from scanner.textsafe import safe

EXAMPLES = """
modelcensus scan /mnt/agent-vm
modelcensus scan agent.tar -f json -o inventory.json
modelcensus scan vm.qcow2 --fail-on high --severity high,medium
modelcensus scan /mnt/vm --exclude '/var/cache' --skip-dirs node_modules --all
modelcensus scan --live --user agent
Exit status: 0 clean, 1 a finding at or above --fail-on, 2 bad usage, target, config, catalog or ignore file, 130
interrupted (Ctrl-C).
"""


@dataclass(frozen=True)
class Gating:
    """What a report shows and when it fails, parsed before any work is done."""

    entries: tuple[IgnoreEntry, ...]
    shown: frozenset[Level] | None
    threshold: Level | None


def gating(ctx: typer.Context, fail_on: str | None, severity: str | None, ignore_file: Path | None,
           ignore: list[str] | None) -> Gating:
    return Gating(load_ignores(ignore_file, ignore), parse_severities(severity, source(ctx, "severity")),
                  parse_fail_on(fail_on, source(ctx, "fail_on")))


def choose(ctx: typer.Context, name: str, value: str, choices: Collection[str]) -> str:
    """`value` lowered when it is one of `choices`; else a one-line error that says where it came from."""
    lowered = value.lower()
    if lowered not in choices:
        fail(f"unknown {name} {value!r}{source(ctx, name)}; choose one of: {', '.join(choices)}")
    return lowered


def choose_format(ctx: typer.Context, value: str) -> str:
    """`--format` checked, and its renderer loaded now: an install that lacks a format's library fails before the
    scan, not after it."""
    fmt = choose(ctx, "format", value, RENDERERS)
    try:
        RENDERERS[fmt]
    except ImportError as exc:
        fail(f"the {fmt} format cannot be loaded ({exc}); reinstall modelcensus with its dependencies")
    return fmt


def check_cyclonedx_version(version: str) -> str:
    if version not in CYCLONEDX_VERSIONS:
        fail(f"unknown CycloneDX version {version!r}; choose one of: {', '.join(CYCLONEDX_VERSIONS)}")
    return version


def report(inventory: Inventory, fmt: str, destination: Path | None, g: Gating, wide: bool = False,
           show_all: bool = False, cyclonedx_version: str = "1.6") -> None:
    """Write the report of a finished inventory and apply the gate: the one ending of `scan` and `audit`."""
    visible, ignored, hidden = settle(inventory.findings, g.entries, g.shown)
    shown = dataclasses.replace(inventory, findings=visible)
    term = terminal_for(destination)
    opts = ReportOptions(width=term.width, wide=wide, all=show_all, colour=term.colour, ignored=ignored,
                         hidden_findings=hidden, cyclonedx_version=cyclonedx_version)
    write_output(render_pieces(fmt, shown, opts), destination)
    gate(visible, ignored, g.threshold)


AsKind = Annotated[TargetKind | None, typer.Option(
    "--as", help="What PATH is, when not what it looks like [default: detected]", show_default=False)]
Platform = Annotated[str, typer.Option(
    "--platform", help="The platform of a container image index to scan (linux/arm64)", metavar="OS/ARCH")]
AllowBacking = Annotated[bool, typer.Option(
    "--allow-backing-files", help="Let a disk image read the files it names: backing files, parents, external data "
    "files (beside it only, no symlink)")]


@offering(SETTINGS)  # each detector's `--no-<setting>`, such as --no-hash-weights
def scan_command(
    ctx: typer.Context,
    path: Annotated[
        Path,
        typer.Argument(help="What to scan: a directory (as the VM's root /), a container image (docker save "
                       "tarball, OCI archive or layout) or a disk image (raw, qcow2, vmdk, vhd, vhdx)", metavar="PATH",
                       show_default=False),
    ],
    live: Annotated[bool, typer.Option("--live", help="Audit the running machine instead, with `audit`'s options "
                                       "(the same as `modelcensus audit`)")] = False,
    format: Annotated[str, format_option(RENDERERS)] = "table",
    output: Output = None,
    catalog: CatalogOpt = None,
    max_file_size: MaxFileSize = DEFAULT_SIZE,
    include_pseudo: IncludePseudo = False,
    one_file_system: OneFileSystem = True,
    exclude: Exclude = None,
    skip_dirs: SkipDirs = None,
    quiet: Quiet = False,
    wide: Wide = False,
    show_all: ShowAll = False,
    as_kind: AsKind = None,
    platform: Platform = DEFAULT_PLATFORM,
    jobs: Jobs = None,
    allow_backing_files: AllowBacking = False,
    cyclonedx_version: CycloneDxVersion = "1.6",
    fail_on: FailOn = None,
    severity: Severity = None,
    ignore_file: IgnoreFile = None,
    ignore: Ignore = None,
    config: Config = None,
    turned_off: frozenset[str] = frozenset(),
) -> None:
    """Scan an agent VM (a directory as its root, a container image, or a disk image) and report the models,
    providers, SDKs, endpoints, credentials (redacted) and kill switches it is wired to. Disk images need the
    images extra: dissect.target, AGPL-3.0, imported only when a disk image is scanned.

    The table shows the answer and what needs action, within one screen; --all shows every section."""
    fmt = choose_format(ctx, format)
    g = gating(ctx, fail_on, severity, ignore_file, ignore)
    cdx_version = check_cyclonedx_version(cyclonedx_version)
    destination = None if output is None or str(output) == "-" else output
    refuse_inside(destination, [path])
    size = parse_size(max_file_size)
    options = ScanOptions(size, include_pseudo, one_file_system, jobs=parse_jobs(jobs), turned_off=turned_off)
    walk = walk_options(options, exclude, skip_dirs)
    cat = load_catalog(list(catalog or []))
    inventory = run_scan(path, cat, options, quiet, as_kind, platform, allow_backing_files, walk)
    report(inventory, fmt, destination, g, wide, show_all, cdx_version)


def walk_options(options: ScanOptions, exclude: list[str] | None, skip_dirs: list[str] | None) -> WalkOptions:
    for glob in [*(exclude or []), *(skip_dirs or [])]:
        if not glob.strip():
            fail("--exclude and --skip-dirs take a glob of paths inside the target, such as '/var/cache'")
    return WalkOptions(options.include_pseudo, options.one_file_system,
                       paths=PathFilter(tuple(exclude or ()), tuple(skip_dirs or ())))


def run_scan(
    path: Path, cat: Catalog, options: ScanOptions, quiet: bool, kind: TargetKind | None = None,
    platform: str = DEFAULT_PLATFORM, allow_backing: bool = False, walk: WalkOptions | None = None,
) -> Inventory:
    """`api.scan` as the command line runs it (`scan`, `sessions`, and `diff` for a side that is not an
    inventory): a progress line on a terminal, a one-line error, a warning when the target was not read whole."""
    progress = stderr_progress if (not quiet and sys.stderr.isatty()) else None
    paths = walk.paths if walk is not None else PathFilter()
    request = api.ScanRequest(options, kind, platform, allow_backing, paths, progress)
    try:
        inventory = api.scan(path, request, cat)
    except api.ScanError as exc:
        fail(str(exc))
    finally:
        if progress:
            sys.stderr.write("\r\x1b[K")
            sys.stderr.flush()
    gaps = incomplete_lines(inventory)
    if gaps and not quiet:  # exit 0 still (the scan ran), but never silently: one line on stderr
        parts = "; ".join(text for depth, text in gaps if depth)
        sys.stderr.write(safe(f"warning: {path}: not read whole: {parts}")[:1000] + "\n")
    return inventory

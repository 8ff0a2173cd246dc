"""`modelcensus scan PATH`: a directory (as the root of an agent VM), a container image or a disk image."""

from __future__ import annotations

import os
import shutil
import sys
from datetime import date
from pathlib import Path
from typing import Annotated

import typer

from scanner.catalog import Catalog
from scanner.cli.common import completion, fail, load_catalog, parse_jobs, parse_size, stderr_progress
from scanner.cli.config import ConfigError, load_config
from scanner.cli.output import write_output
from scanner.cli.policy import FailOn, IgnoreFile, load_ignores, parse_fail_on, warn_expired
from scanner.live.environ import settings_evidence
from scanner.model import Context, Evidence, Inventory, Location, Skip
from scanner.options import DEFAULT_MAX_FILE_SIZE, ScanOptions
from scanner.pipeline import scan
from scanner.policy.gate import at_or_above, split_findings
from scanner.policy.ignore import expired_entries
from scanner.render import RENDERERS, render
from scanner.render._incomplete import incomplete_lines
from scanner.render._view import ReportOptions
from scanner.targets import WalkOptions
from scanner.targets.registry import DEFAULT_PLATFORM, ImageError, TargetKind, open_target
from scanner.textsafe import safe

FORMATS = ", ".join(RENDERERS)


def scan_command(
    path: Annotated[
        Path,
        typer.Argument(help="What to scan: a directory (as the VM's root /), a container image (docker save "
                       "tarball, OCI archive or layout) or a disk image (raw, qcow2, vmdk, vhd, vhdx)", metavar="PATH",
                       show_default=False),
    ],
    format: Annotated[
        str | None, typer.Option("--format", "-f", help=f"Output format: {FORMATS} [default: table]",
                                 metavar="FORMAT", envvar="MODELCENSUS_FORMAT", autocompletion=completion(RENDERERS),
                                 show_envvar=False)
    ] = None,
    output: Annotated[
        str | None, typer.Option("--output", "-o", help="Write the report to this file ('-': stdout, the default)",
                                 metavar="PATH", envvar="MODELCENSUS_OUTPUT", show_envvar=False)
    ] = None,
    catalog: Annotated[
        list[Path] | None, typer.Option("--catalog", help="Extra catalog file or directory (repeatable)",
                                        metavar="PATH", envvar="MODELCENSUS_CATALOG", show_envvar=False)
    ] = None,
    max_file_size: Annotated[
        str | None,
        typer.Option("--max-file-size", help=f"Read at most this much of a file (e.g. 64M, 1G) [default: "
                     f"{DEFAULT_MAX_FILE_SIZE >> 20}M]", metavar="SIZE", envvar="MODELCENSUS_MAX_FILE_SIZE",
                     show_envvar=False),
    ] = None,
    include_pseudo: Annotated[
        bool, typer.Option("--include-pseudo", help="Also walk the target's /proc, /sys and /dev",
                           envvar="MODELCENSUS_INCLUDE_PSEUDO", show_envvar=False)
    ] = False,
    one_file_system: Annotated[
        bool, typer.Option("--one-file-system", help="Do not cross into other mounted filesystems",
                           envvar="MODELCENSUS_ONE_FILE_SYSTEM", show_envvar=False)
    ] = False,
    quiet: Annotated[bool, typer.Option("--quiet", "-q", help="No progress on stderr", envvar="MODELCENSUS_QUIET",
                                        show_envvar=False)] = False,
    wide: Annotated[bool, typer.Option("--wide", help="table: full cells, whatever the terminal width",
                                       envvar="MODELCENSUS_WIDE", show_envvar=False)] = False,
    show_all: Annotated[bool, typer.Option("--all", help="List model ids that are not wiring in full, not counted",
                                           envvar="MODELCENSUS_ALL", show_envvar=False)] = False,
    as_kind: Annotated[
        TargetKind | None,
        typer.Option("--as", help="What PATH is, when not what it looks like [default: detected]",
                     envvar="MODELCENSUS_AS", show_envvar=False),
    ] = None,
    platform: Annotated[
        str, typer.Option("--platform", help="The platform of a container image index to scan (linux/arm64)",
                          metavar="OS/ARCH",
                          envvar="MODELCENSUS_PLATFORM", show_envvar=False)
    ] = DEFAULT_PLATFORM,
    jobs: Annotated[
        int | None, typer.Option("--jobs", "-j", help="Processes for the per-file work [default: the usable cores]",
                                 metavar="N",
                                 envvar="MODELCENSUS_JOBS", show_envvar=False)
    ] = None,
    allow_backing_files: Annotated[
        bool,
        typer.Option("--allow-backing-files", help="Let a disk image read the files it names: backing files, parents, "
                     "external data files (beside it only, no symlink)",
                     envvar="MODELCENSUS_ALLOW_BACKING_FILES", show_envvar=False),
    ] = False,
    fail_on: FailOn = None,
    ignore_file: IgnoreFile = None,
    config: Annotated[
        Path | None, typer.Option("--config", help="Options file (default: ./modelcensus.toml when present)",
                                  metavar="FILE", envvar="MODELCENSUS_CONFIG", show_envvar=False)
    ] = None,
) -> None:
    """Scan an agent VM (a directory as its root, a container image, or a disk image) and report the models,
    providers, SDKs, endpoints, credentials (redacted) and kill switches it is wired to. Disk images need the
    images extra: dissect.target, AGPL-3.0, imported only when a disk image is scanned.

    Every option may also be set by a MODELCENSUS_<OPTION> environment variable (MODELCENSUS_FORMAT=json).
    Exit status: 0 clean, 1 a finding at or above --fail-on, 2 bad usage, target, config, catalog or ignore file."""
    try:
        cfg = load_config(config, Path.cwd())
    except ConfigError as exc:
        fail(str(exc))
    format = (format or cfg.format or "table").lower()
    output = output or cfg.output
    if format not in RENDERERS:
        fail(f"unknown format {format!r}; choose one of: {FORMATS}")
    threshold = parse_fail_on(fail_on or cfg.fail_on)
    entries = load_ignores(ignore_file or cfg.ignore_file)
    destination = None if output in (None, "-") else Path(output)
    if destination is not None and path.exists() and _inside(destination, path):
        fail(f"{destination}: is inside the scanned target {path}; the target is never written to")
    size = parse_size(max_file_size or cfg.max_file_size or f"{DEFAULT_MAX_FILE_SIZE >> 20}M")
    options = ScanOptions(size, include_pseudo, one_file_system, jobs=parse_jobs(jobs))
    cat = load_catalog(list(cfg.catalogs) + list(catalog or []))
    inventory = run_scan(path, cat, options, quiet, as_kind, platform, allow_backing_files)
    today = date.today()
    kept, suppressed = split_findings(inventory.findings, entries, today)
    report = report_options(destination, wide, show_all, {f.id: entry.reason for f, entry in suppressed})
    write_output(render(format, inventory, report), destination)
    if suppressed:
        typer.echo(f"modelcensus: {len(suppressed)} finding(s) suppressed by ignore entries", err=True)
    warn_expired(expired_entries(entries, today))
    tripped = [f for f in kept if threshold is not None and at_or_above(f.severity, threshold)]
    if tripped:
        worst = tripped[0]
        typer.echo(safe(f"modelcensus: --fail-on {threshold.value if threshold else ''}: {len(tripped)} finding(s) "
                        f"at or above it, first: {worst.severity.value} {worst.id}"), err=True)
        raise typer.Exit(1)


def report_options(destination: Path | None, wide: bool, show_all: bool, ignored: dict[str, str]) -> ReportOptions:
    """Width and colour from the terminal the report goes to: 120 columns and no colour when it is not one."""
    tty = destination is None and sys.stdout.isatty()
    width = shutil.get_terminal_size((120, 24)).columns if tty else 120
    colour = tty and not os.environ.get("NO_COLOR")
    return ReportOptions(width=max(60, width), wide=wide, all=show_all, colour=colour, ignored=ignored)


def run_scan(
    path: Path, cat: Catalog, options: ScanOptions, quiet: bool, kind: TargetKind | None = None,
    platform: str = DEFAULT_PLATFORM, allow_backing: bool = False,
) -> Inventory:
    """The one way the command line scans a target (`scan`, and `diff` for a side that is not an inventory)."""
    if not path.exists():
        fail(f"{path}: no such file or directory")
    try:
        walk = WalkOptions(options.include_pseudo, options.one_file_system)
        opened = open_target(str(path), kind, walk, platform, allow_backing)
    except ImageError as exc:
        fail(str(exc))
    except OSError as exc:
        fail(f"{path}: {exc.strerror or exc}")
    extra: list[Evidence | Skip] = list(opened.skips)
    for where, pairs, env in opened.settings:
        extra += settings_evidence(pairs, cat, Location(where, None, Context.ENV if env else Context.CONFIG), env)
    progress = stderr_progress if (not quiet and sys.stderr.isatty()) else None
    try:
        inventory = scan(opened.target, cat, options, progress=progress, extra=extra)
    finally:
        opened.close()
    if progress:
        sys.stderr.write("\r\x1b[K")
    gaps = incomplete_lines(inventory)
    if gaps and not quiet:  # exit 0 still (the scan ran), but never silently: one line on stderr
        parts = "; ".join(text for depth, text in gaps if depth)
        sys.stderr.write(safe(f"warning: {path}: not read whole: {parts}")[:1000] + "\n")
    return inventory


def _inside(output: Path, root: Path) -> bool:
    """Whether writing `output` would write into the scanned tree (symlinks and `..` resolved)."""
    try:
        return output.resolve().is_relative_to(root.resolve())
    except OSError:
        return False

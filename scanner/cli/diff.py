"""`modelcensus diff OLD NEW`: what changed in model wiring between two releases of an agent image."""

from __future__ import annotations

import dataclasses
import sys
from datetime import date
from pathlib import Path
from typing import Annotated

import typer

from scanner import api
from scanner.catalog import Catalog
from scanner.cli.arguments import fail, load_catalog, parse_jobs, parse_size, scrub_message
from scanner.cli.output import refuse_inside, write_output
from scanner.cli.policy import CHOICES, load_ignores, parse_fail_on, parse_severities, warn_expired
from scanner.cli.scan import choose, run_scan, walk_options
from scanner.cli.settings import source
from scanner.cli.shared_options import (
    DEFAULT_SIZE,
    Config,
    Exclude,
    Ignore,
    IgnoreFile,
    Jobs,
    MaxFileSize,
    OneFileSystem,
    Output,
    Quiet,
    Severity,
    SkipDirs,
    Wide,
    format_option,
)
from scanner.cli.shared_options import Catalog as CatalogOpt
from scanner.cli.terminal import terminal_for
from scanner.diff import InventoryDiff
from scanner.diffrender import DIFF_RENDERERS, render_diff
from scanner.kinds import Inventory
from scanner.model import Severity as Level
from scanner.options import ScanOptions
from scanner.policy.gate import apply_ignores, failing_changes
from scanner.policy.ignore import expired_entries
from scanner.render._view import ReportOptions
from scanner.targets import WalkOptions
from scanner.targets.registry import detect_kind

# A baseline gate fails on what is new; below this, a new SDK or an unwired mention, it would fail too often.
BASELINE_FAIL_ON = Level.LOW
EXAMPLES = """
modelcensus diff release-1.json release-2.json
modelcensus diff agent-2026.10.tar agent-2026.11.tar -f markdown -o diff.md
modelcensus diff --baseline inventory.json /mnt/agent-vm --fail-on high
Exit status: 0 clean, 1 a change at or above --fail-on (with --baseline: at or above low unless given), 2 bad usage,
target, config, catalog or file, 130 interrupted (Ctrl-C).
"""


# The options only `diff` has.
Sides = Annotated[
    list[Path],
    typer.Argument(
        help="OLD NEW: each an inventory JSON file (scan -f json), a directory or an image to scan first; "
        "with --baseline, only NEW",
        metavar="OLD NEW",
        show_default=False,
    ),
]
Baseline = Annotated[
    Path | None,
    typer.Option("--baseline", help="An inventory JSON to compare against: fail only on what is new since it",
                 metavar="FILE", show_default=False),
]
DiffFailOn = Annotated[
    str | None, typer.Option("--fail-on", help=f"Exit 1 when a change shown is at or above this severity "
                             f"({CHOICES}) [with --baseline: low]", metavar="SEVERITY", show_default=False)
]
Mentions = Annotated[
    bool, typer.Option("--mentions", help="Also compare model ids only mentioned in sessions' conversations")
]


def diff_command(
    ctx: typer.Context,
    sides: Sides,
    baseline: Baseline = None,
    format: Annotated[str, format_option(DIFF_RENDERERS)] = "table",
    output: Output = None,
    fail_on: DiffFailOn = None,
    severity: Severity = None,
    ignore_file: IgnoreFile = None,
    ignore: Ignore = None,
    catalog: CatalogOpt = None,
    max_file_size: MaxFileSize = DEFAULT_SIZE,
    one_file_system: OneFileSystem = True,
    exclude: Exclude = None,
    skip_dirs: SkipDirs = None,
    jobs: Jobs = None,
    quiet: Quiet = False,
    wide: Wide = False,
    mentions: Mentions = False,
    config: Config = None,
) -> None:
    """Compare two inventories (or trees and images, scanned first) by stable identity: models, SDKs, endpoints,
    credentials (by hash) and kill switches added, removed or changed. Moving a file is not a change."""
    fmt = choose(ctx, "format", format, DIFF_RENDERERS)
    threshold = parse_fail_on(fail_on, source(ctx, "fail_on"))
    shown = parse_severities(severity, source(ctx, "severity"))
    old_path, new_path = _paths(sides, baseline)
    if baseline is not None:
        threshold = threshold or BASELINE_FAIL_ON
    destination = None if output is None or str(output) == "-" else output
    refuse_inside(destination, [p for p in (old_path, new_path) if _scanned(p)])
    entries = load_ignores(ignore_file, ignore)
    options = ScanOptions(parse_size(max_file_size), one_file_system=one_file_system, jobs=parse_jobs(jobs))
    walk = walk_options(options, exclude, skip_dirs)
    catalogs: list[Catalog] = []  # loaded once, and only when a side must be scanned
    old, new = (_side(p, options, walk, catalog, catalogs, quiet) for p in (old_path, new_path))
    today = date.today()
    result = apply_ignores(api.diff(old, new, mentions), entries, today)
    if shown is not None:
        result = dataclasses.replace(result, changes=tuple(c for c in result.changes if c.severity in shown))
    expired = expired_entries(entries, today)
    term = terminal_for(destination)
    opts = ReportOptions(width=term.width, wide=wide, colour=term.colour)
    write_output(render_diff(fmt, result, expired, opts), destination)
    warn_expired(expired)
    _gate(result, threshold, baseline is not None)


def _paths(sides: list[Path], baseline: Path | None) -> tuple[Path, Path]:
    if baseline is not None:
        if len(sides) != 1:
            fail("with --baseline, give one target: modelcensus diff --baseline inventory.json TARGET")
        return baseline, sides[0]
    if len(sides) != 2:
        fail("give two sides: modelcensus diff OLD NEW (each an inventory JSON file or a directory)")
    return sides[0], sides[1]


def _gate(result: InventoryDiff, threshold: Level | None, new_only: bool) -> None:
    tripped = failing_changes(result, threshold, new_only=new_only)
    if tripped:
        worst = max(tripped, key=lambda c: c.severity.rank)
        typer.echo(scrub_message(f"modelcensus: --fail-on {threshold.value if threshold else ''}: {len(tripped)} "
                                 f"change(s) at or above it; the most severe: {worst.severity.value} {worst.id}"),
                   err=True)
        raise typer.Exit(1)


def _scanned(path: Path) -> bool:
    return path.is_dir() or detect_kind(str(path)) is not None


def _side(path: Path, options: ScanOptions, walk: WalkOptions, extra: list[Path] | None, loaded: list[Catalog],
          quiet: bool) -> Inventory:
    if _scanned(path):  # a tree or an image: scanned first
        if not loaded:
            loaded.append(load_catalog(extra))
        return run_scan(path, loaded[0], options, quiet or not sys.stderr.isatty(), walk=walk)
    if not path.exists():
        fail(f"{path}: no such file or directory")
    from scanner.inventory.load import InventoryLoadError  # the inventory reader: loaded by `diff` only

    try:
        return api.load_inventory(path)
    except InventoryLoadError as exc:
        fail(str(exc))

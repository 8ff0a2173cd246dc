"""`modelcensus diff OLD NEW`: what changed in model wiring between two releases of an agent image."""

from __future__ import annotations

import sys
from datetime import date
from pathlib import Path
from typing import Annotated

import typer

from scanner.catalog import Catalog
from scanner.cli.common import completion, fail, load_catalog, parse_size, scrub_message, usable_cores
from scanner.cli.output import write_output
from scanner.cli.policy import FailOn, IgnoreFile, load_ignores, parse_fail_on, warn_expired
from scanner.cli.scan import run_scan
from scanner.diff import diff_inventories
from scanner.diffrender import DIFF_RENDERERS, render_diff
from scanner.inventory.load import InventoryLoadError, load_file
from scanner.model import Inventory, Severity
from scanner.options import DEFAULT_MAX_FILE_SIZE, ScanOptions
from scanner.policy.gate import apply_ignores, failing_changes
from scanner.policy.ignore import expired_entries
from scanner.targets.registry import detect_kind

FORMATS = ", ".join(DIFF_RENDERERS)
# A baseline gate fails on what is new; below this, a new SDK or an unwired mention, it would fail too often.
BASELINE_FAIL_ON = Severity.LOW


def diff_command(
    sides: Annotated[
        list[Path],
        typer.Argument(
            help="OLD NEW: each an inventory JSON file (scan -f json) or a directory to scan first; "
            "with --baseline, only NEW",
            metavar="OLD NEW",
            show_default=False,
        ),
    ],
    baseline: Annotated[
        Path | None,
        typer.Option("--baseline", help="An inventory JSON to compare against: fail only on what is new since it",
                     metavar="FILE"),
    ] = None,
    format: Annotated[str, typer.Option("--format", "-f", help=f"Output format: {FORMATS}",
                                        metavar="FORMAT",
                                        autocompletion=completion(DIFF_RENDERERS))] = "table",
    output: Annotated[Path | None, typer.Option("--output", "-o", help="Write the report here, not stdout",
                                                metavar="PATH")] = None,
    fail_on: FailOn = None,
    ignore_file: IgnoreFile = None,
    catalog: Annotated[
        list[Path] | None, typer.Option("--catalog", help="Extra catalog file or directory (repeatable)",
                                        metavar="PATH", envvar="MODELCENSUS_CATALOG", show_envvar=False)
    ] = None,
    max_file_size: Annotated[
        str, typer.Option("--max-file-size", help="When scanning a directory: read at most this much of a file",
                          metavar="SIZE", envvar="MODELCENSUS_MAX_FILE_SIZE",
                          show_envvar=False)
    ] = f"{DEFAULT_MAX_FILE_SIZE >> 20}M",
    mentions: Annotated[
        bool, typer.Option("--mentions", help="Also compare model ids only mentioned in sessions' conversations")
    ] = False,
) -> None:
    """Compare two inventories (or directories, scanned first) by stable identity: models, SDKs, endpoints,
    credentials (by hash) and kill switches added, removed or changed. Moving a file is not a change.

    Exit status: 0 clean, 1 a change at or above --fail-on (with --baseline: at or above low unless given),
    2 bad usage, target, catalog or file."""
    format = format.lower()
    if format not in DIFF_RENDERERS:
        fail(f"unknown format {format!r}; choose one of: {FORMATS}")
    threshold = parse_fail_on(fail_on)
    if baseline is not None:
        if len(sides) != 1:
            fail("with --baseline, give one target: modelcensus diff --baseline inventory.json TARGET")
        old_path, new_path = baseline, sides[0]
        threshold = threshold or BASELINE_FAIL_ON
    else:
        if len(sides) != 2:
            fail("give two sides: modelcensus diff OLD NEW (each an inventory JSON file or a directory)")
        old_path, new_path = sides
    entries = load_ignores(ignore_file)
    options = ScanOptions(parse_size(max_file_size), jobs=usable_cores())
    catalogs: list[Catalog] = []  # loaded once, and only when a side must be scanned
    old, new = (_side(p, options, catalog, catalogs) for p in (old_path, new_path))
    today = date.today()
    result = apply_ignores(diff_inventories(old, new, mentions), entries, today)
    expired = expired_entries(entries, today)
    write_output(render_diff(format, result, expired), output)
    warn_expired(expired)
    tripped = failing_changes(result, threshold, new_only=baseline is not None)
    if tripped:
        first = tripped[0]
        typer.echo(scrub_message(f"modelcensus: --fail-on {threshold.value if threshold else ''}: {len(tripped)} "
                                 f"change(s) at or above it, first: {first.severity.value} {first.id}"), err=True)
        raise typer.Exit(1)


def _side(path: Path, options: ScanOptions, extra: list[Path] | None, loaded: list[Catalog]) -> Inventory:
    if path.is_dir() or detect_kind(str(path)) is not None:  # a tree or an image: scanned first
        if not loaded:
            loaded.append(load_catalog(extra))
        return run_scan(path, loaded[0], options, quiet=not sys.stderr.isatty())
    if not path.exists():
        fail(f"{path}: no such file or directory")
    try:
        return load_file(path)
    except InventoryLoadError as exc:
        fail(str(exc))


"""`modelcensus scan PATH`: a directory treated as the root of an agent VM."""

from __future__ import annotations

import os
import sys
from pathlib import Path
from typing import Annotated

import typer

from scanner.cli.common import fail, load_catalog, parse_size, stderr_progress
from scanner.cli.config import ConfigError, load_config
from scanner.model import Inventory, Severity
from scanner.options import DEFAULT_MAX_FILE_SIZE, ScanOptions
from scanner.pipeline import scan
from scanner.render import RENDERERS, render
from scanner.targets import DirectoryTarget, WalkOptions

FORMATS = ", ".join(RENDERERS)
LEVELS = ", ".join(s.value for s in Severity)
_RANK = {Severity.INFO: 0, Severity.LOW: 1, Severity.MEDIUM: 2, Severity.HIGH: 3}


def scan_command(
    path: Annotated[Path, typer.Argument(help="Directory to scan as the VM's root (/)", show_default=False)],
    format: Annotated[
        str | None, typer.Option("--format", "-f", help=f"Output format: {FORMATS} [default: table]")
    ] = None,
    output: Annotated[
        str | None, typer.Option("--output", "-o", help="Write the report to this file ('-': stdout, the default)")
    ] = None,
    catalog: Annotated[
        list[Path] | None, typer.Option("--catalog", help="Extra catalog file or directory (repeatable)")
    ] = None,
    max_file_size: Annotated[
        str | None,
        typer.Option("--max-file-size", help=f"Read at most this much of a file (e.g. 64M, 1G) [default: "
                     f"{DEFAULT_MAX_FILE_SIZE >> 20}M]"),
    ] = None,
    include_pseudo: Annotated[
        bool, typer.Option("--include-pseudo", help="Also walk the target's /proc, /sys and /dev")
    ] = False,
    one_file_system: Annotated[
        bool, typer.Option("--one-file-system", help="Do not cross into other mounted filesystems")
    ] = False,
    quiet: Annotated[bool, typer.Option("--quiet", "-q", help="No progress on stderr")] = False,
    fail_on: Annotated[
        str | None, typer.Option("--fail-on", help=f"Exit 1 when a finding is at least this severe: {LEVELS}")
    ] = None,
    config: Annotated[
        Path | None, typer.Option("--config", help="Options file (default: ./modelcensus.toml when present)")
    ] = None,
) -> None:
    """Scan a mounted agent-VM directory and report the models, providers, SDKs, endpoints,
    credentials (redacted) and kill switches it is wired to."""
    try:
        cfg = load_config(config, Path.cwd())
    except ConfigError as exc:
        fail(str(exc))
    format = format or cfg.format or "table"
    fail_on = fail_on or cfg.fail_on
    output = output or cfg.output
    if format not in RENDERERS:
        fail(f"unknown format {format!r}; choose one of: {FORMATS}")
    if fail_on is not None and fail_on not in {s.value for s in Severity}:
        fail(f"unknown severity {fail_on!r} for --fail-on; choose one of: {LEVELS}")
    if not path.exists():
        fail(f"{path}: no such file or directory")
    if not path.is_dir():
        fail(f"{path}: not a directory (only directory targets are supported)")
    destination = None if output in (None, "-") else Path(output)
    if destination is not None and _inside(destination, path):
        fail(f"{destination}: is inside the scanned target {path}; the target is never written to")
    size = parse_size(max_file_size or cfg.max_file_size or f"{DEFAULT_MAX_FILE_SIZE >> 20}M")
    options = ScanOptions(size, include_pseudo, one_file_system)
    cat = load_catalog(list(cfg.catalogs) + list(catalog or []))
    try:
        target = DirectoryTarget(str(path), WalkOptions(options.include_pseudo, options.one_file_system))
    except OSError as exc:
        fail(f"{path}: {exc.strerror or exc}")
    progress = stderr_progress if (not quiet and sys.stderr.isatty()) else None
    inventory = scan(target, cat, options, progress=progress)
    if progress:
        sys.stderr.write("\r\x1b[K")
    text = render(format, inventory)
    if destination is None:
        sys.stdout.write(text)
    else:
        _write(destination, text)
    if fail_on is not None and _fails(inventory, Severity(fail_on)):
        raise typer.Exit(1)


def _inside(output: Path, root: Path) -> bool:
    """Whether writing `output` would write into the scanned tree (symlinks and `..` resolved)."""
    try:
        return output.resolve().is_relative_to(root.resolve())
    except OSError:
        return False


def _fails(inv: Inventory, level: Severity) -> bool:
    return any(_RANK[f.severity] >= _RANK[level] for f in inv.findings)


def _write(output: Path, text: str) -> None:
    tmp = output.with_name(output.name + ".tmp")
    try:
        tmp.write_text(text, encoding="utf-8")
        os.replace(tmp, output)
    except OSError as exc:
        fail(f"{output}: cannot write: {exc.strerror}")

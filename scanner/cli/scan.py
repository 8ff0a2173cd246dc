"""`modelcensus scan PATH`: a directory treated as the root of an agent VM."""

from __future__ import annotations

import os
import sys
from pathlib import Path
from typing import Annotated

import typer

from scanner.cli.common import fail, load_catalog, parse_size, stderr_progress
from scanner.options import DEFAULT_MAX_FILE_SIZE, ScanOptions
from scanner.pipeline import scan
from scanner.render import RENDERERS, render
from scanner.targets import DirectoryTarget, WalkOptions

FORMATS = ", ".join(RENDERERS)


def scan_command(
    path: Annotated[Path, typer.Argument(help="Directory to scan as the VM's root (/)", show_default=False)],
    format: Annotated[str, typer.Option("--format", "-f", help=f"Output format: {FORMATS}")] = "table",
    output: Annotated[Path | None, typer.Option("--output", "-o", help="Write the report here, not stdout")] = None,
    catalog: Annotated[
        list[Path] | None, typer.Option("--catalog", help="Extra catalog file or directory (repeatable)")
    ] = None,
    max_file_size: Annotated[
        str, typer.Option("--max-file-size", help="Read at most this much of a file (e.g. 64M, 1G)")
    ] = f"{DEFAULT_MAX_FILE_SIZE >> 20}M",
    include_pseudo: Annotated[
        bool, typer.Option("--include-pseudo", help="Also walk the target's /proc, /sys and /dev")
    ] = False,
    one_file_system: Annotated[
        bool, typer.Option("--one-file-system", help="Do not cross into other mounted filesystems")
    ] = False,
    quiet: Annotated[bool, typer.Option("--quiet", "-q", help="No progress on stderr")] = False,
) -> None:
    """Scan a mounted agent-VM directory and report the models, providers, SDKs, endpoints,
    credentials (redacted) and kill switches it is wired to."""
    if format not in RENDERERS:
        fail(f"unknown format {format!r}; choose one of: {FORMATS}")
    if not path.exists():
        fail(f"{path}: no such file or directory")
    if not path.is_dir():
        fail(f"{path}: not a directory (only directory targets are supported)")
    options = ScanOptions(parse_size(max_file_size), include_pseudo, one_file_system)
    cat = load_catalog(catalog)
    try:
        target = DirectoryTarget(str(path), WalkOptions(options.include_pseudo, options.one_file_system))
    except OSError as exc:
        fail(f"{path}: {exc.strerror or exc}")
    progress = stderr_progress if (not quiet and sys.stderr.isatty()) else None
    inventory = scan(target, cat, options, progress=progress)
    if progress:
        sys.stderr.write("\r\x1b[K")
    text = render(format, inventory)
    if output is None:
        sys.stdout.write(text)
        return
    try:
        tmp = output.with_name(output.name + ".tmp")
        tmp.write_text(text, encoding="utf-8")
        os.replace(tmp, output)
    except OSError as exc:
        fail(f"{output}: cannot write: {exc.strerror}")

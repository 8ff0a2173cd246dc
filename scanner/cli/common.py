"""Option parsing shared by commands, defined once."""

from __future__ import annotations

import re
import sys
from pathlib import Path
from typing import NoReturn

import typer

from scanner.catalog import Catalog, CatalogError, load
from scanner.model import Stats
from scanner.textsafe import escape_control

_SIZE = re.compile(r"^\s*(\d+(?:\.\d+)?)\s*([kmgt]?)i?b?\s*$", re.IGNORECASE)
_UNITS = {"": 1, "k": 1 << 10, "m": 1 << 20, "g": 1 << 30, "t": 1 << 40}


def fail(message: str) -> NoReturn:
    """A clear message and exit 2: bad target, bad usage, bad catalog. Never a traceback."""
    typer.echo(f"modelcensus: error: {escape_control(message)}", err=True)
    raise typer.Exit(2)


def parse_size(text: str) -> int:
    m = _SIZE.match(text)
    if not m:
        fail(f"not a size: {text!r} (try 64M, 1G, 4096)")
    return int(float(m.group(1)) * _UNITS[m.group(2).lower()])


def load_catalog(extra: list[Path] | None) -> Catalog:
    try:
        catalog = load(extra or [])
        _ = catalog.matcher  # compile now: a bad pattern is a usage error, not a mid-scan failure
        return catalog
    except CatalogError as exc:
        fail(str(exc))


def stderr_progress(stats: Stats, path: str) -> None:
    shown = escape_control(path)[-60:]
    sys.stderr.write(f"\r\x1b[K{stats.files_seen} files, {stats.bytes_read >> 20} MiB  {shown}")
    sys.stderr.flush()


def usable_cores() -> int:
    import os

    return max(1, len(os.sched_getaffinity(0))) if hasattr(os, "sched_getaffinity") else (os.cpu_count() or 1)


def parse_jobs(jobs: int | None) -> int:
    if jobs is None:
        return usable_cores()
    if jobs < 1:
        fail(f"--jobs must be at least 1, not {jobs}")
    return jobs

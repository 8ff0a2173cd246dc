"""Argument values every command reads the same way (sizes, jobs, catalogs), and its error lines and progress,
with anything key-like scrubbed."""

from __future__ import annotations

import re
import sys
from collections.abc import Callable, Iterable
from functools import cache
from pathlib import Path
from typing import NoReturn

import typer

from scanner.catalog import Catalog, CatalogError, load
from scanner.model import Stats
from scanner.options import usable_cores
from scanner.textsafe import escape_control, safe

_SIZE = re.compile(r"^\s*(\d+(?:\.\d+)?)\s*([kmgt]?)i?b?\s*$", re.IGNORECASE)
_UNITS = {"": 1, "k": 1 << 10, "m": 1 << 20, "g": 1 << 30, "t": 1 << 40}


# A long run of key-like characters with letters and digits both: what a pasted key looks like. An error message
# never shows one: a value given in the wrong place (`--max-file-size sk-ant-…`) must not reach a CI log in full.
_SECRETISH = re.compile(r"(?<![\w/.-])(?=[\w-]*\d)(?=[\w-]*[A-Za-z])[\w-]{20,}")


def scrub_message(message: str) -> str:
    """Text for stderr (an error, a progress path): every credential the built-in catalogs know redacted, and any
    other long key-like run cut."""
    return _SECRETISH.sub(lambda m: m.group()[:4] + "…", safe(_scrubbed(message)))


def error_line(message: str) -> str:
    return f"modelcensus: error: {scrub_message(message)}"


def completion(choices: Iterable[str]) -> Callable[[str], list[str]]:
    """Shell completion for an option whose values are a fixed list (`--format`)."""
    names = list(choices)
    return lambda incomplete: [n for n in names if n.startswith(incomplete.lower())]


def fail(message: str) -> NoReturn:
    """A clear one-line message and exit 2: bad target, bad usage, bad catalog. Never a traceback, never a key."""
    typer.echo(error_line(message), err=True)
    raise typer.Exit(2)


@cache
def _builtin() -> Catalog | None:
    try:
        return load()
    except CatalogError:  # the built-in catalogs are tested; still, an error message must get out
        return None


def _scrubbed(message: str) -> str:
    catalog = _builtin()
    return catalog.scrub(message) if catalog else _LONG_TOKEN.sub(lambda m: m.group()[:4] + "…", message)


_LONG_TOKEN = re.compile(r"[A-Za-z0-9_\-+/=.]{24,}")


def parse_size(text: str, option: str = "--max-file-size") -> int:
    """A size of at least one byte; the message does not repeat the value (it may be anything, a key included)."""
    m = _SIZE.match(text)
    if not m:
        fail(f"{option} takes a size such as 64M, 1G or 4096")
    size = int(float(m.group(1)) * _UNITS[m.group(2).lower()])
    if size < 1:
        fail(f"{option} must be at least one byte (try 64M)")
    return size


def load_catalog(extra: list[Path] | None) -> Catalog:
    try:
        catalog = load(extra or [])
        _ = catalog.matcher  # compile now: a bad pattern is a usage error, not a mid-scan failure
        return catalog
    except CatalogError as exc:
        fail(str(exc))


def stderr_progress(stats: Stats, path: str) -> None:
    shown = escape_control(_scrubbed(path))[-60:]
    sys.stderr.write(f"\r\x1b[K{stats.files_seen} files, {stats.bytes_read >> 20} MiB  {shown}")
    sys.stderr.flush()


def parse_jobs(jobs: int | None) -> int:
    if jobs is None:
        return usable_cores()
    if jobs < 1:
        fail(f"--jobs must be at least 1, not {jobs}")
    return jobs

"""`modelcensus audit` (alias `modelcensus scan --live`): a one-shot audit of the machine it runs on."""

from __future__ import annotations

import dataclasses
import os
import pwd
import sys
from pathlib import Path
from typing import Annotated

import typer

from scanner.audit import AuditOptions, audit
from scanner.cli.common import completion, fail, load_catalog, parse_size, stderr_progress
from scanner.cli.output import write_output
from scanner.cli.scan import CycloneDxVersion, check_cyclonedx_version, report_options
from scanner.live.snapshot import Scope
from scanner.options import DEFAULT_MAX_FILE_SIZE, ScanOptions
from scanner.render import RENDERERS, render

FORMATS = ", ".join(RENDERERS)


def audit_command(
    pid: Annotated[list[int] | None, typer.Option("--pid", help="Inspect this process (repeatable)",
                                                  metavar="PID")] = None,
    user: Annotated[
        list[str] | None, typer.Option("--user", help="Inspect processes of this user (repeatable)", metavar="NAME")
    ] = None,
    exe_glob: Annotated[
        list[str] | None, typer.Option("--exe-glob", help="Inspect processes whose executable matches (repeatable)",
                                       metavar="PATTERN")
    ] = None,
    live_only: Annotated[bool, typer.Option("--live-only", help="Processes only: skip the filesystem walk")] = False,
    root: Annotated[
        Path, typer.Option("--root", help="Root of the filesystem part (default /; another tree for tests)",
                           metavar="DIR")
    ] = Path("/"),
    one_file_system: Annotated[
        bool,
        typer.Option("--one-file-system/--cross-filesystems", help="Stay on the root's filesystem (default: stay)"),
    ] = True,
    format: Annotated[str, typer.Option("--format", "-f", help=f"Output format: {FORMATS}",
                                        metavar="FORMAT",
                                        autocompletion=completion(RENDERERS))] = "table",
    output: Annotated[Path | None, typer.Option("--output", "-o", help="Write the report here, not stdout",
                                                metavar="PATH")] = None,
    catalog: Annotated[
        list[Path] | None, typer.Option("--catalog", help="Extra catalog file or directory (repeatable)",
                                        metavar="PATH", envvar="MODELCENSUS_CATALOG", show_envvar=False)
    ] = None,
    max_file_size: Annotated[
        str, typer.Option("--max-file-size", help="Read at most this much of a file (e.g. 64M, 1G)", metavar="SIZE",
                          envvar="MODELCENSUS_MAX_FILE_SIZE", show_envvar=False)
    ] = f"{DEFAULT_MAX_FILE_SIZE >> 20}M",
    include_pseudo: Annotated[
        bool, typer.Option("--include-pseudo", help="Also walk /proc, /sys, /dev and other pseudo filesystems")
    ] = False,
    quiet: Annotated[bool, typer.Option("--quiet", "-q", help="No progress on stderr", envvar="MODELCENSUS_QUIET",
                                        show_envvar=False)] = False,
    cyclonedx_version: CycloneDxVersion = "1.6",
) -> None:
    """Audit the running machine from inside: the filesystem from / as `scan` reads it, plus processes,
    their environment (credentials redacted), the SDKs they loaded and their network connections."""
    format = format.lower()
    if format not in RENDERERS:
        fail(f"unknown format {format!r}; choose one of: {FORMATS}")
    if not root.is_dir():
        fail(f"{root}: not a directory")
    if any(p <= 0 for p in pid or []):
        fail("--pid takes a positive process id")
    for name in user or []:
        if not _user_exists(name):
            fail(f"--user {name}: no such user on this machine")
    options = ScanOptions(parse_size(max_file_size), include_pseudo, one_file_system)
    scope = Scope(tuple(pid or ()), tuple(user or ()), tuple(exe_glob or ()))
    cat = load_catalog(catalog)
    progress = stderr_progress if (not quiet and not live_only and sys.stderr.isatty()) else None
    try:
        inventory = audit(cat, options, AuditOptions(scope, live_only, os.fspath(root), one_file_system), progress)
    except OSError as exc:
        fail(f"{root}: {exc.strerror or exc}")
    if progress:
        sys.stderr.write("\r\x1b[K")
    report = dataclasses.replace(report_options(output, False, False, {}),
                                 cyclonedx_version=check_cyclonedx_version(cyclonedx_version))
    write_output(render(format, inventory, report), output)


def _user_exists(name: str) -> bool:
    try:
        if name.isascii() and name.isdigit():
            pwd.getpwuid(int(name))
        else:
            pwd.getpwnam(name)
    except (KeyError, OverflowError):
        return False
    return True


def live_alias(argv: list[str]) -> list[str]:
    """`scan --live …` is `audit …`: the same options, one implementation."""
    if argv[:1] == ["scan"] and "--live" in argv[1:]:
        rest = list(argv[1:])
        rest.remove("--live")
        return ["audit", *rest]
    return argv

"""`modelcensus audit` (alias `modelcensus scan --live`): a one-shot audit of the machine it runs on."""

from __future__ import annotations

import os
import pwd
import sys
from pathlib import Path
from typing import Annotated

import typer

from scanner import api
from scanner.api import AuditRequest
from scanner.cli.arguments import fail, load_catalog, parse_size, stderr_progress
from scanner.cli.output import refuse_inside
from scanner.cli.scan import check_cyclonedx_version, choose_format, gating, report, walk_options
from scanner.cli.shared_options import (
    DEFAULT_SIZE,
    Catalog,
    Config,
    CycloneDxVersion,
    Exclude,
    FailOn,
    Ignore,
    IgnoreFile,
    IncludePseudo,
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
from scanner.live.scope import Scope
from scanner.options import ScanOptions
from scanner.render import RENDERERS

EXAMPLES = """
sudo modelcensus audit -f json -o /tmp/inventory.json
modelcensus audit --user agent --live-only
modelcensus audit --exe-glob '*/jarvisd' --fail-on high
modelcensus scan --live --pid 4242
Exit status: 0 clean, 1 a finding at or above --fail-on, 2 bad usage, root, config, catalog or ignore file, 130
interrupted (Ctrl-C).
"""


def audit_command(
    ctx: typer.Context,
    pid: Annotated[list[int] | None, typer.Option("--pid", help="Inspect this process (repeatable)",
                                                  metavar="PID", show_default=False)] = None,
    user: Annotated[
        list[str] | None, typer.Option("--user", help="Inspect processes of this user (repeatable)", metavar="NAME",
                                       show_default=False)
    ] = None,
    exe_glob: Annotated[
        list[str] | None, typer.Option("--exe-glob", help="Inspect processes whose executable matches (repeatable)",
                                       metavar="PATTERN", show_default=False)
    ] = None,
    live_only: Annotated[bool, typer.Option("--live-only", help="Processes only: skip the filesystem walk")] = False,
    root: Annotated[
        Path, typer.Option("--root", help="Root of the filesystem part (default /; another tree for tests)",
                           metavar="DIR")
    ] = Path("/"),
    one_file_system: OneFileSystem = True,
    include_pseudo: IncludePseudo = False,
    exclude: Exclude = None,
    skip_dirs: SkipDirs = None,
    format: Annotated[str, format_option(RENDERERS)] = "table",
    output: Output = None,
    catalog: Catalog = None,
    max_file_size: MaxFileSize = DEFAULT_SIZE,
    quiet: Quiet = False,
    wide: Wide = False,
    show_all: ShowAll = False,
    fail_on: FailOn = None,
    severity: Severity = None,
    ignore_file: IgnoreFile = None,
    ignore: Ignore = None,
    cyclonedx_version: CycloneDxVersion = "1.6",
    config: Config = None,
) -> None:
    """Audit the running machine from inside: the filesystem from / as `scan` reads it, plus processes,
    their environment (credentials redacted), the SDKs they loaded and their network connections."""
    fmt = choose_format(ctx, format)
    g = gating(ctx, fail_on, severity, ignore_file, ignore)
    cdx_version = check_cyclonedx_version(cyclonedx_version)
    if not root.is_dir():
        fail(f"{root}: not a directory")
    destination = None if output is None or str(output) == "-" else output
    if root.resolve() != Path("/"):  # auditing / writes its report on the machine it audits, as asked
        refuse_inside(destination, [root])
    _check_scope(pid, user)
    options = ScanOptions(parse_size(max_file_size), include_pseudo, one_file_system)
    paths = walk_options(options, exclude, skip_dirs).paths
    scope = Scope(tuple(pid or ()), tuple(user or ()), tuple(exe_glob or ()))
    cat = load_catalog(catalog)
    progress = stderr_progress if (not quiet and not live_only and sys.stderr.isatty()) else None
    try:
        request = AuditRequest(options, scope, live_only, os.fspath(root), one_file_system, paths, progress)
        inventory = api.audit(request, cat)
    except OSError as exc:
        fail(f"{root}: {exc.strerror or exc}")
    finally:
        if progress:
            sys.stderr.write("\r\x1b[K")
    report(inventory, fmt, destination, g, wide, show_all, cdx_version)


def _check_scope(pid: list[int] | None, user: list[str] | None) -> None:
    if any(p <= 0 for p in pid or []):
        fail("--pid takes a positive process id")
    for name in user or []:
        if not _user_exists(name):
            fail(f"--user {name}: no such user on this machine")


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

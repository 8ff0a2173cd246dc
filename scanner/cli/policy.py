"""The gating options `scan` and `diff` share: `--fail-on` and `--ignore-file`, defined once."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from scanner.cli.common import fail
from scanner.model import Severity
from scanner.policy.gate import SEVERITIES
from scanner.policy.ignore import DEFAULT_NAME, IgnoreEntry, IgnoreFileError, load_ignore_file
from scanner.textsafe import escape_control

CHOICES = ", ".join(s.value for s in SEVERITIES)

FailOn = Annotated[
    str | None,
    typer.Option(
        "--fail-on",
        help=f"Exit 1 when anything at or above this severity is left after ignores ({CHOICES}; any case)",
        show_default=False,
        metavar="SEVERITY",
        envvar="MODELCENSUS_FAIL_ON",
        show_envvar=False,
        autocompletion=lambda incomplete: [s.value for s in SEVERITIES if s.value.startswith(incomplete.lower())],
    ),
]
IgnoreFile = Annotated[
    Path | None,
    typer.Option(
        "--ignore-file",
        help=f"Accepted findings/changes with reasons (default: ./{DEFAULT_NAME} when present)",
        show_default=False,
        metavar="FILE",
        envvar="MODELCENSUS_IGNORE_FILE",
        show_envvar=False,
    ),
]
EXIT_CODES = "Exit status: 0 clean, 1 something at or above --fail-on, 2 bad usage, target, catalog or file."


def parse_fail_on(value: str | None) -> Severity | None:
    if value is None:
        return None
    try:
        return Severity(value.lower())
    except ValueError:
        fail(f"unknown severity {value!r} for --fail-on; choose one of: {CHOICES}")


def load_ignores(path: Path | None) -> tuple[IgnoreEntry, ...]:
    if path is None:
        default = Path(DEFAULT_NAME)
        if not default.is_file():
            return ()
        path = default
    try:
        return load_ignore_file(path)
    except IgnoreFileError as exc:
        fail(str(exc))


def warn_expired(expired: tuple[IgnoreEntry, ...]) -> None:
    for e in expired:
        typer.echo(
            f"modelcensus: warning: ignore entry {escape_control(e.id or e.sha256 or '')} expired on "
            f"{e.expires} and no longer suppresses ({escape_control(e.reason)})",
            err=True,
        )

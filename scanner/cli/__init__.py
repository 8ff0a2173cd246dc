"""The command line: thin over the library. One module per command."""

from __future__ import annotations

import sys

import typer

from scanner import __version__
from scanner.cli import catalogs, fleet
from scanner.cli.audit import audit_command, live_alias
from scanner.cli.diff import diff_command
from scanner.cli.scan import scan_command
from scanner.cli.sessions import sessions_command

app = typer.Typer(
    name="modelcensus",
    help="Which models, from which providers, is this agent really wired to?",
    no_args_is_help=True,
    add_completion=True,
    pretty_exceptions_enable=False,
)
app.command("scan")(scan_command)
app.command("sessions")(sessions_command)
app.command("audit")(audit_command)
app.command("diff")(diff_command)
app.add_typer(catalogs.app, name="catalogs")
app.add_typer(fleet.app, name="fleet")


def _version(value: bool) -> None:
    if value:
        typer.echo(f"modelcensus {__version__}")
        raise typer.Exit()


@app.callback()
def _root(
    version: bool = typer.Option(False, "--version", callback=_version, is_eager=True, help="Show the version"),
) -> None:
    """Which models, from which providers, is this agent really wired to?"""


def main() -> None:
    app(args=live_alias(sys.argv[1:]))

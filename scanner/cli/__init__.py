"""The command line: thin over the library. One module per command.

Every error is one line, `modelcensus: error: …`, with exit status 2, whether it comes from a command (a bad target,
a bad value) or from the option parser (an unknown option, a missing argument): a CI log shows the cause, not a
usage box.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Sequence
from typing import Any

import typer
from typer import _click
from typer.core import TyperGroup

from scanner import __version__
from scanner.cli import catalogs, fleet
from scanner.cli.audit import audit_command, live_alias
from scanner.cli.common import error_line
from scanner.cli.diff import diff_command
from scanner.cli.helptext import CleanHelp
from scanner.cli.scan import scan_command
from scanner.cli.sessions import sessions_command


class OneLineErrors(TyperGroup):
    def main(
        self,
        args: Sequence[str] | None = None,
        prog_name: str | None = None,
        complete_var: str | None = None,
        standalone_mode: bool = True,
        windows_expand_args: bool = True,
        **extra: Any,
    ) -> Any:
        if not standalone_mode:
            return super().main(args, prog_name, complete_var, False, windows_expand_args, **extra)
        try:
            rv = super().main(args, prog_name, complete_var, False, windows_expand_args, **extra)
        except _click.exceptions.ClickException as exc:
            sys.stderr.write(error_line(exc.format_message()) + "\n")
            sys.exit(2)
        except typer.Abort:
            sys.exit(1)
        except KeyboardInterrupt:
            sys.stderr.write("modelcensus: interrupted\n")
            sys.exit(130)
        except Exception as exc:  # a bug of ours: still one scrubbed line, the traceback only when asked for
            if os.environ.get("MODELCENSUS_DEBUG"):
                raise
            detail = " ".join(str(exc).split())
            sys.stderr.write(error_line(f"internal error ({type(exc).__name__}: {detail}); "
                                        "MODELCENSUS_DEBUG=1 shows the traceback") + "\n")
            sys.exit(2)
        sys.exit(rv if isinstance(rv, int) else 0)


app = typer.Typer(
    name="modelcensus",
    cls=OneLineErrors,
    help="Which models, from which providers, is this agent really wired to?",
    no_args_is_help=True,
    add_completion=True,
    pretty_exceptions_enable=False,
    rich_markup_mode=None,
)
app.command("scan", cls=CleanHelp)(scan_command)
app.command("sessions", cls=CleanHelp)(sessions_command)
app.command("audit", cls=CleanHelp)(audit_command)
app.command("diff", cls=CleanHelp)(diff_command)
app.add_typer(catalogs.app, name="catalogs")
app.add_typer(fleet.app, name="fleet")


def version_text() -> str:
    from scanner.catalog.loader import load_catalogs

    try:
        cats = ", ".join(f"{c.name} {c.version}" for c in load_catalogs([]))
    except Exception as exc:  # noqa: BLE001 - the version must print even with a broken catalog
        cats = f"unreadable ({type(exc).__name__})"
    return f"modelcensus {__version__}\ncatalogs: {cats}"


@app.command("version", cls=CleanHelp)
def version_command() -> None:
    """Print the tool's version and the versions of the built-in catalogs."""
    typer.echo(version_text())


def _version(value: bool) -> None:
    if value:
        typer.echo(version_text())
        raise typer.Exit()


@app.callback()
def _root(
    version: bool = typer.Option(
        False, "--version", "-V", callback=_version, is_eager=True, help="Show the tool and catalog versions"
    ),
) -> None:
    """Which models, from which providers, is this agent really wired to?"""


def main() -> None:
    app(args=live_alias(sys.argv[1:]))

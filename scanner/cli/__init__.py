"""The command line: thin over the library. One module per command.

Every error is one line, `modelcensus: error: …`, with exit status 2, whether it comes from a command (a bad target,
a bad value) or from the option parser (an unknown option, a missing argument): a CI log shows the cause, not a
usage box. A command group given nothing prints its help. Ctrl-C is one line and exit 130.
"""

from __future__ import annotations

import json
import os
import sys
from collections.abc import Sequence
from typing import Annotated, Any

import typer
from typer import _click

from scanner import __version__
from scanner.cli import catalogs, fleet
from scanner.cli.arguments import error_line, fail
from scanner.cli.audit import EXAMPLES as AUDIT_EXAMPLES
from scanner.cli.audit import audit_command, live_alias
from scanner.cli.diff import EXAMPLES as DIFF_EXAMPLES
from scanner.cli.diff import diff_command
from scanner.cli.helptext import CleanGroup, CleanHelp, command_settings
from scanner.cli.scan import EXAMPLES as SCAN_EXAMPLES
from scanner.cli.scan import scan_command
from scanner.cli.sessions import EXAMPLES as SESSIONS_EXAMPLES
from scanner.cli.sessions import sessions_command
from scanner.cli.shared_options import Config, format_option

EXAMPLES = """
modelcensus scan /mnt/agent-vm
modelcensus scan agent.tar -f html -o report.html
sudo modelcensus audit -f json -o /tmp/inventory.json
modelcensus diff release-1.json release-2.json --fail-on high
modelcensus fleet scan fleet.csv && modelcensus fleet report
"""


class Interrupted(Exception):
    """Ctrl-C, carried past typer (which would turn it into a silent exit 130) to the one line that says so."""


class OneLineErrors(CleanGroup):
    def invoke(self, ctx: _click.Context) -> Any:
        try:
            return super().invoke(ctx)
        except KeyboardInterrupt:
            raise Interrupted() from None

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
        except (KeyboardInterrupt, Interrupted):
            interrupted()
        except Exception as exc:  # a bug of ours: still one scrubbed line, the traceback only when asked for
            if os.environ.get("MODELCENSUS_DEBUG"):
                raise
            detail = " ".join(str(exc).split())
            sys.stderr.write(error_line(f"internal error ({type(exc).__name__}: {detail}); "
                                        "MODELCENSUS_DEBUG=1 shows the traceback") + "\n")
            sys.exit(2)
        sys.exit(rv if isinstance(rv, int) else 0)


def interrupted() -> None:
    """Ctrl-C: the progress line cleared, one line said, exit 130 (128 + SIGINT), as shells report it. Nothing was
    written: a report is written whole at the end, and `-o` replaces its file atomically."""
    if sys.stderr.isatty():
        sys.stderr.write("\r\x1b[K")
    sys.stderr.write("modelcensus: interrupted\n")
    sys.stderr.flush()
    sys.exit(130)


app = typer.Typer(
    name="modelcensus",
    cls=OneLineErrors,
    help="Which models, from which providers, is this agent really wired to?",
    epilog=EXAMPLES,
    no_args_is_help=True,
    add_completion=True,
    pretty_exceptions_enable=False,
    rich_markup_mode=None,
    context_settings=command_settings(),
)
app.command("scan", cls=CleanHelp, epilog=SCAN_EXAMPLES)(scan_command)
app.command("sessions", cls=CleanHelp, epilog=SESSIONS_EXAMPLES)(sessions_command)
app.command("audit", cls=CleanHelp, epilog=AUDIT_EXAMPLES)(audit_command)
app.command("diff", cls=CleanHelp, epilog=DIFF_EXAMPLES)(diff_command)
app.add_typer(catalogs.app, name="catalogs")
app.add_typer(fleet.app, name="fleet")


def version_document() -> dict[str, Any]:
    from scanner import native
    from scanner.catalog import load

    try:
        catalog = load([])
        cats: list[dict[str, str]] | str = [{"name": c.name, "version": c.version, "origin": c.origin}
                                            for c in catalog.refs]
        ahead: dict[str, Any] | str = _kept_ahead(catalog.search_rules())
    except Exception as exc:  # noqa: BLE001 - the version must print even with a broken catalog
        cats = ahead = f"unreadable ({type(exc).__name__})"
    return {"schema": "modelcensus/version@1", "tool": "modelcensus", "version": __version__,
            "python": ".".join(map(str, sys.version_info[:3])), "build": native.build(), "catalogs": cats,
            "ahead": ahead}


def _kept_ahead(rules: list[Any]) -> dict[str, Any]:
    """What of the install's work kept ahead (`scripts/build_rules.py`) this start-up loads instead of redoing."""
    from scanner.catalog.loader import parsed_ahead
    from scanner.catalog.matcher import sets_kept_ahead

    kept, of = sets_kept_ahead(rules)
    return {"catalogs_parsed": parsed_ahead(), "rule_sets_compiled": kept, "rule_sets": of}


def version_text() -> str:
    doc = version_document()
    cats, ahead = doc["catalogs"], doc["ahead"]
    shown = cats if isinstance(cats, str) else ", ".join(f"{c['name']} {c['version']}" for c in cats)
    if isinstance(ahead, dict):
        parsed = "parsed ahead" if ahead["catalogs_parsed"] else "parsed at start-up"
        ahead = f"catalogs {parsed}; {ahead['rule_sets_compiled']} of {ahead['rule_sets']} rule sets compiled ahead"
    return f"modelcensus {__version__} ({doc['build']}; {ahead})\ncatalogs: {shown}"


@app.command("version", cls=CleanHelp, epilog="modelcensus version\nmodelcensus version -f json\nmodelcensus -V")
def version_command(
    format: Annotated[str, format_option(("table", "json"))] = "table",
    config: Config = None,
) -> None:
    """Print the tool's version and the versions of the built-in catalogs."""
    fmt = format.lower()
    if fmt not in ("table", "json"):
        fail(f"unknown format {format!r}; choose one of: table, json")
    if fmt == "json":
        typer.echo(json.dumps(version_document(), indent=2))
    else:
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


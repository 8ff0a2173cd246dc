"""`modelcensus catalogs list|show|validate`: the knowledge the scanner matches against."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Annotated

import typer

from scanner.catalog import Catalog, CatalogError
from scanner.catalog.installed import check_installed
from scanner.catalog.loader import check_examples, check_references, load_catalogs, load_file, searchable_patterns
from scanner.catalog.matcher import check_yara_pattern
from scanner.cli.arguments import fail
from scanner.cli.helptext import CleanGroup, CleanHelp, command_settings
from scanner.cli.shared_options import Config
from scanner.cli.terminal import terminal_for
from scanner.render._view import ReportOptions

app = typer.Typer(help="List, show and validate catalogs (catalogs/*.toml).", no_args_is_help=True, cls=CleanGroup,
                  context_settings=command_settings(),
                  epilog="modelcensus catalogs list\nmodelcensus catalogs show anthropic\n"
                         "modelcensus catalogs validate catalogs/acme.toml")


def _options() -> ReportOptions:
    term = terminal_for(None)
    return ReportOptions(width=term.width, colour=term.colour)


def tabulate(rows: Sequence[Sequence[object]], headers: list[str]) -> str:
    """A table fitted to the terminal, as every other table of the command line."""
    from scanner.render.table import grid  # the table renderer, loaded only by the commands that print one

    return "\n".join(grid(headers, [[str(c) for c in r] for r in rows], _options(), main=0))


@app.command("list", cls=CleanHelp, epilog="modelcensus catalogs list\nmodelcensus catalogs list --catalog acme.toml")
def list_command(
    catalog: Annotated[
        list[Path] | None, typer.Option("--catalog", help="Extra catalog file or directory", metavar="PATH",
                                        show_default=False)
    ] = None,
    config: Config = None,
) -> None:
    """List the loaded catalogs with their version and what they hold."""
    try:
        files = load_catalogs(catalog or [])
    except CatalogError as exc:
        fail(str(exc))
    rows = [
        [
            f.name,
            f.version,
            f.origin,
            len(f.families),
            len(f.models),
            len(f.hosted_forms),
            len(f.hosts),
            len(f.sdks),
            len(f.credentials),
        ]
        for f in files
    ]
    typer.echo(
        tabulate(
            rows, headers=["name", "version", "origin", "families", "models", "forms", "hosts", "sdks", "key formats"]
        )
    )


@app.command("show", cls=CleanHelp, epilog="modelcensus catalogs show anthropic\n"
             "modelcensus catalogs show acme --catalog acme.toml")
def show_command(
    name: Annotated[str, typer.Argument(help="Catalog name, e.g. anthropic", metavar="NAME", show_default=False)],
    catalog: Annotated[
        list[Path] | None, typer.Option("--catalog", help="Extra catalog file or directory", metavar="PATH",
                                        show_default=False)
    ] = None,
    config: Config = None,
) -> None:
    """Show one catalog's models, families, forms and hosts."""
    try:
        files = {f.name: f for f in load_catalogs(catalog or [])}
    except CatalogError as exc:
        fail(str(exc))
    if name not in files:
        fail(f"no catalog named {name!r}; loaded: {', '.join(sorted(files))}")
    f = files[name]
    from scanner.render.table import fit_line

    typer.echo(fit_line(f"{f.name} {f.version} ({f.origin}): {f.description}", _options()))
    if f.families:
        typer.echo(tabulate([[x.id, x.vendor, x.pattern] for x in f.families], headers=["family", "vendor", "grammar"]))
    if f.models:
        typer.echo(
            tabulate(
                [[m.id, m.family, m.lifecycle, m.retires or "", ", ".join(m.aliases)] for m in f.models],
                headers=["model", "family", "lifecycle", "retires", "aliases"],
            )
        )
    if f.hosted_forms:
        typer.echo(
            tabulate([[h.route, h.vendor or "", h.form] for h in f.hosted_forms], headers=["route", "vendor", "form"])
        )
    if f.hosts:
        typer.echo(
            tabulate(
                [[h.pattern, h.vendor or "", h.served_via or ""] for h in f.hosts], headers=["host", "vendor", "via"]
            )
        )
    if f.agent_configs:
        rows = [[a.tool, a.path, a.format, ", ".join(a.containers)] for a in f.agent_configs]
        typer.echo(tabulate(rows, headers=["agent tool", "path", "format", "MCP server keys"]))
    if f.agents:
        rows = [
            [a.id, a.name, ", ".join(f"{eco}:{n}" for eco, n in a.packages), str(len(a.settings)), str(len(a.ships))]
            for a in f.agents
        ]
        typer.echo(tabulate(rows, headers=["agent product", "name", "packages", "settings files", "ships globs"]))


@app.command("validate", cls=CleanHelp, epilog="modelcensus catalogs validate catalogs/acme.toml\n"
             "modelcensus catalogs validate catalogs/\n"
             "modelcensus catalogs validate catalogs/ --installed /mnt/dev-machine")
def validate_command(
    path: Annotated[Path, typer.Argument(help="A catalog file or a directory of them", metavar="PATH",
                                         show_default=False)],
    installed: Annotated[
        Path | None,
        typer.Option(
            "--installed",
            help="Also check each agent product against the packages installed under this root (its commands "
            "and platform packages)",
            metavar="ROOT", show_default=False,
        ),
    ] = None,
    config: Config = None,
) -> None:
    """Check catalog files: schema, regexes, search-engine compatibility and every example."""
    problems: list[str] = []
    files = []
    paths = sorted(path.glob("*.toml")) if path.is_dir() else [path]
    if not paths or not all(p.exists() for p in paths):
        fail(f"{path}: no catalog files")
    for p in paths:
        try:
            files.append(load_file(p, str(p)))
        except CatalogError as exc:
            problems.append(str(exc))
    for f in files:
        problems += check_examples(f)
        for label, pattern in searchable_patterns(f):
            why = check_yara_pattern(pattern)
            if why:
                problems.append(f"{f.origin}: {label}: not searchable: {why}")
    names = {f.name for f in files}
    try:
        others = [b for b in load_catalogs() if b.name not in names]
    except CatalogError:
        others = []
    problems += check_references(others + files)
    if installed is not None and not problems:
        if not installed.is_dir():
            fail(f"{installed}: not a directory")
        check = check_installed(Catalog(others + files), installed)
        problems += check.problems
        typer.echo(f"agent products checked against installed packages: {', '.join(sorted(check.checked)) or 'none'}")
    if problems:
        for line in problems:
            typer.echo(line, err=True)
        raise typer.Exit(1)
    typer.echo(f"{len(files)} catalog file(s) valid")

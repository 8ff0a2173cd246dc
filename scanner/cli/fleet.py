"""`modelcensus fleet scan|report|query|export|diff`: many targets on dask.distributed, one DuckDB store.

Needs the `fleet` extra; without it every subcommand says so in one line (exit 2).
"""

from __future__ import annotations

import csv
import io
import json
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer

from scanner.cli.arguments import fail, load_catalog, parse_size
from scanner.cli.helptext import CleanGroup, CleanHelp, command_settings
from scanner.cli.output import refuse_inside, write_output
from scanner.cli.policy import load_ignores, parse_fail_on, parse_severities
from scanner.cli.scan import choose
from scanner.cli.settings import source
from scanner.cli.shared_options import (
    Catalog,
    Config,
    FailOn,
    Ignore,
    IgnoreFile,
    Output,
    Quiet,
    Severity,
    Wide,
    format_option,
)
from scanner.cli.terminal import terminal_for
from scanner.fleet import FleetError
from scanner.render._view import ReportOptions

if TYPE_CHECKING:
    from scanner.fleet.engine import FleetRun, FleetSummary
    from scanner.fleet.task import ScanLimits

app = typer.Typer(
    help="Scan many targets on dask.distributed and query their inventories together "
    "(needs the fleet extra: pip install 'modelcensus[fleet]').",
    no_args_is_help=True,
    cls=CleanGroup,
    context_settings=command_settings(),
    epilog="modelcensus fleet scan fleet.csv --store fleet.duckdb\n"
           "modelcensus fleet report --store fleet.duckdb -f html -o fleet.html\n"
           "modelcensus fleet diff --label release=2026.10 --label release=2026.11",
)

Store = Annotated[Path, typer.Option("--store", help="The fleet store (an embedded DuckDB file)", metavar="FILE")]
DEFAULT_STORE = Path("fleet.duckdb")


def _destination(output: Path | None) -> Path | None:
    return None if output is None or str(output) == "-" else output


def _stored_targets(store: Path) -> list[Path]:
    """The paths of the targets a store holds (to refuse writing into one of them)."""
    from scanner.fleet.store import FleetStore

    if not store.is_file():
        return []
    try:
        with FleetStore(store, read_only=True) as db:
            return [Path(p) for (p,) in db.query("SELECT path FROM targets")[1] if p]
    except FleetError:
        return []


_SCAN_EPILOG = """
modelcensus fleet scan fleet.csv --store fleet.duckdb
modelcensus fleet scan --glob '/images/*.qcow2' --workers 4 --timeout 900
modelcensus fleet scan fleet.toml --scheduler tcp://scheduler:8786 --no-fail-on-error
Exit status: 0 every target scanned, 1 a target failed (unless --no-fail-on-error), 2 bad usage, manifest,
scheduler or store, 130 interrupted (Ctrl-C).
"""


@app.command("scan", cls=CleanHelp, epilog=_SCAN_EPILOG)
def scan_command(
    manifest: Annotated[
        Path | None,
        typer.Argument(help="Targets: one path per line, a TOML [[targets]] list, or a CSV with name,path,…labels",
                       metavar="MANIFEST", show_default=False),
    ] = None,
    glob: Annotated[str | None, typer.Option("--glob", help="Targets from a shell glob instead of a manifest",
                                             metavar="PATTERN", show_default=False)] = None,
    store: Store = DEFAULT_STORE,
    scheduler: Annotated[
        str | None,
        typer.Option("--scheduler", help="A dask scheduler address (tcp://HOST:8786); default: a local cluster",
                     metavar="ADDRESS", show_default=False),
    ] = None,
    workers: Annotated[
        int | None, typer.Option("--workers", help="Local cluster workers [default: one per core]", metavar="N",
                                 show_default=False)
    ] = None,
    timeout: Annotated[float, typer.Option("--timeout", help="Seconds one scan of one target may take",
                                           metavar="SECONDS")] = 1800.0,
    memory_limit: Annotated[
        str, typer.Option("--memory-limit", help="Resident memory one scan may use (e.g. 2G)", metavar="SIZE")
    ] = "2G",
    retries: Annotated[int, typer.Option("--retries", help="Retries of a failed target", metavar="N")] = 2,
    rescan: Annotated[
        bool, typer.Option("--rescan", help="Scan every target, even one unchanged since its result")
    ] = False,
    fail_on_error: Annotated[
        bool, typer.Option("--fail-on-error/--no-fail-on-error", help="Exit 1 when a target failed")
    ] = True,
    catalog: Catalog = None,
    max_file_size: Annotated[str | None, typer.Option("--max-file-size", help="Passed to every scan",
                                                      metavar="SIZE", show_default=False)] = None,
    quiet: Quiet = False,
    config: Config = None,
) -> None:
    """Scan every target of a manifest or glob (each exactly as `modelcensus scan` would, in a subprocess with a
    timeout and a memory limit) and store the inventories. A target unchanged since its stored result, with the
    same catalogs, is not scanned again; with nothing to scan, no cluster is started. Ends with one summary line."""
    from scanner.fleet.engine import FleetRun
    from scanner.fleet.task import ScanLimits

    if (manifest is None) == (glob is None):
        fail("give a manifest file or --glob PATTERN (one of them)")
    if timeout <= 0 or retries < 0 or (workers is not None and workers < 1):
        fail("--timeout must be positive, --retries at least 0 and --workers at least 1")
    size = parse_size(max_file_size) if max_file_size is not None else None
    cat = load_catalog(catalog)
    catalogs_key = ",".join(f"{r.name}@{r.version}" for r in cat.refs)
    limits = ScanLimits(timeout, parse_size(memory_limit, "--memory-limit"),
                        tuple(str(c.resolve()) for c in catalog or []), size)
    try:
        run = FleetRun(scheduler, workers, retries, rescan)
        summary = _scan_fleet(manifest, glob, store, limits, catalogs_key, run, quiet)
    except FleetError as exc:
        fail(str(exc))
    typer.echo(summary.line())
    if summary.failed and fail_on_error:
        raise typer.Exit(1)


def _scan_fleet(manifest: Path | None, glob: str | None, store: Path, limits: ScanLimits, catalogs_key: str,
                run: FleetRun, quiet: bool) -> FleetSummary:
    """Plan from the stored results, then scan what changed: no cluster when nothing did, and the store file only
    once the cluster is there (a scheduler that cannot be reached leaves no empty store behind)."""
    from scanner.fleet.engine import execute, fleet_client, plan_run, stderr_progress
    from scanner.fleet.manifest import from_glob, read_manifest
    from scanner.fleet.store import FleetStore

    targets = read_manifest(manifest) if manifest is not None else from_glob(glob or "")
    refuse_inside(store, [Path(t.path) for t in targets])
    stored = {}
    if store.is_file():
        with FleetStore(store, read_only=True) as db:
            stored = db.stored()
    plan = plan_run(targets, stored, catalogs_key, run)
    progress = None if quiet else stderr_progress
    if not plan.submit:
        with FleetStore(store) as db:
            return execute(plan, None, db, limits, catalogs_key, run.retries, progress)
    with fleet_client(run) as client, FleetStore(store) as db:
        return execute(plan, client, db, limits, catalogs_key, run.retries, progress)


@app.command("report", cls=CleanHelp, epilog="""
modelcensus fleet report --store fleet.duckdb
modelcensus fleet report -f html -o fleet.html
modelcensus fleet report --fail-on high --severity high,medium
Exit status: 0 clean, 1 a finding at or above --fail-on in some target, 2 bad usage, config or store.
""")
def report_command(
    ctx: typer.Context,
    store: Store = DEFAULT_STORE,
    format: Annotated[str, format_option(("table", "json", "markdown", "html"))] = "table",
    output: Output = None,
    fail_on: FailOn = None,
    severity: Severity = None,
    ignore_file: IgnoreFile = None,
    ignore: Ignore = None,
    wide: Wide = False,
    config: Config = None,
) -> None:
    """Per vendor and route, how many targets are wired to it; targets with an external session vendor or a label
    mismatch; targets with a disarmed kill switch; credentials (by hash) seen in more than one target; the findings
    across the fleet, each with how many targets have it."""
    from scanner.fleet.render import REPORT_FORMATS, ViewOptions, gate_report
    from scanner.fleet.report import build_report, filter_findings
    from scanner.fleet.store import FleetStore

    fmt = choose(ctx, "format", format, REPORT_FORMATS)
    threshold = parse_fail_on(fail_on, source(ctx, "fail_on"))
    shown = parse_severities(severity, source(ctx, "severity"))
    entries = load_ignores(ignore_file, ignore)
    destination = _destination(output)
    refuse_inside(destination, _stored_targets(store))
    try:
        with FleetStore(store, read_only=True) as db:
            report = filter_findings(build_report(db), shown, entries)
    except FleetError as exc:
        fail(str(exc))
    term = terminal_for(destination)
    view = ViewOptions(ReportOptions(width=term.width, wide=wide, colour=term.colour))
    write_output(REPORT_FORMATS[fmt](report, view), destination)
    gate_report(report, threshold)


@app.command("query", cls=CleanHelp, epilog="""
modelcensus fleet query "SELECT vendor, count(DISTINCT target) FROM models WHERE wired GROUP BY ALL"
modelcensus fleet query "SELECT * FROM findings WHERE severity = 'high'" -f csv -o high.csv
""")
def query_command(
    ctx: typer.Context,
    sql: Annotated[str, typer.Argument(help="A read-only SQL query over the store's tables", metavar="SQL",
                                       show_default=False)],
    store: Store = DEFAULT_STORE,
    format: Annotated[str, format_option(("table", "json", "csv"))] = "table",
    output: Output = None,
    wide: Wide = False,
    config: Config = None,
) -> None:
    """Run a read-only SQL query against the store (tables: targets, labels, models, agents, sdks, endpoints,
    credentials, kill_switches, sessions, findings). The store is opened read-only with every file, network and
    extension access of DuckDB off and its configuration locked: a query reads the store and nothing else."""
    from scanner.fleet.store import FleetStore

    fmt = choose(ctx, "format", format, ("table", "json", "csv"))
    destination = _destination(output)
    refuse_inside(destination, _stored_targets(store))
    try:
        with FleetStore(store, read_only=True) as db:
            columns, rows = db.query(sql)
    except FleetError as exc:
        fail(str(exc))
    term = terminal_for(destination)
    write_output(_rows(fmt, columns, rows, ReportOptions(width=term.width, wide=wide)), destination)


@app.command("export", cls=CleanHelp, epilog="""
modelcensus fleet export --parquet warehouse/ --store fleet.duckdb
""")
def export_command(
    parquet: Annotated[Path, typer.Option("--parquet", help="Directory to write one Parquet file per table",
                                          metavar="DIR", show_default=False)],
    store: Store = DEFAULT_STORE,
    config: Config = None,
) -> None:
    """Write the store's tables as Parquet, for a data warehouse (the store is read, never written)."""
    from scanner.fleet.store import FleetStore

    refuse_inside(parquet / "targets.parquet", _stored_targets(store))
    try:
        if not store.is_file():
            raise FleetError(f"{store}: no such fleet store (run `modelcensus fleet scan` first)")
        parquet.mkdir(parents=True, exist_ok=True)
        with FleetStore(store, export_to=parquet) as db:
            written = db.export_parquet(parquet)
    except FleetError as exc:
        fail(str(exc))
    except OSError as exc:
        fail(f"{parquet}: {exc.strerror or exc}")
    typer.echo(f"wrote {len(written)} tables to {parquet}")


@app.command("diff", cls=CleanHelp, epilog="""
modelcensus fleet diff --label release=2026.10 --label release=2026.11
modelcensus fleet diff --label release=A --label release=B -f json -o fleet-diff.json
""")
def diff_command(
    ctx: typer.Context,
    label: Annotated[
        list[str] | None,
        typer.Option("--label", help="KEY=VALUE, given twice: the old release, then the new", metavar="KEY=VALUE",
                     show_default=False),
    ] = None,
    store: Store = DEFAULT_STORE,
    format: Annotated[str, format_option(("table", "json", "markdown"))] = "table",
    output: Output = None,
    wide: Wide = False,
    config: Config = None,
) -> None:
    """Compare two releases of a fleet: targets are paired by their other labels, and each change is counted
    over the pairs (a model added in 812 of 1,000); targets left unpaired are compared as populations (a model
    in 0 of 6 of the old release, 2 of 2 of the new). A label no scanned target has is an error."""
    from scanner.fleet.fleetdiff import fleet_diff, parse_label
    from scanner.fleet.render import DIFF_FORMATS, ViewOptions
    from scanner.fleet.store import FleetStore

    fmt = choose(ctx, "format", format, DIFF_FORMATS)
    if len(label or []) != 2:
        fail("give --label twice: the old release, then the new (e.g. --label release=A --label release=B)")
    destination = _destination(output)
    refuse_inside(destination, _stored_targets(store))
    try:
        old, new = parse_label((label or [])[0]), parse_label((label or [])[1])
        with FleetStore(store, read_only=True) as db:
            result = fleet_diff(db, old, new)
    except FleetError as exc:
        fail(str(exc))
    term = terminal_for(destination)
    write_output(DIFF_FORMATS[fmt](result, ViewOptions(ReportOptions(width=term.width, wide=wide,
                                                                     colour=term.colour))), destination)


def _rows(fmt: str, columns: list[str], rows: list[tuple[Any, ...]], opts: ReportOptions) -> str:
    if fmt == "json":
        return json.dumps([dict(zip(columns, r, strict=True)) for r in rows], indent=2, default=str) + "\n"
    if fmt == "csv":
        buf = io.StringIO()
        writer = csv.writer(buf, lineterminator="\n")
        writer.writerow(columns)
        writer.writerows(rows)
        return buf.getvalue()
    if not columns:
        return ""
    from scanner.render.table import grid  # the table renderer, loaded only when a table is printed

    return "\n".join(grid(columns, [[_cell(v) for v in r] for r in rows], opts)) + "\n"


def _cell(value: Any) -> str:
    return value if isinstance(value, str) else json.dumps(value, default=str)

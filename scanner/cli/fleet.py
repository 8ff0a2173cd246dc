"""`modelcensus fleet scan|report|query|export|diff`: many targets on dask.distributed, one DuckDB store.

Needs the `fleet` extra; without it every subcommand says so in one line (exit 2).
"""

from __future__ import annotations

import csv
import io
import json
from pathlib import Path
from typing import Annotated, Any

import typer
from tabulate import tabulate

from scanner.cli.common import fail, load_catalog, parse_size
from scanner.cli.helptext import CleanHelp
from scanner.cli.output import write_output
from scanner.fleet import FleetError
from scanner.textsafe import escape_control

app = typer.Typer(
    help="Scan many targets on dask.distributed and query their inventories together "
    "(needs the fleet extra: modelcensus\\[fleet]).",
    no_args_is_help=True,
)

Store = Annotated[Path, typer.Option("--store", help="The fleet store (an embedded DuckDB file)", metavar="FILE")]
DEFAULT_STORE = Path("fleet.duckdb")
Output = Annotated[Path | None, typer.Option("--output", "-o", help="Write here, not stdout", metavar="PATH")]


@app.command("scan", cls=CleanHelp)
def scan_command(
    manifest: Annotated[
        Path | None,
        typer.Argument(help="Targets: one path per line, a TOML [[targets]] list, or a CSV with name,path,…labels",
                       show_default=False),
    ] = None,
    glob: Annotated[str | None, typer.Option("--glob", help="Targets from a shell glob instead of a manifest",
                                             metavar="PATTERN")] = None,
    store: Store = DEFAULT_STORE,
    scheduler: Annotated[
        str | None,
        typer.Option("--scheduler", help="A dask scheduler address (tcp://HOST:8786); default: a local cluster",
                     metavar="ADDRESS"),
    ] = None,
    workers: Annotated[
        int | None, typer.Option("--workers", help="Local cluster workers [default: one per core]", metavar="N")
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
    catalog: Annotated[
        list[Path] | None,
        typer.Option("--catalog", help="Extra catalog file or directory (repeatable)", metavar="PATH"),
    ] = None,
    max_file_size: Annotated[str | None, typer.Option("--max-file-size", help="Passed to every scan",
                                                      metavar="SIZE")] = None,
    quiet: Annotated[bool, typer.Option("--quiet", "-q", help="No progress on stderr")] = False,
) -> None:
    """Scan every target of a manifest or glob (each exactly as `modelcensus scan` would, in a subprocess with a
    timeout and a memory limit) and store the inventories. A target unchanged since its stored result, with the
    same catalogs, is not scanned again. Ends with one summary line."""
    from scanner.fleet.engine import FleetRun, run_fleet, stderr_progress
    from scanner.fleet.manifest import from_glob, read_manifest
    from scanner.fleet.store import FleetStore
    from scanner.fleet.task import ScanLimits

    if (manifest is None) == (glob is None):
        fail("give a manifest file or --glob PATTERN (one of them)")
    if timeout <= 0 or retries < 0 or (workers is not None and workers < 1):
        fail("--timeout must be positive, --retries at least 0 and --workers at least 1")
    if max_file_size is not None:
        parse_size(max_file_size)
    cat = load_catalog(catalog)
    catalogs_key = ",".join(f"{r.name}@{r.version}" for r in cat.refs)
    limits = ScanLimits(timeout, parse_size(memory_limit), tuple(str(c.resolve()) for c in catalog or []),
                        max_file_size)
    try:
        targets = read_manifest(manifest) if manifest is not None else from_glob(glob or "")
        with FleetStore(store) as db:
            summary = run_fleet(targets, db, limits, catalogs_key, FleetRun(scheduler, workers, retries, rescan),
                                None if quiet else stderr_progress)
    except FleetError as exc:
        fail(str(exc))
    typer.echo(summary.line())


@app.command("report", cls=CleanHelp)
def report_command(
    store: Store = DEFAULT_STORE,
    format: Annotated[str, typer.Option("--format", "-f", help="table, json, markdown, html",
                                        metavar="FORMAT")] = "table",
    output: Output = None,
) -> None:
    """Per vendor and route, how many targets are wired to it; targets with an external session vendor or a label
    mismatch; targets with a disarmed kill switch; credentials (by hash) seen in more than one target."""
    from scanner.fleet.render import REPORT_FORMATS
    from scanner.fleet.report import build_report
    from scanner.fleet.store import FleetStore

    format = format.lower()
    if format not in REPORT_FORMATS:
        fail(f"unknown format {format!r}; choose one of: {', '.join(REPORT_FORMATS)}")
    try:
        with FleetStore(store, read_only=True) as db:
            report = build_report(db)
    except FleetError as exc:
        fail(str(exc))
    write_output(REPORT_FORMATS[format](report), output)


@app.command("query", cls=CleanHelp)
def query_command(
    sql: Annotated[str, typer.Argument(help="A SQL query over the store's tables", show_default=False)],
    store: Store = DEFAULT_STORE,
    format: Annotated[str, typer.Option("--format", "-f", help="table, json, csv", metavar="FORMAT")] = "table",
    output: Output = None,
) -> None:
    """Run a read-only SQL query against the store (tables: targets, labels, models, agents, sdks, endpoints,
    credentials, kill_switches, sessions, findings)."""
    from scanner.fleet.store import FleetStore

    format = format.lower()
    if format not in ("table", "json", "csv"):
        fail(f"unknown format {format!r}; choose one of: table, json, csv")
    try:
        with FleetStore(store, read_only=True) as db:
            columns, rows = db.query(sql)
    except FleetError as exc:
        fail(str(exc))
    write_output(_rows(format, columns, rows), output)


@app.command("export", cls=CleanHelp)
def export_command(
    parquet: Annotated[Path, typer.Option("--parquet", help="Directory to write one Parquet file per table",
                                          metavar="DIR")],
    store: Store = DEFAULT_STORE,
) -> None:
    """Write the store's tables as Parquet, for a data warehouse."""
    from scanner.fleet.store import FleetStore

    try:
        with FleetStore(store, read_only=True) as db:
            written = db.export_parquet(parquet)
    except (FleetError, OSError) as exc:
        fail(str(exc))
    typer.echo(f"wrote {len(written)} tables to {parquet}")


@app.command("diff", cls=CleanHelp)
def diff_command(
    label: Annotated[
        list[str],
        typer.Option("--label", help="KEY=VALUE, given twice: the old release, then the new", metavar="KEY=VALUE"),
    ],
    store: Store = DEFAULT_STORE,
    format: Annotated[str, typer.Option("--format", "-f", help="table, json, markdown", metavar="FORMAT")] = "table",
    output: Output = None,
) -> None:
    """Compare two releases of a fleet: targets are paired by their other labels, and each change is counted
    over the pairs (a model added in 812 of 1,000)."""
    from scanner.fleet.fleetdiff import fleet_diff, parse_label
    from scanner.fleet.render import DIFF_FORMATS
    from scanner.fleet.store import FleetStore

    format = format.lower()
    if format not in DIFF_FORMATS:
        fail(f"unknown format {format!r}; choose one of: {', '.join(DIFF_FORMATS)}")
    if len(label) != 2:
        fail("give --label twice: the old release, then the new (e.g. --label release=A --label release=B)")
    try:
        old, new = parse_label(label[0]), parse_label(label[1])
        with FleetStore(store, read_only=True) as db:
            result = fleet_diff(db, old, new)
    except FleetError as exc:
        fail(str(exc))
    write_output(DIFF_FORMATS[format](result), output)


def _rows(fmt: str, columns: list[str], rows: list[tuple[Any, ...]]) -> str:
    if fmt == "json":
        return json.dumps([dict(zip(columns, r, strict=True)) for r in rows], indent=2, default=str) + "\n"
    if fmt == "csv":
        buf = io.StringIO()
        writer = csv.writer(buf, lineterminator="\n")
        writer.writerow(columns)
        writer.writerows(rows)
        return buf.getvalue()
    return tabulate([[_cell(v) for v in r] for r in rows], headers=columns) + "\n"


def _cell(value: Any) -> str:
    return escape_control(value if isinstance(value, str) else json.dumps(value, default=str))

"""`modelcensus sessions PATH`: only the session forensics of a scan (sessions, routes, their findings)."""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path
from typing import Annotated

import typer

from scanner import api
from scanner.cli.arguments import load_catalog, parse_jobs, parse_size
from scanner.cli.output import refuse_inside, write_output
from scanner.cli.policy import gate, settle
from scanner.cli.scan import choose, gating, run_scan, walk_options
from scanner.cli.shared_options import (
    DEFAULT_SIZE,
    Catalog,
    Config,
    Exclude,
    FailOn,
    Ignore,
    IgnoreFile,
    Jobs,
    MaxFileSize,
    OneFileSystem,
    Output,
    Quiet,
    Severity,
    SkipDirs,
    Wide,
    format_option,
)
from scanner.cli.terminal import terminal_for
from scanner.inventory.document import to_document
from scanner.kinds import Inventory
from scanner.options import ScanOptions
from scanner.render._view import ReportOptions
from scanner.render.json import clean
from scanner.sessions import session_tables

_FORMATS = ("table", "json")
# The JSON document `sessions -f json` writes; its JSON Schema ships as scanner/cli/sessions.schema.json.
SESSIONS_SCHEMA_ID = "modelcensus/sessions@1"
EXAMPLES = """
modelcensus sessions /mnt/agent-vm
modelcensus sessions agent.tar -f json -o sessions.json
modelcensus sessions /mnt/agent-vm --fail-on high --severity high
Exit status: 0 clean, 1 a session finding at or above --fail-on, 2 bad usage, target, config, catalog or file, 130
interrupted (Ctrl-C).
"""


def sessions_command(
    ctx: typer.Context,
    path: Annotated[
        Path, typer.Argument(help="What to scan: a directory (the VM's root /), a container or disk image",
                             metavar="PATH", show_default=False),
    ],
    format: Annotated[str, format_option(_FORMATS)] = "table",
    output: Output = None,
    catalog: Catalog = None,
    max_file_size: MaxFileSize = DEFAULT_SIZE,
    one_file_system: OneFileSystem = True,
    exclude: Exclude = None,
    skip_dirs: SkipDirs = None,
    jobs: Jobs = None,
    quiet: Quiet = False,
    wide: Wide = False,
    fail_on: FailOn = None,
    severity: Severity = None,
    ignore_file: IgnoreFile = None,
    ignore: Ignore = None,
    config: Config = None,
) -> None:
    """Which provider really served each agent session found in the VM's logs, whether its reasoning is
    readable, and how model aliases in configs map to what the logs observed."""
    fmt = choose(ctx, "format", format, _FORMATS)
    g = gating(ctx, fail_on, severity, ignore_file, ignore)
    destination = None if output is None or str(output) == "-" else output
    refuse_inside(destination, [path])
    options = ScanOptions(parse_size(max_file_size), one_file_system=one_file_system, jobs=parse_jobs(jobs))
    walk = walk_options(options, exclude, skip_dirs)
    inv = run_scan(path, load_catalog(catalog), options, quiet, walk=walk)  # any target kind, with progress
    visible, ignored, hidden = settle(list(api.session_findings(inv)), g.entries, g.shown)
    if fmt == "json":
        write_output(_json(dataclasses.replace(inv, findings=visible), ignored), destination)
    else:
        term = terminal_for(destination)
        opts = ReportOptions(width=term.width, wide=wide, colour=term.colour, ignored=ignored,
                             hidden_findings=hidden)
        write_output(_table(dataclasses.replace(inv, findings=visible), opts), destination)
    gate(visible, ignored, g.threshold)


def _json(inv: Inventory, ignored: dict[str, str]) -> str:
    doc = to_document(inv)
    findings = [f for f in doc["findings"] if f["id"].startswith("session-")]
    for f in findings:
        if f["id"] in ignored:
            f["ignored"] = {"reason": ignored[f["id"]]}
    part = {"schema": SESSIONS_SCHEMA_ID, "sessions": doc["sessions"], "routes": doc["routes"], "findings": findings}
    return json.dumps(clean(part), indent=2, ensure_ascii=True) + "\n"


def _table(inv: Inventory, opts: ReportOptions) -> str:
    from scanner.render.table import COLOURS, grid  # the table renderer, loaded only when a table is printed

    findings = inv.findings
    hidden = f"; {opts.hidden_findings} more hidden by --severity" if opts.hidden_findings else ""
    out = [f"Session findings ({len(findings)}{hidden})" if findings else f"Session findings: none{hidden}"]
    if findings:
        cells = [(f.severity.value if f.id not in opts.ignored else f"ignored ({f.severity.value})",
                  f"{f.title}\nid: {f.id}") for f in findings]
        paints = [COLOURS[f.severity] if f.id not in opts.ignored else "" for f in findings]
        out += grid(["severity", "finding"], cells, opts, paints, wrap=1)
    out.append("")
    for title, headers, rows in session_tables.tables(inv):
        if not rows:
            out += [f"{title}: none", ""]
            continue
        out += [f"{title} ({len(rows)})", *grid(headers, rows, opts, main=0), ""]
    return "\n".join(out) + "\n"

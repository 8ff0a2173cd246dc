"""`modelcensus sessions PATH`: only the session forensics of a scan (sessions, routes, their findings)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated

import typer

from scanner.cli.common import completion, fail, load_catalog, parse_size, usable_cores
from scanner.cli.output import write_output
from scanner.cli.scan import run_scan
from scanner.inventory.document import to_document
from scanner.options import DEFAULT_MAX_FILE_SIZE, ScanOptions
from scanner.render.json import clean
from scanner.sessions import report
from scanner.textsafe import escape_control

_FORMATS = ("table", "json")
# The JSON document `sessions -f json` writes; its JSON Schema ships as scanner/cli/sessions.schema.json.
SESSIONS_SCHEMA_ID = "modelcensus/sessions@1"


def sessions_command(
    path: Annotated[
        Path, typer.Argument(help="What to scan: a directory (the VM's root /), a container or disk image",
                             show_default=False),
    ],
    format: Annotated[str, typer.Option("--format", "-f", help="Output format: table, json",
                                        metavar="FORMAT",
                                        autocompletion=completion(_FORMATS))] = "table",
    catalog: Annotated[
        list[Path] | None, typer.Option("--catalog", help="Extra catalog file or directory (repeatable)",
                                        metavar="PATH", envvar="MODELCENSUS_CATALOG", show_envvar=False)
    ] = None,
    max_file_size: Annotated[
        str, typer.Option("--max-file-size", help="Read at most this much of a file (e.g. 64M, 1G)", metavar="SIZE",
                          envvar="MODELCENSUS_MAX_FILE_SIZE", show_envvar=False)
    ] = f"{DEFAULT_MAX_FILE_SIZE >> 20}M",
    output: Annotated[
        Path | None, typer.Option("--output", "-o", help="Write the report here, not stdout", metavar="PATH")
    ] = None,
    quiet: Annotated[bool, typer.Option("--quiet", "-q", help="No progress on stderr", envvar="MODELCENSUS_QUIET",
                                        show_envvar=False)] = False,
) -> None:
    """Which provider really served each agent session found in the VM's logs, whether its reasoning is
    readable, and how model aliases in configs map to what the logs observed."""
    format = format.lower()
    if format not in _FORMATS:
        fail(f"unknown format {format!r}; choose one of: {', '.join(_FORMATS)}")
    options = ScanOptions(parse_size(max_file_size), jobs=usable_cores())
    inv = run_scan(path, load_catalog(catalog), options, quiet)  # any target kind scan takes, with its progress
    findings = [f for f in inv.findings if f.id.startswith("session-")]
    if format == "json":
        doc = to_document(inv)
        part = {
            "schema": SESSIONS_SCHEMA_ID,
            "sessions": doc["sessions"],
            "routes": doc["routes"],
            "findings": [f for f in doc["findings"] if f["id"].startswith("session-")],
        }
        write_output(json.dumps(clean(part), indent=2, ensure_ascii=True) + "\n", output)
        return
    lines = [f"Session findings ({len(findings)})"] if findings else ["Session findings: none"]
    lines += [f"{f.severity.value:<8} {escape_control(f.title)}" for f in findings]
    write_output("\n".join(lines) + "\n\n" + "\n".join(report.sections(inv)), output)

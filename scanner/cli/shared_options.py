"""The options several commands share, declared once: what to scan, how to show it, what to gate on.

No option names its variable here: every command's options learn theirs (`MODELCENSUS_<COMMAND>_<OPTION>`, then
`MODELCENSUS_<OPTION>`) when it parses its arguments, and its `--help` lists them (settings.py, helptext.py).
"""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path
from typing import Annotated, Any

import typer

from scanner.cli.arguments import completion
from scanner.options import DEFAULT_MAX_FILE_SIZE
from scanner.policy.gate import SEVERITIES

SEVERITY_CHOICES = ", ".join(s.value for s in SEVERITIES)

def format_option(choices: Iterable[str]) -> Any:
    """`--format/-f` with its choices in the help and in shell completion."""
    names = list(choices)
    return typer.Option("--format", "-f", help=f"Output format: {', '.join(names)}", metavar="FORMAT",
                        autocompletion=completion(names))


Output = Annotated[
    Path | None, typer.Option("--output", "-o", help="Write the report to this file, never inside the scanned "
                              "target ('-': stdout, the default)", metavar="PATH", show_default=False)]
Catalog = Annotated[
    list[Path] | None, typer.Option("--catalog", help="Extra catalog file or directory (repeatable)", metavar="PATH",
                                    show_default=False)]
MaxFileSize = Annotated[
    str, typer.Option("--max-file-size", help="Parse at most this much of a file whole; the rest is still matched "
                      "(e.g. 64M, 1G)", metavar="SIZE")]
DEFAULT_SIZE = f"{DEFAULT_MAX_FILE_SIZE >> 20}M"
Quiet = Annotated[bool, typer.Option("--quiet", "-q", help="No progress on stderr")]
Wide = Annotated[bool, typer.Option("--wide", help="table: every cell whole, whatever the width")]
ShowAll = Annotated[bool, typer.Option("--all", help="table: every section and row, not only the headline and "
                                       "what needs action; lists model ids that are not wiring")]
Jobs = Annotated[int | None, typer.Option("--jobs", "-j", help="Processes for the per-file work [default: the usable "
                                          "cores]", metavar="N", show_default=False)]
IncludePseudo = Annotated[bool, typer.Option("--include-pseudo", help="Also walk the target's /proc, /sys and /dev")]
OneFileSystem = Annotated[
    bool, typer.Option("--one-file-system/--cross-filesystems",
                       help="Stay on the root's filesystem; every other one met is listed in skipped "
                       "(--cross-filesystems enters them)")]
Exclude = Annotated[
    list[str] | None, typer.Option("--exclude", help="Leave out paths inside the target matching this glob, files or "
                                   "directories: '*.log', '/var/cache' (repeatable)", metavar="GLOB",
                                   show_default=False)]
SkipDirs = Annotated[
    list[str] | None, typer.Option("--skip-dirs", help="Leave out directories inside the target matching this glob: "
                                   "'node_modules', '/srv/*/cache' (repeatable)", metavar="GLOB", show_default=False)]
FailOn = Annotated[
    str | None, typer.Option("--fail-on", help=f"Exit 1 when a finding shown is at or above this severity "
                             f"({SEVERITY_CHOICES})", metavar="SEVERITY", show_default=False)]
Severity = Annotated[
    str | None, typer.Option("--severity", "-s", help=f"Show only findings of these severities, comma-separated "
                             f"({SEVERITY_CHOICES}) [default: all]", metavar="LIST", show_default=False)]
IgnoreFile = Annotated[
    Path | None, typer.Option("--ignore-file", help="Accepted findings with reasons and expiry (default: "
                              "./.modelcensus-ignore.toml when present)", metavar="FILE", show_default=False)]
Ignore = Annotated[
    list[str] | None, typer.Option("--ignore", help="Accept the findings whose id matches this glob, as shown in "
                                   "the report: 'external-model-wired:*claude-haiku*' (repeatable)", metavar="ID",
                                   show_default=False)]
Config = Annotated[
    Path | None, typer.Option("--config", help="Config file (default: ./modelcensus.toml when present)",
                              metavar="FILE", show_default=False)]
CycloneDxVersion = Annotated[
    str, typer.Option("--cyclonedx-version", help="cyclonedx: the schema version to write (1.6 or 1.7)",
                      metavar="VERSION", autocompletion=completion(("1.6", "1.7")))]

"""Gating shared by every command that reports findings or changes: `--fail-on`, `--severity`, `--ignore-file`,
`--ignore`, and the one line that says what tripped the gate."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import date
from pathlib import Path

import typer

from scanner.cli.arguments import fail
from scanner.model import Finding, Severity
from scanner.policy.gate import SEVERITIES, at_or_above, split_findings
from scanner.policy.ignore import DEFAULT_NAME, IgnoreEntry, IgnoreFileError, expired_entries, load_ignore_file
from scanner.textsafe import escape_control, safe

CHOICES = ", ".join(s.value for s in SEVERITIES)
COMMAND_LINE_REASON = "accepted on the command line (--ignore)"


def parse_fail_on(value: str | None, where: str = "") -> Severity | None:
    if value is None or value == "":
        return None
    try:
        return Severity(value.strip().lower())
    except ValueError:
        fail(f"unknown severity {value!r} for --fail-on{where}; choose one of: {CHOICES}")


def parse_severities(value: str | None, where: str = "") -> frozenset[Severity] | None:
    """`--severity high,medium`: the severities shown; None shows all."""
    if value is None or not value.strip():
        return None
    out = set()
    for part in value.split(","):
        try:
            out.add(Severity(part.strip().lower()))
        except ValueError:
            fail(f"unknown severity {part.strip()!r} for --severity{where}; choose from: {CHOICES}")
    return frozenset(out)


def load_ignores(path: Path | None, ids: Sequence[str] | None = None) -> tuple[IgnoreEntry, ...]:
    """The ignore file's entries (./.modelcensus-ignore.toml when none is given), then one per `--ignore ID`."""
    entries: tuple[IgnoreEntry, ...] = ()
    if path is None and Path(DEFAULT_NAME).is_file():
        path = Path(DEFAULT_NAME)
    if path is not None:
        try:
            entries = load_ignore_file(path)
        except IgnoreFileError as exc:
            fail(str(exc))
    for glob in ids or ():
        if not glob.strip():
            fail("--ignore takes a finding id or a glob of ids, as the report shows them")
        entries += (IgnoreEntry(glob.strip(), None, None, COMMAND_LINE_REASON),)
    return entries


def warn_expired(expired: tuple[IgnoreEntry, ...]) -> None:
    for e in expired:
        typer.echo(
            f"modelcensus: warning: ignore entry {escape_control(e.id or e.sha256 or '')} expired on "
            f"{e.expires} and no longer suppresses ({escape_control(e.reason)})",
            err=True,
        )


def unmatched_warning(entries: Sequence[IgnoreEntry], used: set[int]) -> None:
    """An `--ignore` that accepted nothing is most likely a typo: say so (the ignore file's may wait for a finding
    that comes and goes, and stay quiet)."""
    for i, e in enumerate(entries):
        if i not in used and e.reason == COMMAND_LINE_REASON:
            typer.echo(safe(f"modelcensus: warning: --ignore {e.id} matches no finding"), err=True)


def settle(findings: Sequence[Finding], entries: tuple[IgnoreEntry, ...], shown: frozenset[Severity] | None,
           today: date | None = None) -> tuple[tuple[Finding, ...], dict[str, str], int]:
    """(the findings shown, the reasons of those accepted by an ignore entry, how many --severity hides)."""
    today = today or date.today()
    visible = tuple(f for f in findings if shown is None or f.severity in shown)
    _, suppressed = split_findings(visible, entries, today)
    used = {i for _, entry in suppressed for i, e in enumerate(entries) if e is entry}
    unmatched_warning(entries, used)
    warn_expired(expired_entries(entries, today))
    if suppressed:
        typer.echo(f"modelcensus: {len(suppressed)} finding(s) suppressed by ignore entries", err=True)
    return visible, {f.id: entry.reason for f, entry in suppressed}, len(findings) - len(visible)


def gate(findings: Sequence[Finding], ignored: dict[str, str], threshold: Severity | None,
         what: str = "finding") -> None:
    """Exit 1 when a finding left after the ignore entries is at or above the threshold; the line names the most
    severe of them, not merely the first."""
    if threshold is None:
        return
    tripped = [f for f in findings if f.id not in ignored and at_or_above(f.severity, threshold)]
    if tripped:
        worst = max(tripped, key=lambda f: f.severity.rank)  # max keeps the first of equals: the report's order
        typer.echo(safe(f"modelcensus: --fail-on {threshold.value}: {len(tripped)} {what}(s) at or above it; "
                        f"the most severe: {worst.severity.value} {worst.id} ({worst.title})"), err=True)
        raise typer.Exit(1)

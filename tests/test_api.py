"""The library calls on sample_vm: what `scan` returns is what the command line prints as JSON, and `sessions`
keeps the same sessions and routes with only the findings about sessions."""

from __future__ import annotations

import json

from typer.testing import CliRunner

from scanner import api
from scanner.catalog import Catalog
from scanner.cli import app
from scanner.inventory.document import dumps
from tests.conftest import SAMPLE_VM

runner = CliRunner()


def _without_stats(text: str) -> dict[str, object]:
    doc = json.loads(text)
    doc.pop("stats", None)
    return doc


def test_scan_is_what_the_command_line_writes(catalog: Catalog) -> None:
    inv = api.scan(SAMPLE_VM, api.ScanRequest(), catalog)
    out = runner.invoke(app, ["scan", str(SAMPLE_VM), "-q", "-f", "json"])
    assert out.exit_code in (0, 1), out.output
    assert _without_stats(dumps(inv)) == _without_stats(out.stdout)


def test_sessions_keeps_sessions_and_routes_with_the_session_findings(catalog: Catalog) -> None:
    inv = api.scan(SAMPLE_VM, api.ScanRequest(), catalog)
    report = api.sessions(SAMPLE_VM, api.ScanRequest(), catalog)
    assert report.sessions == inv.sessions and report.routes == inv.routes and report.sessions
    assert report.findings == api.session_findings(inv)
    assert report.findings and all(f.id.startswith("session-") for f in report.findings)
    assert len(report.findings) < len(inv.findings)

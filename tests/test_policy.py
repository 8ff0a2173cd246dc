"""Ignore files and --fail-on: on findings (scan) and on changes (diff)."""

from __future__ import annotations

from datetime import date
from pathlib import Path

import pytest
from typer.testing import CliRunner

from scanner.cli import app
from scanner.model import Finding, Location, Severity
from scanner.policy.gate import findings_fail, split_findings
from scanner.policy.ignore import IgnoreEntry, IgnoreFileError, load_ignore_file, parse_ignore
from tests.conftest import write

runner = CliRunner()
TODAY = date(2026, 12, 1)
SHA = "4b864c3f93d4d216" + "0" * 48


def _finding(id_: str, path: str = "/etc/a.env", sev: Severity = Severity.HIGH) -> Finding:
    return Finding(id_, sev, id_, (Location(path, 1),))


def test_entries_match_by_id_glob_path_and_hash() -> None:
    entries = (
        IgnoreEntry("kill-switch-disarmed:*", "/etc/systemd/*", None, "staging"),
        IgnoreEntry(None, None, SHA[:16], "the proxy key"),
    )
    findings = [
        _finding("kill-switch-disarmed:X", "/etc/systemd/x.service"),
        _finding("kill-switch-disarmed:X", "/etc/other.env"),
        _finding(f"credential-world-readable:{SHA[:16]}", "/etc/k.key"),
        _finding("credential-world-readable:ffffffffffffffff", "/etc/k.key"),
    ]
    kept, suppressed = split_findings(findings, entries, TODAY)
    assert [f.locations[0].path for f in kept] == ["/etc/other.env", "/etc/k.key"]
    assert kept[1].id.endswith("ffffffffffffffff")
    assert [e.reason for _, e in suppressed] == ["staging", "the proxy key"]


def test_an_expired_entry_stops_suppressing() -> None:
    entry = IgnoreEntry("x", None, None, "until review", date(2026, 11, 30))
    kept, suppressed = split_findings([_finding("x")], (entry,), TODAY)
    assert kept and not suppressed
    assert findings_fail(kept, Severity.HIGH) and not findings_fail(kept, None)


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ('[[ignore]]\nid = "x"\n', "needs a `reason`"),
        ('[[ignore]]\nreason = "r"\n', "give an `id` or a `sha256`"),
        ('[[ignore]]\nid = "x"\nreason = "r"\nexpires = "soon"\n', "must be a date"),
        ('[[ignore]]\nsha256 = "sk-ant-api03-secret"\nreason = "r"\n', "never the secret"),
        ('[[ignore]]\nid = "x"\nreason = "r"\nwhy = "?"\n', "unknown key"),
        ('[ignores]\n', "unknown table"),
        ("id = [", "not valid TOML"),
    ],
)
def test_a_bad_ignore_file_is_a_clear_error(tmp_path: Path, text: str, message: str) -> None:
    path = tmp_path / "ignore.toml"
    path.write_text(text, encoding="utf-8")
    with pytest.raises(IgnoreFileError, match=message):
        load_ignore_file(path)
    result = runner.invoke(app, ["scan", str(tmp_path), "--ignore-file", str(path)])
    assert result.exit_code == 2 and message in result.output


def test_dates_are_toml_dates_or_iso_strings() -> None:
    entries = parse_ignore(
        {"ignore": [{"id": "a", "reason": "r", "expires": date(2027, 1, 1)}, {"id": "b", "reason": "r",
                                                                               "expires": "2027-02-01"}]},
        "test",
    )
    assert [e.expires for e in entries] == [date(2027, 1, 1), date(2027, 2, 1)]


@pytest.fixture
def disarmed(tmp_path: Path) -> Path:
    vm = tmp_path / "vm"
    write(vm, "/etc/jarvis/runtime.env", "JARVIS_KILL_SWITCH=0\n")
    return vm


def test_scan_fail_on(disarmed: Path) -> None:
    assert runner.invoke(app, ["scan", str(disarmed)]).exit_code == 0
    assert runner.invoke(app, ["scan", str(disarmed), "--fail-on", "high"]).exit_code == 1
    assert runner.invoke(app, ["scan", str(disarmed), "--fail-on", "medium"]).exit_code == 1
    assert runner.invoke(app, ["scan", str(disarmed), "--fail-on", "nope"]).exit_code == 2


def test_scan_ignore_file_and_expiry(disarmed: Path, tmp_path: Path) -> None:
    ignore = tmp_path / "ignore.toml"
    ignore.write_text(
        '[[ignore]]\nid = "kill-switch-disarmed:JARVIS_KILL_SWITCH"\npath = "/etc/jarvis/*"\n'
        'reason = "off in staging"\nexpires = 2999-01-01\n',
        encoding="utf-8",
    )
    ok = runner.invoke(app, ["scan", str(disarmed), "--fail-on", "high", "--ignore-file", str(ignore)])
    assert ok.exit_code == 0, ok.output
    assert "1 finding(s) suppressed" in ok.output
    ignore.write_text(ignore.read_text().replace("2999-01-01", "2001-01-01"), encoding="utf-8")
    expired = runner.invoke(app, ["scan", str(disarmed), "--fail-on", "high", "--ignore-file", str(ignore)])
    assert expired.exit_code == 1
    assert "expired on 2001-01-01" in expired.output


def test_the_default_ignore_file_is_read_from_the_working_directory(
    disarmed: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    work = tmp_path / "repo"
    work.mkdir()
    (work / ".modelcensus-ignore.toml").write_text(
        '[[ignore]]\nid = "kill-switch-disarmed:*"\nreason = "accepted"\n', encoding="utf-8"
    )
    monkeypatch.chdir(work)
    assert runner.invoke(app, ["scan", str(disarmed), "--fail-on", "high"]).exit_code == 0

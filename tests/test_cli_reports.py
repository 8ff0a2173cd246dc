"""Report output on the command line: `-` is stdout, the target is never written, config file, --fail-on."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from scanner.cli import app
from tests.conftest import write

runner = CliRunner()


@pytest.fixture
def vm(tmp_path: Path) -> Path:
    root = tmp_path / "vm"
    write(root, "/etc/agent.yaml", "model: claude-opus-4-8\n")
    return root


def test_output_dash_is_stdout(vm: Path) -> None:
    result = runner.invoke(app, ["scan", str(vm), "-f", "sarif", "-o", "-"])
    assert result.exit_code == 0, result.output
    assert json.loads(result.output)["version"] == "2.1.0"
    assert not (Path.cwd() / "-").exists()


@pytest.mark.parametrize("inside", ["report.html", "etc/report.html", "etc/agent.yaml", "etc/../etc/new.md"])
def test_refuses_to_write_inside_the_target(vm: Path, inside: str) -> None:
    before = {p: p.read_bytes() for p in vm.rglob("*") if p.is_file()}
    result = runner.invoke(app, ["scan", str(vm), "-f", "html", "-o", str(vm / inside)])
    assert result.exit_code == 2
    assert "inside the scanned target" in result.output and "Traceback" not in result.output
    assert {p: p.read_bytes() for p in vm.rglob("*") if p.is_file()} == before


def test_refuses_a_symlink_that_leads_into_the_target(vm: Path, tmp_path: Path) -> None:
    (tmp_path / "out").symlink_to(vm / "etc")
    result = runner.invoke(app, ["scan", str(vm), "-o", str(tmp_path / "out" / "r.txt")])
    assert result.exit_code == 2 and not (vm / "etc" / "r.txt").exists()


def test_writes_each_format_to_a_file(vm: Path, tmp_path: Path) -> None:
    for fmt in ("markdown", "html", "cyclonedx"):
        out = tmp_path / f"report.{fmt}"
        result = runner.invoke(app, ["scan", str(vm), "-f", fmt, "-o", str(out)])
        assert result.exit_code == 0, result.output
        assert result.output == "" and "claude-opus-4-8" in out.read_text(encoding="utf-8")


def test_config_file_in_the_working_directory(vm: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    work = tmp_path / "work"
    write(work, "/acme.toml", """
[catalog]
name = "acme"
version = "2026.12.01"

[[vendors]]
id = "acme"
name = "Acme AI"

[[families]]
id = "roadrunner"
vendor = "acme"
pattern = '\\broadrunner-\\d+\\b'
match = ["roadrunner-2"]
no_match = ["roadrunners"]
""")
    write(work, "/modelcensus.toml", '[scan]\nformat = "json"\ncatalogs = ["acme.toml"]\nmax_file_size = "1M"\n')
    write(vm, "/etc/rr.yaml", "model: roadrunner-2\n")
    monkeypatch.chdir(work)
    result = runner.invoke(app, ["scan", str(vm)])
    assert result.exit_code == 0, result.output
    doc = json.loads(result.output)
    assert "acme" in {c["name"] for c in doc["catalogs"]}
    assert {m["name"]: m["vendor"] for m in doc["models"]}["roadrunner-2"] == "acme"
    # The command line wins over the file.
    result = runner.invoke(app, ["scan", str(vm), "-f", "markdown"])
    assert result.exit_code == 0 and result.output.startswith("## modelcensus report")


def test_explicit_config_and_fail_on(vm: Path, tmp_path: Path) -> None:
    cfg = write(tmp_path, "/c/mc.toml", '[scan]\nfail_on = "medium"\nformat = "sarif"\n')
    result = runner.invoke(app, ["scan", str(vm), "--config", str(cfg)])
    assert result.exit_code == 1  # a wired external model is a medium finding
    assert json.loads(result.stdout)["runs"][0]["results"]
    assert "--fail-on medium:" in result.stderr
    assert runner.invoke(app, ["scan", str(vm), "--config", str(cfg), "--fail-on", "high"]).exit_code == 0


@pytest.mark.parametrize(
    ("content", "message"),
    [
        ('[scan]\nformats = "json"\n', "unknown key 'formats' in [scan]"),
        ("[scan\n", "not valid TOML"),
        ('[report]\nx = 1\n', "unknown section [report]"),
        ('[scan]\ncatalogs = [1]\n', "catalog must be a path or a list of paths"),
        ('[scan]\nfail_on = "severe"\n', "unknown severity 'severe'"),
    ],
)
def test_bad_config_is_a_clear_error(vm: Path, tmp_path: Path, content: str, message: str) -> None:
    cfg = write(tmp_path, "/bad.toml", content)
    result = runner.invoke(app, ["scan", str(vm), "--config", str(cfg)])
    assert result.exit_code == 2 and message in result.output and "Traceback" not in result.output


def test_missing_explicit_config_is_an_error(vm: Path, tmp_path: Path) -> None:
    result = runner.invoke(app, ["scan", str(vm), "--config", str(tmp_path / "nope.toml")])
    assert result.exit_code == 2 and "no such config file" in result.output


def test_shell_completion_is_offered() -> None:
    result = runner.invoke(app, ["--help"], env={"COLUMNS": "200"})
    assert result.exit_code == 0 and "--install-completion" in result.output and "--show-completion" in result.output


def test_config_file_names_the_ignore_file(vm: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    work = tmp_path / "work"
    write(vm, "/etc/a.env", "# live kill switch for the proxy\nPROXY_OVERRIDE=0\n")
    write(work, "/policy/ignore.toml",
          '[[ignore]]\nid = "kill-switch-disarmed:PROXY_OVERRIDE"\nreason = "accepted for the test rig"\n')
    write(work, "/modelcensus.toml", '[scan]\nfail_on = "high"\nignore_file = "policy/ignore.toml"\n')
    monkeypatch.chdir(work)
    failing = runner.invoke(app, ["scan", str(vm), "-q", "--ignore-file", str(work / "missing.toml")])
    assert failing.exit_code == 2  # the command line wins, and a missing ignore file is an error
    result = runner.invoke(app, ["scan", str(vm), "-q", "-f", "json"])
    assert result.exit_code == 0, result.output
    write(work, "/strict.toml", '[scan]\nfail_on = "high"\n')
    strict = runner.invoke(app, ["scan", str(vm), "-q", "-f", "json", "--config", str(work / "strict.toml")])
    assert strict.exit_code == 1  # without the ignore file the same finding fails the scan

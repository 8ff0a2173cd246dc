"""The command line: thin, clear errors with exit 2, never a traceback."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from typer.testing import CliRunner

from scanner import __version__
from scanner.cli import app
from tests.conftest import REPO, validate_document, write

runner = CliRunner()


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["scan", "/definitely/not/here"], "no such file or directory"),
        (["scan", str(REPO / "README.md")], "not a directory"),
        (["scan", str(REPO / "sample_vm"), "--format", "xml"], "unknown format"),
        (["scan", str(REPO / "sample_vm"), "--max-file-size", "lots"], "takes a size"),
        (["scan", str(REPO / "sample_vm"), "--catalog", "/no/such/catalog.toml"], "no such catalog"),
    ],
)
def test_bad_usage_exits_2_with_a_clear_message(args: list[str], message: str) -> None:
    result = runner.invoke(app, args)
    assert result.exit_code == 2
    assert message in result.output
    assert "Traceback" not in result.output


def test_output_file_and_json(tmp_path: Path) -> None:
    vm = tmp_path / "vm"
    write(vm, "/etc/agent.yaml", "model: claude-opus-4-8\n")
    out = tmp_path / "inv.json"
    result = runner.invoke(app, ["scan", str(vm), "-f", "json", "-o", str(out), "-q"])
    assert result.exit_code == 0, result.output
    assert result.output == ""
    doc = json.loads(out.read_text())
    validate_document(doc)
    assert doc["target"] == {"kind": "directory", "location": str(vm)}
    assert [m["name"] for m in doc["models"]] == ["claude-opus-4-8"]


def test_max_file_size_accepts_units(tmp_path: Path) -> None:
    write(tmp_path, "/big.yaml", "model: claude-opus-4-8\n" + "x" * 5000)
    result = runner.invoke(app, ["scan", str(tmp_path), "-f", "json", "--max-file-size", "1k"])
    doc = json.loads(result.output)
    assert [(s["path"], s["reason"]) for s in doc["skipped"]] == [("/big.yaml", "too-large")]


def test_version() -> None:
    result = runner.invoke(app, ["--version"])
    assert result.exit_code == 0 and __version__ in result.output


def test_python_dash_m_runs_the_same_cli(tmp_path: Path) -> None:
    write(tmp_path, "/etc/a.env", "OPENAI_MODEL=gpt-5.5\n")
    result = subprocess.run(
        [sys.executable, "-m", "scanner", "scan", str(tmp_path), "-f", "json"],
        capture_output=True,
        text=True,
        cwd=REPO,
        timeout=120,
    )
    assert result.returncode == 0, result.stderr
    assert "gpt-5.5" in {m["name"] for m in json.loads(result.stdout)["models"]}
    assert result.stderr == ""  # stderr is not a terminal: no progress output


def test_table_is_the_default_format(tmp_path: Path) -> None:
    write(tmp_path, "/etc/a.yaml", "model: claude-opus-4-8\n")
    result = runner.invoke(app, ["scan", str(tmp_path)])
    assert result.exit_code == 0
    assert "claude-opus-4-8" in result.output and "wired models 1" in result.output
    assert "id: external-model-wired:anthropic:" in result.output
    assert "Skipped: nothing" in result.output


def test_an_internal_error_is_one_scrubbed_line_not_a_traceback(capsys, monkeypatch):
    """A bug inside a command (here a command that raises, carrying a key in its message) ends as the one-line
    error form with exit 2; MODELCENSUS_DEBUG=1 gives the traceback back."""
    import pytest
    import typer

    from scanner.cli import OneLineErrors

    key = "sk-ant-api03-" + "A" * 93 + "AA"
    app = typer.Typer(cls=OneLineErrors, pretty_exceptions_enable=False)

    @app.command()
    def boom() -> None:
        raise RuntimeError(f"bad state\nwith {key}")

    @app.command()
    def other() -> None:
        pass

    monkeypatch.delenv("MODELCENSUS_DEBUG", raising=False)
    with pytest.raises(SystemExit) as exit_info:
        typer.main.get_command(app).main(["boom"], prog_name="modelcensus")
    err = capsys.readouterr().err
    assert exit_info.value.code == 2
    assert err.count("\n") == 1 and err.startswith("modelcensus: error: internal error (RuntimeError: bad state with ")
    assert key not in err and "Traceback" not in err
    monkeypatch.setenv("MODELCENSUS_DEBUG", "1")
    with pytest.raises(RuntimeError):
        typer.main.get_command(app).main(["boom"], prog_name="modelcensus")

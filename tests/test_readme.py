"""The README's demo output and command reference are made from the code, and every command's help carries what the
README promises: `-h`, an example, its `MODELCENSUS_*` variables and its config section."""

from __future__ import annotations

from pathlib import Path

import pytest
from typer.core import TyperGroup
from typer.testing import CliRunner

from scanner.cli import app
from scanner.cli.settings import section_name
from tests.conftest import REPO, sample_vm_copy
from tests.readme_blocks import blocks, commands, demo, reference, replaced, shared_variables

runner = CliRunner()
README = REPO / "README.md"
COMMANDS = [path for path, _ in commands()]


def test_readme_blocks_are_made_from_the_code(tmp_path: Path, update_golden: bool) -> None:
    made = {"demo": demo(sample_vm_copy(tmp_path / "sample_vm")), "commands": reference()}
    text = README.read_text(encoding="utf-8")
    if update_golden:
        README.write_text(replaced(text, made), encoding="utf-8")
        text = README.read_text(encoding="utf-8")
    found = blocks(text)
    assert set(found) == set(made), "README.md lost a generated block"
    for name, body in made.items():
        assert found[name] == body, f"README block {name!r} drifted from the code; pytest --update-golden rewrites it"


@pytest.mark.parametrize("path", COMMANDS, ids=lambda p: " ".join(p) or "modelcensus")
def test_every_command_has_h_an_example_its_variables_and_section(path: tuple[str, ...]) -> None:
    cmd = dict(commands())[path]
    result = runner.invoke(app, [*path, "-h"], prog_name="modelcensus", env={"COLUMNS": "100"})
    assert result.exit_code == 0, result.output
    text = result.stdout
    assert text.startswith(f"Usage: modelcensus {' '.join(path)}".rstrip())
    head, _, rest = text.partition("\nExamples:\n")
    shown = [ln.strip().removeprefix("sudo ") for ln in rest.split("\n\n", 1)[0].splitlines()]
    assert shown and all(ln.startswith("modelcensus ") for ln in shown), text
    assert any(ln.startswith(" ".join(("modelcensus", *path))) for ln in shown), text
    assert "Environment:" in rest and "Config file:" in rest
    flat = " ".join(rest.split())
    if isinstance(cmd, TyperGroup):
        assert f"[{section_name((*path, 'COMMAND'))}]" in flat if path else "[COMMAND]" in flat
        return
    for variable in shared_variables(path, cmd):
        assert variable in flat, variable
    assert f"[{section_name(path)}]" in flat
    readme = " ".join(README.read_text(encoding="utf-8").split())
    assert f"config section `[{section_name(path)}]`" in readme
    for variable in shared_variables(path, cmd):
        assert f"`{variable}`" in readme, variable


@pytest.mark.parametrize("path", [p for p in COMMANDS if isinstance(dict(commands())[p], TyperGroup)],
                         ids=lambda p: " ".join(p) or "modelcensus")
def test_a_bare_group_prints_its_help(path: tuple[str, ...]) -> None:
    result = runner.invoke(app, list(path), prog_name="modelcensus")
    assert result.exit_code == 0, result.output
    assert result.stdout.startswith("Usage: modelcensus") and "Commands:" in result.stdout
    assert "\\x0a" not in result.output and "modelcensus: error" not in result.output


def test_scan_help_names_live_and_fleet_help_has_no_markup() -> None:
    assert "--live" in runner.invoke(app, ["scan", "--help"]).stdout
    fleet = runner.invoke(app, ["fleet", "-h"]).stdout
    assert "modelcensus[fleet]" in fleet and "\\[" not in fleet

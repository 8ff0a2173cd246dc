"""A product upgrade is one change with its packages and shipped models folded under it; a config edit is one
change with the models, routes and MCP servers it moves folded under it. On real inventories of the eval's
developer machine, old and new (tests/data/diff/SOURCE.txt)."""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path

import jsonschema
import pytest

from scanner.diff import InventoryDiff
from scanner.diff.compare import diff_inventories
from scanner.diff.diff_document import load_schema, to_document
from scanner.diffrender import render_diff
from scanner.inventory.load import load_file
from scanner.kinds import Inventory

SEVERITIES = ("high", "medium", "low", "info")

DATA = Path(__file__).parent / "data" / "diff"
CODEX = "agents:codex@/usr/lib/node_modules/@openai/codex"
GEMINI = "agents:gemini-cli@/usr/lib/node_modules/@google/gemini-cli"
COPILOT = "agents:copilot-cli@/usr/lib/node_modules/@github/copilot"


@pytest.fixture(scope="module")
def sides() -> tuple[Inventory, Inventory]:
    return load_file(DATA / "dev-machine-old.json"), load_file(DATA / "dev-machine.json")


@pytest.fixture(scope="module")
def diff(sides: tuple[Inventory, Inventory]) -> InventoryDiff:
    return diff_inventories(*sides)


def _tree(diff: InventoryDiff) -> dict[str, list[str]]:
    ids = {c.id for c in diff.changes}
    return {c.id: sorted(d.id for d in diff.details(c)) for c in diff.changes if c.part_of not in ids}


def test_each_product_upgrade_is_one_line_with_its_packages_under_it(diff: InventoryDiff) -> None:
    tree = _tree(diff)
    assert tree[f"{CODEX}:version"] == [
        "models:gpt-6.1-sol",  # with its Bedrock spelling openai.gpt-6.1-sol: one model
        "sdks:npm/@openai/codex-linux-x64@/usr/lib/node_modules/@openai/codex/node_modules:version",
        "sdks:npm/@openai/codex@/usr/lib/node_modules:version",
    ]
    assert tree[f"{GEMINI}:version"] == [
        "models:gemma3-1b-gpu-custom",
        "sdks:npm/@google/gemini-cli-core@/usr/lib/node_modules/@google/gemini-cli/node_modules",
        "sdks:npm/@google/gemini-cli@/usr/lib/node_modules:version",
        "sdks:npm/@google/genai@/usr/lib/node_modules/@google/gemini-cli/node_modules",
    ]
    upgrade = next(c for c in diff.changes if c.id == f"{GEMINI}:version")
    assert upgrade.title == "Gemini CLI upgraded: 0.31.0 → 0.61.0 (packages -2, ~1; models +1)"
    # No package or shipped model is left on a line of its own.
    assert not [c.id for c in diff.changes if c.part_of is None and c.section in ("sdks", "models")]


def test_a_config_edit_is_one_line_with_what_it_wires_under_it(diff: InventoryDiff) -> None:
    tree = _tree(diff)
    assert tree[f"{CODEX}:models"] == [
        "models:gpt-5.5:served_via", "models:gpt-5.5:wired", "models:gpt-5.6-sol:served_via",
        "models:gpt-5.6-sol:wired", "routes:gpt-5.5", "routes:gpt-5.6-sol",
    ]
    assert tree[f"{COPILOT}:mcp_servers"] == ["endpoints:mcp.sentry.dev", "mcp_servers:sentry"]
    edit = next(c for c in diff.changes if c.id == f"{CODEX}:models")
    assert (edit.old, edit.new) == (["gpt-5.5"], ["gpt-5.6-sol"]) and "gpt-5.5 → gpt-5.6-sol" in edit.title


def test_a_model_seen_only_in_test_files_is_not_a_change(sides: tuple[Inventory, Inventory],
                                                          diff: InventoryDiff) -> None:
    # gemini-ultra: old Gemini CLI's gemini-cli-core/dist/src/output/stream-json-formatter.test.js only.
    old_model = next(m for m in sides[0].models if m.name == "gemini-ultra")
    assert all(loc.path.endswith(".test.js") for loc in old_model.locations)
    assert "models:gemini-ultra" not in {c.id for c in diff.changes}
    # The same id anywhere else is compared as ever.
    moved = old_model.locations[0].__class__("/usr/lib/node_modules/@google/gemini-cli/dist/src/config/models.js",
                                             None, old_model.locations[0].context, False)
    shipped = dataclasses.replace(sides[0], models=(*sides[0].models, dataclasses.replace(
        old_model, locations=(*old_model.locations, moved))))
    shipped = dataclasses.replace(shipped, models=tuple(m for m in shipped.models if m is not old_model))
    assert "models:gemini-ultra" in {c.id for c in diff_inventories(shipped, sides[1]).changes}


def test_folding_is_the_same_both_ways(sides: tuple[Inventory, Inventory], diff: InventoryDiff) -> None:
    backward = diff_inventories(sides[1], sides[0])
    assert {c.id: c.part_of for c in backward.changes} == {c.id: c.part_of for c in diff.changes}
    assert "downgraded: 0.61.0 → 0.31.0" in next(c.title for c in backward.changes if c.id == f"{GEMINI}:version")


def test_the_document_and_the_table_show_the_folding(diff: InventoryDiff) -> None:
    doc = json.loads(json.dumps(to_document(diff)))
    jsonschema.Draft202012Validator(load_schema()).validate(doc)
    assert doc["summary"]["folded"] == sum(1 for c in doc["changes"] if c["part_of"])
    assert {c["part_of"] for c in doc["changes"] if c["part_of"]} <= {c["id"] for c in doc["changes"]}
    lines = render_diff("table", diff).splitlines()
    rows = [line for line in lines if line[:1] not in ("", " ") and line.split()[0] in SEVERITIES]  # first lines
    at = next(i for i, line in enumerate(rows) if "Gemini CLI upgraded" in line)
    n = len(diff.details(next(c for c in diff.changes if c.id == f"{GEMINI}:version")))
    assert n == 4 and all("└" in line for line in rows[at + 1:at + 1 + n]), "\n".join(lines)
    assert len(rows) == at + 1 + n or "└" not in rows[at + 1 + n]
    assert "↳ " in render_diff("markdown", diff)

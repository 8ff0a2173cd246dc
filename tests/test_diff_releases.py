"""Two releases of sample_vm: each change reported exactly once, a moved file is not a change, exit codes."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import jsonschema
import pytest
from typer.testing import CliRunner

from scanner import api
from scanner.catalog import Catalog
from scanner.cli import app
from scanner.diff import ChangeKind, InventoryDiff
from scanner.diff.compare import diff_inventories
from scanner.diff.diff_document import load_schema
from scanner.diffrender import DIFF_RENDERERS, render_diff
from scanner.inventory.document import dumps
from scanner.kinds import Inventory
from scanner.model import Severity
from scanner.options import ScanOptions
from scanner.targets import Walker, WalkOptions
from tests.conftest import SAMPLE_VM
from tests.releases import ROTATED_KEY, SITE, copy_release, make_next_release

runner = CliRunner()
DIFF_VALIDATOR = jsonschema.Draft202012Validator(load_schema())

EXPECTED = {
    "models:gemini-3.8-flash": (ChangeKind.ADDED, Severity.MEDIUM),
    "models:muse-1.0": (ChangeKind.REMOVED, Severity.LOW),
    f"sdks:pypi/openai@/{SITE}:version": (ChangeKind.CHANGED, Severity.INFO),
    "kill_switches:safety.kill_switch@/etc/jarvis/daemon.toml:setting": (ChangeKind.CHANGED, Severity.HIGH),
    "credentials:@/etc/inference-proxy/keys/openai.key": (ChangeKind.ROTATED, Severity.LOW),
    "models:azure/muse-special:base_model": (ChangeKind.CHANGED, Severity.HIGH),
    "models:muse-special:base_model": (ChangeKind.CHANGED, Severity.HIGH),
}


def _scan(root: Path, catalog: Catalog) -> Inventory:
    return api.scan(Walker(str(root), WalkOptions()), api.ScanRequest(ScanOptions()), catalog)


@pytest.fixture(scope="module")
def releases(tmp_path_factory: pytest.TempPathFactory, catalog: Catalog) -> dict[str, Any]:
    base = tmp_path_factory.mktemp("releases")
    old_dir = copy_release(base / "1.8.2")
    new_dir = make_next_release(copy_release(base / "1.9.0"))
    old, new = _scan(old_dir, catalog), _scan(new_dir, catalog)
    old_json, new_json = base / "old.json", base / "new.json"
    old_json.write_text(dumps(old), encoding="utf-8")
    new_json.write_text(dumps(new), encoding="utf-8")
    return {"old_dir": old_dir, "new_dir": new_dir, "old": old, "new": new, "old_json": old_json,
            "new_json": new_json, "base": base}


def test_each_change_is_reported_exactly_once(releases: dict[str, Any]) -> None:
    diff = diff_inventories(releases["old"], releases["new"])
    ids = [c.id for c in diff.changes]
    assert sorted(ids) == sorted(EXPECTED), "\n".join(c.title for c in diff.changes)
    for c in diff.changes:
        assert (c.kind, c.severity) == EXPECTED[c.id], c.title


def test_the_changes_say_what_changed(releases: dict[str, Any]) -> None:
    by_id = {c.id: c for c in diff_inventories(releases["old"], releases["new"]).changes}
    assert (by_id["models:azure/muse-special:base_model"].old, by_id["models:azure/muse-special:base_model"].new) == (
        "gpt-5.5", "gpt-5.6-terra")
    sdk = by_id[f"sdks:pypi/openai@/{SITE}:version"]
    assert (sdk.old, sdk.new) == ("3.57.0", "3.58.1") and "upgraded" in sdk.title
    switch = by_id["kill_switches:safety.kill_switch@/etc/jarvis/daemon.toml:setting"]
    assert (switch.old, switch.new) == ({"value": "true", "state": "on"}, {"value": "false", "state": "off"})
    added = by_id["models:gemini-3.8-flash"]
    assert added.new["vendor"] == "google" and added.new["wired"] is True and added.old is None
    rotated = by_id["credentials:@/etc/inference-proxy/keys/openai.key"]
    assert rotated.old["key"] != rotated.new["key"]
    assert rotated.where == ("/etc/inference-proxy/keys/openai.key",)


def test_a_moved_file_is_not_a_change(releases: dict[str, Any]) -> None:
    new_paths = {loc.path for m in releases["new"].models for loc in m.locations}
    old_paths = {loc.path for m in releases["old"].models for loc in m.locations}
    assert "/etc/codex/config.toml" in new_paths and "/home/agent/.codex/config.toml" in old_paths
    diff = diff_inventories(releases["old"], releases["new"])
    assert not [c for c in diff.changes if "codex" in c.id]


def test_the_reverse_diff_is_the_inverse(releases: dict[str, Any]) -> None:
    forward = diff_inventories(releases["old"], releases["new"])
    backward = diff_inventories(releases["new"], releases["old"])
    assert sorted(c.id for c in forward.changes) == sorted(c.id for c in backward.changes)
    switch = next(c for c in backward.changes if c.section == "kill_switches")
    assert switch.severity is Severity.MEDIUM  # off -> on is less severe than on -> off


def _validated(text: str) -> dict[str, Any]:
    doc: dict[str, Any] = json.loads(text)
    DIFF_VALIDATOR.validate(doc)
    return doc


@pytest.mark.parametrize("fmt", sorted(DIFF_RENDERERS))
def test_every_format_renders_without_the_secret(releases: dict[str, Any], fmt: str) -> None:
    diff: InventoryDiff = diff_inventories(releases["old"], releases["new"])
    text = render_diff(fmt, diff)
    old_key = (SAMPLE_VM / "etc/inference-proxy/keys/openai.key").read_text().strip()
    assert ROTATED_KEY not in text and old_key not in text
    assert "gemini-3.8-flash" in text
    if fmt == "json":
        doc = _validated(text)
        assert doc["summary"]["changes"] == len(EXPECTED)
        assert doc["summary"]["by_severity"]["high"] == 3
    if fmt == "markdown":
        assert "| severity | change | what | where |" in text


def test_cli_diff_of_json_files_and_directories(releases: dict[str, Any]) -> None:
    old_json, new_json, new_dir = str(releases["old_json"]), str(releases["new_json"]), str(releases["new_dir"])
    from_files = runner.invoke(app, ["diff", old_json, new_json, "-f", "json"])
    assert from_files.exit_code == 0, from_files.output
    mixed = runner.invoke(app, ["diff", old_json, new_dir, "-f", "json"])
    assert mixed.exit_code == 0, mixed.output
    changes = lambda r: [c["id"] for c in _validated(r.stdout)["changes"]]  # noqa: E731
    assert changes(from_files) == changes(mixed) and len(changes(mixed)) == len(EXPECTED)


@pytest.mark.parametrize(
    ("args", "code"),
    [
        (["--fail-on", "high"], 1),
        (["--fail-on", "HIGH"], 1),
        ([], 0),
    ],
)
def test_cli_diff_exit_codes(releases: dict[str, Any], args: list[str], code: int) -> None:
    result = runner.invoke(app, ["diff", str(releases["old_json"]), str(releases["new_json"]), *args])
    assert result.exit_code == code, result.output
    assert "kill switch safety.kill_switch" in result.stdout


def test_cli_diff_of_an_inventory_with_itself_is_clean(releases: dict[str, Any]) -> None:
    result = runner.invoke(app, ["diff", str(releases["old_json"]), str(releases["old_dir"]), "--fail-on", "info"])
    assert result.exit_code == 0, result.output
    assert "0 change(s)" in result.stdout


def test_baseline_fails_on_what_is_new_only(releases: dict[str, Any], tmp_path: Path) -> None:
    new_then_old = runner.invoke(app, ["diff", "--baseline", str(releases["old_json"]), str(releases["new_dir"])])
    assert new_then_old.exit_code == 1  # a key rotated, a model added, a switch disarmed: new since the baseline
    # Going back to the baseline's own content only removes and downgrades: nothing above `low` is new.
    back = runner.invoke(
        app, ["diff", "--baseline", str(releases["new_json"]), str(releases["old_dir"]), "--fail-on", "high"]
    )
    assert back.exit_code == 1  # the base model moving back is still high
    ignore = tmp_path / "ignore.toml"
    ignore.write_text(
        '[[ignore]]\nid = "models:*:base_model"\nreason = "release 1.8 keeps the 1.9 deployment map"\n',
        encoding="utf-8",
    )
    accepted = runner.invoke(
        app,
        ["diff", "--baseline", str(releases["new_json"]), str(releases["old_dir"]), "--fail-on", "high",
         "--ignore-file", str(ignore)],
    )
    assert accepted.exit_code == 0, accepted.output
    assert "Ignored (2)" in accepted.stdout


def test_catalog_drift_is_reported_once(releases: dict[str, Any], tmp_path: Path) -> None:
    # OLD as an older catalog described it: gpt-5.1-codex-max still active, the openai catalog a version behind.
    doc = json.loads(releases["old_json"].read_text(encoding="utf-8"))
    for m in doc["models"]:
        if m["name"] == "gpt-5.1-codex-max":
            m["lifecycle"] = "active"
    for c in doc["catalogs"]:
        if c["name"] == "openai":
            c["version"] = "2026.01.01"
    old = tmp_path / "old-catalog.json"
    old.write_text(json.dumps(doc), encoding="utf-8")
    result = runner.invoke(app, ["diff", str(old), str(releases["old_dir"]), "-f", "json"])
    assert result.exit_code == 0, result.output
    out = _validated(result.stdout)
    assert [(c["id"], c["kind"], c["severity"]) for c in out["changes"]] == [
        ("models:gpt-5.1-codex-max:catalog", "drift", "medium")
    ]
    assert out["old"]["catalogs"] != out["new"]["catalogs"]


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["diff", "/no/such.json", "/no/other.json"], "no such file or directory"),
        (["diff", "ONE"], "give two sides"),
        (["diff", "--baseline", "a.json", "b", "c"], "give one target"),
        (["diff", "a.json", "b.json", "--fail-on", "severe"], "unknown severity"),
        (["diff", "a.json", "b.json", "--format", "xml"], "unknown format"),
    ],
)
def test_diff_usage_errors_exit_2(args: list[str], message: str) -> None:
    result = runner.invoke(app, args)
    assert result.exit_code == 2 and message in result.output
    assert "Traceback" not in result.output

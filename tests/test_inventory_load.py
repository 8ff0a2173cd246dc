"""Inventory JSON back into the model: a faithful round trip, and one clear error for anything else."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from scanner.cli import app
from scanner.inventory.document import to_document
from scanner.inventory.load import InventoryLoadError, from_document, load_file
from tests.conftest import SAMPLE_VM, ScanFn

runner = CliRunner()


def test_round_trip_of_sample_vm(scan_dir: ScanFn, tmp_path: Path) -> None:
    inv, doc = scan_dir(SAMPLE_VM)
    path = tmp_path / "inv.json"
    path.write_text(json.dumps(doc), encoding="utf-8")
    loaded = load_file(path)
    assert to_document(loaded) == doc
    assert loaded.models == inv.models and loaded.credentials == inv.credentials


def test_an_unknown_skip_reason_from_a_newer_scanner_is_kept(scan_dir: ScanFn, tmp_path: Path) -> None:
    _, doc = scan_dir(SAMPLE_VM)
    doc["skipped"] = [{"path": "/x", "reason": "future-reason", "detail": "why"}]
    inv = from_document(doc)
    assert inv.skipped[0].detail == "future-reason: why"


@pytest.mark.parametrize(
    ("content", "message"),
    [
        (b"\x7fELF\x02\x01\x01\x00", "not JSON"),
        (b"{\"schema\": \"cyclonedx\"}", "not a modelcensus inventory"),
        (b"[1, 2, 3]", "not a modelcensus inventory"),
        (b"{\"schema\": \"modelcensus/inventory@1\", \"models\": []}", "does not match modelcensus/inventory@1"),
        (b"", "not JSON"),
    ],
)
def test_a_foreign_file_is_a_clear_error(tmp_path: Path, content: bytes, message: str) -> None:
    path = tmp_path / "thing.json"
    path.write_bytes(content)
    with pytest.raises(InventoryLoadError, match=message):
        load_file(path)
    result = runner.invoke(app, ["diff", str(path), str(path)])
    assert result.exit_code == 2 and message in result.output and "Traceback" not in result.output


def test_a_wrong_field_type_names_where(scan_dir: ScanFn) -> None:
    _, doc = scan_dir(SAMPLE_VM)
    doc["models"][0]["wired"] = "yes"
    with pytest.raises(InventoryLoadError, match=r"models/0/wired"):
        from_document(doc)

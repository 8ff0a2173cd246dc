"""The inventory contract: schema, de-duplication, stable order, findings, and same bytes for the same tree."""

from __future__ import annotations

import copy
import json
from pathlib import Path

import jsonschema
import pytest

from scanner.inventory.document import SCHEMA_ID, load_schema
from tests.conftest import entry, validate_document, write

TREE = {
    "/etc/agent/config.yaml": "model: claude-opus-4-8\nfallback_model: gpt-5.5\nbase_url: https://api.anthropic.com/v1\n",
    "/etc/agent/b.json": '{"models": ["muse-2.0", "claude-opus-4-8"], "kill_switch": false}',
    "/opt/app/main.py": 'client.messages.create(model="claude-opus-4-8")\n',
    "/opt/app/README.md": "We used to run claude-3-opus-20240229.\n",
}


def build(root: Path) -> None:
    for inside, text in TREE.items():
        write(root, inside, text)


def test_same_tree_same_bytes(tmp_path: Path, scan_dir) -> None:  # type: ignore[no-untyped-def]
    build(tmp_path / "one")
    build(tmp_path / "two")
    docs = []
    for name in ("one", "one", "two"):
        _, doc = scan_dir(tmp_path / name)
        doc.pop("stats")
        doc.pop("target")
        docs.append(json.dumps(doc, sort_keys=False))
    assert docs[0] == docs[1] == docs[2]


def test_one_entry_per_name_with_all_its_locations(tmp_path: Path, scan_dir) -> None:  # type: ignore[no-untyped-def]
    build(tmp_path)
    _, doc = scan_dir(tmp_path)
    opus = entry(doc, "models", name="claude-opus-4-8")
    assert [(loc["path"], loc["context"]) for loc in opus["locations"]] == [
        ("/etc/agent/b.json", "config"),
        ("/etc/agent/config.yaml", "config"),
        ("/opt/app/main.py", "source"),
    ]
    assert opus["wired"] and opus["canonical"] == "claude-opus-4-8" and opus["vendor"] == "anthropic"
    assert not entry(doc, "models", name="claude-3-opus-20240229")["wired"]
    muse = entry(doc, "models", name="muse-2.0")
    assert (muse["catalog"], muse["vendor"], muse["wired"]) == ("unknown", None, True)


def test_models_sorted_by_vendor_then_wired_first(tmp_path: Path, scan_dir) -> None:  # type: ignore[no-untyped-def]
    build(tmp_path)
    _, doc = scan_dir(tmp_path)
    keys = [(m["vendor"] or "~", not m["wired"], m["name"]) for m in doc["models"]]
    assert keys == sorted(keys)


def test_findings_name_external_vendors_and_kill_switches(tmp_path: Path, scan_dir) -> None:  # type: ignore[no-untyped-def]
    build(tmp_path)
    write(tmp_path, "/etc/agent/run.env", "# live kill switch for the proxy\nPROXY_OVERRIDE=0\n")
    _, doc = scan_dir(tmp_path)
    ids = {f["id"]: f["severity"] for f in doc["findings"]}
    # the record's base URL is Anthropic's API
    assert ids["external-model-wired:anthropic:direct:claude-opus-4-8"] == "medium"
    assert ids["kill-switch-disarmed:PROXY_OVERRIDE"] == "high"
    assert ids["uncatalogued-models-wired"] == "info"
    severities = [f["severity"] for f in doc["findings"]]
    order = {"high": 0, "medium": 1, "low": 2, "info": 3}
    assert severities == sorted(severities, key=order.__getitem__)


def test_schema_rejects_what_the_contract_forbids(tmp_path: Path, scan_dir) -> None:  # type: ignore[no-untyped-def]
    build(tmp_path)
    _, doc = scan_dir(tmp_path)
    assert doc["schema"] == SCHEMA_ID and load_schema()["properties"]["schema"]["const"] == SCHEMA_ID
    broken = copy.deepcopy(doc)
    broken["models"][0]["locations"][0]["context"] = "somewhere"
    with pytest.raises(jsonschema.ValidationError):
        validate_document(broken)
    extra = copy.deepcopy(doc)
    extra["models"][0]["secret"] = "x"
    with pytest.raises(jsonschema.ValidationError):
        validate_document(extra)
    long_redaction = copy.deepcopy(doc)
    long_redaction["credentials"] = [
        {"type": "t", "vendor": None, "redacted": "x" * 80, "sha256": "0" * 64, "locations": []}
    ]
    with pytest.raises(jsonschema.ValidationError):
        validate_document(long_redaction)

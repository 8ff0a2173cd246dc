"""The sample agent VM (see sample_vm.md), scanned as a whole: what a correct inventory must say about it."""

from __future__ import annotations

import dataclasses
import hashlib
import importlib.util
import json
import os
import shutil
from pathlib import Path
from typing import Any

import pytest
import yaml

from scanner import api
from scanner.catalog import Catalog
from scanner.inventory.document import dumps
from scanner.kinds import Inventory
from scanner.model import Stats
from scanner.options import ScanOptions
from scanner.render import render
from scanner.targets import Walker, WalkOptions
from tests.conftest import REPO, SAMPLE_VM, entry, names, validate_document

KEY_DIR = "/etc/inference-proxy/keys"
SITE = "/opt/jarvis/venv/lib/python3.11/site-packages"
WIRING = {"config", "env", "source", "binary", "session"}


def _apply_perms(root: Path) -> None:
    """scripts/apply_perms.py's own `main`, as `make test` runs it, on the copy (never on the repo's tree)."""
    spec = importlib.util.spec_from_file_location("apply_perms", REPO / "scripts" / "apply_perms.py")
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    module.main(str(root), str(REPO / "sample_vm.perms"))


def _scan(root: Path, catalog: Catalog) -> tuple[Inventory, dict[str, Any]]:
    inv = api.scan(Walker(str(root), WalkOptions()), api.ScanRequest(ScanOptions()), catalog)
    doc = json.loads(dumps(inv))
    validate_document(doc)
    return inv, doc


@pytest.fixture(scope="module")
def vm(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("sample") / "vm"
    shutil.copytree(SAMPLE_VM, root, symlinks=True)
    _apply_perms(root)
    return root


@pytest.fixture(scope="module")
def scanned(vm: Path, catalog: Catalog) -> tuple[Inventory, dict[str, Any]]:
    return _scan(vm, catalog)


@pytest.fixture(scope="module")
def doc(scanned: tuple[Inventory, dict[str, Any]]) -> dict[str, Any]:
    return scanned[1]


def locs(e: dict[str, Any]) -> set[tuple[str, int | None, str]]:
    return {(loc["path"], loc["line"], loc["context"]) for loc in e["locations"]}


def _name_of(db: Path, ident: int) -> str:
    for line in db.read_text().splitlines():
        fields = line.split(":")
        if len(fields) >= 3 and fields[2] == str(ident):
            return fields[0]
    return str(ident)


# --- models ----------------------------------------------------------------------------------------


def test_every_model_of_the_catalogue_is_present_and_wired(doc: dict[str, Any]) -> None:
    catalogue = yaml.safe_load((SAMPLE_VM / "etc/jarvis/models.yaml").read_text())["models"]
    ids = [m["id"] for m in catalogue]
    assert len(ids) == 30 and "azure/muse-special" in ids
    by_name = {m["name"]: m for m in doc["models"]}
    missing = [i for i in ids if i not in by_name]
    assert not missing
    assert [i for i in ids if not by_name[i]["wired"]] == []
    for i in ids:
        assert any(x["path"] == "/etc/jarvis/models.yaml" for x in by_name[i]["locations"]), i


@pytest.mark.parametrize(
    ("name", "path", "context"),
    [
        ("claude-3-opus-20240229", "/opt/jarvis/CHANGELOG.md", "docs"),
        ("gpt-4o", "/opt/jarvis/README.md", "docs"),
        ("gpt-4.1-mini", "/opt/jarvis/lib/jarvis/tests/fixtures/sample_config.yaml", "test"),
        ("claude-3-5-sonnet-20241022", "/usr/share/doc/jarvis/examples/config.example.yaml", "docs"),
    ],
)
def test_decoys_are_present_but_not_wired(doc: dict[str, Any], name: str, path: str, context: str) -> None:
    m = entry(doc, "models", name=name)
    assert m["wired"] is False
    assert path in {x["path"] for x in m["locations"]}
    assert {x["context"] for x in m["locations"]} == {context}
    assert not [f for f in doc["findings"] if name in f["title"] and f["severity"] != "info"]


def test_commented_out_default_model_is_a_comment(doc: dict[str, Any]) -> None:
    opus = entry(doc, "models", name="claude-opus-4-8")
    assert ("/etc/jarvis/runtime.env", 11, "comment") in locs(opus)
    assert opus["wired"] is True  # wired elsewhere: Claude Code settings, anthropic_client.py, LiteLLM
    assert any(p == "/opt/jarvis/lib/jarvis/providers/anthropic_client.py" and c == "source" for p, _, c in locs(opus))
    assert ("/home/agent/.claude/settings.json", "config") in {(p, c) for p, _, c in locs(opus)}


def test_runtime_env_default_model_is_read_as_a_setting(doc: dict[str, Any]) -> None:
    assert ("/etc/jarvis/runtime.env", 10, "env") in locs(entry(doc, "models", name="muse-3.2"))


def test_azure_muse_special_is_gpt_5_5_served_by_azure(doc: dict[str, Any]) -> None:
    m = entry(doc, "models", name="azure/muse-special")
    assert (m["served_via"], m["base_model"], m["wired"]) == ("azure", "gpt-5.5", True)
    assert {"/etc/jarvis/azure.yaml", "/etc/jarvis/models.yaml", "/etc/litellm/config.yaml"} <= {
        x["path"] for x in m["locations"]
    }


# --- SDKs and endpoints ----------------------------------------------------------------------------


def test_anthropic_sdk_installed_in_the_venv(doc: dict[str, Any]) -> None:
    sdk = entry(doc, "sdks", ecosystem="pypi", name="anthropic", installed=True)
    assert (sdk["version"], sdk["environment"], sdk["vendor"]) == ("2.14.0", SITE, "anthropic")
    assert locs(sdk) == {(f"{SITE}/anthropic-2.14.0.dist-info/METADATA", None, "package")}
    declared = entry(doc, "sdks", ecosystem="npm", name="@anthropic-ai/sdk", installed=False)
    assert (declared["version"], declared["environment"]) == ("^1.14.0", "/opt/jarvis/ui/package.json")
    assert entry(doc, "sdks", ecosystem="npm", name="@anthropic-ai/sdk", installed=True)["version"] == "1.14.0"
    assert not {"requests", "react"} & names(doc, "sdks")


def test_endpoints(doc: dict[str, Any]) -> None:
    api = entry(doc, "endpoints", host="api.anthropic.com")
    assert (api["vendor"], api["served_via"], api["wired"]) == ("anthropic", "direct", True)
    assert ("/opt/jarvis/bin/jarvisd", None, "binary") in locs(api)
    azure = entry(doc, "endpoints", host="jarvis-prod.openai.azure.com")
    assert azure["wired"] is True
    assert "https://jarvis-prod.openai.azure.com" in azure["urls"]
    assert ("/etc/jarvis/azure.yaml", 3, "config") in locs(azure)
    assert all(url.startswith(("http://", "https://")) for e in doc["endpoints"] for url in e["urls"])


def test_endpoint_urls_from_the_binary_end_at_nul(doc: dict[str, Any]) -> None:
    assert [u for e in doc["endpoints"] for u in e["urls"] if "\x00" in u] == []


# --- credentials -----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("file", "kind", "prefix"),
    [
        ("anthropic.key", "anthropic-api-key", "sk-ant-api03-"),
        ("openai.key", "openai-project-key", "sk-proj-"),
        ("azure.key", None, ""),
    ],
)
def test_key_files(vm: Path, doc: dict[str, Any], file: str, kind: str | None, prefix: str) -> None:
    key = (vm / KEY_DIR.lstrip("/") / file).read_text().strip()
    cred = entry(doc, "credentials", sha256=hashlib.sha256(key.encode()).hexdigest())
    assert cred["redacted"] == f"{prefix}…{key[-4:]}"
    if kind:
        assert cred["type"] == kind
    else:  # prefix-less 32 hex: which vendor depends on the catalogs present
        assert cred["type"].endswith("api-key")
    if os.geteuid() == 0:
        owner = "inference-proxy:inference-proxy"
    else:
        owner = f"{_name_of(vm / 'etc/passwd', os.getuid())}:{_name_of(vm / 'etc/group', os.getgid())}"
    shown = [(x["path"], x["line"], x["mode"], x["owner"]) for x in cred["locations"]]
    assert shown == [(f"{KEY_DIR}/{file}", 1, "0400", owner)]


def test_exactly_the_three_provider_keys_and_no_placeholder(doc: dict[str, Any]) -> None:
    assert len(doc["credentials"]) == 3
    assert {x["path"] for c in doc["credentials"] for x in c["locations"]} == {
        f"{KEY_DIR}/anthropic.key",
        f"{KEY_DIR}/openai.key",
        f"{KEY_DIR}/azure.key",
    }
    assert not [f for f in doc["findings"] if f["id"].startswith("credential-world-readable")]


def test_no_key_file_content_in_any_output(vm: Path, scanned: tuple[Inventory, dict[str, Any]]) -> None:
    inv, doc = scanned
    outputs = [dumps(inv), render("table", inv), *(s["detail"] for s in doc["skipped"])]
    keys = [p.read_text().strip() for p in sorted((vm / KEY_DIR.lstrip("/")).iterdir())]
    assert len(keys) == 3
    for key in keys:
        for text in outputs:
            assert key not in text
            assert key[4:-4] not in text


# --- kill switches, skips, determinism -------------------------------------------------------------


def test_revproxy_override_is_a_disarmed_kill_switch(doc: dict[str, Any]) -> None:
    name = "JARVIS_ANTHROPIC_BASE_URL_REVPROXY_OVERRIDE"
    switch = entry(doc, "kill_switches", name=name)
    assert (switch["value"], switch["state"]) == ("0", "off")
    assert locs(switch) == {("/etc/jarvis/runtime.env", 21, "env")}
    assert switch["note"] and "kill switch" in switch["note"].lower()
    finding = entry(doc, "findings", id=f"kill-switch-disarmed:{name}")
    assert finding["severity"] == "high"
    assert [(x["path"], x["line"], x["context"]) for x in finding["locations"]] == [
        ("/etc/jarvis/runtime.env", 21, "env")
    ]


def test_the_three_kill_switches_disagree(doc: dict[str, Any]) -> None:
    states = {(k["name"], k["state"]) for k in doc["kill_switches"] if k["value"] is not None}
    assert {
        ("JARVIS_ANTHROPIC_BASE_URL_REVPROXY_OVERRIDE", "off"),
        ("JARVIS_KILL_SWITCH", "off"),
        ("safety.kill_switch", "on"),
    } <= states
    unit = entry(doc, "kill_switches", name="JARVIS_KILL_SWITCH", value="0")
    assert locs(unit) == {("/etc/systemd/system/jarvisd.service", 12, "env")}


def test_no_detector_error(doc: dict[str, Any]) -> None:
    assert [s for s in doc["skipped"] if s["reason"] == "detector-error"] == []
    assert all(not x["parse_error"] for m in doc["models"] for x in m["locations"])


def test_two_scans_are_identical_but_for_stats(vm: Path, catalog: Catalog) -> None:
    first, _ = _scan(vm, catalog)
    second, _ = _scan(vm, catalog)
    assert first.stats.files_read == second.stats.files_read > 50
    blank = Stats()
    assert dumps(dataclasses.replace(first, stats=blank)) == dumps(dataclasses.replace(second, stats=blank))

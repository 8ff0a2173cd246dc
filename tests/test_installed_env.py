"""Findings on shipped clients, and the scan of a real installed environment (pip install --target)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import SAMPLE_VM, ScanFn, entry, write

_SDKS = ("openai", "anthropic", "litellm")


def test_retired_model_finding_names_the_shutdown_date(scan_dir: ScanFn) -> None:
    _, doc = scan_dir(SAMPLE_VM)
    finding = entry(doc, "findings", id="model-retired:gpt-5.1-codex-max")
    assert finding["title"] == "gpt-5.1-codex-max is retired (shut down 2026-07-23) but still wired"
    assert entry(doc, "models", name="gpt-5.1-codex-max")["retires"] == "2026-07-23"


def test_dormant_client_is_shipped_but_not_configured(tmp_path: Path, scan_dir: ScanFn) -> None:
    site = "/opt/app/venv/lib/python3.12/site-packages"
    write(
        tmp_path,
        f"{site}/anthropic-2.14.0.dist-info/METADATA",
        "Metadata-Version: 2.3\nName: anthropic\nVersion: 2.14.0\n",
    )
    write(
        tmp_path, f"{site}/openai-3.57.0.dist-info/METADATA", "Metadata-Version: 2.3\nName: openai\nVersion: 3.57.0\n"
    )
    write(tmp_path, "/etc/app/config.yaml", "model: gpt-5.5\n")
    _, doc = scan_dir(tmp_path)
    dormant = entry(doc, "findings", id="dormant-client:anthropic")
    assert dormant["severity"] == "low" and "pypi anthropic 2.14.0" in dormant["title"]
    assert not [f for f in doc["findings"] if f["id"] == "dormant-client:openai"]  # config routes to openai


@pytest.fixture(scope="module")
def installed(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("vm")
    target = root / "opt/agent/site-packages"
    cmd = [
        sys.executable,
        "-m",
        "pip",
        "install",
        "--quiet",
        "--disable-pip-version-check",
        "--no-compile",
        "--target",
        str(target),
        *_SDKS,
    ]
    try:
        subprocess.run(cmd, check=True, capture_output=True, timeout=600)
    except (subprocess.CalledProcessError, subprocess.TimeoutExpired, OSError) as exc:
        pytest.skip(f"pip install of {_SDKS} unavailable here (offline?): {type(exc).__name__}")
    return root


def test_real_installed_sdks_have_exact_versions_and_their_model_lists_are_not_wired(
    installed: Path, scan_dir: ScanFn
) -> None:
    target = installed / "opt/agent/site-packages"
    expected = {}
    for name in _SDKS:
        dist = next(target.glob(f"{name}-*.dist-info"))
        expected[name] = dist.name[len(name) + 1 : -len(".dist-info")]
    _, doc = scan_dir(installed)
    for name, version in expected.items():
        sdk = entry(doc, "sdks", ecosystem="pypi", name=name)
        assert (sdk["version"], sdk["installed"], sdk["environment"]) == (version, True, "/opt/agent/site-packages")
    assert len(doc["models"]) > 100  # the SDKs' own model lists are seen …
    assert [m["name"] for m in doc["models"] if m["wired"]] == []  # … and none of them is wiring
    assert not [f for f in doc["findings"] if f["id"].startswith(("external-model-wired", "uncatalogued-models"))]

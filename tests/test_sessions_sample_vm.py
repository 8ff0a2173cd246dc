"""The public case on sample_vm: many in-house sessions, one subagent served by OpenAI through Azure."""

from __future__ import annotations

import json
from typing import Any

import pytest
from typer.testing import CliRunner

from scanner.cli import app
from tests.conftest import SAMPLE_VM, ScanFn, entry


@pytest.fixture(scope="module")
def doc(catalog) -> dict[str, Any]:  # type: ignore[no-untyped-def]
    from scanner import api
    from scanner.inventory.document import to_document
    from scanner.options import ScanOptions
    from scanner.targets import Walker, WalkOptions
    from tests.conftest import validate_document

    inv = api.scan(Walker(str(SAMPLE_VM), WalkOptions()), api.ScanRequest(ScanOptions()), catalog)
    out = json.loads(json.dumps(to_document(inv)))
    validate_document(out)
    return out


def test_the_one_external_session_is_openai_via_azure(doc: dict[str, Any]) -> None:
    external = [
        s for s in doc["sessions"] if any(p["vendor"] not in ("self-hosted", "unknown") for p in s["providers"])
    ]
    assert [s["session_id"] for s in external] == ["subagent-ec964d3d4496eba5"]
    s = external[0]
    (p,) = s["providers"]
    assert (p["vendor"], p["served_via"], p["api"]) == ("openai", "azure", "openai-responses")
    assert s["reasoning"] == "visible"  # a readable summary beside each Fernet blob
    assert s["fernet"] == {"tokens": 8, "consistent": 8, "inconsistent": 0, "max_skew_seconds": 0}
    assert s["labels"] == ["azure/muse-special"]
    assert s["parent_session_id"] == "session-92913bcbacbb07b7"
    assert {"openai-responses-id", "openai-tool-call-id", "openai-fernet-reasoning", "responses-wire-tag"} <= {
        e["rule"] for e in p["evidence"]
    }
    for e in p["evidence"]:
        assert len(e["example"]) <= 40  # evidence is shortened, never a whole blob


def test_in_house_sessions_are_self_hosted_with_visible_reasoning(doc: dict[str, Any]) -> None:
    inhouse = [s for s in doc["sessions"] if s["labels"] and s["labels"][0].startswith("muse-")]
    assert len(inhouse) >= 2
    for s in inhouse:
        assert [p["vendor"] for p in s["providers"]] == ["self-hosted"]
        assert s["reasoning"] == "visible"
        assert s["mismatched_labels"] == []


def test_route_azure_muse_special_observed_as_openai_responses(doc: dict[str, Any]) -> None:
    r = entry(doc, "routes", alias="azure/muse-special")
    assert (r["declared_via"], r["base_model"]) == ("azure", "gpt-5.5")
    assert r["observed"] == {"vendor": "openai", "served_via": "azure", "api": "openai-responses"}
    assert (r["sessions"], r["days"], r["confidence"]) == (1, ["2026-11-20"], "high")


def test_findings_name_the_external_session_and_the_mismatch(doc: dict[str, Any]) -> None:
    ids = {f["id"] for f in doc["findings"]}
    assert {
        "session-external-provider:subagent-ec964d3d4496eba5",
        "session-label-mismatch:subagent-ec964d3d4496eba5",
    } <= ids
    # Its reasoning items carry a readable summary beside the Fernet blob: visible, so no encryption finding.
    assert "session-reasoning-encrypted:subagent-ec964d3d4496eba5" not in ids
    assert not [i for i in ids if i.startswith("session-fernet-time-mismatch")]
    assert not [i for i in ids if i.startswith("session-") and "session-92913" in i]


def test_session_labels_make_models_wired(doc: dict[str, Any]) -> None:
    m = entry(doc, "models", name="muse-3.2")
    assert "session" in {loc["context"] for loc in m["locations"]}


def test_fernet_time_mismatch_is_a_finding(scan_dir: ScanFn, tmp_path) -> None:  # type: ignore[no-untyped-def]
    src = SAMPLE_VM / "home/agent/.jarvis/sessions/2026-11-20/subagent-ec964d3d4496eba5.jsonl"
    shifted = src.read_text().replace('"timestamp":"2026-11-20T09:', '"timestamp":"2026-11-21T09:')
    (tmp_path / "var/log").mkdir(parents=True)
    (tmp_path / "var/log/replayed.jsonl").write_text(shifted)
    _, out = scan_dir(tmp_path)
    assert "session-fernet-time-mismatch:subagent-ec964d3d4496eba5" in {f["id"] for f in out["findings"]}


def test_sessions_command_prints_only_the_session_part() -> None:
    result = CliRunner().invoke(app, ["sessions", str(SAMPLE_VM)], env={"COLUMNS": "250"})
    assert result.exit_code == 0, result.output
    assert "Sessions by observed vendor" in result.output and "Routes" in result.output
    assert "azure/muse-special" in result.output and "openai-responses" in result.output
    assert "Credentials" not in result.output and "Kill switches" not in result.output


def test_sessions_command_json_and_errors(tmp_path) -> None:  # type: ignore[no-untyped-def]
    result = CliRunner().invoke(app, ["sessions", str(SAMPLE_VM), "--format", "json"])
    assert result.exit_code == 0
    part = json.loads(result.output)
    assert set(part) == {"schema", "sessions", "routes", "findings"}
    assert all(f["id"].startswith("session-") for f in part["findings"])
    bad = CliRunner().invoke(app, ["sessions", str(tmp_path / "nope")])
    assert bad.exit_code == 2 and "Traceback" not in bad.output

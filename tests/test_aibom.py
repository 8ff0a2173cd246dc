"""The AI bills of materials read back by the standards' own tooling: SPDX 3.0.1 by the SPDX project's bindings
(`spdx-python-model`, strictly and offline), CycloneDX by `cyclonedx-python-lib` and its JSON schema validator."""

from __future__ import annotations

import dataclasses
import io
import json
from collections import deque
from pathlib import Path
from typing import Any

import pytest
from cyclonedx.model.bom import Bom
from cyclonedx.schema import SchemaVersion
from cyclonedx.validation.json import JsonStrictValidator
from spdx_python_model import v3_0_1 as spdx3  # type: ignore[attr-defined]
from typer.testing import CliRunner

from scanner import api
from scanner.catalog import Catalog
from scanner.cli import app
from scanner.kinds import Inventory
from scanner.model import Skip, SkipReason
from scanner.options import ScanOptions
from scanner.render import render
from scanner.render._view import ReportOptions
from scanner.targets import Walker, WalkOptions
from tests.conftest import SAMPLE_VM, sample_vm_copy
from tests.large_tree import build

runner = CliRunner()


def spdx_strict(text: str) -> Any:
    """The document read by the SPDX bindings: unknown types, properties or enum values and malformed dates raise
    on reading, a reference to no element fails the link, and a missing required property fails writing it back."""
    objects = spdx3.SHACLObjectSet()
    spdx3.JSONLDDeserializer().deserialize_data(json.loads(text), objects)
    missing = objects.link()
    assert not missing, f"references to no element: {sorted(missing)[:5]}"
    spdx3.JSONLDSerializer().write(objects, io.BytesIO())
    return objects


def _scan(root: Path, catalog: Catalog) -> Inventory:
    return api.scan(Walker(str(root), WalkOptions()), api.ScanRequest(ScanOptions()), catalog)


@pytest.fixture(scope="module")
def sample(tmp_path_factory: pytest.TempPathFactory, catalog: Catalog) -> Inventory:
    return _scan(sample_vm_copy(tmp_path_factory.mktemp("aibom") / "vm"), catalog)


@pytest.fixture(scope="module")
def large(tmp_path_factory: pytest.TempPathFactory, catalog: Catalog) -> Inventory:
    return _scan(build(tmp_path_factory.mktemp("aibom-large") / "vm"), catalog)


def _of_type(objects: Any, cls: type) -> list[Any]:
    return sorted((o for o in objects.objects if isinstance(o, cls)), key=lambda o: o._id or "")


# --- SPDX 3.0.1 ----------------------------------------------------------------------------------


def test_spdx_reads_back_strictly_on_sample_vm(sample: Inventory) -> None:
    objects = spdx_strict(render("spdx", sample))
    [doc] = _of_type(objects, spdx3.SpdxDocument)
    assert set(doc.profileConformance) >= {spdx3.ProfileIdentifierType.core, spdx3.ProfileIdentifierType.software,
                                           spdx3.ProfileIdentifierType.ai}
    [machine] = doc.rootElement
    assert isinstance(machine, spdx3.software_Package) and machine.name == "vm"
    info = machine.creationInfo
    assert info.specVersion == "3.0.1" and [a.name for a in info.createdBy] == ["modelcensus"]
    tools = {t.name for t in info.createdUsing}
    assert f"modelcensus {sample.tool_version}" in tools
    assert {f"catalog {c.name} {c.version}" for c in sample.catalogs} <= tools
    models = {m.name: m for m in _of_type(objects, spdx3.ai_AIPackage)
              if m.software_primaryPurpose == spdx3.software_SoftwarePurpose.model}
    assert set(models) == {m.name for m in sample.models if m.wired}
    gpt = models["gpt-5.5"]
    assert gpt.suppliedBy.name == "openai" and gpt.software_packageVersion == "gpt-5.5"
    assert list(gpt.ai_domain) == ["text-generation"] and list(gpt.ai_typeOfModel) == ["transformer"]
    assert "served via direct" in gpt.ai_informationAboutApplication
    retired = models["gpt-5.1-codex-max"]
    assert "retired" in retired.ai_limitation and "2026-07-23" in retired.ai_limitation
    assert retired.validUntilTime.date().isoformat() == "2026-07-23"
    assert list(retired.supportLevel) == [spdx3.SupportType.noSupport]


def _relations(objects: Any) -> list[tuple[str, str, set[str], str | None]]:
    return [(r.from_._id, r.relationshipType.rsplit("/", 1)[-1], {t._id for t in r.to}, r.comment)
            for r in _of_type(objects, spdx3.Relationship)]


def test_spdx_relationships_agents_models_tools_and_sessions(sample: Inventory) -> None:
    objects = spdx_strict(render("spdx", sample))
    by_id = {o._id: o for o in objects.objects if getattr(o, "_id", None)}
    rels = _relations(objects)
    machine = next(o for o in objects.objects if isinstance(o, spdx3.SpdxDocument)).rootElement[0]._id
    agents = {o.name: o._id for o in _of_type(objects, spdx3.ai_AIPackage)
              if o.software_primaryPurpose == spdx3.software_SoftwarePurpose.application}
    # Cursor Agent: configured (its mcp.json), not installed.
    assert set(agents) == {"Claude Code", "Codex CLI", "Cursor Agent"}
    contains = next(to for frm, kind, to, _ in rels if frm == machine and kind == "contains")
    assert set(agents.values()) <= contains
    uses = {by_id[t].name for frm, kind, to, comment in rels if frm == agents["Claude Code"] and kind == "dependsOn"
            and comment and "usesModel" in comment for t in to}
    assert uses == {"claude-opus-4-8"}
    tools = {by_id[t].name for frm, kind, to, _ in rels if frm == agents["Claude Code"] and kind == "usesTool"
             for t in to}
    assert tools == {"jarvis-sessions", "router-admin"}
    gateway = next(to for frm, kind, to, _ in rels if frm == agents["Claude Code"] and kind == "dependsOn"
                   and "usesModel" not in str(_))
    assert {by_id[t].name for t in gateway} == {"inference-proxy.internal"}
    notes = _of_type(objects, spdx3.Annotation)
    special = next(o for o in _of_type(objects, spdx3.ai_AIPackage) if o.name == "azure/muse-special")
    evidence = next(to for frm, kind, to, _ in rels if frm == special._id and kind == "hasEvidence")
    statements = [n.statement for n in notes if n._id in evidence]
    assert any("subagent-ec964d3d4496eba5" in s and "openai via azure" in s for s in statements)
    assert "contradict" in special.ai_limitation


def test_spdx_credentials_carry_the_hash_only(sample: Inventory) -> None:
    text = render("spdx", sample)
    objects = spdx_strict(text)
    for c in sample.credentials:
        assert c.redacted not in text and c.redacted.split("…")[-1] + '"' not in text
        [element] = [o for o in objects.objects if isinstance(o, spdx3.software_Package)
                     and o._id.endswith(f"#credential:{c.sha256}")]
        [digest] = element.verifiedUsing
        assert digest.algorithm.endswith("/sha256") and digest.hashValue == c.sha256


def test_spdx_ids_are_stable_and_bytes_reproducible(sample: Inventory, monkeypatch: pytest.MonkeyPatch) -> None:
    first = json.loads(render("spdx", sample))
    again = json.loads(render("spdx", dataclasses.replace(sample, stats=dataclasses.replace(sample.stats))))
    assert [e.get("spdxId") for e in first["@graph"]] == [e.get("spdxId") for e in again["@graph"]]
    monkeypatch.setenv("SOURCE_DATE_EPOCH", "1767225600")
    one = runner.invoke(app, ["scan", str(SAMPLE_VM), "-q", "-f", "spdx"]).stdout
    two = runner.invoke(app, ["scan", str(SAMPLE_VM), "-q", "-f", "spdx"]).stdout
    assert one == two and json.loads(one)["@graph"][0]["created"] == "2026-01-01T00:00:00Z"


def test_spdx_reads_back_on_a_large_tree_with_every_model(large: Inventory) -> None:
    wired = spdx_strict(render("spdx", large))
    models = [o for o in _of_type(wired, spdx3.ai_AIPackage)
              if o.software_primaryPurpose == spdx3.software_SoftwarePurpose.model]
    assert len(models) == sum(m.wired for m in large.models) >= 60
    assert len(_of_type(wired, spdx3.Annotation)) >= 120, "one annotation per session at least"
    every = spdx_strict(render("spdx", large, ReportOptions(all=True)))
    assert sum(isinstance(o, spdx3.ai_AIPackage) for o in every.objects) >= 1800


def test_spdx_says_a_partial_scan_is_incomplete(sample: Inventory) -> None:
    partial = dataclasses.replace(sample, skipped=(Skip("/etc/agent/secret.yaml", SkipReason.PERMISSION_DENIED),
                                                   Skip("/run/agent.sock", SkipReason.SOCKET)))
    objects = spdx_strict(render("spdx", partial))
    contains = [r for r in _of_type(objects, spdx3.Relationship) if r.relationshipType.endswith("/contains")]
    assert [r.completeness.rsplit("/", 1)[-1] for r in contains] == ["incomplete"]
    assert any("/etc/agent/secret.yaml (permission-denied)" in n.statement for n in _of_type(objects, spdx3.Annotation))
    whole = spdx_strict(render("spdx", dataclasses.replace(sample, skipped=(Skip("/run/a.sock", SkipReason.SOCKET),))))
    contains = [r for r in _of_type(whole, spdx3.Relationship) if r.relationshipType.endswith("/contains")]
    assert [r.completeness.rsplit("/", 1)[-1] for r in contains] == ["complete"], "a socket has nothing to read"


# --- CycloneDX -----------------------------------------------------------------------------------


def _paths(deps: dict[str, set[str]], start: str) -> set[str]:
    seen, todo = {start}, deque([start])
    while todo:
        for nxt in deps.get(todo.popleft(), ()):
            if nxt not in seen:
                seen.add(nxt)
                todo.append(nxt)
    return seen


def test_cyclonedx_reads_back_and_each_agent_reaches_its_wired_models(sample: Inventory) -> None:
    text = render("cyclonedx", sample)
    assert JsonStrictValidator(SchemaVersion.V1_6).validate_str(text) is None
    bom = Bom.from_json(json.loads(text))  # type: ignore[attr-defined]
    deps = {str(d.ref): {str(x.ref) for x in d.dependencies} for d in bom.dependencies}
    refs = {c.name: str(c.bom_ref) for c in bom.components}
    services = {s.name: s for s in bom.services}
    for a in sample.agents:
        reached = _paths(deps, f"agent:{a.name}:{a.version or '-'}:{a.install_path or '-'}")
        for model in {n for c in a.configs for n in c.models}:
            assert refs[model] in reached, f"{a.name} does not reach {model}"
    codex = _paths(deps, "agent:codex:-:-")
    assert "service:jarvis-prod.openai.azure.com" in codex, "through the gateway its base URL names"
    proxy = services["inference-proxy.internal"]
    assert proxy.x_trust_boundary is False and services["api.openai.com"].x_trust_boundary is True
    assert services["api.openai.com"].authenticated is True
    assert bom.metadata.component.type.value == "operating-system"
    assert [str(lc.phase.value) for lc in bom.metadata.lifecycles] == ["post-build"]
    assert {t.name for t in bom.metadata.tools.components} >= {"modelcensus", "catalog openai"}


def test_cyclonedx_says_how_each_component_was_found(sample: Inventory) -> None:
    bom = Bom.from_json(json.loads(render("cyclonedx", sample)))  # type: ignore[attr-defined]
    for c in bom.components:
        assert c.evidence and c.evidence.identity, f"{c.name} has no identity evidence"
    models = {c.name: c for c in bom.components if c.type.value == "machine-learning-model"}
    techniques = {m.technique.value for c in bom.components for i in c.evidence.identity for m in i.methods}
    assert {"manifest-analysis", "binary-analysis", "dynamic-analysis", "source-code-analysis"} <= techniques
    group = next(i for i in models["azure/muse-special"].evidence.identity if i.field.value == "group")
    found = {m.technique.value: (m.value, float(m.confidence)) for m in group.methods}
    assert found["dynamic-analysis"] == ("openai via azure", 0.9) and found["manifest-analysis"][0] == "openai"
    retired = {p.name: p.value for p in models["gpt-5.1-codex-max"].properties}
    assert retired["cdx:lifecycle:milestone:endOfLife"] == "2026-07-23"
    doc = json.loads(render("cyclonedx", sample))
    card = next(c["modelCard"] for c in doc["components"] if c["name"] == "gpt-5.5")
    assert card["modelParameters"] == {"task": "text-generation", "architectureFamily": "transformer"}


def test_cyclonedx_compositions_complete_or_incomplete_with_the_unread_files(sample: Inventory) -> None:
    doc = json.loads(render("cyclonedx", sample))
    assert doc["compositions"] == [{"bom-ref": "composition:target", "aggregate": "complete",
                                    "assemblies": ["target"], "dependencies": ["target"]}]
    partial = dataclasses.replace(sample, skipped=(Skip("/etc/agent/big.json", SkipReason.BUDGET_EXCEEDED),))
    text = render("cyclonedx", partial)
    assert JsonStrictValidator(SchemaVersion.V1_6).validate_str(text) is None
    doc = json.loads(text)
    [comp] = doc["compositions"]
    assert comp["aggregate"] == "incomplete" and "unread:/etc/agent/big.json" in comp["assemblies"]
    unread = next(c for c in doc["components"] if c["bom-ref"] == "unread:/etc/agent/big.json")
    assert unread["type"] == "file" and "budget-exceeded" in unread["description"]


def test_cyclonedx_1_7_on_request(tmp_path: Path) -> None:
    out = runner.invoke(app, ["scan", str(SAMPLE_VM), "-q", "-f", "cyclonedx", "--cyclonedx-version", "1.7"])
    assert out.exit_code == 0 and json.loads(out.stdout)["specVersion"] == "1.7"
    assert JsonStrictValidator(SchemaVersion.V1_7).validate_str(out.stdout) is None
    bad = runner.invoke(app, ["scan", str(SAMPLE_VM), "-q", "-f", "cyclonedx", "--cyclonedx-version", "2.0"])
    assert bad.exit_code == 2 and "1.6, 1.7" in bad.output


def test_cyclonedx_on_a_large_tree_validates(large: Inventory) -> None:
    for opts in (ReportOptions(), ReportOptions(all=True)):
        text = render("cyclonedx", large, opts)
        assert JsonStrictValidator(SchemaVersion.V1_6).validate_str(text) is None

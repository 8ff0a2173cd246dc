"""Every output format on sample_vm: golden files, the formats' own schemas, and no credential in clear."""

from __future__ import annotations

import dataclasses
import hashlib
import json
import re
from pathlib import Path
from typing import Any

import jsonschema
import pytest
from cyclonedx.schema import SchemaVersion
from cyclonedx.validation.json import JsonStrictValidator

from scanner import api
from scanner.catalog import Catalog
from scanner.kinds import Inventory
from scanner.kinds.credentials import CredentialEntry, CredentialLocation
from scanner.kinds.models import ModelEntry
from scanner.kinds.sdks import SdkEntry
from scanner.kinds.sessions import SessionEntry, SessionProvider
from scanner.model import Confidence, Context, Finding, Location, Severity, Stats, TargetInfo
from scanner.options import ScanOptions
from scanner.render import RENDERERS, render
from scanner.render.cyclonedx import purl
from scanner.render.sarif import rule_id
from scanner.targets import Walker, WalkOptions
from tests.conftest import REPO, SAMPLE_VM, ScanFn, sample_vm_copy, write

GOLDEN = REPO / "tests" / "data" / "golden"
SARIF_SCHEMA = json.loads((REPO / "tests" / "data" / "sarif-schema-2.1.0.json").read_text(encoding="utf-8"))
_VOLATILE = [
    (re.compile(r'"serialNumber": "urn:uuid:[0-9a-f-]{36}"'), '"serialNumber": "urn:uuid:MASKED"'),
    (re.compile(r'"timestamp": "[0-9T:.+\-]+"'), '"timestamp": "MASKED"'),
    (re.compile(r'"created": "[0-9T:Z\-]+"'), '"created": "MASKED"'),
]
_EXT = {"table": "txt", "json": "json", "markdown": "md", "html": "html", "sarif": "sarif", "cyclonedx": "cdx.json",
        "spdx": "spdx.json"}


def _scan(root: Path, catalog: Catalog) -> Inventory:
    return api.scan(Walker(str(root), WalkOptions()), api.ScanRequest(ScanOptions()), catalog)


def stable(inv: Inventory) -> Inventory:
    """What differs between two runs of the same scan: where the copy lives, timings, and who runs the tests
    (file owners are resolved only as root)."""
    creds = tuple(
        dataclasses.replace(c, locations=tuple(dataclasses.replace(cl, owner="OWNER") for cl in c.locations))
        for c in inv.credentials
    )
    return dataclasses.replace(inv, target=TargetInfo(inv.target.kind, "sample_vm"), stats=Stats(), credentials=creds)


def mask(text: str) -> str:
    for rx, repl in _VOLATILE:
        text = rx.sub(repl, text)
    return text


@pytest.fixture(scope="module")
def sample(tmp_path_factory: pytest.TempPathFactory, catalog: Catalog) -> Inventory:
    return _scan(sample_vm_copy(tmp_path_factory.mktemp("formats") / "vm"), catalog)


@pytest.mark.parametrize("fmt", sorted(RENDERERS))
def test_golden_output_on_sample_vm(fmt: str, sample: Inventory, update_golden: bool) -> None:
    text = mask(render(fmt, stable(sample)))
    golden = GOLDEN / f"sample_vm.{_EXT.get(fmt, fmt)}"
    if update_golden:
        golden.parent.mkdir(parents=True, exist_ok=True)
        golden.write_text(text, encoding="utf-8")
    assert golden.exists(), f"no golden file for format {fmt}: run pytest --update-golden"
    assert text == golden.read_text(encoding="utf-8"), f"{fmt} output changed; review, then pytest --update-golden"


def _secrets() -> list[str]:
    keys = sorted((SAMPLE_VM / "etc/inference-proxy/keys").glob("*.key"))
    values = [k.read_text(encoding="utf-8").strip() for k in keys]
    assert len(values) == 3 and all(len(v) >= 32 for v in values)
    return values


def _hidden(secret: str, inv: Inventory) -> str:
    """The part of a secret its redacted form must not show: all but the kind's public prefix and last 4."""
    cred = next(c for c in inv.credentials if c.sha256 == hashlib.sha256(secret.encode()).hexdigest())
    prefix = cred.redacted.split("…", 1)[0]
    return secret[len(prefix):-4]


@pytest.mark.parametrize("fmt", sorted(RENDERERS))
def test_no_credential_appears_unredacted_in_any_format(fmt: str, sample: Inventory) -> None:
    assert len(sample.credentials) == 3, "sample_vm's key files must be found for this test to mean anything"
    text = render(fmt, sample)
    for secret in _secrets():
        assert secret not in text
        hidden = _hidden(secret, sample)
        assert len(hidden) >= 24
        for start in range(len(hidden) - 16 + 1):  # not even a piece of it
            assert hidden[start:start + 16] not in text, (fmt, start)


# --- SARIF ---------------------------------------------------------------------------------------


def _sarif(inv: Inventory) -> dict[str, Any]:
    doc: dict[str, Any] = json.loads(render("sarif", inv))
    return doc


def test_sarif_validates_against_the_official_schema(sample: Inventory) -> None:
    doc = _sarif(sample)
    jsonschema.Draft4Validator(SARIF_SCHEMA, format_checker=jsonschema.FormatChecker()).validate(doc)
    run = doc["runs"][0]
    assert len(run["results"]) == len(sample.findings) > 0


def test_sarif_rules_levels_and_locations(sample: Inventory) -> None:
    run = _sarif(sample)["runs"][0]
    rules = run["tool"]["driver"]["rules"]
    ids = [r["id"] for r in rules]
    assert ids == sorted(set(ids)) and {"credential", "kill-switch-disarmed", "external-model-wired"} <= set(ids)
    assert all(r["help"]["text"] and r["shortDescription"]["text"] for r in rules)
    by_id = {f.id: f for f in sample.findings}
    levels = {"high": "error", "medium": "warning", "low": "note", "info": "note"}
    for res in run["results"]:
        fid = res["partialFingerprints"]["modelcensusFindingId/v1"]
        assert res["ruleId"] == rule_id(fid) == ids[res["ruleIndex"]]
        assert res["level"] == levels[by_id[fid].severity.value]
        for loc in res["locations"]:
            uri = loc["physicalLocation"]["artifactLocation"]["uri"]
            assert not uri.startswith("/") and loc["physicalLocation"]["artifactLocation"]["uriBaseId"] == "VMROOT"
    switch = next(r for r in run["results"] if r["ruleId"] == "kill-switch-disarmed")
    assert {"uri": "etc/jarvis/runtime.env", "uriBaseId": "VMROOT"} in [
        x["physicalLocation"]["artifactLocation"] for x in switch["locations"]
    ]
    assert all("region" in x["physicalLocation"] for x in switch["locations"])


def test_sarif_fingerprints_are_stable_across_runs_and_places(tmp_path: Path, catalog: Catalog,
                                                              sample: Inventory) -> None:
    again = _scan(sample_vm_copy(tmp_path / "elsewhere"), catalog)

    def prints(inv: Inventory) -> list[tuple[str, str]]:
        return [(r["fingerprints"]["modelcensus/finding/v1"], r["partialFingerprints"]["modelcensusFindingId/v1"])
                for r in _sarif(inv)["runs"][0]["results"]]

    assert prints(again) == prints(sample)
    assert len({p for p, _ in prints(sample)}) == len(sample.findings)


def test_sarif_paths_with_odd_characters_are_valid_uri_references(tmp_path: Path, scan_dir: ScanFn) -> None:
    write(tmp_path, "/etc/my agent/conf #1%.yaml", "model: claude-opus-4-8\n")
    inv, _ = scan_dir(tmp_path)
    doc = _sarif(inv)
    jsonschema.Draft4Validator(SARIF_SCHEMA, format_checker=jsonschema.FormatChecker()).validate(doc)
    uris = {x["physicalLocation"]["artifactLocation"]["uri"] for r in doc["runs"][0]["results"]
            for x in r["locations"]}
    assert "etc/my%20agent/conf%20%231%25.yaml" in uris


# --- CycloneDX -----------------------------------------------------------------------------------


def test_cyclonedx_validates_with_the_library_validator(sample: Inventory) -> None:
    text = render("cyclonedx", sample)
    error = JsonStrictValidator(SchemaVersion.V1_6).validate_str(text)
    assert error is None, error
    doc = json.loads(text)
    assert doc["specVersion"] == "1.6" and doc["metadata"]["component"]["bom-ref"] == "target"


def test_cyclonedx_models_sdks_services_and_dependencies(sample: Inventory) -> None:
    doc = json.loads(render("cyclonedx", sample))
    comps = {c["bom-ref"]: c for c in doc["components"]}
    special = comps["model:openai:azure:azure/muse-special"]
    assert special["type"] == "machine-learning-model" and special["supplier"] == {"name": "openai"}
    props = {p["name"]: p["value"] for p in special["properties"]}
    assert props["modelcensus:served_via"] == "azure" and props["modelcensus:base_model"] == "gpt-5.5"
    seen = [(o["location"], o.get("line"), o["additionalContext"]) for o in special["evidence"]["occurrences"]]
    assert ("/etc/jarvis/azure.yaml", 10, "config") in seen
    purls = {c.get("purl") for c in doc["components"] if c["type"] == "library"}
    assert {"pkg:pypi/anthropic@2.14.0", "pkg:npm/%40anthropic-ai/sdk@1.14.0", "pkg:npm/openai@7.59.0"} <= purls
    assert "pkg:npm/%40anthropic-ai/sdk" in purls  # declared `^1.14.0`: a range is no purl version
    services = {s["name"]: s for s in doc["services"]}
    assert "https://jarvis-prod.openai.azure.com" in services["jarvis-prod.openai.azure.com"]["endpoints"]
    deps = {d["ref"]: set(d.get("dependsOn", [])) for d in doc["dependencies"]}
    pypi_anthropic = next(r for r, c in comps.items() if c.get("purl") == "pkg:pypi/anthropic@2.14.0")
    assert deps[pypi_anthropic] == {"service:api.anthropic.com"}
    assert pypi_anthropic in deps["target"]


@pytest.mark.parametrize(
    ("ecosystem", "name", "version", "expected"),
    [
        ("pypi", "anthropic", "2.10.0", "pkg:pypi/anthropic@2.10.0"),
        ("npm", "@anthropic-ai/sdk", "0.70.1", "pkg:npm/%40anthropic-ai/sdk@0.70.1"),
        ("go", "github.com/openai/openai-go/v3", "3.8.1", "pkg:golang/github.com/openai/openai-go/v3@3.8.1"),
        ("maven", "com.anthropic:anthropic-java", "2.1.0", "pkg:maven/com.anthropic/anthropic-java@2.1.0"),
        ("pypi", "openai", ">=1.40", "pkg:pypi/openai"),
    ],
)
def test_package_urls(ecosystem: str, name: str, version: str, expected: str) -> None:
    sdk = SdkEntry(ecosystem, name, version, None, None, True, None, ())
    p = purl(sdk)
    assert p is not None and p.to_string() == expected


# --- Markdown and HTML escape what comes from the target -----------------------------------------


def _hostile() -> Inventory:
    bad = "x|y <script>alert(1)</script> [link](http://evil.example) `code` &amp;"
    loc = Location(f"/etc/{bad}.yaml", 3, Context.CONFIG)
    return Inventory(
        tool_version="0", catalogs=(), target=TargetInfo("directory", "/vm"), stats=Stats(),
        models=(ModelEntry(bad, None, None, None, None, None, "unknown", None, True, (loc,)),),
        credentials=(CredentialEntry("k", None, "sk-…abcd", "0" * 64, (CredentialLocation(loc, "0644", bad),)),),
        findings=(Finding("uncatalogued-models-wired", Severity.INFO, f"1 model id: {bad}", (loc,)),),
    )


def test_markdown_escapes_target_text() -> None:
    text = render("markdown", _hostile())
    assert "<script>" not in text and "`code`" not in text and "[link]" not in text
    assert r"\<script\>" in text and r"\[link\]" in text
    findings_row = next(line for line in text.splitlines() if line.startswith("| **info**"))
    assert findings_row.count(" | ") == 3  # four cells: the `|` in the title and path added none


def test_html_escapes_target_text() -> None:
    text = render("html", _hostile())
    assert "<script>" not in text and "&lt;script&gt;alert(1)&lt;/script&gt;" in text
    assert 'href="http' not in text and "&amp;amp;" in text


# --- HTML pictures -------------------------------------------------------------------------------


def _session(sid: str, started: str, *vendors: str) -> SessionEntry:
    providers = tuple(SessionProvider(v, None, None, 1, Confidence.HIGH, None, None, ()) for v in vendors)
    return SessionEntry(sid, "generic", Location(f"/s/{sid}.jsonl"), started, None, 1, (), "visible", providers)


def test_html_sessions_chart_fills_days_and_colours_by_vendor() -> None:
    sessions = (
        _session("a", "2026-11-01T10:00:00Z", "in-house"),
        _session("b", "2026-11-01T11:00:00Z", "in-house", "openai"),
        _session("c", "2026-11-04T09:00:00Z", "openai"),
        _session("d", "not a date", "anthropic"),
    )
    inv = Inventory("0", (), TargetInfo("directory", "/vm"), Stats(), sessions=sessions)
    text = render("html", inv)
    chart = text[text.index('<svg class="chart"'):text.index("</svg>", text.index('<svg class="chart"'))]
    bars = re.findall(r"<title>(\d{4}-\d{2}-\d{2}): (\d+) session\(s\) with ([^<]+)</title>", chart)
    assert sorted(bars) == [("2026-11-01", "1", "openai"), ("2026-11-01", "2", "in-house"),
                            ("2026-11-04", "1", "openai")]
    # a real time axis: full dates with the year, days without sessions keep their place
    assert ">2026-11-02<" in chart and ">2026-11-03<" in chart
    xs = [float(x) for x in re.findall(r'<rect x="([\d.]+)" y="[\d.]+" width="[\d.]+" height="[\d.]+" fill', chart)]
    assert max(xs) - min(xs) > 500  # day 4 lies three days' width after day 1, not next to it
    assert "1 session(s) without a start date" in text
    assert "no sessions found" not in text


def test_html_without_sessions_says_so_and_derives_routes_from_models(sample: Inventory) -> None:
    text = render("html", dataclasses.replace(sample, sessions=(), routes=()))
    assert "no sessions found" in text
    routes = text[text.index('<svg class="routes"'):]
    assert "azure/muse-special (base gpt-5.5)" in routes and ">openai<" in routes and ">azure<" in routes


def test_html_routes_from_inventory_routes(sample: Inventory) -> None:
    text = render("html", sample)
    routes = text[text.index('<svg class="routes"'):]
    assert ">azure/muse-special<" in routes and ">self-hosted<" in routes
    assert "azure → openai: api openai-responses, sessions 1" in routes


def test_html_is_self_contained(sample: Inventory) -> None:
    text = render("html", sample)
    assert "<script" not in text.lower() and "<link" not in text.lower()
    assert not re.search(r'\b(?:src|href)\s*=\s*"(?:https?:)?//', text)
    assert "Content-Security-Policy" in text and "default-src 'none'" in text

"""A file's repeated sightings of one evidence travel and fold as one bundle, and the inventory is the one that
folding each sighting on its own would give."""

from __future__ import annotations

import json
import os
import pickle
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

import scanner.analysis
from scanner.analysis import analyze_file
from scanner.catalog import Catalog
from scanner.detectors import DETECTORS
from scanner.filework import FileWork
from scanner.kinds.endpoints import EndpointEvidence
from scanner.kinds.models import ModelEvidence
from scanner.model import Context, Location
from scanner.options import ScanOptions
from scanner.sightings import Sightings, bundled, count
from scanner.targets import Walker, WalkOptions
from scanner.targets.base import FileEntry
from scanner.targets.ownership import Ownership
from tests.conftest import REPO, ScanFn, write

# LiteLLM's spend log (constructed from its SpendLogs columns, see the sample's SOURCE.txt): every record names its
# upstream's api_base and the model it served, with a fresh request and session id.
SPEND_LOG = REPO / "tests/data/sessions/constructed/litellm-spendlogs.jsonl"
LITELLM_CONFIG = REPO / "tests/data/configs/litellm-proxy/ajayadahal.litellm_config.yaml"
RECORDS = 300
NOWHERE = Location("")


def _spend_log() -> str:
    record = json.loads(SPEND_LOG.read_text(encoding="utf-8"))
    lines = []
    for i in range(RECORDS):
        one = dict(record, request_id=f"chatcmpl-{i:08x}-2f0a-4b1e-9e8e-3c2f1d0a9b87",
                   session_id=f"c8e1d7f2-0a3b-4c5d-8e9f-{i:012x}")
        lines.append(json.dumps(one))
    return "\n".join(lines) + "\n"


def _tree(root: Path) -> None:
    log = write(root, "/var/log/litellm/spend.jsonl", _spend_log())
    os.link(log, root / "var/log/litellm/spend-copy.jsonl")  # a second path to the same file: relocated
    write(root, "/etc/litellm/config.yaml", LITELLM_CONFIG.read_text(encoding="utf-8"))
    settings = "OPENAI_BASE_URL=https://api.openai.com/v1\nOPENAI_MODEL=gpt-5.5\n"
    write(root, "/etc/agent/agent.env", settings * 3)  # set again and again: each line is a setting


def _no_stats(doc: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in doc.items() if k != "stats"}


def test_a_value_seen_on_every_record_crosses_as_one_bundle(
    tmp_path: Path, catalog: Catalog, monkeypatch: pytest.MonkeyPatch
) -> None:
    _tree(tmp_path)
    target = Walker(str(tmp_path), WalkOptions())
    work = FileWork(target, catalog, ScanOptions(), DETECTORS, Ownership.of(target))
    (log,) = [e for e in target.walk() if isinstance(e, FileEntry) and e.path == "/var/log/litellm/spend.jsonl"]
    items = analyze_file(work, log).items
    bundles = [i for i in items if isinstance(i, Sightings)]
    hosts = [b for b in bundles if isinstance(b.evidence, EndpointEvidence)]
    assert any(b.evidence.host == "example-resource.openai.azure.com" and len(b.more) >= 100 for b in hosts)
    singles = [i for i in items if isinstance(i, (EndpointEvidence, ModelEvidence))]
    values = {replace(i, location=NOWHERE) for i in [*singles, *(b.evidence for b in bundles)]}
    assert len(values) == len(singles) + len(bundles)  # each value once
    assert bundled(items) == items  # bundling what is bundled changes nothing
    monkeypatch.setattr(scanner.analysis, "bundled", list)
    one_by_one = analyze_file(work, log).items
    assert count(items) == len(one_by_one) > len(items) + 100  # no sighting lost


@pytest.mark.parametrize("jobs", [1, 2])
def test_bundled_sightings_fold_to_the_inventory_of_one_by_one(
    tmp_path: Path, scan_dir: ScanFn, monkeypatch: pytest.MonkeyPatch, jobs: int
) -> None:
    _tree(tmp_path)
    inv, doc = scan_dir(tmp_path, jobs=jobs)
    with monkeypatch.context() as m:
        m.setattr(scanner.analysis, "bundled", list)  # every sighting on its own, as the evidence came
        one_by_one, reference = scan_dir(tmp_path, jobs=jobs)
    assert _no_stats(doc) == _no_stats(reference)
    assert inv.env_settings == one_by_one.env_settings  # each sighting of a variable is its own setting
    paths = {loc["path"] for e in doc["endpoints"] for loc in e["locations"]}
    assert {"/var/log/litellm/spend.jsonl", "/var/log/litellm/spend-copy.jsonl"} <= paths
    for variable in ("OPENAI_BASE_URL", "OPENAI_MODEL"):
        assert len([s for s in inv.env_settings if s.name == variable]) == 3


def test_places_that_differ_in_their_line_alone_cross_as_lines() -> None:
    first = Location("/var/log/litellm/proxy.jsonl", 1, Context.CONVERSATION)
    evidence = EndpointEvidence("api.x.ai", "https://api.x.ai/v1", first)
    bundle = Sightings(evidence, tuple(replace(first, line=n) for n in range(2, 302)))
    sent = pickle.dumps(bundle, protocol=pickle.HIGHEST_PROTOCOL)
    assert pickle.loads(sent) == bundle
    assert len(sent) < 4 * len(bundle.more)  # the lines, not a pickled Location each (~40 bytes)
    # A place that differs in more than its line (a commented-out line): every place crosses whole.
    mixed = Sightings(evidence, (*bundle.more, replace(first, line=400, context=Context.COMMENT)))
    assert pickle.loads(pickle.dumps(mixed, protocol=pickle.HIGHEST_PROTOCOL)) == mixed
    assert pickle.loads(pickle.dumps(Sightings(evidence, ()))) == Sightings(evidence, ())

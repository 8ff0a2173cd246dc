"""The local-models fold and join as pure functions: evidence in, entries out, no scan."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from scanner.catalog import Catalog
from scanner.kinds.base import FoldContext
from scanner.kinds.endpoints import EndpointEntry
from scanner.kinds.local_models import (
    ModelServerEvidence,
    StoreModelEvidence,
    WeightDigestEvidence,
    WeightFacts,
    WeightFileEvidence,
)
from scanner.kinds.local_models import grouping as fold_module
from scanner.kinds.local_models.grouping import LocalModelFold
from scanner.kinds.local_models.join import resolve_uses
from scanner.kinds.models import ModelEntry
from scanner.model import Location
from scanner.vocab import CatalogStatus, Context

ROOT = "/usr/share/ollama/.ollama/models"
A, B = "a" * 64, "b" * 64


def _store(name: str, *weights: str, remote: str | None = None, arch: str = "qwen3moe") -> StoreModelEvidence:
    loc = Location(f"{ROOT}/manifests/registry.ollama.ai/library/{name.replace(':', '/')}", None, Context.CONFIG)
    return StoreModelEvidence("ollama", ROOT, name, loc, WeightFacts(architecture=arch),
                              tuple((w, 10) for w in weights), remote=remote)  # fmt: skip


def _blob(sha: str) -> WeightFileEvidence:
    return WeightFileEvidence("gguf", 10, Location(f"{ROOT}/blobs/sha256-{sha}", None, Context.PACKAGE),
                              WeightFacts(name="Qwen3 Coder", parameters=7))  # fmt: skip


def _fold(catalog: Catalog, *evidence: object) -> tuple[LocalModelFold, FoldContext]:
    ctx = FoldContext(catalog)
    fold = LocalModelFold(ctx)
    for ev in evidence:
        fold.add(ev)  # type: ignore[arg-type]
    return fold, ctx


def test_a_blob_whose_bytes_give_another_digest_is_a_mismatch(catalog: Catalog) -> None:
    blob = _blob(A)
    fold, _ = _fold(catalog, _store("qwen3-coder:30b", A), blob, WeightDigestEvidence(blob.location, B))
    (entry,) = fold.build()
    assert entry.present and entry.vendor == "alibaba" and entry.facts.architecture == "qwen3moe"
    (f,) = entry.files
    assert (f.store_digest, f.sha256, f.digest_check) == (A, B, "mismatch")


def test_a_layer_not_on_disk_and_a_cloud_model_are_not_present(catalog: Catalog) -> None:
    fold, _ = _fold(catalog, _store("qwen3-coder:30b", A, B), _blob(A), _store("gpt-oss:120b-cloud",
                    remote="ollama.com:443", arch="gptoss"))  # fmt: skip
    entries = {e.name: e for e in fold.build()}
    assert not entries["qwen3-coder:30b"].present
    assert entries["qwen3-coder:30b"].note == "1 weight layer(s) the manifest names are not on this machine"
    assert entries["gpt-oss:120b-cloud"].note == "a cloud model: its weights are on ollama.com:443"
    assert entries["gpt-oss:120b-cloud"].vendor == "openai"


def test_a_server_of_a_path_no_file_lies_under_is_an_absent_entry(catalog: Catalog) -> None:
    unit = Location("/etc/systemd/system/vllm.service", None, Context.CONFIG)
    fold, _ = _fold(catalog, ModelServerEvidence("vllm", unit, "/srv/models/Qwen3-32B", aliases=("q",), port=8000))
    (entry,) = fold.build()
    assert (entry.name, entry.present, entry.store, entry.names) == ("Qwen3-32B", False, "none", ("Qwen3-32B", "q"))


def test_caps_are_counted_not_silent(catalog: Catalog, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(fold_module, "MAX_FILES", 2)
    fold, ctx = _fold(catalog, *(_blob(c * 64) for c in "abcd"))
    assert len(fold.build()) == 2
    assert [s.detail for s in ctx.cut_skips()] == ["2 weight file(s) past 2 not kept"]


def _model(name: str, path: str, via: str | None = None) -> ModelEntry:
    return ModelEntry(name, None, None, None, via, None, CatalogStatus.UNKNOWN, None, True,
                      (Location(path, 3, Context.CONFIG),))  # fmt: skip


def test_a_configured_model_resolves_by_its_ollama_spellings(catalog: Catalog) -> None:
    fold, _ = _fold(catalog, _store("qwen3-coder:latest", A), _blob(A))
    config = "/home/dev/.continue/config.yaml"
    loopback = EndpointEntry("localhost", None, None, ("http://localhost:11434",), True,
                             (Location(config, 5, Context.CONFIG),))  # fmt: skip
    elsewhere = _model("qwen3-coder", "/srv/app/settings.py")  # no local route, no loopback URL beside it
    entries = resolve_uses(fold.build(), [_model("qwen3-coder", config), elsewhere], [loopback], [], [], catalog)
    (entry,) = entries
    assert [loc.path for loc in entry.locations][0] == config and entry.present


@given(st.text(max_size=60))
def test_any_configured_name_resolves_or_is_said_absent(catalog: Catalog, name: str) -> None:
    entries = resolve_uses((), [_model(name or "x", "/etc/x.yaml", "self-hosted")], [], [], [], catalog)
    assert len(entries) == 1 and not entries[0].present and entries[0].note == "configured, weights not on this machine"


def test_a_manifest_anyone_may_rewrite_is_a_finding_on_the_manifest(catalog: Catalog) -> None:
    from dataclasses import replace

    from scanner.kinds.local_models.hazards import world_writable

    store = replace(_store("qwen3-coder:30b", A), world_writable=True)
    fold, _ = _fold(catalog, store, _blob(A))
    (hit,) = world_writable(fold.build())
    assert [loc.path for loc in hit.locations] == [store.location.path]

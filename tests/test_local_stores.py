"""Local model stores laid out as their own tools write them: Ollama, the Hugging Face hub cache, LM Studio."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from huggingface_hub import scan_cache_dir
from hypothesis import given
from hypothesis import strategies as st

from scanner.catalog import Catalog
from scanner.formats import digest, gguf, hfcache, localnames, modelcard, ollama
from scanner.formats.bounded import FormatFailure, bytes_reader
from scanner.kinds.local_models.catalog_index import SECTION as LOCAL_CATALOG
from tests.local_tree import _blob, hf_cache
from tests.test_weight_headers import write_gguf

LICENSE_31 = "LLAMA 3.1 COMMUNITY LICENSE AGREEMENT\n Llama 3.1 Version Release Date: July 23, 2024\n…"


def ollama_store(root: Path, model_gguf: bytes) -> Path:
    """`qwen3-coder:30b` pulled into an Ollama models directory: a GGUF blob, template, license, params and config."""
    store = root / "usr/share/ollama/.ollama/models"
    media = "application/vnd.ollama.image."
    layers = [
        {"mediaType": media + "model", **_blob(store, model_gguf)},
        {"mediaType": media + "template", **_blob(store, b"{{ .Prompt }}")},
        {"mediaType": media + "license", **_blob(store, LICENSE_31.encode())},
        {"mediaType": media + "params", **_blob(store, b'{"temperature":0.7,"stop":["<|im_end|>"]}')},
    ]
    config = {"model_format": "gguf", "model_family": "qwen3moe", "model_families": ["qwen3moe"],
              "model_type": "30.5B", "file_type": "Q4_K_M", "architecture": "amd64", "os": "linux",
              "rootfs": {"type": "layers", "diff_ids": [layer["digest"] for layer in layers]}}  # fmt: skip
    manifest = {"schemaVersion": 2, "mediaType": "application/vnd.docker.distribution.manifest.v2+json",
                "config": {"mediaType": "application/vnd.docker.container.image.v1+json",
                           **_blob(store, json.dumps(config).encode())},
                "layers": layers}  # fmt: skip
    path = store / "manifests/registry.ollama.ai/library/qwen3-coder/30b"
    path.parent.mkdir(parents=True)
    path.write_text(json.dumps(manifest) + "\n")  # json.Encoder.Encode ends with a newline
    return store


def test_ollama_store_gives_name_weights_config_and_license(tmp_path: Path, catalog: Catalog) -> None:
    model = write_gguf(tmp_path / "w.gguf").read_bytes()
    store = ollama_store(tmp_path, model)
    manifest_path = store / "manifests/registry.ollama.ai/library/qwen3-coder/30b"
    inside = "/" + str(manifest_path.relative_to(tmp_path))
    hit = LOCAL_CATALOG.of(catalog).store_at(inside)
    assert hit is not None and hit.spec.format == "ollama" and hit.root == "/usr/share/ollama/.ollama/models"
    name = ollama.manifest_name(hit.relative.removeprefix("manifests/"))
    assert name is not None and name.display == "qwen3-coder:30b"
    manifest = ollama.parse_manifest(manifest_path.read_bytes())
    assert isinstance(manifest, ollama.OllamaManifest) and manifest.config is not None
    (weight,) = manifest.weights
    blob = store / "blobs" / str(ollama.blob_name(f"sha256:{weight.digest}"))
    assert blob.stat().st_size == weight.size
    data = blob.read_bytes()
    header = gguf.read_gguf(bytes_reader(data), len(data))
    assert isinstance(header, gguf.GgufHeader) and header.quantization == "Q4_K_M"
    config = ollama.parse_config((store / "blobs" / f"sha256-{manifest.config.digest}").read_bytes())
    assert isinstance(config, ollama.OllamaConfig)
    assert (config.family, config.parameter_size, config.quantization) == ("qwen3moe", "30.5B", "Q4_K_M")
    assert config.remote_host is None
    assert LOCAL_CATALOG.of(catalog).family_of_architecture(str(config.family)) == "qwen"
    identity = next(i for c in localnames.candidates(name.display) if (i := catalog.identify(c)).vendor)
    assert (identity.vendor, identity.family) == ("alibaba", "qwen")
    (license_layer,) = manifest.of_kind("license")
    text = (store / "blobs" / f"sha256-{license_layer.digest}").read_text()
    terms = LOCAL_CATALOG.of(catalog).license_of_text(text)
    assert terms is not None and terms.id == "llama3.1" and terms.restricts == ("scale",)
    (params,) = manifest.of_kind("params")
    assert ("temperature", "0.7") in ollama.parse_params((store / "blobs" / f"sha256-{params.digest}").read_bytes())
    claimed = ollama.blob_digest(blob.name)
    assert claimed is not None
    check = digest.check(claimed, digest.digest_positional(bytes_reader(data), len(data)))
    assert check.verdict is digest.Verdict.MATCH


def test_an_ollama_blob_whose_bytes_changed_is_a_mismatch(tmp_path: Path) -> None:
    store = ollama_store(tmp_path, write_gguf(tmp_path / "w.gguf").read_bytes())
    blob = next(p for p in (store / "blobs").iterdir() if p.stat().st_size > 1000)
    data = bytearray(blob.read_bytes())
    data[-1] ^= 0xFF
    claimed = ollama.blob_digest(blob.name)
    assert claimed is not None
    found = digest.check(claimed, digest.digest_positional(bytes_reader(bytes(data)), len(data)))
    assert found.verdict is digest.Verdict.MISMATCH and found.actual != found.claimed


@pytest.mark.parametrize(
    ("relative", "display"),
    [
        ("registry.ollama.ai/library/llama3.2/latest", "llama3.2:latest"),
        ("registry.ollama.ai/jmorganca/tinyllama/q4", "jmorganca/tinyllama:q4"),
        ("hf.co/bartowski/Qwen3-8B-GGUF/Q4_K_M", "hf.co/bartowski/Qwen3-8B-GGUF:Q4_K_M"),
        ("registry.ollama.ai/library/llama3.2", None),
        ("registry.ollama.ai/library/-bad/latest", None),
    ],
)
def test_ollama_manifest_paths_name_models_as_ollama_list_shows_them(relative: str, display: str | None) -> None:
    name = ollama.manifest_name(relative)
    assert (name.display if name else None) == display


def test_hf_cache_as_huggingface_hub_writes_and_reads_it(tmp_path: Path, catalog: Catalog) -> None:
    import numpy as np
    from safetensors.numpy import save_file

    save_file({"w": np.zeros((4, 4), dtype=np.float16)}, str(tmp_path / "m.safetensors"))
    card = b"---\nlicense: apache-2.0\nbase_model:\n- Qwen/Qwen3-32B-Base\npipeline_tag: text-generation\n---\n# Q\n"
    config = {"architectures": ["Qwen3ForCausalLM"], "model_type": "qwen3", "torch_dtype": "bfloat16",
              "max_position_embeddings": 40960, "quantization_config": {"quant_method": "awq", "bits": 4}}  # fmt: skip
    files = {"config.json": json.dumps(config).encode(), "README.md": card,
             "model.safetensors": (tmp_path / "m.safetensors").read_bytes()}  # fmt: skip
    cache = hf_cache(tmp_path, "Qwen/Qwen3-32B", files, lfs={"model.safetensors"})
    info = scan_cache_dir(cache)  # huggingface_hub's own reader accepts the layout
    assert not info.warnings and [r.repo_id for r in info.repos] == ["Qwen/Qwen3-32B"]
    (revision,) = next(iter(info.repos)).revisions
    assert revision.refs == frozenset({"main"}) and revision.nb_files == 3

    folder = cache / "models--Qwen--Qwen3-32B"
    ref = hfcache.parse_ref((folder / "refs/main").read_bytes())
    assert ref == revision.commit_hash
    inside = "/" + str((folder / "snapshots" / ref / "config.json").relative_to(tmp_path))
    hit = LOCAL_CATALOG.of(catalog).store_at(inside)
    assert hit is not None and hit.spec.format == "hf-hub"
    where = hfcache.cache_path(hit.relative)
    assert where == hfcache.CachePath(hfcache.HfRepo("model", "Qwen/Qwen3-32B"), "snapshots", ref, "config.json")
    parsed = hfcache.parse_config((folder / "snapshots" / ref / "config.json").read_bytes())
    assert parsed == hfcache.HfModelConfig(("Qwen3ForCausalLM",), "qwen3", "bfloat16", "awq 4-bit", 40960, None)
    parsed_card = modelcard.parse_card((folder / "snapshots" / ref / "README.md").read_bytes())
    assert parsed_card is not None
    assert (parsed_card.license, parsed_card.base_models) == ("apache-2.0", ("Qwen/Qwen3-32B-Base",))

    weight_link = folder / "snapshots" / ref / "model.safetensors"
    blob = Path(os.path.realpath(weight_link))
    claimed = hfcache.blob_digest(blob.name)
    assert claimed is not None and claimed[0] is hfcache.DigestKind.SHA256
    data = blob.read_bytes()
    computed = digest.digest_positional(bytes_reader(data), len(data))
    assert digest.check(claimed[1], computed).verdict is digest.Verdict.MATCH
    small = Path(os.path.realpath(folder / "snapshots" / ref / "config.json"))
    kind, hexdigest = hfcache.blob_digest(small.name) or (None, "")
    assert kind is hfcache.DigestKind.GIT_SHA1
    sha1 = digest.digest_positional(
        bytes_reader(small.read_bytes()), len(small.read_bytes()), None, digest.Algorithm.GIT_SHA1)
    assert digest.check(hexdigest, sha1).verdict is digest.Verdict.MATCH
    identity = next(i for c in localnames.candidates(where.repo.repo_id) if (i := catalog.identify(c)).vendor)
    assert identity.vendor == "alibaba" and identity.canonical == "qwen3-32b"


def test_hf_cache_paths_that_are_not_repos() -> None:
    assert hfcache.repo_of("models--gpt2") == hfcache.HfRepo("model", "gpt2")
    assert hfcache.repo_of("datasets--HuggingFaceFW--fineweb").type == "dataset"  # type: ignore[union-attr]
    for folder in ("models", "models--", "checkpoints--a--b", "models----x", ".locks"):
        assert hfcache.repo_of(folder) is None
    assert hfcache.cache_path("models--a--b/snapshots") is None
    assert hfcache.blob_digest("a" * 64 + ".incomplete") is None
    assert hfcache.parse_ref(b"main\n") is None


def test_model_card_with_other_license_and_no_front_matter() -> None:
    card = modelcard.parse_card(b"---\nlicense: other\nlicense_name: mrl\nlicense_link: https://x/MRL-0.1.md\n---\n")
    assert card is not None and (card.license, card.license_link) == ("mrl", "https://x/MRL-0.1.md")
    assert modelcard.parse_card(b"# Model\nno front matter") is None
    assert modelcard.parse_card(b"---\n: [unclosed\n---\n") is None


def test_lmstudio_llamacpp_and_gpt4all_names(catalog: Catalog) -> None:
    hit = LOCAL_CATALOG.of(catalog).store_at("/home/dev/.lmstudio/models/lmstudio-community/Qwen3-8B-GGUF/Q4_K_M.gguf")
    assert hit is not None and hit.spec.format == "lmstudio"
    assert localnames.lmstudio_name(hit.relative) == ("lmstudio-community/Qwen3-8B-GGUF", "Q4_K_M.gguf")
    repo = localnames.llamacpp_manifest("manifest=ggml-org=gpt-oss-20b-GGUF=latest.json")
    assert repo == "ggml-org/gpt-oss-20b-GGUF:latest"
    assert localnames.llamacpp_file_repo("ggml-org_gpt-oss-20b-GGUF_gpt-oss-20b-mxfp4.gguf", [repo]) == repo
    assert localnames.file_stem("Meta-Llama-3-8B-Instruct.Q4_0.gguf") == "Meta-Llama-3-8B-Instruct.Q4_0"
    assert "Qwen3-8B" in localnames.candidates("lmstudio-community/Qwen3-8B-GGUF")
    assert catalog.identify("gpt-oss-20b").vendor == "openai"
    moved = LOCAL_CATALOG.of(catalog).store_roots({"OLLAMA_MODELS": "/data/ollama", "HF_HOME": "/srv/hf"})
    assert {(s.format, root) for s, root in moved} == {("ollama", "/data/ollama"), ("hf-hub", "/srv/hf/hub")}


@given(st.binary(max_size=4096))
def test_store_parsers_survive_random_bytes(blob: bytes) -> None:
    assert isinstance(ollama.parse_manifest(blob), (ollama.OllamaManifest, FormatFailure))
    assert isinstance(ollama.parse_config(blob), (ollama.OllamaConfig, FormatFailure))
    ollama.parse_params(blob)
    hfcache.parse_config(blob)
    hfcache.parse_weight_index(blob)
    hfcache.parse_ref(blob)
    modelcard.parse_card(b"---\n" + blob + b"\n---\n")


@given(st.text(max_size=300))
def test_path_grammars_survive_any_text(text: str) -> None:
    ollama.manifest_name(text)
    hfcache.cache_path(text)
    localnames.candidates(text)
    localnames.lmstudio_name(text)


def test_a_weight_in_any_catalogued_store_is_the_stores_own(catalog: Catalog) -> None:
    from scanner.detectors.local_models import _in_store

    local = LOCAL_CATALOG.of(catalog)
    assert _in_store("/home/dev/.cache/lm-studio/models/bartowski/x/y.gguf", local)
    assert _in_store("/root/.cache/llama.cpp/Qwen_Qwen3-8B-GGUF_Qwen3-8B-Q4_K_M.gguf", local)
    assert _in_store("/srv/hf/models--Qwen--Qwen3-8B/blobs/abc", local)
    assert not _in_store("/usr/lib/python3/dist-packages/pkg/tests/tiny.safetensors", local)


def test_an_ollama_cloud_models_remote_host_keeps_no_key() -> None:
    key = "sk-" + "proj-AbCdEfGhIjKlMnOpQrStUvWxYz0123456789"
    doc = {"model_format": "gguf", "remote_host": f"https://me:{key}@ollama.example:443/?key={key}"}
    config = ollama.parse_config(json.dumps(doc).encode())
    assert isinstance(config, ollama.OllamaConfig) and config.remote_host == "https://ollama.example:443/"

"""The Hugging Face hub cache, as `huggingface_hub` lays it out, and a model's `config.json`.

Under the cache (`~/.cache/huggingface/hub`, `$HF_HOME/hub`, `$HF_HUB_CACHE`) each repo is one folder,
`models--<org>--<name>` (`datasets--…`, `spaces--…`), holding:
- `refs/<ref>` (`refs/main`, `refs/refs/pr/1`): the 40-hex commit a branch or tag pointed at;
- `snapshots/<commit>/<path>`: the repo's files at that commit, each a relative symlink into `blobs/`
  (a copy on systems without symlinks);
- `blobs/<etag>`: the bytes, named by the git blob SHA-1 (40 hex) of a small file or by the SHA-256 (64 hex)
  of a file kept in LFS, which every weight file is; `<etag>.incomplete` while downloading.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from enum import Enum

REPO_TYPES = {"models": "model", "datasets": "dataset", "spaces": "space"}
MAX_CONFIG = 4 << 20
_COMMIT = re.compile(r"[0-9a-f]{40}")
_SHA256 = re.compile(r"[0-9a-f]{64}")


class DigestKind(str, Enum):
    SHA256 = "sha256"  # an LFS file's blob: the SHA-256 of its bytes
    GIT_SHA1 = "git-sha1"  # a small file's blob: git's SHA-1 of "blob <size>\0" + its bytes


@dataclass(frozen=True)
class HfRepo:
    type: str  # model | dataset | space
    repo_id: str  # org/name (or name alone for the few repos without an org)


@dataclass(frozen=True)
class CachePath:
    """Where a path under a cache sits: its repo, its section, and within a snapshot its revision and file."""

    repo: HfRepo
    section: str  # refs | snapshots | blobs | .no_exist
    revision: str | None  # the commit folder of a snapshot (or of .no_exist)
    path: str  # the rest: a ref's name, a snapshot file's path in the repo, a blob's name


@dataclass(frozen=True)
class HfModelConfig:
    architectures: tuple[str, ...]  # Qwen3ForCausalLM
    model_type: str | None  # qwen3
    dtype: str | None  # torch_dtype (dtype in newer transformers): bfloat16
    quantization: str | None  # quantization_config.quant_method (+ bits): "awq 4-bit", "fp8"
    context_length: int | None  # max_position_embeddings
    name_or_path: str | None


def repo_of(folder: str) -> HfRepo | None:
    """The repo a cache folder holds (`models--Qwen--Qwen3-32B` -> model Qwen/Qwen3-32B)."""
    kind, sep, rest = folder.partition("--")
    if not sep or kind not in REPO_TYPES or not rest or "" in rest.split("--"):
        return None
    return HfRepo(REPO_TYPES[kind], rest.replace("--", "/"))


def cache_path(relative: str) -> CachePath | None:
    """A path relative to the cache root (`models--Qwen--Qwen3-32B/snapshots/<commit>/config.json`)."""
    parts = relative.strip("/").split("/")
    repo = repo_of(parts[0]) if parts else None
    if repo is None or len(parts) < 3 or parts[1] not in ("refs", "snapshots", "blobs", ".no_exist"):
        return None
    if parts[1] in ("snapshots", ".no_exist"):
        if len(parts) < 4:
            return None
        return CachePath(repo, parts[1], parts[2], "/".join(parts[3:]))
    return CachePath(repo, parts[1], None, "/".join(parts[2:]))


def parse_ref(data: bytes) -> str | None:
    """The commit a ref file names (40 hex, no newline as huggingface_hub writes it)."""
    text = data[:64].decode("ascii", "replace").strip()
    return text if _COMMIT.fullmatch(text) else None


def blob_digest(name: str) -> tuple[DigestKind, str] | None:
    """The digest a blob's name claims for its bytes; None for `.incomplete` files and other names."""
    if _SHA256.fullmatch(name):
        return DigestKind.SHA256, name
    if _COMMIT.fullmatch(name):
        return DigestKind.GIT_SHA1, name
    return None


def parse_config(data: bytes) -> HfModelConfig | None:
    """What a transformers `config.json` says of the model; None when it is not a config object."""
    if len(data) > MAX_CONFIG:
        return None
    try:
        doc = json.loads(data)
    except (ValueError, RecursionError):
        return None
    if not isinstance(doc, dict):
        return None
    text_config = doc.get("text_config")  # multimodal configs keep the language model's fields here
    inner = text_config if isinstance(text_config, dict) else {}

    def text(key: str) -> str | None:
        v = doc.get(key, inner.get(key))
        return v[:200] if isinstance(v, str) and v else None

    archs = doc.get("architectures")
    ctx = doc.get("max_position_embeddings", inner.get("max_position_embeddings"))
    return HfModelConfig(
        architectures=tuple(a[:200] for a in archs[:8] if isinstance(a, str)) if isinstance(archs, list) else (),
        model_type=text("model_type"),
        dtype=text("torch_dtype") or text("dtype"),
        quantization=_quantization(doc.get("quantization_config")),
        context_length=ctx if isinstance(ctx, int) and not isinstance(ctx, bool) and ctx > 0 else None,
        name_or_path=text("_name_or_path"),
    )


def _quantization(raw: object) -> str | None:
    if not isinstance(raw, dict):
        return None
    method = raw.get("quant_method")
    bits = raw.get("bits")
    if not isinstance(method, str) or not method:
        return None
    return f"{method[:40]} {bits}-bit" if isinstance(bits, int) and not isinstance(bits, bool) else method[:40]


def parse_weight_index(data: bytes) -> tuple[int | None, tuple[str, ...]]:
    """A sharded checkpoint's index (`model.safetensors.index.json`): (total_size, its shard files)."""
    try:
        doc = json.loads(data) if len(data) <= MAX_CONFIG else None
    except (ValueError, RecursionError):
        doc = None
    if not isinstance(doc, dict):
        return None, ()
    meta, weight_map = doc.get("metadata"), doc.get("weight_map")
    total = meta.get("total_size") if isinstance(meta, dict) else None
    shards = sorted({v for v in weight_map.values() if isinstance(v, str)}) if isinstance(weight_map, dict) else []
    return (total if isinstance(total, int) and not isinstance(total, bool) else None), tuple(shards[:10_000])

"""The Ollama model store: manifests named as users name models, blobs named by their SHA-256.

Ollama (`manifest/paths.go`, `types/model/name.go`) keeps, under its models directory (`~/.ollama/models`,
`/usr/share/ollama/.ollama/models` for the service user, or `OLLAMA_MODELS`):
- `manifests/<host>/<namespace>/<model>/<tag>`: a Docker distribution v2 manifest (JSON) per pulled model;
  `registry.ollama.ai/library/qwen3-coder/30b` is what users call `qwen3-coder:30b`;
- `blobs/sha256-<hex>`: every layer, named by the SHA-256 of its bytes.

A manifest's `config` is a JSON blob (`model_format`, `model_family`, `model_type` = parameter size,
`file_type` = quantization, `remote_host` for a cloud model with no local weights); its layers are typed by
media type: the weights (`…image.model`, a GGUF; or `…image.tensor` layers of a safetensors import), the
template, system prompt, params (JSON), license (text), projector and adapter.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass

from scanner.formats.bounded import FailureKind, FormatFailure
from scanner.secrets import safe_url

DEFAULT_HOST = "registry.ollama.ai"
DEFAULT_NAMESPACE = "library"
MAX_MANIFEST = 1 << 20  # bytes; real manifests are under 2 KB (tensor-layer ones a few hundred KB)
MAX_LAYERS = 20_000
MAX_CONFIG = 1 << 20

MEDIA = "application/vnd.ollama.image."
WEIGHTS = frozenset({MEDIA + "model", MEDIA + "tensor"})
_DIGEST = re.compile(r"sha256[:-]([0-9a-fA-F]{64})")
# Name parts as Ollama's ParseName accepts them (types/model/name.go).
_HOST = re.compile(r"[A-Za-z0-9_][A-Za-z0-9_.:-]{0,349}")
_PART = re.compile(r"[A-Za-z0-9_][A-Za-z0-9_.-]{0,79}")
_NAMESPACE = re.compile(r"[A-Za-z0-9_][A-Za-z0-9_-]{0,79}")


@dataclass(frozen=True)
class OllamaName:
    host: str
    namespace: str
    model: str
    tag: str

    @property
    def display(self) -> str:
        """The name as `ollama list` shows it: `qwen3-coder:30b`, `user/model:tag`, `hf.co/org/repo:Q4_K_M`."""
        if self.host == DEFAULT_HOST:
            prefix = "" if self.namespace == DEFAULT_NAMESPACE else f"{self.namespace}/"
        else:
            prefix = f"{self.host}/{self.namespace}/"
        return f"{prefix}{self.model}:{self.tag}"


@dataclass(frozen=True)
class OllamaLayer:
    media_type: str
    digest: str  # the 64 hex digits of its SHA-256, lowercased
    size: int
    name: str | None = None  # a tensor layer's tensor name

    @property
    def kind(self) -> str:
        """`model`, `tensor`, `template`, `license`, `params`, `system`, `projector`, `adapter`, …"""
        return self.media_type.removeprefix(MEDIA) if self.media_type.startswith(MEDIA) else self.media_type


@dataclass(frozen=True)
class OllamaManifest:
    config: OllamaLayer | None
    layers: tuple[OllamaLayer, ...]

    def of_kind(self, *kinds: str) -> tuple[OllamaLayer, ...]:
        return tuple(layer for layer in self.layers if layer.kind in kinds)

    @property
    def weights(self) -> tuple[OllamaLayer, ...]:
        return tuple(layer for layer in self.layers if layer.media_type in WEIGHTS)


@dataclass(frozen=True)
class OllamaConfig:
    model_format: str | None  # gguf | safetensors
    family: str | None  # model_family: the GGUF architecture (qwen3moe, llama, gptoss)
    families: tuple[str, ...]
    parameter_size: str | None  # model_type, as `ollama show` prints it: "30.5B"
    quantization: str | None  # file_type: "Q4_K_M"
    remote_host: str | None  # a cloud model: its weights are not on this machine
    remote_model: str | None
    context_length: int | None
    capabilities: tuple[str, ...]


def manifest_name(relative: str) -> OllamaName | None:
    """The model a manifest at `relative` (its path under `manifests/`) names, or None if it names none."""
    parts = relative.strip("/").split("/")
    if len(parts) != 4:
        return None
    host, namespace, model, tag = parts
    ok = _HOST.fullmatch(host) and _NAMESPACE.fullmatch(namespace) and _PART.fullmatch(model)
    return OllamaName(host, namespace, model, tag) if ok and _PART.fullmatch(tag) else None


def blob_name(digest: str) -> str | None:
    """The file under `blobs/` that holds a layer (`sha256:ab…` -> `sha256-ab…`); None for a malformed digest."""
    m = _DIGEST.fullmatch(digest)
    return f"sha256-{m.group(1).lower()}" if m else None


def blob_digest(file_name: str) -> str | None:
    """The SHA-256 (hex) a blob's name claims for its bytes; None when the name is not a blob name."""
    m = _DIGEST.fullmatch(file_name)
    return m.group(1).lower() if m and file_name.startswith("sha256-") else None


def parse_manifest(data: bytes) -> OllamaManifest | FormatFailure:
    if len(data) > MAX_MANIFEST:
        return FormatFailure("ollama-manifest", FailureKind.LIMIT, f"{len(data)} bytes (cap {MAX_MANIFEST})")
    doc = _json(data)
    if not isinstance(doc, dict) or not isinstance(doc.get("layers"), list):
        return FormatFailure("ollama-manifest", FailureKind.MALFORMED, "not a manifest (no layers)")
    raw_layers = doc["layers"]
    if len(raw_layers) > MAX_LAYERS:
        return FormatFailure("ollama-manifest", FailureKind.LIMIT, f"{len(raw_layers)} layers (cap {MAX_LAYERS})")
    layers = tuple(layer for layer in map(_layer, raw_layers) if layer is not None)
    return OllamaManifest(_layer(doc.get("config")), layers)


def parse_config(data: bytes) -> OllamaConfig | FormatFailure:
    doc = _json(data[: MAX_CONFIG + 1]) if len(data) <= MAX_CONFIG else None
    if not isinstance(doc, dict):
        return FormatFailure("ollama-config", FailureKind.MALFORMED, "not a JSON object (or past the cap)")

    def text(key: str) -> str | None:
        v = doc.get(key)
        return v[:200] if isinstance(v, str) and v else None

    def texts(key: str) -> tuple[str, ...]:
        v = doc.get(key)
        return tuple(x[:200] for x in v[:32] if isinstance(x, str)) if isinstance(v, list) else ()

    ctx = doc.get("context_length")
    return OllamaConfig(
        model_format=text("model_format"),
        family=text("model_family"),
        families=texts("model_families"),
        parameter_size=text("model_type"),
        quantization=text("file_type"),
        remote_host=safe_url(host) if (host := text("remote_host")) else None,  # a key may ride in the URL
        remote_model=text("remote_model"),
        context_length=ctx if isinstance(ctx, int) and not isinstance(ctx, bool) and ctx > 0 else None,
        capabilities=texts("capabilities"),
    )


def parse_params(data: bytes) -> tuple[tuple[str, str], ...]:
    """A params layer's defaults (`{"temperature": 0.6, "stop": [...]}`) as sorted (key, JSON text) pairs."""
    doc = _json(data) if len(data) <= MAX_CONFIG else None
    if not isinstance(doc, dict):
        return ()
    return tuple(sorted((str(k)[:100], json.dumps(v)[:300]) for k, v in list(doc.items())[:64]))


def _layer(raw: object) -> OllamaLayer | None:
    if not isinstance(raw, dict):
        return None
    media, digest, size, name = raw.get("mediaType"), raw.get("digest"), raw.get("size"), raw.get("name")
    m = _DIGEST.fullmatch(digest) if isinstance(digest, str) else None
    if not isinstance(media, str) or m is None or not isinstance(size, int) or isinstance(size, bool) or size < 0:
        return None
    return OllamaLayer(media[:200], m.group(1).lower(), size, name[:300] if isinstance(name, str) else None)


def _json(data: bytes) -> object:
    try:
        return json.loads(data)
    except (ValueError, RecursionError):
        return None

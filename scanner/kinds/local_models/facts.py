"""The evidence and entries of local models: what the detector reads, and what the inventory says of each model."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TypeAlias

from scanner.model import Location

ROUTE = "local"
NOT_HERE = "configured, weights not on this machine"
MAX_LISTED = 200  # files, names, users and places one entry lists; the rest are counted


@dataclass(frozen=True)
class WeightFacts:
    """What a weight file's header or a store's config says a model is; None where it does not say."""

    architecture: str | None = None
    name: str | None = None
    parameters: int | None = None  # elements over all tensors
    size_label: str | None = None  # as the file or store writes it: "30B-A3B", "30.5B"
    quantization: str | None = None  # Q4_K_M, "awq 4-bit", or the main dtype (BF16)
    context_length: int | None = None
    license: str | None = None
    base_models: tuple[str, ...] = ()


@dataclass(frozen=True)
class WeightFileEvidence:
    """A weight file read by its header (`location.path` is where its bytes are; `via`, the link that named it)."""

    format: str  # gguf | safetensors | onnx | pytorch | pickle
    size: int
    location: Location
    facts: WeightFacts
    world_writable: bool = False
    pickle_form: str | None = None  # zip-pickle | legacy-pickle | pickle
    unsafe_globals: tuple[str, ...] = ()  # imported globals beyond the weights-only set
    note: str | None = None  # what of the header was not read


@dataclass(frozen=True)
class WeightDigestEvidence:
    """The SHA-256 of a whole weight file, or why there is none (hashing off, a short read)."""

    location: Location
    sha256: str | None
    note: str | None = None


@dataclass(frozen=True)
class StoreModelEvidence:
    """A model as a store records it: an Ollama manifest (its layers by digest) or a Hugging Face cache repo."""

    store: str  # ollama | hf-hub
    root: str  # the store's directory (Ollama's models dir, the hub cache)
    name: str  # qwen3-coder:30b, Qwen/Qwen3-32B
    location: Location
    facts: WeightFacts = WeightFacts()
    weights: tuple[tuple[str, int], ...] = ()  # Ollama: (sha256, size) of each weight layer
    revision: str | None = None
    remote: str | None = None  # a cloud model's host: its weights are elsewhere
    world_writable: bool = False
    params: tuple[tuple[str, str], ...] = ()  # Ollama's params layer: default parameters (name, JSON value)


@dataclass(frozen=True)
class ModelServerEvidence:
    """A model server a unit, compose service, pod or wrapper runs, and what it serves."""

    server: str  # the catalog grammar's id: vllm, ollama, tgi, …
    location: Location
    model: str | None  # a path or hub id as written; None for a server of a whole store (Ollama)
    model_on_host: str | None = None  # the path as the machine sees it, through a bind mount
    aliases: tuple[str, ...] = ()
    host: str | None = None
    port: int | None = None
    source: str | None = None  # the unit, service or container
    store: str | None = None  # a store directory its environment names


LocalEvidence: TypeAlias = WeightFileEvidence | WeightDigestEvidence | StoreModelEvidence | ModelServerEvidence


@dataclass(frozen=True)
class LocalFile:
    path: str
    format: str
    size: int
    sha256: str | None
    store_digest: str | None = None  # what the store's name claims
    digest_check: str | None = None  # match | mismatch | unchecked; None when no store claims a digest
    world_writable: bool = False
    unsafe_globals: tuple[str, ...] = ()
    note: str | None = None


@dataclass(frozen=True)
class LocalServer:
    server: str
    host: str | None
    port: int | None
    aliases: tuple[str, ...]
    source: str | None
    location: Location


@dataclass(frozen=True)
class LocalModelEntry:
    name: str
    names: tuple[str, ...]  # every name it answers to: store tag, repo id, served aliases
    store: str  # ollama | hf-hub | lmstudio | llamacpp | gpt4all | folder | file | none
    present: bool  # its weights are on this machine
    vendor: str | None
    family: str | None
    facts: WeightFacts
    format: str | None
    size: int  # bytes of its weight files
    files: tuple[LocalFile, ...]
    servers: tuple[LocalServer, ...]
    used_by: tuple[str, ...]  # agent products (and the user) whose configs select it
    sessions: int  # sessions whose records name it as what served them
    locations: tuple[Location, ...]
    route: str = ROUTE
    note: str | None = None
    files_cut: int = 0
    license_restricts: tuple[str, ...] = ()  # commercial | scale: what its license's own text restricts
    license_quote: str | None = None  # that text
    store_writable: bool = False  # a store record (an Ollama manifest) anyone may rewrite
    revision: str | None = None  # the Hugging Face commit its cache's ref names
    params: tuple[tuple[str, str], ...] = ()  # default parameters its store sets (Ollama's params layer)

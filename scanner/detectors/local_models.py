"""Local models: weight files anywhere, the stores that name them, and the servers that serve them.

- A weight file is known by its bytes (GGUF magic, a safetensors header that fits the file, torch's pickle
  magic) or by its name where the format has no magic (`.onnx`, `.pkl`, a zip named `.pt`); its header is read
  in place, bounded, and the whole file hashed (SHA-256) unless hashing is off. A file inside an installed
  package or a test tree is the package's own, unless a store holds it.
- An Ollama store is known by its manifests (`…/manifests/<host>/<namespace>/<model>/<tag>`, a manifest whose
  layers are Ollama's): the manifest names the model, its weight layers' digests and its config and license
  blobs, read beside it. A Hugging Face cache repo is known by its folder (`models--<org>--<name>`): a ref
  names the snapshot whose config and model card are read.
- A server is a catalogued command line (`[[model_servers]]`) in a systemd unit or drop-in, a Compose file, a
  Kubernetes workload or a shell wrapper.
"""

from __future__ import annotations

import copy
import posixpath
import re
from collections.abc import Iterator
from dataclasses import dataclass
from functools import lru_cache

import yaml

from scanner.detectors.contract import Files, Needs, Reading, Setting
from scanner.fileview.view import FileView
from scanner.formats import digest, gguf, hfcache, modelcard, ollama, onnx, safetensors, torchfile, weights
from scanner.formats.bounded import FailureKind, FormatFailure, bytes_reader
from scanner.formats.servercmd import ServedModel
from scanner.formats.servercontainers import served_by_compose, served_by_pod
from scanner.formats.serverunits import merge_units, parse_env_file, served_by_script, served_by_unit
from scanner.kinds import Evidence
from scanner.kinds.local_models.catalog_index import SECTION as LOCAL_CATALOG
from scanner.kinds.local_models.catalog_index import LocalModels
from scanner.kinds.local_models.facts import (
    ModelServerEvidence,
    StoreModelEvidence,
    WeightDigestEvidence,
    WeightFacts,
    WeightFileEvidence,
)
from scanner.model import Context, Location, Skip, SkipReason
from scanner.textsafe import display_path

MAX_SERVER_FILE = 1 << 20  # units, compose files, manifests and wrappers read whole
MAX_SIDE_FILE = 4 << 20  # a config, card or license read beside what names it
_COMPOSE = re.compile(r"(?:docker-)?compose(?:\.[\w-]+)?\.ya?ml")
_SHEBANG = re.compile(rb"#![^\n]*\b(?:sh|bash|dash|zsh)\b")
_ALIASES = re.compile(rb"\*[A-Za-z0-9_-]+")  # YAML aliases: a document of many is refused (alias bombs)
_FOREIGN = frozenset({Context.PACKAGE, Context.TEST, Context.DOCS})


class LocalModelDetector:
    name = "local_models"
    description = (
        "Local model weights (GGUF, safetensors, ONNX, PyTorch, pickles), Ollama stores, Hugging Face caches, "
        "model servers"
    )
    # Run again on each later window of a big weight file: its digest is fed from the bytes the windows read anyway,
    # so a 50 GB file is read once, in windows, with memory flat. Its header is read in place (`Window.read`).
    needs = Needs((
        # A weight file by its name or magic; a safetensors file by its header's shape (it has no magic).
        Files(names=weights.NAME_GLOBS, fold_case=True, accept=lambda view: _is_weight(view)),
        Files(magics=weights.MAGICS, accept=lambda view: _is_weight(view)),
        Files(accept=lambda view: safetensors.looks_like(view.head, view.entry.size) and _is_weight(view)),
        Files(under=("manifests",), magics=(b"{",), max_size=MAX_SERVER_FILE, accept=lambda view: _has_role(view)),
        Files(under=("refs",), max_size=MAX_SERVER_FILE, accept=lambda view: _has_role(view)),
        Files(names=("*.service", "*.conf", "*.yaml", "*.yml", "*.sh"), max_size=MAX_SERVER_FILE, not_in=_FOREIGN,
              accept=lambda view: _has_role(view)),
        Files(magics=(b"#!",), max_size=MAX_SERVER_FILE, not_in=_FOREIGN, accept=lambda view: _has_role(view)),
    ), Reading.WINDOWS)  # fmt: skip

    settings = (Setting("hash-weights", "Read weight files' headers only: no SHA-256 of the whole file (store "
                        "digests are then left unchecked)"),)

    def __init__(self, hash_weights: bool = True) -> None:
        self.hash_weights = hash_weights
        self._pending: _Pending | None = None

    def configured(self, off: frozenset[str]) -> LocalModelDetector:
        """This detector with weight files hashed or not."""
        other = copy.copy(self)
        other.hash_weights, other._pending = "hash-weights" not in off, None
        return other

    def extract(self, view: FileView) -> Iterator[Evidence | Skip]:
        if view.window is not None and view.window.offset:
            yield from self._window(view)
            return
        self._pending = None
        role = _role(view)
        if role == "weight":
            yield from self._weight(view)
        elif role == "manifest":
            yield from _manifest(view)
        elif role == "ref":
            yield from _ref(view)
        elif role is not None:
            yield from _servers(view, role)

    def _weight(self, view: FileView) -> Iterator[Evidence | Skip]:
        size = view.entry.size
        window = view.window
        read = window.read if window is not None and window.read is not None else bytes_reader(view.data)
        fmt = weights.sniff(view.head, view.name, size)
        assert fmt is not None
        header = weights.read_header(fmt, read, size)
        if isinstance(header, FormatFailure):
            if header.kind is not FailureKind.NOT_THIS_FORMAT:
                reason = SkipReason.BUDGET_EXCEEDED if header.kind is FailureKind.LIMIT else SkipReason.PARSE_ERROR
                yield Skip(view.path, reason, f"{header.format} header: {header.detail}"[:300])
            return
        facts, form, unsafe, note = _facts(header, view)
        location = view.location(None)
        yield WeightFileEvidence(fmt.value, size, location, facts, bool(view.entry.mode & 0o002), form, unsafe, note)
        if not self.hash_weights:
            yield WeightDigestEvidence(location, None, "not hashed (--no-hash-weights)")
            return
        stream = digest.StreamingDigest(size)
        stream.feed(0, view.data)
        if window is None:
            found = stream.result()
            yield WeightDigestEvidence(location, found.hexdigest, found.reason)
        else:  # the rest comes window by window, as the pattern matchers read it
            self._pending = _Pending(view.entry.path, stream, location)

    def _window(self, view: FileView) -> Iterator[Evidence | Skip]:
        """A later window of a weight file whose head began a digest: hashed as it passes; the last one ends it."""
        pending, window = self._pending, view.window
        if pending is None or window is None or pending.path != view.entry.path:
            return
        pending.stream.feed(window.offset, view.data)
        if window.offset + len(view.data) >= view.entry.size:
            self._pending = None
            found = pending.stream.result()
            yield WeightDigestEvidence(pending.location, found.hexdigest, found.reason)


@dataclass
class _Pending:
    """The digest of the one file being read: a scan (or a worker of one) reads one file at a time."""

    path: str
    stream: digest.StreamingDigest
    location: Location


def _is_weight(view: FileView) -> bool:
    """A weight file by its bytes or its name, outside a package or a test tree unless a store holds it."""
    if weights.sniff(view.head, view.name, view.entry.size) is None:
        return False
    return view.context not in _FOREIGN or _in_store(view.entry.path, LOCAL_CATALOG.of(view.catalog))


def _has_role(view: FileView) -> bool:
    return _role(view) is not None


def _role(view: FileView) -> str | None:
    """What the file is here: a weight, a store's manifest or ref, or a server's unit, Compose/Kubernetes YAML or
    wrapper script."""
    path, name, size = view.entry.path, view.name, view.entry.size
    if weights.sniff(view.head, name, size) is not None:
        return "weight" if _is_weight(view) else None
    if size > MAX_SERVER_FILE:
        return None
    if "/manifests/" in path and view.data[:1] == b"{" and _manifest_name(path) is not None:
        return "manifest"
    if "/models--" in path and "/refs/" in path:
        return "ref"
    if view.context in _FOREIGN:
        return None
    if name.endswith(".service") or (name.endswith(".conf") and ".service.d/" in path):
        return "unit" if _mentions_server(view) else None
    if name.endswith((".yaml", ".yml")):
        return "yaml" if _mentions_server(view) else None
    if name.endswith(".sh") or _SHEBANG.match(view.data[:128]):
        return "script" if _mentions_server(view) else None
    return None


def _in_store(path: str, local: LocalModels) -> bool:
    """A Hugging Face or Ollama store wherever it was moved, or any catalogued store where it lives by default."""
    return "/models--" in path or "/blobs/sha256-" in path or local.store_at(path) is not None


def _manifest_name(path: str) -> ollama.OllamaName | None:
    return ollama.manifest_name(path.rsplit("/manifests/", 1)[1])


def _mentions_server(view: FileView) -> bool:
    local = LOCAL_CATALOG.of(view.catalog)
    text = view.data.lower()
    if not any(word in text for word in _server_words(local)):
        return False
    lines = view.text.splitlines()
    return any(g.args_after(line.split()) is not None for line in lines for g in local.servers) or any(
        g.runs_image(view.text) for g in local.servers
    )


@lru_cache(maxsize=8)
def _server_words(local: LocalModels) -> tuple[bytes, ...]:
    """A literal word of each server's invocation and images (its id where the pattern holds it): a cheap first
    test before the grammars run."""
    out = []
    for g in local.servers:
        command = g.command.lower()
        words = re.findall(r"[a-z]{4,}", command)
        out.append((g.id if g.id in command else max(words, key=len, default=g.id)).encode())
        out += [w.encode() for i in g.images for w in re.findall(r"[a-z]{5,}", i.lower())[-1:]]
    return tuple(out)


def _facts(header: weights.WeightHeader, view: FileView) -> tuple[WeightFacts, str | None, tuple[str, ...], str | None]:
    """(facts, pickle form, unsafe globals, note) of a header."""
    if isinstance(header, gguf.GgufHeader):
        facts = WeightFacts(header.architecture, header.name or header.basename, header.parameters, header.size_label,
                            header.quantization, header.context_length, header.license,
                            tuple(b.name for b in header.base_models if b.name))  # fmt: skip
        return facts, None, (), header.note
    if isinstance(header, torchfile.PickleFile):
        unsafe = LOCAL_CATALOG.of(view.catalog).unsafe_globals(header.globals)
        return _beside(view, WeightFacts()), header.form.value, unsafe, header.problem
    if isinstance(header, safetensors.SafetensorsHeader):
        dtype = header.dtypes[0][0] if header.dtypes else None
        return _beside(view, WeightFacts(parameters=header.parameters, quantization=dtype)), None, (), None
    assert isinstance(header, onnx.OnnxHeader)
    return WeightFacts(name=header.producer_name), None, (), None


def _beside(view: FileView, facts: WeightFacts) -> WeightFacts:
    """A model folder's `config.json` beside its weights says what they are (a cache blob has none beside it)."""
    if "/blobs/" in view.entry.path:
        return facts
    data = view.read_path(posixpath.join(posixpath.dirname(view.entry.path), "config.json"), MAX_SIDE_FILE)
    config = hfcache.parse_config(data) if data else None
    if config is None:
        return facts
    return WeightFacts(config.model_type, facts.name or config.name_or_path, facts.parameters, None,
                       config.quantization or config.dtype or facts.quantization, config.context_length)  # fmt: skip


def _manifest(view: FileView) -> Iterator[Evidence | Skip]:
    name = _manifest_name(view.entry.path)
    parsed = ollama.parse_manifest(view.data)
    if name is None or isinstance(parsed, FormatFailure):
        if isinstance(parsed, FormatFailure) and name is not None and view.data.lstrip()[:1] == b"{":
            yield Skip(view.path, SkipReason.PARSE_ERROR, f"ollama manifest: {parsed.detail}")
        return
    if not any(layer.media_type.startswith(ollama.MEDIA) for layer in parsed.layers):
        return  # a registry manifest of something else (a container image)
    root = view.entry.path.rsplit("/manifests/", 1)[0]

    def blob(layer: ollama.OllamaLayer | None, limit: int = MAX_SIDE_FILE) -> bytes | None:
        return view.read_path(f"{root}/blobs/sha256-{layer.digest}", limit) if layer is not None else None

    config_data = blob(parsed.config)
    config = ollama.parse_config(config_data) if config_data else None
    config = config if isinstance(config, ollama.OllamaConfig) else None
    licenses = [t.decode("utf-8", "replace") for layer in parsed.of_kind("license") if (t := blob(layer, 64 << 10))]
    lookup = LOCAL_CATALOG.of(view.catalog).license_of_text
    license_id = next((terms.id for text in licenses if (terms := lookup(text))), None)
    facts = WeightFacts(
        architecture=config.family if config else None, size_label=config.parameter_size if config else None,
        quantization=config.quantization if config else None, context_length=config.context_length if config else None,
        license=license_id,
    )  # fmt: skip
    yield StoreModelEvidence(
        "ollama", display_path(root), name.display, view.location(None, Context.CONFIG), facts,
        tuple((layer.digest, layer.size) for layer in parsed.weights), None,
        config.remote_host if config else None, bool(view.entry.mode & 0o002),
        next((ollama.parse_params(data) for layer in parsed.of_kind("params") if (data := blob(layer))), ()),
    )  # fmt: skip


def _ref(view: FileView) -> Iterator[Evidence | Skip]:
    head, _, rest = view.entry.path.partition("/models--")
    where = hfcache.cache_path("models--" + rest)
    commit = hfcache.parse_ref(view.data)
    if where is None or where.section != "refs" or where.repo.type != "model" or commit is None:
        return
    snapshot = f"{head}/models--{rest.split('/', 1)[0]}/snapshots/{commit}"
    data = view.read_path(f"{snapshot}/config.json", MAX_SIDE_FILE)
    config = hfcache.parse_config(data) if data else None
    card_data = view.read_path(f"{snapshot}/README.md", modelcard.MAX_FRONT)
    card = modelcard.parse_card(card_data) if card_data else None
    facts = WeightFacts(
        architecture=config.model_type if config else None,
        quantization=(config.quantization or config.dtype) if config else None,
        context_length=config.context_length if config else None,
        license=card.license if card else None, base_models=card.base_models if card else (),
    )  # fmt: skip
    yield StoreModelEvidence("hf-hub", display_path(head), where.repo.repo_id, view.location(None, Context.CONFIG),
                             facts, revision=commit)  # fmt: skip


def _servers(view: FileView, role: str) -> Iterator[Evidence | Skip]:
    grammars = LOCAL_CATALOG.of(view.catalog).servers
    found: list[ServedModel] = []
    if role == "unit":
        found = _unit(view)
    elif role == "script":
        found = served_by_script(view.text, grammars, view.name)
    else:
        if len(_ALIASES.findall(view.data)) > 100:
            yield Skip(view.path, SkipReason.BUDGET_EXCEEDED, "YAML with more than 100 aliases not loaded")
            return
        try:
            docs = list(yaml.safe_load_all(view.text))
        except (yaml.YAMLError, RecursionError, ValueError):
            return  # the config detector records a YAML file that does not parse
        for doc in docs[:100]:
            found += served_by_compose(doc, grammars) if _COMPOSE.fullmatch(view.name) else served_by_pod(doc, grammars)
    location = view.location(None)
    for s in found:
        yield ModelServerEvidence(s.server, location, s.model, s.model_on_host, s.aliases, s.host, s.port,
                                  s.source, s.store)  # fmt: skip


def _unit(view: FileView) -> list[ServedModel]:
    """A unit, or a drop-in applied over the unit it belongs to (found beside its folder or in the vendor dirs)."""
    texts = [view.text]
    if view.name.endswith(".conf"):
        folder = posixpath.dirname(view.entry.path)
        unit_name = posixpath.basename(folder).removesuffix(".d")
        for base in (posixpath.dirname(folder), "/usr/lib/systemd/system", "/lib/systemd/system"):
            data = view.read_path(f"{base}/{unit_name}", MAX_SERVER_FILE)
            if data is not None:
                texts.insert(0, data.decode("utf-8", "replace"))
                break
    unit = merge_units(texts)
    files = {p: parse_env_file(d.decode("utf-8", "replace")) for p in unit.environment_files
             if (d := view.read_path(p, MAX_SERVER_FILE)) is not None}  # fmt: skip
    name = view.name if view.name.endswith(".service") else posixpath.basename(posixpath.dirname(view.entry.path))
    return served_by_unit(unit, LOCAL_CATALOG.of(view.catalog).servers, files, name.removesuffix(".d"))


DETECTOR = LocalModelDetector()

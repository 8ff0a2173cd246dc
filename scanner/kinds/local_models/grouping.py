"""The fold of local-model evidence into entries: files grouped into models, digests checked, servers attached.

Files are grouped by what holds them: an Ollama manifest's weight layers, a Hugging Face cache repo, an LM Studio
folder, a model directory (shards of one model share it), a lone GGUF. Each file is checked against the digest
its store's name claims (an Ollama `sha256-…` blob, a cache blob named by its SHA-256). A server is attached to
the models whose files lie under the path it serves, or whose store name is the id it serves; a server of a
model no store holds makes an entry of its own, said to be absent.
"""

from __future__ import annotations

import posixpath
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field, replace

from scanner.catalog import Catalog
from scanner.formats import hfcache, localnames
from scanner.kinds.base import FoldContext
from scanner.kinds.local_models.catalog_index import SECTION as LOCAL_CATALOG
from scanner.kinds.local_models.facts import (
    MAX_LISTED,
    NOT_HERE,
    LocalEvidence,
    LocalFile,
    LocalModelEntry,
    LocalServer,
    ModelServerEvidence,
    StoreModelEvidence,
    WeightDigestEvidence,
    WeightFacts,
    WeightFileEvidence,
)
from scanner.model import Location, location_key

MAX_FILES = 100_000  # weight files folded
MAX_STORE_MODELS = 10_000
MAX_SERVERS = 1_000
# Files that are one part of the model their folder holds: shards, and the names converters give a model's weights.
_SHARD = re.compile(r"-\d{5}-of-\d{5}\.")
_MODEL_FILES = ("model.", "pytorch_model", "consolidated.", "tf_model.", "flax_model.")
EVIDENCE = (WeightFileEvidence, WeightDigestEvidence, StoreModelEvidence, ModelServerEvidence)




@dataclass
class _File:
    ev: WeightFileEvidence
    sha256: str | None = None
    note: str | None = None
    vias: set[str] = field(default_factory=set)


class LocalModelFold:
    """Evidence of local models folded as it arrives: memory bounded by the distinct files, stores and servers."""

    def __init__(self, ctx: FoldContext) -> None:
        self._ctx = ctx
        self._catalog = ctx.catalog
        self._files: dict[str, _File] = {}
        self._digests: dict[str, WeightDigestEvidence] = {}
        self._stores: dict[tuple[str, str, str], StoreModelEvidence] = {}
        self._servers: dict[tuple[object, ...], ModelServerEvidence] = {}

    def add(self, ev: LocalEvidence) -> None:
        if isinstance(ev, WeightFileEvidence):
            known = self._files.get(ev.location.path)
            if known is None and len(self._files) >= MAX_FILES:
                self._ctx.count_cut(f"weight file(s) past {MAX_FILES}")
                return
            if known is None:
                known = self._files[ev.location.path] = _File(ev)
            if ev.location.via:
                known.vias.add(ev.location.via)
        elif isinstance(ev, WeightDigestEvidence):
            self._digests.setdefault(ev.location.path, ev)
        elif isinstance(ev, StoreModelEvidence):
            key = (ev.store, ev.root, ev.name)
            if key not in self._stores and len(self._stores) >= MAX_STORE_MODELS:
                self._ctx.count_cut(f"store model(s) past {MAX_STORE_MODELS}")
            else:
                self._stores.setdefault(key, ev)
        else:
            skey = (ev.server, ev.model, ev.host, ev.port, ev.source, ev.location.path)
            if skey not in self._servers and len(self._servers) >= MAX_SERVERS:
                self._ctx.count_cut(f"model server(s) past {MAX_SERVERS}")
            else:
                self._servers.setdefault(skey, ev)

    def build(self) -> tuple[LocalModelEntry, ...]:
        for path, d in self._digests.items():
            if path in self._files:
                self._files[path].sha256, self._files[path].note = d.sha256, d.note
        groups = _Groups()
        for _key, ev in sorted(self._stores.items(), key=lambda kv: kv[0]):
            groups.store_model(ev, self._files)
        for path in sorted(self._files):
            groups.loose(self._files[path], self._catalog)
        for sev in sorted(self._servers.values(), key=lambda s: (s.location.path, s.server, s.model or "")):
            groups.serve(sev)
        return tuple(_entry(g, self._catalog) for g in groups.all())


@dataclass
class _Group:
    name: str
    store: str
    facts: list[WeightFacts] = field(default_factory=list)
    files: list[tuple[_File, str | None]] = field(default_factory=list)  # (file, digest its store claims)
    names: list[str] = field(default_factory=list)
    servers: list[ModelServerEvidence] = field(default_factory=list)
    locations: list[Location] = field(default_factory=list)
    missing: int = 0  # weight layers a manifest names that are not on disk
    remote: str | None = None
    world_writable: bool = False
    revision: str | None = None
    params: tuple[tuple[str, str], ...] = ()


class _Groups:
    """Files grouped into models: by a store's record first, then by what holds the rest."""

    def __init__(self) -> None:
        self.by_key: dict[tuple[str, str], _Group] = {}
        self.claimed: set[str] = set()

    def _group(self, store: str, key: str, name: str) -> _Group:
        g = self.by_key.get((store, key))
        if g is None:
            g = self.by_key[(store, key)] = _Group(name, store, names=[name])
        return g

    def store_model(self, ev: StoreModelEvidence, files: dict[str, _File]) -> None:
        g = self._group(ev.store, f"{ev.root}\0{ev.name}", ev.name)
        g.facts.insert(0, ev.facts)
        g.locations.append(ev.location)
        g.remote, g.world_writable = ev.remote, g.world_writable or ev.world_writable
        g.revision, g.params = g.revision or ev.revision, g.params or ev.params
        if ev.store == "ollama":
            for sha, _size in ev.weights:
                path = f"{ev.root}/blobs/sha256-{sha}"
                if path in files:
                    g.files.append((files[path], sha))
                    g.facts.append(files[path].ev.facts)
                    self.claimed.add(path)
                else:
                    g.missing += 1

    def loose(self, f: _File, catalog: Catalog) -> None:
        path = f.ev.location.path
        if path in self.claimed:
            return
        store, key, name, claimed = _placed(path, f.ev, catalog)
        g = self._group(store, key, name)
        g.files.append((f, claimed))
        g.facts.append(f.ev.facts)

    def serve(self, ev: ModelServerEvidence) -> None:
        target = ev.model_on_host or ev.model
        matched = [g for g in self.by_key.values() if _serves(ev, target, g)]
        if not matched and target:
            name = target.rstrip("/").rsplit("/", 1)[-1] if target.startswith("/") else target
            matched = [self._group("none", f"{ev.server}\0{target}", name)]
        for g in matched:
            g.servers.append(ev)
            g.names.extend(ev.aliases)

    def all(self) -> list[_Group]:
        return [self.by_key[k] for k in sorted(self.by_key)]


def _placed(path: str, ev: WeightFileEvidence, catalog: Catalog) -> tuple[str, str, str, str | None]:
    """(store, group key, model name, digest the store's name claims) of a file no store record claimed."""
    head, sep, rest = path.partition("/models--")
    if sep:
        where = hfcache.cache_path("models--" + rest)
        if where is not None:
            claimed = where.path if where.section == "blobs" and len(where.path) == 64 else None
            return "hf-hub", f"{head}\0{where.repo.repo_id}", where.repo.repo_id, claimed
    hit = LOCAL_CATALOG.of(catalog).store_at(path)
    folder, file_name = posixpath.split(path)
    if hit is not None and hit.spec.format == "lmstudio" and (named := localnames.lmstudio_name(hit.relative)):
        return "lmstudio", f"{hit.root}\0{named[0]}", named[0], None
    if hit is not None and hit.spec.format in ("gpt4all", "llamacpp"):
        return hit.spec.format, path, localnames.file_stem(file_name), None
    if ev.format == "safetensors" or _SHARD.search(file_name) or file_name.startswith(_MODEL_FILES):
        return "folder", folder, posixpath.basename(folder) or file_name, None  # shards of one model share a folder
    return "file", path, (ev.facts.name if ev.format == "gguf" else None) or localnames.file_stem(file_name), None


def _serves(ev: ModelServerEvidence, target: str | None, g: _Group) -> bool:
    if target is None:  # a server of a whole store
        return g.store == "ollama" and (ev.store is None or any(f.ev.location.path.startswith(ev.store + "/")
                                                                for f, _ in g.files) or not g.files)  # fmt: skip
    if target.startswith("/"):
        prefix = target.rstrip("/") + "/"
        return any(f.ev.location.path == target or f.ev.location.path.startswith(prefix) for f, _ in g.files)
    return g.store in ("hf-hub", "ollama") and target.lower() in (n.lower() for n in g.names)


def _entry(g: _Group, catalog: Catalog) -> LocalModelEntry:
    facts = _merged(g.facts)
    counts = [f.ev.facts.parameters for f, _ in g.files if f.ev.facts.parameters]
    if len(counts) > 1:  # shards: the model is all of them
        facts = replace(facts, parameters=sum(counts))
    files = tuple(_file(f, claimed) for f, claimed in sorted(g.files, key=lambda fc: fc[0].ev.location.path))
    present = bool(files) and not g.missing and g.remote is None
    vendor, family = identify([*g.names, facts.name], facts.architecture, catalog)
    locs = {location_key(loc): loc for loc in g.locations}
    for f, _ in g.files:
        locs.setdefault(location_key(f.ev.location), f.ev.location)
    servers = tuple(dict.fromkeys(
        LocalServer(s.server, s.host, s.port, s.aliases, s.source, s.location) for s in g.servers))
    note = None
    if g.remote:
        note = f"a cloud model: its weights are on {g.remote}"
    elif g.missing:
        note = f"{g.missing} weight layer(s) the manifest names are not on this machine"
    elif not files:
        note = NOT_HERE
    terms = LOCAL_CATALOG.of(catalog).license(facts.license) if facts.license else None
    return LocalModelEntry(
        name=g.name, names=tuple(dict.fromkeys(g.names))[:MAX_LISTED], store=g.store, present=present,
        vendor=vendor, family=family, facts=facts, format=files[0].format if files else None,
        size=sum(f.size for f in files), files=files[:MAX_LISTED], servers=servers, used_by=(), sessions=0,
        locations=tuple(sorted(locs.values(), key=location_key))[:MAX_LISTED], note=note,
        files_cut=max(0, len(files) - MAX_LISTED), license_restricts=terms.restricts if terms else (),
        license_quote=terms.quote if terms else None, store_writable=g.world_writable, revision=g.revision,
        params=g.params,
    )  # fmt: skip


def _file(f: _File, claimed: str | None) -> LocalFile:
    check = None
    if claimed is not None:
        check = "unchecked" if f.sha256 is None else "match" if f.sha256 == claimed.lower() else "mismatch"
    ev = f.ev
    return LocalFile(ev.location.path, ev.format, ev.size, f.sha256, claimed, check, ev.world_writable,
                     ev.unsafe_globals, f.note or ev.note)  # fmt: skip


def _merged(facts: Sequence[WeightFacts]) -> WeightFacts:
    """The first value each source gives, in order (a store's config, then its files in path order)."""
    out: dict[str, object] = {}
    for fact in facts:
        for key, value in fact.__dict__.items():
            if value not in (None, ()) and key not in out:
                out[key] = value
    return WeightFacts(**out)  # type: ignore[arg-type]


def identify(names: Iterable[str | None], architecture: str | None, catalog: Catalog) -> tuple[str | None, str | None]:
    """(vendor, family) of a local model: its names as the catalogs know them, else its architecture's family."""
    for name in names:
        for spelling in localnames.candidates(name or ""):
            ident = catalog.identify(spelling)
            if ident.vendor:
                return ident.vendor, ident.family
    family = LOCAL_CATALOG.of(catalog).family_of_architecture(architecture) if architecture else None
    if family is None:
        return None, None
    vendors = {f.id: f.vendor for cat in catalog.files for f in cat.families}
    return vendors.get(family), family

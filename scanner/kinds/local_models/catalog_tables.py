"""The catalog sections about models on the machine itself: servers, stores, architectures, licenses, pickles.

- `[[model_servers]]`: a local model server's command-line grammar (`scanner.formats.servercmd`);
- `[[model_stores]]`: where a store of weights lives (Ollama, the Hugging Face cache, LM Studio, …);
- `[[architectures]]`: architecture names as weight files and stores write them (`qwen3moe`, `gptoss`), and
  the family they belong to, for a model whose name says nothing;
- `[[licenses]]`: model licenses whose text restricts a use, with the sentence that says so;
- `[pickle_globals]`: the globals a weights-only pickle may import, and those known to run code.

Parsed by `parse_local` into one `LocalModelsData` per catalog file, the kind's catalog section
(`catalog_index.SECTION`); `catalogs/SCHEMA.md` describes them.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

from scanner.catalog.globs import glob_problem, glob_regex
from scanner.formats.servercmd import CommandGrammar

TABLES = frozenset({"model_servers", "model_stores", "architectures", "licenses", "pickle_globals"})
STORE_FORMATS = ("ollama", "hf-hub", "lmstudio", "llamacpp", "gpt4all")
RESTRICTIONS = ("commercial", "scale")  # commercial use; use past a size of audience without another license
_SERVER_KEYS = (
    {"id", "name", "command", "match", "no_match"},
    {"images", "image_env", "model_flags", "positional_model", "host_flags", "port_flags", "alias_flags",
     "model_env", "host_env", "port_env", "store_env", "default_host", "default_port", "serves_store", "note"},
)  # fmt: skip
_STORE_KEYS = ({"format", "paths", "match", "no_match"}, {"env", "note"})
_ARCH_KEYS = ({"family", "names"}, {"note"})
_LICENSE_KEYS = ({"id", "restricts", "quote", "source"}, {"names", "text", "match", "no_match"})
_PICKLE_KEYS = ({"safe"}, {"dangerous", "sources"})


class LocalCatalogError(ValueError):
    """A local-models section that does not follow the schema (re-raised as the catalog's own error)."""


@dataclass(frozen=True)
class StoreSpec:
    format: str  # one of STORE_FORMATS
    paths: tuple[str, ...]  # directory globs of the store's root (the rules of scanner/catalog/globs.py)
    env: tuple[str, ...]  # `VAR` or `VAR/sub`: an environment variable that moves the root (HF_HOME/hub)
    match: tuple[str, ...]  # inside paths of files in the store
    no_match: tuple[str, ...]
    note: str | None = None


@dataclass(frozen=True)
class ArchitectureSpec:
    family: str
    names: tuple[str, ...]  # lowercase, as GGUF `general.architecture`, config.json `model_type`, Ollama write it


@dataclass(frozen=True)
class LicenseTerms:
    id: str  # the Hub's license id (`llama3.1`, `cc-by-nc-4.0`)
    restricts: tuple[str, ...]  # of RESTRICTIONS
    quote: str  # the license's own sentence that restricts
    source: str  # where that sentence was read
    names: tuple[str, ...] = ()  # other spellings (GGUF general.license, a card's license_name)
    text: str | None = None  # a regex that identifies the license's full text (an Ollama license layer)
    match: tuple[str, ...] = ()
    no_match: tuple[str, ...] = ()


@dataclass(frozen=True)
class PickleGlobals:
    safe: tuple[str, ...] = ()  # "module.name", or "module.*" for every name of a module
    dangerous: tuple[str, ...] = ()
    sources: tuple[str, ...] = ()


@dataclass(frozen=True)
class ServerSpec:
    grammar: CommandGrammar
    match: tuple[str, ...]  # command lines the grammar must find its server in
    no_match: tuple[str, ...]


@dataclass(frozen=True)
class LocalModelsData:
    servers: tuple[ServerSpec, ...] = ()
    stores: tuple[StoreSpec, ...] = ()
    architectures: tuple[ArchitectureSpec, ...] = ()
    licenses: tuple[LicenseTerms, ...] = ()
    pickle_globals: PickleGlobals = field(default_factory=PickleGlobals)


def parse_local(data: dict[str, Any], origin: str) -> LocalModelsData:
    """The local-models sections of one parsed TOML catalog; raises LocalCatalogError on a schema violation."""
    pickle = data.get("pickle_globals")
    if pickle is not None:
        _keys(origin, "[pickle_globals]", pickle, _PICKLE_KEYS)
    return LocalModelsData(
        servers=tuple(_server(origin, r) for r in _rows(origin, data, "model_servers", _SERVER_KEYS)),
        stores=tuple(_store(origin, r) for r in _rows(origin, data, "model_stores", _STORE_KEYS)),
        architectures=tuple(
            ArchitectureSpec(str(r["family"]), tuple(n.lower() for n in _strs(origin, r["names"])))
            for r in _rows(origin, data, "architectures", _ARCH_KEYS)
        ),
        licenses=tuple(_license(origin, r) for r in _rows(origin, data, "licenses", _LICENSE_KEYS)),
        pickle_globals=PickleGlobals(
            tuple(_strs(origin, pickle["safe"])),
            tuple(_strs(origin, pickle.get("dangerous", []))),
            tuple(_strs(origin, pickle.get("sources", []))),
        ) if pickle is not None else PickleGlobals(),
    )  # fmt: skip


def _server(origin: str, r: dict[str, Any]) -> ServerSpec:

    def strs(key: str) -> tuple[str, ...]:
        return tuple(_strs(origin, r.get(key, [])))

    env = r.get("image_env", {})
    if not isinstance(env, dict) or not all(isinstance(v, str) for v in env.values()):
        raise LocalCatalogError(f"{origin}: model server {r['id']}: image_env must map names to strings")
    port = r.get("default_port")
    if port is not None and (not isinstance(port, int) or not 0 < port < 65536):
        raise LocalCatalogError(f"{origin}: model server {r['id']}: default_port {port!r} is not a port")
    try:
        grammar = CommandGrammar(
            id=str(r["id"]), name=str(r["name"]), command=str(r["command"]), images=strs("images"),
            image_env=tuple(sorted(env.items())), model_flags=strs("model_flags"),
            positional_model=bool(r.get("positional_model", False)), host_flags=strs("host_flags"),
            port_flags=strs("port_flags"), alias_flags=strs("alias_flags"), model_env=strs("model_env"),
            host_env=strs("host_env"), port_env=strs("port_env"), store_env=strs("store_env"),
            default_host=r.get("default_host"), default_port=port, serves_store=bool(r.get("serves_store", False)),
        )  # fmt: skip
    except re.error as exc:
        raise LocalCatalogError(f"{origin}: model server {r['id']}: bad regex: {exc}") from None
    return ServerSpec(grammar, strs("match"), strs("no_match"))


def _store(origin: str, r: dict[str, Any]) -> StoreSpec:
    spec = StoreSpec(str(r["format"]), tuple(_strs(origin, r["paths"])), tuple(_strs(origin, r.get("env", []))),
                     tuple(_strs(origin, r["match"])), tuple(_strs(origin, r["no_match"])), r.get("note"))  # fmt: skip
    if spec.format not in STORE_FORMATS:
        raise LocalCatalogError(f"{origin}: model store: format {spec.format!r} not in {STORE_FORMATS}")
    for path in spec.paths:
        if problem := glob_problem(path):
            raise LocalCatalogError(f"{origin}: model store {spec.format}: {problem}")
    return spec


def _license(origin: str, r: dict[str, Any]) -> LicenseTerms:
    terms = LicenseTerms(
        id=str(r["id"]).lower(), restricts=tuple(_strs(origin, r["restricts"])), quote=str(r["quote"]),
        source=str(r["source"]), names=tuple(n.lower() for n in _strs(origin, r.get("names", []))),
        text=r.get("text"), match=tuple(_strs(origin, r.get("match", []))),
        no_match=tuple(_strs(origin, r.get("no_match", []))),
    )  # fmt: skip
    if not terms.restricts or set(terms.restricts) - set(RESTRICTIONS):
        raise LocalCatalogError(f"{origin}: license {terms.id}: restricts must be some of {RESTRICTIONS}")
    if terms.text is not None and not terms.match:
        raise LocalCatalogError(f"{origin}: license {terms.id}: a `text` pattern needs `match` examples")
    return terms


def check_local_examples(origin: str, local: LocalModelsData) -> list[str]:
    """Every way a local-models entry disagrees with its own examples; empty when all is well."""
    problems: list[str] = []
    for server in local.servers:
        for line in server.match:
            if server.grammar.args_after(line.split()) is None:
                problems.append(f"{origin}: model server {server.grammar.id}: does not find {line!r}")
        for line in server.no_match:
            if server.grammar.args_after(line.split()) is not None:
                problems.append(f"{origin}: model server {server.grammar.id}: finds no_match {line!r}")
    for store in local.stores:
        rx = [re.compile(glob_regex(p).pattern + "/.+") for p in store.paths]
        for path in store.match:
            if not any(r.fullmatch(path) for r in rx):
                problems.append(f"{origin}: model store {store.format}: does not hold {path!r}")
        for path in store.no_match:
            if any(r.fullmatch(path) for r in rx):
                problems.append(f"{origin}: model store {store.format}: holds no_match {path!r}")
    for terms in local.licenses:
        if terms.text is None:
            continue
        try:
            text_rx = re.compile(terms.text)
        except re.error as exc:
            problems.append(f"{origin}: license {terms.id}: bad regex: {exc}")
            continue
        problems += [f"{origin}: license {terms.id}: text misses {s!r}" for s in terms.match if not text_rx.search(s)]
        problems += [f"{origin}: license {terms.id}: text finds {s!r}" for s in terms.no_match if text_rx.search(s)]
    return problems


def _rows(origin: str, data: dict[str, Any], name: str, keys: tuple[set[str], set[str]]) -> list[dict[str, Any]]:
    rows = data.get(name, [])
    if not isinstance(rows, list) or not all(isinstance(r, dict) for r in rows):
        raise LocalCatalogError(f"{origin}: [[{name}]] must be an array of tables")
    for i, row in enumerate(rows):
        _keys(origin, f"[[{name}]] #{i + 1} ({row.get('id') or row.get('format') or row.get('family') or ''})",
              row, keys)  # fmt: skip
    return rows


def _keys(origin: str, label: str, row: Any, keys: tuple[set[str], set[str]]) -> None:
    if not isinstance(row, dict):
        raise LocalCatalogError(f"{origin}: {label} must be a table")
    required, optional = keys
    if missing := required - set(row):
        raise LocalCatalogError(f"{origin}: {label} is missing {sorted(missing)}")
    if extra := set(row) - required - optional:
        raise LocalCatalogError(f"{origin}: {label} has unknown key(s) {sorted(extra)}")


def _strs(origin: str, value: Any) -> list[str]:
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise LocalCatalogError(f"{origin}: expected a list of strings, got {value!r}"[:300])
    return value

"""The catalog file format (schema 1) as typed records, and its validation.

`catalogs/SCHEMA.md` is the human description of the same format. Parsing is strict: an unknown table
or key is an error, so a typo in a user's catalog never silently drops knowledge.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from functools import cached_property
from typing import Any

from scanner.catalog.globs import glob_problem
from scanner.catalog.local_schema import TABLES as LOCAL_TABLES
from scanner.catalog.local_schema import LocalCatalogError, LocalModelsData, parse_local
from scanner.catalog.regexwidth import longest
from scanner.vocab import Confidence

LIFECYCLES = ("active", "deprecated", "retired")
ROLES = ("credential", "base_url", "model", "kill_switch", "config")
CONFIDENCES = tuple(c.value for c in reversed(Confidence))  # as catalogs write them, the surest first
FINGERPRINT_ON = ("value", "key")
FINGERPRINT_DECODES = ("fernet", "litellm-id")
FINGERPRINT_ROLES = ("id", "tool-call", "response", "signature", "model", "any")
PROCESS_ROLES = ("agent", "inference-proxy", "mcp-server", "model-server")
AGENT_CONFIG_FORMATS = ("json", "toml")
AGENT_SETTINGS_FORMATS = ("json", "toml", "yaml", "env", "text", "vscdb")
AGENT_ECOSYSTEMS = ("npm", "pypi", "vscode")  # vscode: an editor extension id, `publisher.name`
_DATE = re.compile(r"^\d{4}-\d{2}-\d{2}$")
# The longest model id of a family that states no bound of its own (and whose pattern has none): the longest
# token the content pass reads around a hit.
DEFAULT_MAX_ID = 160


class CatalogError(ValueError):
    """A catalog file that does not follow the schema; the message names file and entry."""


@dataclass(frozen=True)
class Examples:
    match: tuple[str, ...] = ()
    no_match: tuple[str, ...] = ()


@dataclass(frozen=True)
class Family:
    id: str
    vendor: str
    pattern: str
    examples: Examples
    task: str | None = None  # what its models do, unless a [[tasks]] pattern says otherwise (text-generation)
    architecture: str | None = None  # the architecture family its vendor documents (transformer)
    # The longest id the family may name, where its pattern alone does not bound it (`\d+`, `(?:-[a-z]+)*`).
    max_length: int | None = None

    @cached_property
    def longest(self) -> int:
        """Characters in the longest id of this family: its pattern's bound, `max_length`, or the shorter of the
        two; DEFAULT_MAX_ID when neither says (a user catalog that states none: `catalogs validate` asks it to)."""
        bounds = [b for b in (longest(self.pattern), self.max_length) if b is not None]
        return min(bounds) if bounds else DEFAULT_MAX_ID


@dataclass(frozen=True)
class ModelSpec:
    id: str
    family: str
    aliases: tuple[str, ...] = ()
    lifecycle: str = "active"
    released: str | None = None
    deprecated: str | None = None
    retires: str | None = None


@dataclass(frozen=True)
class HostedForm:
    route: str
    form: str
    examples: Examples
    vendor: str | None = None
    find: str | None = None
    priority: int = 0


@dataclass(frozen=True)
class HostSpec:
    pattern: str
    examples: Examples
    vendor: str | None = None
    served_via: str | None = None


@dataclass(frozen=True)
class SdkSpec:
    ecosystem: str
    name: str
    vendor: str | None = None
    served_via: str | None = None
    imports: tuple[str, ...] = ()


@dataclass(frozen=True)
class EnvVarSpec:
    name: str
    role: str
    vendor: str | None = None


@dataclass(frozen=True)
class CredentialSpec:
    type: str
    pattern: str
    prefix: str
    examples: Examples
    vendor: str | None = None
    nearby: tuple[str, ...] = ()
    route: str | None = None  # the cloud route a key of this format opens (bedrock, vertex, azure)
    pairs_with: tuple[str, ...] = ()  # types of the id this secret goes with (an AWS secret's access key id)
    in_packages: bool = True  # False: a match in an installed package's files is the package's own fixture


@dataclass(frozen=True)
class KillSwitchSpec:
    pattern: str
    examples: Examples
    note: str | None = None


@dataclass(frozen=True)
class FingerprintSpec:
    """One provider fingerprint in session records: a regex over a field's value (or a key's name)."""

    id: str
    vendor: str
    pattern: str
    examples: Examples
    fields: tuple[str, ...] = ()  # key names whose values are tested; `@id` = the role `id`, `*` = any key
    roles: tuple[str, ...] = ()  # the roles a value plays: id, tool-call, response, signature, model, any
    on: str = "value"  # value | key
    api: str | None = None
    served_via: str | None = None
    decode: str | None = None  # fernet | litellm-id: the value must also decode, and yields facts
    confidence: Confidence = Confidence.MEDIUM
    max_skew_seconds: int | None = None  # fernet: embedded time vs the record's time
    note: str | None = None
    candidates: tuple[str, ...] = ()  # vendor `unknown`: the vendors this look-alike leaves possible


@dataclass(frozen=True)
class TaskSpec:
    """What a model does, read from the words of its id (`gpt-image-1`: text-to-image); never searched in bytes."""

    task: str
    pattern: str  # matched whole against a model id (`re.fullmatch`)
    examples: Examples


@dataclass(frozen=True)
class ProcessSpec:
    """A running program's role, recognised by its command line (matched with `re.search`, never in bytes)."""

    role: str
    pattern: str
    examples: Examples
    vendor: str | None = None
    note: str | None = None


@dataclass(frozen=True)
class CodePath:
    """A path grammar of compiled-in source files: a provider client module, or a package registry path."""

    kind: str  # module | package
    pattern: str  # Python regex; `module`: groups `provider`, `module`; `package`: `name`, `version`
    examples: Examples
    ecosystem: str | None = None


@dataclass(frozen=True)
class ClientName:
    """How code names a provider (`claude`, `azure`), and the vendor and route that name means."""

    name: str
    vendor: str | None = None
    served_via: str | None = None


@dataclass(frozen=True)
class SourceSignature:
    """An SDK import, client construction or API call as it is written in source code."""

    kind: str  # import | client | call
    name: str
    pattern: str  # searchable
    examples: Examples
    vendor: str | None = None
    served_via: str | None = None


@dataclass(frozen=True)
class AgentConfigSpec:
    """Where an agent tool keeps its MCP server list: a path glob, the file's format, the container keys."""

    tool: str
    path: str  # glob (see scanner/catalog/globs.py): `/abs/…`, `~/…` (a user home) or `rel/…` (any directory)
    format: str  # json | toml
    containers: tuple[str, ...]  # keys whose map is a server list; `a.b` = key `a.b` or `b` under `a`
    examples: Examples
    note: str | None = None


@dataclass(frozen=True)
class AgentSettingsFile:
    """One config file of an agent product, and the key paths in it that say how the product is wired.

    A key path is dotted (`env.ANTHROPIC_MODEL`); `*` is any one key (`profiles.*.model`) and
    `{other.key}` is that key's value in the same file (`model_providers.{model_provider}.base_url`).
    """

    path: str  # glob (see scanner/catalog/globs.py)
    format: str  # json | toml | yaml | env | text (one value) | vscdb (an editor's state, by extension id)
    model: tuple[str, ...] = ()
    base_url: tuple[str, ...] = ()
    mcp: tuple[str, ...] = ()  # container keys whose map's keys are MCP server names
    credentials: tuple[str, ...] = ()
    route_keys: tuple[str, ...] = ()  # keys read only for [[agents.routes]] (besides the ones above)
    # Model keys in the order the product reads them: the first one set is the selection, a later one set in
    # the same file is overridden (Claude Code: `env.ANTHROPIC_MODEL` beats `model`), never wiring.
    selection: tuple[str, ...] = ()


@dataclass(frozen=True)
class AgentRoute:
    """`key` set to one of `equals` (case-insensitive), or starting with `prefix`, selects `route`."""

    key: str
    route: str
    equals: tuple[str, ...] = ()
    prefix: str | None = None


@dataclass(frozen=True)
class AgentAlias:
    """A model alias of a product (`opusplan`, `sonnet`): the model it resolves to is the first of `base_keys` set
    in the same file (`env.ANTHROPIC_DEFAULT_SONNET_MODEL`), else `default` (the product's built-in choice)."""

    name: str
    base_keys: tuple[str, ...] = ()
    default: str | None = None


@dataclass(frozen=True)
class AgentProduct:
    """An agent product: how to recognise its install, where its shipped model list is, how users configure it."""

    id: str
    name: str
    vendor: str | None
    packages: tuple[tuple[str, str], ...]  # (ecosystem, package name)
    platform_packages: tuple[str, ...] = ()  # npm package-name globs (`@openai/codex-linux-*`)
    libraries: tuple[str, ...] = ()  # npm package-name globs of its own libraries (`@mariozechner/pi-ai`)
    binaries: tuple[str, ...] = ()  # executable file names inside its packages
    ships: tuple[str, ...] = ()  # globs, relative to a package dir, of files that hold its model list
    # Key paths whose values are the model ids in a structured (JSON/YAML) model-list file (`name` of aider's
    # `- name: …` list); without them a model-list file gives its whole string literals the catalogs recognise.
    ship_keys: tuple[str, ...] = ()
    native: tuple[str, ...] = ()  # globs of a standalone install's executable (a native installer's)
    default_route: str | None = None  # the route when a config selects a model and nothing reroutes it
    settings: tuple[AgentSettingsFile, ...] = ()
    routes: tuple[AgentRoute, ...] = ()
    note: str | None = None
    aliases: tuple[AgentAlias, ...] = ()


@dataclass(frozen=True)
class Placeholders:
    pattern: str
    examples: Examples


@dataclass(frozen=True)
class CatalogFile:
    name: str
    version: str
    origin: str
    description: str = ""
    sources: tuple[str, ...] = ()
    vendors: tuple[tuple[str, str], ...] = ()  # (id, display name)
    families: tuple[Family, ...] = ()
    models: tuple[ModelSpec, ...] = ()
    hosted_forms: tuple[HostedForm, ...] = ()
    hosts: tuple[HostSpec, ...] = ()
    sdks: tuple[SdkSpec, ...] = ()
    env_vars: tuple[EnvVarSpec, ...] = ()
    credentials: tuple[CredentialSpec, ...] = ()
    kill_switches: tuple[KillSwitchSpec, ...] = ()
    fingerprints: tuple[FingerprintSpec, ...] = ()
    processes: tuple[ProcessSpec, ...] = ()
    tasks: tuple[TaskSpec, ...] = ()
    config_keys: dict[str, tuple[str, ...]] = field(default_factory=dict)
    switch_values: dict[str, tuple[str, ...]] = field(default_factory=dict)  # "on"/"off" -> spellings
    # route -> how configs spell it as a provider type or name (`vertexai`, `google-vertex` -> vertex)
    route_names: dict[str, tuple[str, ...]] = field(default_factory=dict)
    placeholders: Placeholders | None = None
    code_paths: tuple[CodePath, ...] = ()
    client_names: tuple[ClientName, ...] = ()
    source_signatures: tuple[SourceSignature, ...] = ()
    module_names: dict[str, str] = field(default_factory=dict)
    agent_configs: tuple[AgentConfigSpec, ...] = ()
    agents: tuple[AgentProduct, ...] = ()
    local: LocalModelsData = field(default_factory=LocalModelsData)  # servers, stores, licenses, pickles


# section name -> (required keys, optional keys)
_ARRAY_SECTIONS: dict[str, tuple[set[str], set[str]]] = {
    "vendors": ({"id", "name"}, set()),
    "families": ({"id", "vendor", "pattern", "match", "no_match"}, {"task", "architecture", "max_length"}),
    "models": ({"id", "family"}, {"aliases", "lifecycle", "released", "deprecated", "retires"}),
    "hosted_forms": ({"route", "form", "match", "no_match"}, {"vendor", "find", "priority"}),
    "hosts": ({"pattern", "match", "no_match"}, {"vendor", "served_via"}),
    "sdks": ({"ecosystem", "name"}, {"vendor", "served_via", "imports"}),
    "env_vars": ({"name", "role"}, {"vendor"}),
    "credentials": (
        {"type", "pattern", "prefix", "match", "no_match"},
        {"vendor", "nearby", "route", "pairs_with", "in_packages"},
    ),
    "kill_switches": ({"pattern", "match", "no_match"}, {"note"}),
    "fingerprints": (
        {"id", "vendor", "pattern", "confidence", "match", "no_match"},
        {"fields", "roles", "on", "api", "served_via", "decode", "max_skew_seconds", "note", "candidates"},
    ),
    "processes": ({"role", "pattern", "match", "no_match"}, {"vendor", "note"}),
    "tasks": ({"task", "pattern", "match", "no_match"}, set()),
    "code_paths": ({"kind", "pattern", "match", "no_match"}, {"ecosystem"}),
    "client_names": ({"name"}, {"vendor", "served_via"}),
    "source_signatures": ({"kind", "name", "pattern", "match", "no_match"}, {"vendor", "served_via"}),
    "agent_configs": ({"tool", "path", "format", "containers", "match", "no_match"}, {"note"}),
    "agents": (
        {"id", "name"},
        {"vendor", "npm", "pypi", "vscode", "platform_packages", "libraries", "binaries", "ships", "ship_keys",
         "native", "default_route", "settings", "routes", "note", "aliases"},
    ),
}
_AGENT_SETTINGS_KEYS = ({"path", "format"}, {"model", "base_url", "mcp", "credentials", "route_keys", "selection"})
_AGENT_ALIAS_KEYS = ({"name"}, {"base_keys", "default", "note"})
_AGENT_ROUTE_KEYS = ({"key", "route"}, {"equals", "prefix"})
CODE_PATH_KINDS = ("module", "package")
SIGNATURE_KINDS = ("import", "client", "call")
_CONFIG_KEY_KINDS = {
    "model",
    "base_url",
    "deployment_map",
    "base_model",
    "provider",
    "credential",
    "switch_state",
    "switch_state_inverted",
    "deployment_record",
    "label",
    "not_model",
    "not_endpoint",
    "alias_name",
    "alias_model",
}


def parse_catalog(data: dict[str, Any], origin: str) -> CatalogFile:
    """Typed records from a parsed TOML document; raises CatalogError on any schema violation."""
    tables = {"catalog", "config_keys", "switch_values", "route_names", "placeholders", "module_names",
              *_ARRAY_SECTIONS}
    tables |= LOCAL_TABLES
    unknown = set(data) - tables
    if unknown:
        raise CatalogError(f"{origin}: unknown table(s) {sorted(unknown)}")
    head = data.get("catalog")
    if not isinstance(head, dict):
        raise CatalogError(f"{origin}: missing [catalog] table")
    _check_keys(origin, "[catalog]", head, {"name", "version"}, {"description", "sources"})
    rows = {name: _rows(origin, name, data.get(name, [])) for name in _ARRAY_SECTIONS}

    def ex(row: dict[str, Any]) -> Examples:
        return Examples(tuple(_strs(row["match"])), tuple(_strs(row["no_match"])))

    config_keys: dict[str, tuple[str, ...]] = {}
    for kind, names in (data.get("config_keys") or {}).items():
        if kind not in _CONFIG_KEY_KINDS:
            raise CatalogError(f"{origin}: [config_keys] unknown kind {kind!r}")
        config_keys[kind] = tuple(n.lower() for n in _strs(names))
    switch_values: dict[str, tuple[str, ...]] = {}
    for state, spellings in (data.get("switch_values") or {}).items():
        if state not in ("on", "off"):
            raise CatalogError(f"{origin}: [switch_values] unknown state {state!r} (on or off)")
        switch_values[state] = tuple(v.lower() for v in _strs(spellings))
    route_names = {str(route): tuple(v.lower() for v in _strs(names)) for route, names in
                   (data.get("route_names") or {}).items()}  # fmt: skip
    placeholders = None
    if "placeholders" in data:
        row = data["placeholders"]
        _check_keys(origin, "[placeholders]", row, {"pattern", "match", "no_match"}, set())
        placeholders = Placeholders(row["pattern"], ex(row))

    catalog = CatalogFile(
        name=str(head["name"]),
        version=str(head["version"]),
        origin=origin,
        description=str(head.get("description", "")),
        sources=tuple(_strs(head.get("sources", []))),
        vendors=tuple((r["id"], r["name"]) for r in rows["vendors"]),
        families=tuple(
            Family(r["id"], r["vendor"], r["pattern"], ex(r), r.get("task"), r.get("architecture"),
                   _length(origin, r))
            for r in rows["families"]
        ),
        models=tuple(
            ModelSpec(
                id=r["id"],
                family=r["family"],
                aliases=tuple(_strs(r.get("aliases", []))),
                lifecycle=r.get("lifecycle", "active"),
                released=_date(r.get("released")),
                deprecated=_date(r.get("deprecated")),
                retires=_date(r.get("retires")),
            )
            for r in rows["models"]
        ),
        hosted_forms=tuple(
            HostedForm(r["route"], r["form"], ex(r), r.get("vendor"), r.get("find"), int(r.get("priority", 0)))
            for r in rows["hosted_forms"]
        ),
        hosts=tuple(HostSpec(r["pattern"], ex(r), r.get("vendor"), r.get("served_via")) for r in rows["hosts"]),
        sdks=tuple(
            SdkSpec(r["ecosystem"], r["name"], r.get("vendor"), r.get("served_via"), tuple(r.get("imports", [])))
            for r in rows["sdks"]
        ),
        env_vars=tuple(EnvVarSpec(r["name"], r["role"], r.get("vendor")) for r in rows["env_vars"]),
        credentials=tuple(
            CredentialSpec(
                r["type"],
                r["pattern"],
                r["prefix"],
                ex(r),
                r.get("vendor"),
                tuple(_strs(r.get("nearby", []))),
                r.get("route"),
                tuple(_strs(r.get("pairs_with", []))),
                _bool(origin, "credentials", r, "in_packages", True),
            )
            for r in rows["credentials"]
        ),
        kill_switches=tuple(KillSwitchSpec(r["pattern"], ex(r), r.get("note")) for r in rows["kill_switches"]),
        fingerprints=tuple(_fingerprint(r, ex(r)) for r in rows["fingerprints"]),
        processes=tuple(
            ProcessSpec(r["role"], r["pattern"], ex(r), r.get("vendor"), r.get("note")) for r in rows["processes"]
        ),
        tasks=tuple(TaskSpec(r["task"], r["pattern"], ex(r)) for r in rows["tasks"]),
        config_keys=config_keys,
        switch_values=switch_values,
        route_names=route_names,
        placeholders=placeholders,
        code_paths=tuple(CodePath(r["kind"], r["pattern"], ex(r), r.get("ecosystem")) for r in rows["code_paths"]),
        client_names=tuple(ClientName(r["name"], r.get("vendor"), r.get("served_via")) for r in rows["client_names"]),
        source_signatures=tuple(
            SourceSignature(r["kind"], r["name"], r["pattern"], ex(r), r.get("vendor"), r.get("served_via"))
            for r in rows["source_signatures"]
        ),
        module_names=_str_table(origin, data.get("module_names") or {}),
        agent_configs=tuple(
            AgentConfigSpec(
                str(r["tool"]), str(r["path"]), str(r["format"]), tuple(_strs(r["containers"])), ex(r), r.get("note")
            )
            for r in rows["agent_configs"]
        ),
        agents=tuple(_agent(origin, r) for r in rows["agents"]),
        local=_local(data, origin),
    )
    _check_values(catalog)
    return catalog


def _local(data: dict[str, Any], origin: str) -> LocalModelsData:
    try:
        return parse_local(data, origin)
    except LocalCatalogError as exc:
        raise CatalogError(str(exc)) from None


def _agent(origin: str, r: dict[str, Any]) -> AgentProduct:
    label = f"[[agents]] {r['id']}"
    settings = []
    for i, f in enumerate(_rows_of(origin, f"{label} settings", r.get("settings", []))):
        _check_keys(origin, f"{label} settings #{i + 1}", f, *_AGENT_SETTINGS_KEYS)
        settings.append(
            AgentSettingsFile(
                str(f["path"]),
                str(f["format"]),
                model=tuple(_strs(f.get("model", []))),
                base_url=tuple(_strs(f.get("base_url", []))),
                mcp=tuple(_strs(f.get("mcp", []))),
                credentials=tuple(_strs(f.get("credentials", []))),
                route_keys=tuple(_strs(f.get("route_keys", []))),
                selection=tuple(_strs(f.get("selection", []))),
            )
        )
    routes = []
    for i, x in enumerate(_rows_of(origin, f"{label} routes", r.get("routes", []))):
        _check_keys(origin, f"{label} routes #{i + 1}", x, *_AGENT_ROUTE_KEYS)
        routes.append(AgentRoute(str(x["key"]), str(x["route"]), tuple(_strs(x.get("equals", []))), x.get("prefix")))
    aliases = []
    for i, x in enumerate(_rows_of(origin, f"{label} aliases", r.get("aliases", []))):
        _check_keys(origin, f"{label} aliases #{i + 1}", x, *_AGENT_ALIAS_KEYS)
        aliases.append(AgentAlias(str(x["name"]), tuple(_strs(x.get("base_keys", []))), x.get("default")))
    packages = tuple((eco, name) for eco in AGENT_ECOSYSTEMS for name in _strs(r.get(eco, [])))
    return AgentProduct(
        id=str(r["id"]),
        name=str(r["name"]),
        vendor=r.get("vendor"),
        packages=packages,
        platform_packages=tuple(_strs(r.get("platform_packages", []))),
        libraries=tuple(_strs(r.get("libraries", []))),
        binaries=tuple(_strs(r.get("binaries", []))),
        ships=tuple(_strs(r.get("ships", []))),
        ship_keys=tuple(_strs(r.get("ship_keys", []))),
        native=tuple(_strs(r.get("native", []))),
        default_route=r.get("default_route"),
        settings=tuple(settings),
        routes=tuple(routes),
        note=r.get("note"),
        aliases=tuple(aliases),
    )


def _rows_of(origin: str, label: str, value: Any) -> list[dict[str, Any]]:
    if not isinstance(value, list) or not all(isinstance(v, dict) for v in value):
        raise CatalogError(f"{origin}: {label} must be an array of tables")
    return value


def _confidence(r: dict[str, Any]) -> Confidence:
    try:
        return Confidence(r["confidence"])
    except ValueError:
        raise CatalogError(f"fingerprint {r['id']}: confidence {r['confidence']!r} not in {CONFIDENCES}") from None


def _fingerprint(r: dict[str, Any], examples: Examples) -> FingerprintSpec:
    skew = r.get("max_skew_seconds")
    return FingerprintSpec(
        id=str(r["id"]),
        vendor=str(r["vendor"]),
        pattern=str(r["pattern"]),
        examples=examples,
        fields=tuple(_strs(r.get("fields", [] if "roles" in r else ["*"]))),
        roles=tuple(_strs(r.get("roles", []))),
        on=str(r.get("on", "value")),
        api=r.get("api"),
        served_via=r.get("served_via"),
        decode=r.get("decode"),
        confidence=_confidence(r),
        max_skew_seconds=int(skew) if skew is not None else None,
        note=r.get("note"),
        candidates=tuple(_strs(r.get("candidates", []))),
    )


def _rows(origin: str, section: str, value: Any) -> list[dict[str, Any]]:
    if not isinstance(value, list) or not all(isinstance(v, dict) for v in value):
        raise CatalogError(f"{origin}: [[{section}]] must be an array of tables")
    required, optional = _ARRAY_SECTIONS[section]
    for i, row in enumerate(value):
        name = row.get("id") or row.get("name") or row.get("type") or row.get("tool") or ""
        label = f"[[{section}]] #{i + 1} ({name})"
        _check_keys(origin, label, row, required, optional)
    return value


def _check_keys(origin: str, label: str, row: dict[str, Any], required: set[str], optional: set[str]) -> None:
    missing = required - set(row)
    extra = set(row) - required - optional
    if missing:
        raise CatalogError(f"{origin}: {label} is missing {sorted(missing)}")
    if extra:
        raise CatalogError(f"{origin}: {label} has unknown key(s) {sorted(extra)}")


def _length(origin: str, row: dict[str, Any]) -> int | None:
    value = row.get("max_length")
    if value is None:
        return None
    if type(value) is not int or value < 1:
        raise CatalogError(f"{origin}: family {row['id']}: max_length must be a positive integer, not {value!r}")
    return value


def _date(value: Any) -> str | None:
    # TOML may hold a real date (released = 2026-05-28) or a string; both become "YYYY-MM-DD".
    return None if value is None else str(value)


def _str_table(origin: str, value: Any) -> dict[str, str]:
    if not isinstance(value, dict) or not all(isinstance(v, str) for v in value.values()):
        raise CatalogError(f"{origin}: [module_names] must map names to strings")
    return {str(k).lower(): v for k, v in value.items()}


def _bool(origin: str, label: str, row: dict[str, Any], key: str, default: bool) -> bool:
    value = row.get(key, default)
    if not isinstance(value, bool):
        raise CatalogError(f"{origin}: {label} {key} must be true or false, got {value!r}")
    return value


def _strs(value: Any) -> list[str]:
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise CatalogError(f"expected a list of strings, got {value!r}")
    return value


def _check_values(cat: CatalogFile) -> None:
    where = cat.origin
    for m in cat.models:
        if m.lifecycle not in LIFECYCLES:
            raise CatalogError(f"{where}: model {m.id}: lifecycle {m.lifecycle!r} not in {LIFECYCLES}")
        for d in (m.released, m.deprecated, m.retires):
            if d is not None and not _DATE.match(str(d)):
                raise CatalogError(f"{where}: model {m.id}: date {d!r} is not YYYY-MM-DD")
    seen: set[str] = set()
    for fp in cat.fingerprints:
        label = f"{where}: fingerprint {fp.id}"
        if fp.id in seen:
            raise CatalogError(f"{label}: id defined twice")
        seen.add(fp.id)
        if fp.on not in FINGERPRINT_ON:
            raise CatalogError(f"{label}: on {fp.on!r} not in {FINGERPRINT_ON}")
        if fp.decode is not None and fp.decode not in FINGERPRINT_DECODES:
            raise CatalogError(f"{label}: decode {fp.decode!r} not in {FINGERPRINT_DECODES}")
        if fp.on != "key" and not fp.fields and not fp.roles:
            raise CatalogError(f'{label}: neither roles nor fields (use roles = ["any"] for any value)')
        unknown_roles = sorted(set(fp.roles) - set(FINGERPRINT_ROLES))
        if unknown_roles:
            raise CatalogError(f"{label}: roles {unknown_roles} not in {FINGERPRINT_ROLES}")
        if any("/" in name for name in fp.fields):
            raise CatalogError(f"{label}: fields name keys, not paths (a tool call's id is the role tool-call)")
    for p in cat.processes:
        if p.role not in PROCESS_ROLES:
            raise CatalogError(f"{where}: process {p.pattern}: role {p.role!r} not in {PROCESS_ROLES}")
    for c in cat.code_paths:
        if c.kind not in CODE_PATH_KINDS:
            raise CatalogError(f"{where}: code path {c.pattern}: kind {c.kind!r} not in {CODE_PATH_KINDS}")
    for sig in cat.source_signatures:
        if sig.kind not in SIGNATURE_KINDS:
            raise CatalogError(f"{where}: source signature {sig.name}: kind {sig.kind!r} not in {SIGNATURE_KINDS}")
    for e in cat.env_vars:
        if e.role not in ROLES:
            raise CatalogError(f"{where}: env var {e.name}: role {e.role!r} not in {ROLES}")
    for a in cat.agent_configs:
        label = f"{where}: agent config {a.tool} {a.path}"
        if a.format not in AGENT_CONFIG_FORMATS:
            raise CatalogError(f"{label}: format {a.format!r} not in {AGENT_CONFIG_FORMATS}")
        if not a.containers or not all(c and "" not in c.split(".") for c in a.containers):
            raise CatalogError(f"{label}: containers must be non-empty key names (`a.b` for a nested key)")
        problem = glob_problem(a.path)
        if problem:
            raise CatalogError(f"{label}: {problem}")
    ids: set[str] = set()
    for product in cat.agents:
        label = f"{where}: agent {product.id}"
        if not re.fullmatch(r"[a-z0-9][a-z0-9._-]*", product.id):
            raise CatalogError(f"{label}: id must be a lowercase slug")
        if product.id in ids:
            raise CatalogError(f"{label}: id defined twice")
        ids.add(product.id)
        if not product.packages and not product.binaries and not product.settings:
            raise CatalogError(f"{label}: names no package, binary or settings file to recognise it by")
        for f in product.settings:
            if f.format not in AGENT_SETTINGS_FORMATS:
                raise CatalogError(f"{label}: settings {f.path}: format {f.format!r} not in {AGENT_SETTINGS_FORMATS}")
            problem = glob_problem(f.path)
            if problem:
                raise CatalogError(f"{label}: settings: {problem}")
            for key in (*f.model, *f.base_url, *f.mcp, *f.credentials, *f.route_keys):
                if not key or "" in key.split("."):
                    raise CatalogError(f"{label}: settings {f.path}: key path {key!r} has an empty segment")
        for glob in product.ships:
            problem = glob_problem(glob)
            if problem or glob.startswith(("/", "~/")):
                raise CatalogError(f"{label}: ships: {problem or f'{glob!r} must be relative to the package dir'}")
        for glob in product.native:
            problem = glob_problem(glob)
            if problem:
                raise CatalogError(f"{label}: native: {problem}")
        for route in product.routes:
            if not route.equals and route.prefix is None:
                raise CatalogError(f"{label}: route {route.key} -> {route.route}: needs `equals` or `prefix`")

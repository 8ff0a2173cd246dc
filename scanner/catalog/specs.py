"""The catalog file format (schema 1) as typed records: what each table of a catalog file holds once parsed
(`schema.py` parses and checks them; `catalogs/SCHEMA.md` is the human description of the same format)."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from functools import cached_property
from typing import Any

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
CODE_PATH_KINDS = ("module", "package")
SIGNATURE_KINDS = ("import", "client", "call")
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
    # The confidence's rank, read per hit of every session record: kept once here rather than asked of the enum.
    rank: int = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "rank", self.confidence.rank)


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
    # Each kind's own part of the catalog (`scanner.catalog.sections`), parsed, by the section's name.
    sections: dict[str, Any] = field(default_factory=dict)

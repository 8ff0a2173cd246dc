"""The agents kind's facts: the evidence its detectors give (an install's packages and files, a user's settings, a
program that may be an agent of unknown kind) and the entry it builds."""

from __future__ import annotations

from dataclasses import dataclass

from scanner.model import Location


@dataclass(frozen=True)
class AgentPackageEvidence:
    """An installed package of an agent product (catalogs/agents.toml `[[agents]]`): its main package or a
    platform package (`@openai/codex-linux-x64`) that carries its native binary."""

    product: str  # the catalog product id
    ecosystem: str  # npm | pypi | binary | vscode
    package: str
    version: str | None
    install_path: str  # the package's directory (inside path)
    environment: str  # the node_modules / site-packages that holds it
    platform: bool
    entry_points: tuple[str, ...]  # inside paths of its declared executables (`bin`)
    dependencies: tuple[str, ...]  # package names it declares (to tell which installed SDKs it bundles)
    location: Location
    editor: str | None = None  # an editor extension's editor (vscode, vscode-server, cursor, windsurf, …)


@dataclass(frozen=True)
class AgentFileEvidence:
    """A file inside an agent product's install: a native binary, or where its shipped model list lives."""

    product: str
    package_path: str  # the directory of the (main or platform) package that holds the file
    role: str  # binary | ships
    models: tuple[str, ...]  # for `ships`: the catalogued model ids found in the file
    location: Location
    # For `ships`: the ids its provider-prefixed literals name (`"cohere/command-a-plus"`, the model of
    # `"TEE/gemma-4-…"`): models the file names, as any other file's would be, though not the product's own list.
    named: tuple[str, ...] = ()


@dataclass(frozen=True)
class AgentConfigEvidence:
    """What one config file of an agent product selects for one user. Credentials by sha256 only."""

    product: str
    user: str | None
    models: tuple[str, ...]
    served_via: str | None
    base_url: str | None
    mcp_servers: tuple[str, ...]
    credentials: tuple[str, ...]  # sha256
    location: Location
    # Model settings of this file that a key the product reads first overrides: (value, line). Not wiring.
    overridden: tuple[tuple[str, int | None], ...] = ()


@dataclass(frozen=True)
class ProgramEvidence:
    """An installed package that exposes a command and that no agent catalog entry names: an agent product of
    unknown kind when the builder finds it calls models (an LLM SDK, provider hosts in its own files)."""

    ecosystem: str  # npm | pypi | vscode (an editor extension, named `publisher.name`)
    name: str
    version: str | None
    install_path: str  # the package's directory (npm, an extension's folder) or its site-packages (PyPI)
    environment: str  # the node_modules / site-packages that holds it
    commands: tuple[str, ...]  # the command names it installs
    entry_points: tuple[str, ...]  # inside paths of its executables (npm `bin`)
    sdks: tuple[str, ...]  # catalogued LLM SDKs it declares as dependencies
    modules: tuple[str, ...]  # PyPI: its top-level module dirs in site-packages (whose files are its own)
    tool: bool  # installed as a tool: a global npm package, a uv tool or pipx venv's own package, a user site
    location: Location
    editor: str | None = None  # an editor extension's editor (vscode, cursor, …): installed there, as a tool
    project: str | None = None  # its repository's name (`factory` of Factory-AI/factory): a folder may carry it


@dataclass(frozen=True)
class ProgramHostsEvidence:
    """Catalogued provider API hosts (and model ids) in a file of an installed package's own code (not its
    dependencies')."""

    package_path: str  # the npm package dir, or `<site-packages>/<module>` of a Python package
    hosts: tuple[str, ...]
    location: Location
    models: tuple[str, ...] = ()  # catalogued model ids its code names (a bundle's model table)


@dataclass(frozen=True)
class BundledSdk:
    """An SDK package an agent product bundles (installed inside or beside it, and declared by it)."""

    ecosystem: str
    name: str
    version: str | None


@dataclass(frozen=True)
class AgentConfig:
    """How one user configures an agent product, folded over that user's config files."""

    user: str | None
    models: tuple[str, ...]  # selected model ids, as written: wiring
    served_via: str | None  # route: direct | bedrock | vertex | azure | openrouter | … | None
    base_url: str | None  # scrubbed
    mcp_servers: tuple[str, ...]
    credentials: tuple[str, ...]  # sha256 of credentials this config provides
    files: tuple[str, ...]


@dataclass(frozen=True)
class AgentEntry:
    """One installed agent product (catalogs/agents.toml `[[agents]]`), or one only configured (no install)."""

    name: str  # the catalog product id
    product: str  # its display name
    version: str | None
    ecosystem: str | None  # npm | pypi | binary | None (configured, not found installed)
    install_path: str | None
    binaries: tuple[str, ...]
    sdks: tuple[BundledSdk, ...]
    ships: tuple[str, ...]  # model ids its shipped catalog names: not wiring
    configs: tuple[AgentConfig, ...]
    locations: tuple[Location, ...]
    catalog: str = "known"  # known (a catalog entry names it) | unknown (recognised by what it is)
    editor: str | None = None  # an IDE extension's editor: vscode | vscode-server | cursor | windsurf | …
    evidence: tuple[str, ...] = ()  # for catalog "unknown": what made it an agent product
    # For a product neither installed nor configured: the sessions of it this machine holds (it was used here)
    sessions: int = 0

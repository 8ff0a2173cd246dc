"""The core value types: what a scan reads, what detectors find, what the inventory holds.

Everything here is a plain frozen dataclass. Detectors produce `Evidence`; the inventory builder
turns evidence into entries. A credential's secret value never enters any of these types: only its
redacted form and its hash do (see `scanner.secrets`).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import Enum
from typing import TypeAlias

# The vocabularies live in scanner.vocab; the types that use them are here.
from scanner.vocab import WIRING_CONTEXTS as WIRING_CONTEXTS
from scanner.vocab import CatalogStatus as CatalogStatus
from scanner.vocab import Confidence as Confidence
from scanner.vocab import Context as Context
from scanner.vocab import Severity as Severity

#: How many locations an inventory entry keeps (the first, in a stable order); detectors need not make more.
MAX_LOCATIONS = 200


class SkipReason(str, Enum):
    FIFO = "fifo"
    SOCKET = "socket"
    DEVICE = "device"
    OTHER_TYPE = "not-regular"
    PERMISSION_DENIED = "permission-denied"
    SYMLINK_OUTSIDE_ROOT = "symlink-outside-root"
    SYMLINK_LOOP = "symlink-loop"
    SYMLINK_BROKEN = "symlink-broken"
    TOO_LARGE = "too-large"
    SPARSE = "sparse"
    PSEUDO_FILESYSTEM = "pseudo-filesystem"
    READ_ERROR = "read-error"
    CHANGED = "changed-while-reading"
    DETECTOR_ERROR = "detector-error"
    BUDGET_EXCEEDED = "budget-exceeded"  # a parser ran out of its work budget for the file
    DECOMPRESSION_LIMIT = "decompression-limit"  # an archive or gzip member inflated past its cap
    PARSE_ERROR = "parse-error"  # a structured file that did not parse; what could be read line by line was
    CAP_REACHED = "cap-reached"  # a bound on distinct items was reached; the detail says what was cut and how much
    PROCESS_GONE = "process-gone"  # live audit: a process in scope exited or never existed
    EXCLUDED = "excluded"  # left out on purpose by --exclude or --skip-dirs; the detail names the glob


@dataclass(frozen=True)
class Location:
    path: str  # inside-target path, already escaped for display (backslashreplace)
    line: int | None = None
    context: Context = Context.CONFIG
    parse_error: bool = False
    via: str | None = None  # the symlink the file was reached through
    layer: str | None = None  # a container image's layer (digest) the file came from


def location_key(loc: Location) -> tuple[str, int, str, str]:
    """The one stable order of locations (path, line, symlink, context)."""
    return (loc.path, loc.line or 0, loc.via or "", loc.context.value)


@dataclass(frozen=True)
class FileMeta:
    """Ownership facts of a file, resolved against the target's own passwd/group."""

    mode: str  # "0400"
    owner: str  # "user:group"


@dataclass(frozen=True, order=True)
class Skip:
    path: str
    reason: SkipReason
    detail: str = ""
    # When this skip stands for several of one reason in one file (20,000 unreadable members of a jar): how many,
    # and the details of the first few. The list of skips grows with the files, not with their entries.
    count: int | None = None
    members: tuple[str, ...] = ()


# --- Evidence: what a detector extracts from one file ---------------------------------------


@dataclass(frozen=True)
class ModelEvidence:
    name: str
    location: Location
    # An explicit base model from a deployment map or `base_model:` key.
    base_model: str | None = None
    # A route stated by the config around the id (`provider: azure`), when the id itself has none.
    served_via: str | None = None
    variable: str | None = None  # the environment-style variable that set it (`ANTHROPIC_MODEL`)


@dataclass(frozen=True)
class SdkEvidence:
    ecosystem: str
    name: str
    version: str | None
    installed: bool
    environment: str | None  # the site-packages / node_modules dir (inside path), or the manifest declaring it
    location: Location


@dataclass(frozen=True)
class EndpointEvidence:
    host: str
    url: str | None
    location: Location
    # A vendor's base-URL variable pointing elsewhere: (vendor, the variable), e.g. ("anthropic", "ANTHROPIC_BASE_URL").
    overrides: tuple[str, str] | None = None
    variable: str | None = None  # the environment-style variable that set it (`OPENAI_BASE_URL`)


@dataclass(frozen=True)
class CredentialEvidence:
    type: str
    vendor: str | None
    redacted: str
    sha256: str
    location: Location
    meta: FileMeta | None = None
    route: str | None = None  # the cloud route the key opens (bedrock, vertex, azure)
    pair: str | None = None  # sha256 of the id it is paired with (an AWS secret's access key id)


class SwitchState(str, Enum):
    ON = "on"
    OFF = "off"
    UNKNOWN = "unknown"


@dataclass(frozen=True)
class KillSwitchEvidence:
    name: str
    value: str | None
    state: SwitchState
    location: Location
    note: str | None = None  # e.g. the comment that calls an override a kill switch


@dataclass(frozen=True)
class RuleEvidence:
    """One fingerprint rule that fired in a session: how often, and one shortened value it matched."""

    rule: str
    count: int
    example: str
    confidence: Confidence


@dataclass(frozen=True)
class SessionProvider:
    """Who served (part of) a session, as its records' fingerprints say."""

    vendor: str  # a catalog vendor id, `self-hosted` or `unknown`
    served_via: str | None
    api: str | None
    records: int
    confidence: Confidence
    first_seen: str | None
    last_seen: str | None
    evidence: tuple[RuleEvidence, ...]
    # Vendors still possible when the evidence cannot tell them apart (a look-alike id, a bare label).
    candidates: tuple[str, ...] = ()
    # Which of the session's records (1-based, in order) this provider served: inclusive (first, last) runs;
    # a run spans records no provider claimed (a user turn) but never another provider's.
    record_ranges: tuple[tuple[int, int], ...] = ()
    reasoning: str = "absent"  # of this provider's records: visible | encrypted | absent | mixed
    visible_records: tuple[tuple[int, int], ...] = ()  # runs of its records that show readable reasoning
    encrypted_records: tuple[tuple[int, int], ...] = ()  # runs of its records whose reasoning is encrypted only

    @property
    def first_record(self) -> int | None:
        return self.record_ranges[0][0] if self.record_ranges else None

    @property
    def last_record(self) -> int | None:
        return self.record_ranges[-1][1] if self.record_ranges else None


@dataclass(frozen=True)
class FernetTimes:
    """Fernet tokens of a session whose embedded time was compared with their record's time."""

    tokens: int
    consistent: int
    inconsistent: int
    max_skew_seconds: int | None


@dataclass(frozen=True)
class SessionCorroboration:
    """A daemon's or router's log line that names a session and what befell it: a fallback, its upstream."""

    session_id: str
    kind: str  # fallback | upstream
    detail: str  # known `key=value` facts of the line only (hosts, never whole URLs; model, route, reason)
    location: Location


@dataclass(frozen=True)
class SessionEntry:
    session_id: str
    format: str
    location: Location
    started_at: str | None
    ended_at: str | None
    records: int
    labels: tuple[str, ...]
    reasoning: str  # visible | encrypted | absent | mixed
    providers: tuple[SessionProvider, ...]
    fernet: FernetTimes | None = None
    declared: str | None = None  # the provider / route the agent itself wrote
    parent_session_id: str | None = None
    mismatched_labels: tuple[str, ...] = ()  # labels whose catalog identity the fingerprints contradict
    notes: tuple[str, ...] = ()
    corroborated_by: tuple[SessionCorroboration, ...] = ()  # log lines elsewhere that name this session
    served_models: tuple[str, ...] = ()  # labels a response or assistant message names as what served it
    title: str | None = None  # the session's title, as metadata beside its records gives it
    # Catalogued model ids its conversation only mentions (a prompt, a tool's output): never wiring
    mentioned: tuple[str, ...] = ()


@dataclass(frozen=True)
class SessionEvidence:
    session: SessionEntry


@dataclass(frozen=True)
class SessionMetaEvidence:
    """Metadata beside a session's records (a task's metadata file, a `meta.json`): no record of it carries a
    served-by fact. It feeds the label, title and times of the session it sits beside, never a session of its
    own, unless no session is beside it."""

    meta: SessionEntry


@dataclass(frozen=True)
class SessionLogEvidence:
    """A log line about a session, tied to the session of the same id when the inventory is built."""

    note: SessionCorroboration


@dataclass(frozen=True)
class ClientEvidence:
    """Provider client code shipped in a file: modules compiled into a binary, or constructions in source."""

    provider: str  # the provider as the code names it (`anthropic`, `AnthropicBedrock`, `muse`)
    vendor: str | None  # the catalog vendor, None for an in-house or unknown provider
    served_via: str | None
    kind: str  # compiled | source
    components: tuple[str, ...]  # what the code does (`request flow`, `messages.create`)
    location: Location


@dataclass(frozen=True)
class McpServerEvidence:
    """One MCP server of an agent's config; env carries variable names only, never values."""

    name: str
    transport: str  # stdio | http | sse | unknown
    command: str | None
    url: str | None
    env: tuple[str, ...]
    user: str | None
    location: Location


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

    ecosystem: str  # npm | pypi
    name: str
    version: str | None
    install_path: str  # the package's directory (npm) or its site-packages (PyPI)
    environment: str  # the node_modules / site-packages that holds it
    commands: tuple[str, ...]  # the command names it installs
    entry_points: tuple[str, ...]  # inside paths of its executables (npm `bin`)
    sdks: tuple[str, ...]  # catalogued LLM SDKs it declares as dependencies
    modules: tuple[str, ...]  # PyPI: its top-level module dirs in site-packages (whose files are its own)
    tool: bool  # installed as a tool: a global npm package, a uv tool or pipx venv's own package, a user site
    location: Location


@dataclass(frozen=True)
class ProgramHostsEvidence:
    """Catalogued provider API hosts (and model ids) in a file of an installed package's own code (not its
    dependencies')."""

    package_path: str  # the npm package dir, or `<site-packages>/<module>` of a Python package
    hosts: tuple[str, ...]
    location: Location
    models: tuple[str, ...] = ()  # catalogued model ids its code names (a bundle's model table)




# --- Inventory entries ---------------------------------------------------------------------------


@dataclass(frozen=True)
class ModelEntry:
    name: str
    canonical: str | None
    vendor: str | None
    family: str | None
    served_via: str | None
    base_model: str | None
    catalog: CatalogStatus  # how much the catalogs know of the id
    lifecycle: str | None
    wired: bool
    locations: tuple[Location, ...]
    retires: str | None = None  # the catalog's shutdown date (past or planned)
    # What else the catalogs know of it, for model cards: dates (YYYY-MM-DD), the task its id or family names
    # (`text-generation`) and the architecture family its vendor documents (`transformer`).
    released: str | None = None
    deprecated: str | None = None
    task: str | None = None
    architecture: str | None = None
    locations_cut: int = 0  # locations found past the kept ones (MAX_LOCATIONS): counted, not kept
    mentioned_in_sessions: int | None = None  # sessions whose conversation names the id (never wiring)


@dataclass(frozen=True)
class SdkEntry:
    ecosystem: str
    name: str
    version: str | None
    vendor: str | None
    served_via: str | None
    installed: bool
    environment: str | None
    locations: tuple[Location, ...]
    locations_cut: int = 0  # locations found past the kept ones (MAX_LOCATIONS): counted, not kept


@dataclass(frozen=True)
class EndpointEntry:
    host: str
    vendor: str | None
    served_via: str | None
    urls: tuple[str, ...]
    wired: bool
    locations: tuple[Location, ...]
    overrides: tuple[tuple[str, str], ...] = ()  # (vendor, variable) whose default host this replaces
    locations_cut: int = 0  # locations found past the kept ones (MAX_LOCATIONS): counted, not kept


@dataclass(frozen=True)
class CredentialLocation:
    location: Location
    mode: str | None
    owner: str | None


@dataclass(frozen=True)
class CredentialEntry:
    type: str
    vendor: str | None
    redacted: str
    sha256: str
    locations: tuple[CredentialLocation, ...]
    route: str | None = None
    paired_with: str | None = None  # sha256 of the paired id (an AWS secret access key's AKIA/ASIA id)
    locations_cut: int = 0  # locations found past the kept ones (MAX_LOCATIONS): counted, not kept


@dataclass(frozen=True)
class KillSwitchEntry:
    name: str
    value: str | None
    state: SwitchState
    locations: tuple[Location, ...]
    note: str | None = None
    locations_cut: int = 0  # locations found past the kept ones (MAX_LOCATIONS): counted, not kept


@dataclass(frozen=True)
class ClientEntry:
    provider: str
    vendor: str | None
    served_via: str | None
    kind: str
    components: tuple[str, ...]
    locations: tuple[Location, ...]
    locations_cut: int = 0  # locations found past the kept ones (MAX_LOCATIONS): counted, not kept


@dataclass(frozen=True)
class McpServerEntry:
    name: str
    transport: str
    command: str | None
    url: str | None
    env: tuple[str, ...]
    user: str | None
    config: str  # the config file that declares it
    locations: tuple[Location, ...]
    locations_cut: int = 0  # locations found past the kept ones (MAX_LOCATIONS): counted, not kept


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


@dataclass(frozen=True)
class Finding:
    id: str
    severity: Severity
    title: str
    locations: tuple[Location, ...] = ()
    locations_cut: int = 0  # locations past the ones a finding keeps: counted, not listed


@dataclass(frozen=True)
class RouteEntry:
    """A model alias: the route configs declare for it, and what session logs observed behind it."""

    alias: str
    declared_via: str | None
    base_model: str | None
    observed_vendor: str | None
    observed_via: str | None
    observed_api: str | None
    sessions: int
    days: tuple[str, ...]
    confidence: Confidence | None
    locations: tuple[Location, ...] = ()


@dataclass(frozen=True)
class EnvSetting:
    """One environment-style assignment of a base URL or a model, in a file or a process's environ.

    Not part of the JSON contract: the live findings compare a process's running value with a file's.
    """

    name: str  # the variable
    role: str  # base_url | model
    value: str  # a safe URL (no credentials) or a model id
    location: Location
    foreign: bool = False  # a base URL pointing away from the hosts of the variable's own vendor


@dataclass(frozen=True)
class CatalogRef:
    name: str
    version: str
    origin: str  # "builtin" or the path given


@dataclass(frozen=True)
class AuditPart:
    """One part of a live audit and whether it saw everything it was asked to look at."""

    name: str  # filesystem | processes | environment | open-files | connections
    status: str  # complete | partial | skipped
    detail: str = ""


@dataclass(frozen=True)
class LiveHost:
    """The running machine a live audit looked at. Times are ISO 8601 UTC."""

    hostname: str
    kernel: str
    boot_time: str | None
    audit_time: str
    processes_inspected: int
    parts: tuple[AuditPart, ...] = ()


# What became of one part of an image (a container layer, a disk's filesystem): read whole, or not.
PART_COMPLETE = "complete"
PART_INCOMPLETE = "incomplete"  # read part-way: a read or parse failed, or its digest did not match
PART_ON_INCOMPLETE_BASE = "on-incomplete-base"  # a layer read whole above a layer that was not
PART_NOT_READ = "not-read"  # found but unreadable (an encrypted volume)


@dataclass(frozen=True)
class ImageLayer:
    digest: str
    media_type: str | None
    size: int | None
    status: str = PART_COMPLETE
    detail: str = ""  # what failed, for any other status


@dataclass(frozen=True)
class ImageInfo:
    """What a container image scan read: its format, manifest digest, platform and layers (bottom first)."""

    format: str  # docker-archive | oci-archive | oci-layout
    digest: str | None
    platform: str | None
    layers: tuple[ImageLayer, ...] = ()
    tags: tuple[str, ...] = ()


@dataclass(frozen=True)
class DiskFilesystem:
    type: str  # ext | xfs | btrfs | luks | …
    mount: str | None  # where the image's /etc/fstab (or being the root) puts it; None when not walked
    volume: str | None
    size: int | None
    subvolume: str | None = None  # a btrfs subvolume's path ("" for the top level)
    status: str = PART_COMPLETE
    detail: str = ""


@dataclass(frozen=True)
class DiskInfo:
    """What a disk image scan read: its format and every filesystem found in it."""

    format: str  # raw | qcow2 | vmdk | vhd | vhdx
    filesystems: tuple[DiskFilesystem, ...] = ()


@dataclass(frozen=True)
class TargetInfo:
    kind: str  # directory | container-image | disk-image | live
    location: str
    live: LiveHost | None = None  # only for kind "live"
    image: ImageInfo | None = None  # only for kind "container-image"
    disk: DiskInfo | None = None  # only for kind "disk-image"


@dataclass(frozen=True)
class ProcessSdk:
    ecosystem: str
    name: str
    vendor: str | None
    path: str  # a file the process holds open or mapped under the SDK's package directory


@dataclass(frozen=True)
class ProcessEnvVar:
    """An LLM-related variable of a running process; a credential's value is only ever its redacted form."""

    name: str
    role: str  # credential | base_url | model | kill_switch | config
    value: str | None
    state: SwitchState | None = None  # kill switches only


@dataclass(frozen=True)
class ProcessTie:
    """A file the filesystem scan knows (the executable, a script or config named on the command line)."""

    path: str  # inside path
    role: str  # exe | argument
    models: tuple[str, ...] = ()
    endpoints: tuple[str, ...] = ()
    kill_switches: tuple[str, ...] = ()
    credentials: tuple[str, ...] = ()  # redacted forms


@dataclass(frozen=True)
class ProcessEntry:
    pid: int
    ppid: int | None
    name: str
    user: str | None
    exe: str | None
    cmdline: tuple[str, ...]  # credentials scrubbed
    started: str | None  # ISO 8601 UTC
    relevance: tuple[str, ...]  # why the process is in the inventory, e.g. "sdk-loaded:anthropic"
    sdks: tuple[ProcessSdk, ...] = ()
    environment: tuple[ProcessEnvVar, ...] = ()
    ties: tuple[ProcessTie, ...] = ()
    listening: tuple[str, ...] = ()  # "127.0.0.1:8000/tcp"


@dataclass(frozen=True)
class ConnectionEntry:
    pid: int
    process: str
    protocol: str  # tcp | udp
    local: str  # "addr:port"
    remote: str | None
    state: str  # ESTABLISHED, LISTEN, NONE, …
    endpoint: str | None  # the inventory host it reaches, when the VM's own evidence says so
    vendor: str | None
    mapped_by: str | None  # base-url | etc-hosts | configured-host
    candidates: tuple[str, ...] = ()  # hosts it may reach (TLS on 443 from a process configured for them)


@dataclass
class Stats:
    files_seen: int = 0
    files_read: int = 0
    bytes_read: int = 0
    seconds: float = 0.0


@dataclass(frozen=True)
class Inventory:
    tool_version: str
    catalogs: tuple[CatalogRef, ...]
    target: TargetInfo
    stats: Stats
    models: tuple[ModelEntry, ...] = ()
    sdks: tuple[SdkEntry, ...] = ()
    endpoints: tuple[EndpointEntry, ...] = ()
    credentials: tuple[CredentialEntry, ...] = ()
    kill_switches: tuple[KillSwitchEntry, ...] = ()
    findings: tuple[Finding, ...] = ()
    skipped: tuple[Skip, ...] = ()
    sessions: tuple[SessionEntry, ...] = field(default=())
    routes: tuple[RouteEntry, ...] = field(default=())
    # Live audits only; None means "not inspected" (a directory scan), () means "inspected, none found".
    processes: tuple[ProcessEntry, ...] | None = None
    connections: tuple[ConnectionEntry, ...] | None = None
    clients: tuple[ClientEntry, ...] = ()
    mcp_servers: tuple[McpServerEntry, ...] = ()
    agents: tuple[AgentEntry, ...] = ()
    local_models: tuple[LocalModelEntry, ...] = ()
    env_settings: tuple[EnvSetting, ...] = ()  # input of live findings; not serialised
    # Sections a document read back did not have (not inspected). A live audit that walked no files needs no
    # entry here: its `target.live.parts` says so, and the sections only files fill are absent (sections.py).
    absent: frozenset[str] = frozenset()


# Local models are a kind of their own, whose evidence and entries place themselves with `Location`: imported
# once this module has defined it.
from scanner.kinds.local_models.facts import LocalEvidence, LocalModelEntry  # noqa: E402

Evidence: TypeAlias = (
    ModelEvidence
    | SdkEvidence
    | EndpointEvidence
    | CredentialEvidence
    | KillSwitchEvidence
    | SessionEvidence
    | SessionMetaEvidence
    | SessionLogEvidence
    | ClientEvidence
    | McpServerEvidence
    | AgentPackageEvidence
    | AgentFileEvidence
    | AgentConfigEvidence
    | ProgramEvidence
    | ProgramHostsEvidence
    | LocalEvidence
)

"""What an inventory holds: one kind of fact per module, registered once in `KINDS`.

`KINDS` is the one registry: the builder dispatches evidence to each kind's fold by the evidence's type, the
codec takes each kind's JSON shapes, the document writer and loader walk it in JSON order, `diff` compares each
kind's identity, the human formats take each kind's title and columns, and the bills of materials and the
headline each kind's own hooks (`bom`, `headline`). Adding a kind is one module here
(its `KIND`), its line in `KINDS` and its field on `Inventory` (`tests/test_registry.py` names a missing piece).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any, TypeVar

from scanner.kinds import (
    agents,
    clients,
    connections,
    credentials,
    endpoints,
    findings,
    kill_switches,
    local_models,
    mcp_servers,
    models,
    processes,
    routes,
    sdks,
    sessions,
    skipped,
)
from scanner.kinds.agents import (
    AgentConfigEvidence,
    AgentEntry,
    AgentFileEvidence,
    AgentPackageEvidence,
    ProgramEvidence,
    ProgramHostsEvidence,
)
from scanner.kinds.base import EnvSetting, JsonShape, Kind, walked_files
from scanner.kinds.clients import ClientEntry, ClientEvidence
from scanner.kinds.connections import ConnectionEntry
from scanner.kinds.credentials import CredentialEntry, CredentialEvidence
from scanner.kinds.endpoints import EndpointEntry, EndpointEvidence
from scanner.kinds.kill_switches import KillSwitchEntry, KillSwitchEvidence
from scanner.kinds.local_models import LocalEvidence, LocalModelEntry
from scanner.kinds.mcp_servers import McpServerEntry, McpServerEvidence
from scanner.kinds.models import ModelEntry, ModelEvidence
from scanner.kinds.processes import ProcessEntry
from scanner.kinds.routes import RouteEntry
from scanner.kinds.sdks import SdkEntry, SdkEvidence
from scanner.kinds.sessions import SessionEntry, SessionEvidence, SessionLogEvidence, SessionMetaEvidence
from scanner.model import (
    CatalogRef,
    DiskFilesystem,
    Finding,
    ImageInfo,
    ImageLayer,
    Location,
    Skip,
    Stats,
    TargetInfo,
)

__all__ = ["KIND", "KINDS", "SHAPES", "WALKED", "Evidence", "Inventory", "in_declared_order", "in_order",
           "walked_files"]

T = TypeVar("T")

#: Every kind, in the order of the JSON document.
KINDS: tuple[Kind[Any], ...] = (
    models.KIND,
    sdks.KIND,
    endpoints.KIND,
    credentials.KIND,
    kill_switches.KIND,
    sessions.KIND,
    routes.KIND,
    findings.KIND,
    skipped.KIND,
    clients.KIND,
    mcp_servers.KIND,
    agents.KIND,
    local_models.KIND,
    processes.KIND,
    connections.KIND,
)

KIND: Mapping[str, Kind[Any]] = {k.key: k for k in KINDS}

#: The kinds only a walk of files fills: what an audit that walked none (--live-only) leaves absent.
WALKED = frozenset(k.key for k in KINDS if k.walked)

#: Each dataclass whose JSON is not its plain fields (read by inventory/codec.py): the kinds' own, and the
#: kernel's (a location, a target).
SHAPES: dict[type, JsonShape] = {
    Location: JsonShape(omit_empty=frozenset({"layer"})),  # container images only: a directory's keep their shape
    # A live host, a container image or a disk image: what was read, in place among the target's keys.
    TargetInfo: JsonShape(omit_empty=frozenset({"live"}), inline={"image": "layers", "disk": "filesystems"}),
    ImageInfo: JsonShape(order=("format", "digest", "platform", "tags", "layers")),
    ImageLayer: JsonShape(omit_empty=frozenset({"detail"})),
    DiskFilesystem: JsonShape(omit_empty=frozenset({"subvolume", "detail"})),
}
for _kind in KINDS:
    SHAPES.update(_kind.shapes)

Evidence = (
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
    # entry here: its `target.live.parts` says so, and the sections only files fill are absent (`Kind.walked`).
    absent: frozenset[str] = frozenset()


def in_order(key: str, entries: Iterable[T]) -> tuple[T, ...]:
    """A kind's entries in its declared order (a stable sort: entries equal under it keep their order)."""
    order = KIND[key].order
    return tuple(entries) if order is None else tuple(sorted(entries, key=order))


def in_declared_order(inv: Inventory) -> Inventory:
    """Every kind of the inventory in its declared order."""
    ordered: dict[str, Any] = {
        k.key: in_order(k.key, found) for k in KINDS if (found := getattr(inv, k.key)) is not None
    }
    return dataclasses.replace(inv, **ordered)

"""What both AI bills of materials (CycloneDX and SPDX) say beyond the inventory's lists, as plain data.

How each fact was found (a technique per location context, with a confidence), what a session observed against
what a config declared, which agent reaches which model through which endpoint, whether the scan read everything,
and the lifecycle milestones of a model. The two renderers only spell these in their own vocabularies.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from urllib.parse import urlsplit

from scanner.kinds import KINDS, Inventory
from scanner.kinds.agents import AgentEntry
from scanner.kinds.base import BomPart
from scanner.kinds.endpoints import EndpointEntry
from scanner.kinds.mcp_servers import McpServerEntry
from scanner.kinds.models import ModelEntry
from scanner.kinds.routes import RouteEntry
from scanner.kinds.sdks import SdkEntry
from scanner.model import Confidence, Context, Location, Skip, SkipReason
from scanner.render._incomplete import incomplete_lines
from scanner.vocab import PSEUDO_VENDORS, CatalogStatus

# How a location's context found a fact, in CycloneDX's analysis-technique words, and how much it says: a config
# or environment assignment declares the value, a session's served-by record observed it, a binary's string table
# or a log only names it; a session's conversation (a prompt, a tool's output) only mentions it.
TECHNIQUE: dict[Context, str] = {
    Context.CONFIG: "manifest-analysis",
    Context.ENV: "manifest-analysis",
    Context.PACKAGE: "manifest-analysis",
    Context.SOURCE: "source-code-analysis",
    Context.DOCS: "source-code-analysis",
    Context.TEST: "source-code-analysis",
    Context.COMMENT: "source-code-analysis",
    Context.BINARY: "binary-analysis",
    Context.SESSION: "dynamic-analysis",
    Context.LOG: "dynamic-analysis",
    Context.CONVERSATION: "other",
}
CONTEXT_CONFIDENCE: dict[Context, float] = {
    Context.CONFIG: 0.9,
    Context.ENV: 0.9,
    Context.SESSION: 0.9,
    Context.SOURCE: 0.7,
    Context.BINARY: 0.6,
    Context.LOG: 0.5,
    Context.PACKAGE: 0.3,
    Context.DOCS: 0.2,
    Context.COMMENT: 0.2,
    Context.TEST: 0.1,
    Context.CONVERSATION: 0.1,
}
LEVEL: dict[Confidence, float] = {Confidence.HIGH: 0.9, Confidence.MEDIUM: 0.6, Confidence.LOW: 0.3}
# How sure the catalogs are of a vendor: a listed id, a family grammar, or an alias inheriting its base's vendor.
CATALOG_CONFIDENCE: dict[CatalogStatus, float] = {
    CatalogStatus.KNOWN: 0.9, CatalogStatus.FAMILY: 0.7, CatalogStatus.UNKNOWN: 0.5,
}

# Skip reasons that left bytes of the target unread or half-read. The others name things with no content to read
# in the target (a FIFO, a device, a link out of the root, /proc): their absence is no gap in the inventory.
GAP_REASONS = frozenset({
    SkipReason.PERMISSION_DENIED, SkipReason.TOO_LARGE, SkipReason.SPARSE, SkipReason.READ_ERROR,
    SkipReason.CHANGED, SkipReason.DETECTOR_ERROR, SkipReason.BUDGET_EXCEEDED, SkipReason.DECOMPRESSION_LIMIT,
    SkipReason.PARSE_ERROR, SkipReason.CAP_REACHED,
})


@dataclass(frozen=True)
class Method:
    technique: str
    confidence: float
    value: str


def methods(locs: Iterable[Location], value: str) -> list[Method]:
    """One method per technique the locations used, at the confidence of its most telling context."""
    best: dict[str, float] = {}
    for loc in locs:
        technique = TECHNIQUE[loc.context]
        best[technique] = max(best.get(technique, 0.0), CONTEXT_CONFIDENCE[loc.context])
    return [Method(t, c, value) for t, c in sorted(best.items())]


def route_of(inv: Inventory, m: ModelEntry) -> RouteEntry | None:
    """The route the configs declare for a model's id, with what sessions observed behind it."""
    return next((r for r in inv.routes if r.alias == m.name), None)


def vendor_methods(inv: Inventory, m: ModelEntry) -> list[Method]:
    """How the vendor is known: the catalogs' reading of the declared id, and what sessions observed. When the two
    disagree both stay, each with its own confidence: the graph says the declaration and the observation apart."""
    out: list[Method] = []
    declared = [loc for loc in m.locations if loc.context is not Context.SESSION]
    if m.vendor and declared:
        technique = max(methods(declared, m.vendor), key=lambda x: x.confidence).technique
        out.append(Method(technique, CATALOG_CONFIDENCE.get(m.catalog, 0.5), m.vendor))
    route = route_of(inv, m)
    if route and route.observed_vendor:
        level = LEVEL.get(route.confidence, 0.3) if route.confidence else 0.3
        via = f" via {route.observed_via}" if route.observed_via else ""
        out.append(Method("dynamic-analysis", level, f"{route.observed_vendor}{via}"))
    return out


def contradiction(inv: Inventory, m: ModelEntry) -> str | None:
    """What sessions observed that the configs do not declare for this id, in words; None when they agree."""
    route = route_of(inv, m)
    if route is None or route.observed_vendor is None:
        return None
    vendor_differs = m.vendor is not None and route.observed_vendor not in (m.vendor, *PSEUDO_VENDORS)
    via_differs = bool(route.declared_via and route.observed_via and route.declared_via != route.observed_via)
    labelled = any(m.name in s.mismatched_labels for s in inv.sessions)
    if not (vendor_differs or via_differs or labelled):
        return None
    declared = f"{m.vendor or '?'} via {route.declared_via or '?'}"
    observed = f"{route.observed_vendor} via {route.observed_via or '?'}"
    said = f"declared {declared}; sessions observed {observed} ({route.confidence or 'low'})"
    return said + ("; session fingerprints contradict what this label names" if labelled else "")


def source_date_epoch() -> int | None:
    """SOURCE_DATE_EPOCH when set: the time a reproducible BOM says it was made."""
    value = os.environ.get("SOURCE_DATE_EPOCH", "").strip()
    return int(value) if value.isascii() and value.isdigit() else None


# --- who reaches what -------------------------------------------------------------------------------


def bom_parts(inv: Inventory) -> list[tuple[str, list[BomPart]]]:
    """(kind key, its parts) of every kind that lists its entries in a bill of materials, in KINDS order."""
    return [(k.key, [k.bom(e) for e in k.entries(inv) or ()]) for k in KINDS if k.bom is not None]


def agent_key(a: AgentEntry) -> str:
    return f"{a.name}:{a.version or '-'}:{a.install_path or '-'}"


def host_of(url: str | None) -> str | None:
    if not url:
        return None
    try:
        return urlsplit(url).hostname
    except ValueError:
        return None


@dataclass(frozen=True)
class Wiring:
    """Agent -> endpoints and models, endpoint -> models: the paths "agent X reaches model Y through Z"."""

    agent_models: dict[str, tuple[ModelEntry, ...]]
    agent_endpoints: dict[str, tuple[EndpointEntry, ...]]
    agent_mcp: dict[str, tuple[McpServerEntry, ...]]
    agent_credentials: dict[str, tuple[str, ...]]  # sha256
    endpoint_models: dict[str, tuple[ModelEntry, ...]]  # by host


def vendor_endpoints(inv: Inventory, s: SdkEntry) -> list[EndpointEntry]:
    """The endpoints of an SDK's vendor, in inventory order: the services the SDK calls."""
    return [e for e in inv.endpoints if s.vendor and e.vendor == s.vendor]


def _unique(items: Iterable[ModelEntry]) -> tuple[ModelEntry, ...]:
    return tuple({m.name: m for m in items}.values())


def _serves(e: EndpointEntry, m: ModelEntry) -> bool:
    """A host of a hosting route (Azure, Fireworks, Bedrock…) serves the models routed through it, whoever made
    them; a vendor's own API host its own models routed direct."""
    if not e.served_via or e.served_via != m.served_via:
        return False
    return e.served_via != "direct" or e.vendor == m.vendor


def wiring(inv: Inventory) -> Wiring:
    """An agent reaches the models its users select, through the endpoint its base URL names, else through the
    wired endpoints of the same vendor and route; an endpoint serves the wired models of its vendor and route, and
    the models of every agent whose base URL names it."""
    wired = [m for m in inv.models if m.wired]
    by_name = {m.name: m for m in wired}
    endpoints = {e.host: e for e in inv.endpoints}
    served: dict[str, list[ModelEntry]] = {}
    for e in inv.endpoints:
        if e.wired and e.served_via:
            served[e.host] = [m for m in wired if _serves(e, m)]
    agent_models: dict[str, tuple[ModelEntry, ...]] = {}
    agent_endpoints: dict[str, tuple[EndpointEntry, ...]] = {}
    agent_mcp: dict[str, tuple[McpServerEntry, ...]] = {}
    agent_creds: dict[str, tuple[str, ...]] = {}
    for a in inv.agents:
        key = agent_key(a)
        models = _unique(by_name[n] for c in a.configs for n in c.models if n in by_name)
        hosts: dict[str, EndpointEntry] = {}
        for c in a.configs:
            gateway = endpoints.get(host_of(c.base_url) or "")
            picked = [by_name[n] for n in c.models if n in by_name]
            if gateway is not None:
                hosts[gateway.host] = gateway
                served.setdefault(gateway.host, []).extend(picked)
                continue
            for e in inv.endpoints:
                if e.wired and any(_serves(e, m) for m in picked):
                    hosts[e.host] = e
        names = {(c.user, n) for c in a.configs for n in c.mcp_servers}
        agent_models[key] = models
        agent_endpoints[key] = tuple(sorted(hosts.values(), key=lambda e: e.host))
        agent_mcp[key] = tuple(s for s in inv.mcp_servers if (s.user, s.name) in names)
        agent_creds[key] = tuple(sorted({h for c in a.configs for h in c.credentials}))
    return Wiring(agent_models, agent_endpoints, agent_mcp, agent_creds,
                  {h: _unique(ms) for h, ms in sorted(served.items()) if ms})


# --- trust (where a host is: scanner/hosts.py) ------------------------------------------------------------


def requires_authentication(e: EndpointEntry) -> bool | None:
    """A catalogued vendor's API host takes a key; of another host the inventory cannot tell."""
    return True if e.vendor and e.vendor not in PSEUDO_VENDORS else None


# --- completeness ----------------------------------------------------------------------------------


@dataclass(frozen=True)
class Completeness:
    complete: bool
    why: tuple[str, ...]  # what left it incomplete, in words
    gaps: tuple[Skip, ...]  # the files whose content was not (fully) read


def completeness(inv: Inventory) -> Completeness:
    """Whether the scan read everything it looked at. A file skipped for a reason that left its content unread,
    a live-audit part not `complete`, or a section not inspected each make the inventory incomplete: a partial
    scan must never read as a clean one."""
    gaps = tuple(s for s in inv.skipped if s.reason in GAP_REASONS)
    why: list[str] = []
    if gaps:
        why.append(f"{len(gaps)} file(s) not fully read")
    if inv.target.live:
        why += [f"{p.name} {p.status}" for p in inv.target.live.parts if p.status != "complete"]
    why += [text for depth, text in incomplete_lines(inv) if depth]  # the image parts not read whole
    if inv.absent:
        why.append("not inspected: " + ", ".join(sorted(inv.absent)))
    return Completeness(not why, tuple(why), gaps)


# --- lifecycle ----------------------------------------------------------------------------------------


def milestones(m: ModelEntry) -> list[tuple[str, str]]:
    """(milestone, date) the catalogs know: released, deprecated (end of support) and retired (end of life)."""
    pairs = (("generalAvailability", m.released), ("endOfSupport", m.deprecated), ("endOfLife", m.retires))
    return [(name, date) for name, date in pairs if date]


def lifecycle_text(m: ModelEntry) -> str | None:
    """The model's lifecycle in words: state, deprecation and shutdown dates."""
    parts = [m.lifecycle] if m.lifecycle else []
    if m.deprecated:
        parts.append(f"deprecated {m.deprecated}")
    if m.retires:
        parts.append(f"shuts down {m.retires}" if m.lifecycle != "retired" else f"shut down {m.retires}")
    return "; ".join(parts) or None


def users_of(w: Wiring, inv: Inventory, m: ModelEntry) -> list[str]:
    """The agent products whose users select this model."""
    names = {a.name: a.product for a in inv.agents}
    return sorted({names[k.split(":", 1)[0]] for k, ms in w.agent_models.items() if m in ms})


def where_seen(locs: Sequence[Location], most: int = 3) -> str:
    paths = list(dict.fromkeys(f"{loc.path}:{loc.line}" if loc.line else loc.path for loc in locs))
    more = f" (+{len(paths) - most})" if len(paths) > most else ""
    return ", ".join(paths[:most]) + more

"""Every section of the inventory, declared once: its entry dataclass, JSON key, sort order, identity for `diff`,
and the columns the human formats show.

The JSON encoder and decoder (`codec`), the loader, the schema test and the diff all read these declarations;
adding a section is one `Section(...)` here (plus an `Inventory` field and its renderer rows). A section's JSON
key is its `Inventory` field's name.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from typing import Any, Generic, TypeVar

from scanner.inventory.codec import SHAPES, Shape
from scanner.kinds.local_models import views as local_views
from scanner.kinds.local_models.facts import LocalModelEntry
from scanner.model import (
    AgentEntry,
    ClientEntry,
    ConnectionEntry,
    CredentialEntry,
    CredentialLocation,
    DiskFilesystem,
    EndpointEntry,
    Finding,
    ImageInfo,
    ImageLayer,
    Inventory,
    KillSwitchEntry,
    Location,
    McpServerEntry,
    ModelEntry,
    ProcessEntry,
    RouteEntry,
    SdkEntry,
    SessionCorroboration,
    SessionEntry,
    SessionProvider,
    Skip,
    SkipReason,
    TargetInfo,
)

T = TypeVar("T")


@dataclass(frozen=True)
class Identity(Generic[T]):
    """What `diff` compares of a section: one item per entry, keyed by a stable identity (never a location)."""

    key: Callable[[T], str | None]  # None: the entry has no identity and is not compared
    label: Callable[[T], str] | None = None  # how a title names it; the key by default
    # The facts compared (field -> JSON-compatible value). None: every field but the key's, `ignore` and the
    # volatile ones (locations, pids, times, counts).
    facets: Callable[[T], Mapping[str, Any]] | None = None
    key_fields: frozenset[str] = frozenset()  # fields the key is made of: not facets
    ignore: frozenset[str] = frozenset()  # fields another section reports
    paths: Callable[[T], Iterable[str]] | None = None  # context; the entry's locations' paths by default


@dataclass(frozen=True)
class Section(Generic[T]):
    key: str  # the JSON key and the `Inventory` field
    entry: type[T]
    # The sort key of its entries (the builder applies it); None: the order its producer gives.
    order: Callable[[T], Any] | None
    title: str
    columns: tuple[str, ...]  # the human formats' table headers
    identity: Identity[T] | None = None  # None: not compared by diff (compared some other way, or never)
    optional: bool = False  # may be absent from a document: absent means not inspected
    walked: bool = False  # filled only by walking files: absent from an audit that walked none (--live-only)

    def entries(self, inv: Inventory) -> tuple[T, ...] | None:
        """The section's entries, None when it was not inspected."""
        if self.key in inv.absent or (self.walked and not walked_files(inv)):
            return None
        value: tuple[T, ...] | None = getattr(inv, self.key)
        return value


def walked_files(inv: Inventory) -> bool:
    """Whether the scan walked files: not a live audit whose filesystem part was skipped (--live-only)."""
    live = inv.target.live
    return live is None or not any(p.name == "filesystem" and p.status == "skipped" for p in live.parts)


def _paths(locs: Iterable[Location]) -> tuple[str, ...]:
    return tuple(sorted({loc.path for loc in locs}))


# --- the diff's facts of the sections that compare more than their plain fields ---------------------------


def _model_key(m: ModelEntry) -> str:
    """A model is one thing however it is spelled: a hosted or prefixed spelling of a catalogued id
    (`openai.gpt-6.1-sol`, `azure/gpt-5.6-sol`) is compared as that id, so a new spelling is a change of the
    model (`spelling`, and the routes it adds), never an added model. An alias that names another model as its
    base (`muse-special` -> gpt-5.5) is a name of its own."""
    if m.canonical and m.catalog != "unknown" and m.base_model in (None, m.canonical):
        return m.canonical
    return m.name


def _model_facets(m: ModelEntry) -> Mapping[str, Any]:
    return {
        "spelling": m.name,
        "vendor": m.vendor,
        "served_via": m.served_via,
        "base_model": m.base_model,
        "wired": m.wired,
        # Everything below follows from the name and the catalogs alone: a difference is catalog drift.
        "catalog": {"canonical": m.canonical, "family": m.family, "catalog": m.catalog, "lifecycle": m.lifecycle},
    }


def _sdk_key(s: SdkEntry) -> str:
    return f"{s.ecosystem}/{s.name}@{s.environment or '-'}" + ("" if s.installed else " (declared)")


def _credential_facets(c: CredentialEntry) -> Mapping[str, Any]:
    return {
        "type": c.type,
        "vendor": c.vendor,
        "mode": sorted({cl.mode or "?" for cl in c.locations}),
        "owner": sorted({cl.owner or "?" for cl in c.locations}),
    }


def _agent_facets(a: AgentEntry) -> Mapping[str, Any]:
    # What it ships and bundles is the `models` and `sdks` sections'. Folded over users: settings moved between
    # a home and /etc are the same settings.
    return {
        "product": a.product,
        "version": a.version,
        "ecosystem": a.ecosystem,
        "models": sorted({m for c in a.configs for m in c.models}),
        "served_via": sorted({c.served_via or "-" for c in a.configs}),
        "base_url": sorted({c.base_url for c in a.configs if c.base_url}),
        "mcp_servers": sorted({m for c in a.configs for m in c.mcp_servers}),
        "credentials": sorted({x for c in a.configs for x in c.credentials}),
    }


_MAX_AGENT_PATHS = 5

# In the order of the JSON document.
SECTIONS: tuple[Section[Any], ...] = (
    Section(
        "models", ModelEntry, lambda m: (m.vendor or "~", not m.wired, m.name), "Models",
        ("vendor", "model", "canonical", "via", "base", "lifecycle", "seen in", "where"),
        Identity(_model_key, facets=_model_facets),
    ),
    Section(
        "sdks", SdkEntry, lambda s: (s.ecosystem, s.name, not s.installed, s.environment or "", s.version or ""),
        "SDKs", ("ecosystem", "name", "version", "vendor", "installed", "environment"),
        Identity(
            _sdk_key,
            label=lambda s: f"{s.ecosystem} {s.name}" + (f" in {s.environment}" if s.environment else ""),
            facets=lambda s: {"version": s.version, "vendor": s.vendor, "served_via": s.served_via},
        ),
        walked=True,
    ),
    Section(
        "endpoints", EndpointEntry, lambda e: e.host, "Endpoints",
        ("host", "vendor", "via", "wired", "seen in", "where"),
        Identity(
            lambda e: e.host,
            facets=lambda e: {"vendor": e.vendor, "served_via": e.served_via, "wired": e.wired, "urls": sorted(e.urls)},
        ),
    ),
    Section(
        "credentials", CredentialEntry, lambda c: (c.vendor or "", c.type, c.sha256), "Credentials",
        ("type", "vendor", "redacted", "sha256", "mode", "owner", "where"),
        # The hash is the identity; the secret is never needed and never here.
        Identity(
            lambda c: c.sha256, label=lambda c: f"{c.type} {c.redacted}", facets=_credential_facets,
            paths=lambda c: (cl.location.path for cl in c.locations),
        ),
    ),
    Section(
        # Compared one item per (name, file): see diff/identity.py.
        "kill_switches", KillSwitchEntry, lambda k: (k.name, k.value or "", k.state.value), "Kill switches",
        ("name", "value", "state", "seen in", "where"),
    ),
    Section(
        # Sessions come and go with every run: diff compares the vendors they observed (diff/identity.py).
        "sessions", SessionEntry, lambda s: (s.started_at or "", s.location.path, s.session_id, s.format),
        "Sessions", ("session", "format", "started", "records", "labels", "providers", "reasoning", "fernet", "path"),
        walked=True,
    ),
    Section(
        "routes", RouteEntry, lambda r: r.alias, "Routes",
        ("alias", "declared via", "base model", "observed", "api", "sessions", "days", "confidence"),
        # A route's declared side (route, base model) is its model's: reported once, under models.
        Identity(lambda r: r.alias, key_fields=frozenset({"alias"}), ignore=frozenset({"declared_via", "base_model"})),
        walked=True,
    ),
    # Findings: `derive_findings` orders them (severity, then id).
    Section("findings", Finding, None, "Findings", ("severity", "id", "title", "where")),
    Section("skipped", Skip, lambda s: (s.path, s.reason.value, s.detail), "Skipped", ("path", "reason", "detail")),
    Section(
        "clients", ClientEntry, lambda c: (c.vendor or "~", c.provider, c.served_via or "", c.kind), "Clients",
        ("vendor", "client", "via", "kind", "what it does", "where"),
        Identity(lambda c: f"{c.provider} ({c.kind})", key_fields=frozenset({"provider", "kind"})),
        walked=True,
    ),
    Section(
        "mcp_servers", McpServerEntry, lambda m: (m.config, m.name, m.transport, m.command or "", m.url or ""),
        "MCP servers", ("name", "transport", "command or url", "env", "user", "config"),
        Identity(lambda m: m.name, key_fields=frozenset({"name"}), paths=lambda m: (m.config, *_paths(m.locations))),
        walked=True,
    ),
    Section(
        "agents", AgentEntry, lambda a: (a.name, a.install_path or ""), "Agents",
        ("agent", "version", "install path", "ships", "user", "models", "via", "mcp servers"),
        Identity(
            lambda a: f"{a.name}@{a.install_path or '-'}",
            label=lambda a: a.name + (f" in {a.install_path}" if a.install_path else " (configured, not installed)"),
            facets=_agent_facets,
            paths=lambda a: _paths(a.locations)[:_MAX_AGENT_PATHS],
        ),
        walked=True,
    ),
    Section(
        # Live audits only, in the order the audit gathered them.
        "processes", ProcessEntry, None, "Processes",
        ("pid", "user", "executable", "why", "environment", "listening"),
        Identity(lambda p: p.exe, key_fields=frozenset({"exe"}), paths=lambda p: ()),
        optional=True,
    ),
    Section(
        "connections", ConnectionEntry, None, "Connections",
        ("pid", "process", "proto", "local", "remote", "state", "endpoint", "mapped by"),
        optional=True,
    ),
    Section(
        "local_models", LocalModelEntry, local_views.order, local_views.TITLE, local_views.COLUMNS,
        Identity(local_views.diff_key, facets=local_views.diff_facets, paths=lambda e: (f.path for f in e.files)),
        walked=True,
    ),
)

SECTION: Mapping[str, Section[Any]] = {s.key: s for s in SECTIONS}

#: The sections only a walk of files fills: what an audit that walked none (--live-only) leaves absent.
WALKED = frozenset(s.key for s in SECTIONS if s.walked)


def in_order(key: str, entries: Iterable[T]) -> tuple[T, ...]:
    """A section's entries in its declared order (a stable sort: entries equal under it keep their order)."""
    order = SECTION[key].order
    return tuple(entries) if order is None else tuple(sorted(entries, key=order))


def in_declared_order(inv: Inventory) -> Inventory:
    """Every section of the inventory in its declared order."""
    ordered: dict[str, Any] = {
        s.key: in_order(s.key, found) for s in SECTIONS if (found := getattr(inv, s.key)) is not None
    }
    return dataclasses.replace(inv, **ordered)


# --- where the contract's JSON is not the plain fields of a class ----------------------------------------


def _skip(d: Mapping[str, Any]) -> Skip:
    count, members = d.get("count"), tuple(d.get("members", ()))
    try:
        return Skip(d["path"], SkipReason(d["reason"]), d["detail"], count, members)
    except ValueError:
        # The schema leaves reasons open so newer scanners can add some; an unknown one keeps its name in detail.
        detail = f"{d['reason']}: {d['detail']}".rstrip(": ")
        return Skip(d["path"], SkipReason.OTHER_TYPE, detail, count, members)


def _corroborations_of(s: SessionEntry) -> SessionEntry:
    """A log line's session id is its session's: written once, restored on reading."""
    if not s.corroborated_by:
        return s
    notes = tuple(SessionCorroboration(s.session_id, c.kind, c.detail, c.location) for c in s.corroborated_by)
    return dataclasses.replace(s, corroborated_by=notes)


# A list of locations cut at its bound says how many it left out, in JSON too (`locations_cut`, only when some were).
_CUT = frozenset({"locations_cut"})

SHAPES.update({
    Location: Shape(omit_empty=frozenset({"layer"})),  # container images only: a directory's keep their shape
    CredentialLocation: Shape(inline={"location": None}),
    ModelEntry: Shape(order=("name", "canonical", "vendor", "family", "served_via", "base_model", "catalog",
                             "lifecycle", "retires", "released", "deprecated", "task", "architecture", "wired",
                             "mentioned_in_sessions", "locations", "locations_cut"),
                      omit_empty=frozenset({"released", "deprecated", "task", "architecture", "mentioned_in_sessions"})
                      | _CUT),
    EndpointEntry: Shape(
        order=("host", "vendor", "served_via", "urls", "wired", "overrides", "locations", "locations_cut"),
        omit_empty=_CUT,
        codecs={"overrides": (
            lambda v: [{"vendor": vendor, "set_by": var} for vendor, var in v],
            lambda v: tuple((o["vendor"], o["set_by"]) for o in v),
        )},
    ),
    CredentialEntry: Shape(omit_empty=frozenset({"route", "paired_with"}) | _CUT),
    KillSwitchEntry: Shape(order=("name", "value", "state", "note", "locations", "locations_cut"), omit_empty=_CUT),
    SdkEntry: Shape(omit_empty=_CUT),
    ClientEntry: Shape(omit_empty=_CUT),
    McpServerEntry: Shape(omit_empty=_CUT),
    Finding: Shape(omit_empty=_CUT),
    SessionProvider: Shape(
        order=("vendor", "served_via", "api", "records", "confidence", "first_seen", "last_seen", "first_record",
               "last_record", "record_ranges", "candidates", "reasoning", "visible_records", "encrypted_records",
               "evidence"),
        computed={"first_record": lambda p: p.first_record, "last_record": lambda p: p.last_record},
        omit_empty=frozenset({"visible_records", "encrypted_records"}),
    ),
    SessionCorroboration: Shape(hidden={"session_id": ""}),
    SessionEntry: Shape(
        order=("session_id", "format", "path", "location", "title", "started_at", "ended_at", "records", "labels",
               "served_models", "reasoning", "providers", "fernet", "declared", "parent_session_id",
               "mismatched_labels", "mentioned", "notes", "corroborated_by"),
        computed={"path": lambda s: s.location.path},
        omit_empty=frozenset({"title", "served_models", "mentioned"}),
        finish=_corroborations_of,
    ),
    RouteEntry: Shape(
        order=("alias", "declared_via", "base_model", "observed", "sessions", "days", "confidence", "locations"),
        groups={"observed": {"vendor": "observed_vendor", "served_via": "observed_via", "api": "observed_api"}},
    ),
    Skip: Shape(omit_empty=frozenset({"count", "members"}), decode=_skip),
    # A live host, a container image or a disk image: what was read, in place among the target's keys.
    TargetInfo: Shape(omit_empty=frozenset({"live"}), inline={"image": "layers", "disk": "filesystems"}),
    ImageInfo: Shape(order=("format", "digest", "platform", "tags", "layers")),
    ImageLayer: Shape(omit_empty=frozenset({"detail"})),
    DiskFilesystem: Shape(omit_empty=frozenset({"subvolume", "detail"})),
})

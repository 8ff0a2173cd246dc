"""Each inventory section as a map from stable identity to the facts compared across releases.

Identity per section: a model by name, an SDK by (ecosystem, name, environment inside the target, installed),
an endpoint by host, a credential by sha256, a kill switch by (name, file), a session vendor by vendor, a route
by alias, an MCP server by name, an agent product by (name, install path), a process by executable. Locations
are kept only as context (`paths`).
Sections beyond the core (`routes`, `mcp_servers`, `processes`) are read generically, by a key field, when present.
"""

from __future__ import annotations

import dataclasses
import json
from collections import defaultdict
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from enum import Enum
from typing import Any

from scanner.model import Inventory, Location

MAX_PATHS = 5


@dataclass(frozen=True)
class Item:
    key: str
    label: str  # how a person names it in a title
    facets: Mapping[str, Any]  # field -> JSON-compatible value; one changed field is one change
    paths: tuple[str, ...] = ()  # context only: never compared


def _paths(locs: Iterable[Location]) -> tuple[str, ...]:
    return tuple(sorted({loc.path for loc in locs}))


def canonical_json(value: Any) -> str:
    return json.dumps(value, sort_keys=True, ensure_ascii=True)


def _merge(items: list[Item]) -> Item:
    """Several entries with one identity (two versions in one site-packages): each differing fact becomes a
    sorted list, so the merge is order-independent and the diff stays symmetric."""
    if len(items) == 1:
        return items[0]
    facets: dict[str, Any] = {}
    for name in sorted({f for it in items for f in it.facets}):
        values = {canonical_json(it.facets.get(name)): it.facets.get(name) for it in items}
        facets[name] = values[next(iter(values))] if len(values) == 1 else [values[k] for k in sorted(values)]
    paths = tuple(sorted({p for it in items for p in it.paths}))
    return Item(items[0].key, items[0].label, facets, paths)


def _index(items: Iterable[Item]) -> dict[str, Item]:
    groups: dict[str, list[Item]] = defaultdict(list)
    for it in items:
        groups[it.key].append(it)
    return {key: _merge(group) for key, group in sorted(groups.items())}


def models(inv: Inventory) -> dict[str, Item]:
    return _index(
        Item(
            m.name,
            m.name,
            {
                "vendor": m.vendor,
                "served_via": m.served_via,
                "base_model": m.base_model,
                "wired": m.wired,
                # Everything below follows from the name and the catalogs alone: a difference is catalog drift.
                "catalog": {
                    "canonical": m.canonical,
                    "family": m.family,
                    "catalog": m.catalog,
                    "lifecycle": m.lifecycle,
                },
            },
            _paths(m.locations),
        )
        for m in inv.models
    )


def sdks(inv: Inventory) -> dict[str, Item]:
    return _index(
        Item(
            f"{s.ecosystem}/{s.name}@{s.environment or '-'}" + ("" if s.installed else " (declared)"),
            f"{s.ecosystem} {s.name}" + (f" in {s.environment}" if s.environment else ""),
            {"version": s.version, "vendor": s.vendor, "served_via": s.served_via},
            _paths(s.locations),
        )
        for s in inv.sdks
    )


def endpoints(inv: Inventory) -> dict[str, Item]:
    return _index(
        Item(
            e.host,
            e.host,
            {"vendor": e.vendor, "served_via": e.served_via, "wired": e.wired, "urls": sorted(e.urls)},
            _paths(e.locations),
        )
        for e in inv.endpoints
    )


def credentials(inv: Inventory) -> dict[str, Item]:
    # The hash is the identity; the secret is never needed and never here.
    return _index(
        Item(
            c.sha256,
            f"{c.type} {c.redacted}",
            {
                "type": c.type,
                "vendor": c.vendor,
                "mode": sorted({cl.mode or "?" for cl in c.locations}),
                "owner": sorted({cl.owner or "?" for cl in c.locations}),
            },
            _paths(cl.location for cl in c.locations),
        )
        for c in inv.credentials
    )


def kill_switches(inv: Inventory) -> dict[str, Item]:
    # One entry per (name, value, state) in the inventory; here one item per (name, file) it was seen in.
    return _index(
        Item(
            f"{k.name}@{path}",
            k.name,
            {"name": k.name, "setting": {"value": k.value, "state": k.state.value}},
            (path,),
        )
        for k in inv.kill_switches
        for path in _paths(k.locations)
    )


def agents(inv: Inventory) -> dict[str, Item]:
    """An agent product by (name, install path): its version and what its users' settings select. What it ships
    and bundles is not compared here: those model ids and SDK versions are the `models` and `sdks` sections'."""
    return _index(
        Item(
            f"{a.name}@{a.install_path or '-'}",
            a.name + (f" in {a.install_path}" if a.install_path else " (configured, not installed)"),
            {
                "product": a.product,
                "version": a.version,
                "ecosystem": a.ecosystem,
                # Folded over users: settings moved between a home and /etc are the same settings.
                "models": sorted({m for c in a.configs for m in c.models}),
                "served_via": sorted({c.served_via or "-" for c in a.configs}),
                "base_url": sorted({c.base_url for c in a.configs if c.base_url}),
                "mcp_servers": sorted({m for c in a.configs for m in c.mcp_servers}),
                "credentials": sorted({x for c in a.configs for x in c.credentials}),
            },
            tuple(sorted({loc.path for loc in a.locations}))[:MAX_PATHS],
        )
        for a in inv.agents
    )


# --- sections other branches add: read generically, by a key field, whatever their exact shape -----------

# Facts that change with every run or only say where: never a change.
_VOLATILE = frozenset(
    {
        "locations",
        "location",
        "path",
        "paths",
        "file",
        "files",
        "line",
        "where",
        "pid",
        "ppid",
        "started",
        "start_time",
        "first_seen",
        "last_seen",
        "sessions",
        "connections",
        "evidence",
        "days",
        "confidence",
    }
)


def plain(value: Any) -> Any:
    """A dataclass / enum / tuple value as plain JSON-compatible data."""
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return {f.name: plain(getattr(value, f.name)) for f in dataclasses.fields(value)}
    if isinstance(value, Enum):
        return value.value
    if isinstance(value, Mapping):
        return {str(k): plain(v) for k, v in value.items()}
    if isinstance(value, (list, tuple, set, frozenset)):
        return [plain(v) for v in value]
    return value


def _generic_paths(d: Mapping[str, Any]) -> tuple[str, ...]:
    found: set[str] = set()
    for name in ("path", "file", "config"):
        if isinstance(d.get(name), str):
            found.add(d[name])
    for loc in d.get("locations") or ():
        if isinstance(loc, Mapping) and isinstance(loc.get("path"), str):
            found.add(loc["path"])
    return tuple(sorted(found))[:MAX_PATHS]


def _generic(
    section: str, key_fields: tuple[str, ...], owned_elsewhere: frozenset[str] = frozenset()
) -> Callable[[Inventory], dict[str, Item]]:
    def items(inv: Inventory) -> dict[str, Item]:
        out = []
        for raw in getattr(inv, section, ()) or ():
            d = plain(raw)
            if not isinstance(d, Mapping):
                continue
            key = next((str(d[f]) for f in key_fields if d.get(f) not in (None, "")), None)
            if key is None:
                continue
            facets = {
                k: v
                for k, v in sorted(d.items())
                if k not in _VOLATILE
                and k not in key_fields
                and k not in owned_elsewhere
                and not k.endswith(("_count", "_at"))
            }
            out.append(Item(key, key, facets, _generic_paths(d)))
        return _index(out)

    return items


def session_vendors(inv: Inventory) -> dict[str, Item]:
    """Vendors observed serving sessions (sessions themselves come and go with every run)."""
    out = []
    for raw in getattr(inv, "sessions", ()) or ():
        d = plain(raw)
        if not isinstance(d, Mapping):
            continue
        listed = d.get("providers")
        providers: list[Any] = listed if isinstance(listed, list) else [d]
        for p in providers:
            vendor = p.get("vendor") if isinstance(p, Mapping) else None
            if isinstance(vendor, str) and vendor:
                out.append(Item(vendor, vendor, {}, _generic_paths(d)))
    return _index(out)


# Section name -> its items. The order is the order of a report.
SECTIONS: dict[str, Callable[[Inventory], dict[str, Item]]] = {
    "models": models,
    "sdks": sdks,
    "endpoints": endpoints,
    "credentials": credentials,
    "kill_switches": kill_switches,
    "session_vendors": session_vendors,
    # A route's declared side (route, base model) is its model's: reported once, under models.
    "routes": _generic("routes", ("alias", "name"), frozenset({"declared_via", "base_model"})),
    "mcp_servers": _generic("mcp_servers", ("name",)),
    "agents": agents,
    "processes": _generic("processes", ("executable", "exe")),
}

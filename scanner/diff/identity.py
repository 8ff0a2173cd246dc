"""Each inventory section as a map from stable identity to the facts compared across releases.

Each section's identity is declared with the section (`scanner/inventory/sections.py`): a model by name, an SDK
by (ecosystem, name, environment inside the target, installed), an endpoint by host, a credential by sha256, a
route by alias, a client by (provider, kind), an MCP server by name, an agent product by (name, install path), a
process by executable. Two are derived here: a kill switch by (name, file), a session vendor by vendor. Locations
are kept only as context (`paths`). A section not inspected on either side (absent) is not compared.
"""

from __future__ import annotations

import dataclasses
import json
from collections import defaultdict
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from enum import Enum
from typing import Any

from scanner.inventory.sections import SECTION, Section
from scanner.inventory.sections import SECTIONS as DECLARED
from scanner.model import Inventory, Location

MAX_PATHS = 5
# Compared first, in this order; every other declared section with an identity follows in declaration order.
_CORE = frozenset({"models", "sdks", "endpoints", "credentials"})


@dataclass(frozen=True)
class Item:
    key: str
    label: str  # how a person names it in a title
    facets: Mapping[str, Any]  # field -> JSON-compatible value; one changed field is one change
    paths: tuple[str, ...] = ()  # context only: never compared


def _paths(locs: Iterable[Location]) -> tuple[str, ...]:
    return tuple(sorted({loc.path for loc in locs}))


_CANONICAL = json.JSONEncoder(sort_keys=True, ensure_ascii=True).encode  # built once: `dumps(**kw)` builds one a call


def canonical_json(value: Any) -> str:
    return _CANONICAL(value)


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


def kill_switches(inv: Inventory) -> dict[str, Item] | None:
    # One entry per (name, value, state) in the inventory; here one item per (name, file) it was seen in.
    found = SECTION["kill_switches"].entries(inv)
    if found is None:
        return None
    return _index(
        Item(
            f"{k.name}@{path}",
            k.name,
            {"name": k.name, "setting": {"value": k.value, "state": k.state.value}},
            (path,),
        )
        for k in found
        for path in _paths(k.locations)
    )


# --- sections other branches add: read generically, by a key field, whatever their exact shape -----------

# Facts that change with every run or only say where: never a change.
_VOLATILE = frozenset(
    {
        "locations",
        "locations_cut",
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


def _declared(section: Section[Any]) -> Callable[[Inventory], dict[str, Item] | None]:
    identity = section.identity
    assert identity is not None

    def items(inv: Inventory) -> dict[str, Item] | None:
        found = section.entries(inv)
        if found is None:
            return None
        out = []
        for entry in found:
            key = identity.key(entry)
            if key in (None, ""):
                continue
            label = identity.label(entry) if identity.label else key
            if identity.facets is not None:
                facets = dict(identity.facets(entry))
                paths = tuple(sorted(set(identity.paths(entry)))) if identity.paths else _paths(entry.locations)
            else:
                d = plain(entry)
                facets = {
                    k: v
                    for k, v in sorted(d.items())
                    if k not in _VOLATILE
                    and k not in identity.key_fields
                    and k not in identity.ignore
                    and not k.endswith(("_count", "_at"))
                }
                where = identity.paths(entry) if identity.paths else (x["path"] for x in d.get("locations") or ())
                paths = tuple(sorted(set(where)))[:MAX_PATHS]
            out.append(Item(key, label, facets, paths))
        return _index(out)

    return items


def session_vendors(inv: Inventory) -> dict[str, Item] | None:
    """Vendors observed serving sessions (sessions themselves come and go with every run)."""
    found = SECTION["sessions"].entries(inv)
    if found is None:
        return None
    return _index(
        Item(p.vendor, p.vendor, {}, (s.location.path,)) for s in found for p in s.providers if p.vendor
    )


def _compared(name: str) -> Callable[[Inventory], dict[str, Item] | None]:
    return _declared(SECTION[name])


# Section name -> its items, None when the section was not inspected. The order is the order of a report.
SECTIONS: dict[str, Callable[[Inventory], dict[str, Item] | None]] = {
    "models": _compared("models"),
    "sdks": _compared("sdks"),
    "endpoints": _compared("endpoints"),
    "credentials": _compared("credentials"),
    "kill_switches": kill_switches,
    "session_vendors": session_vendors,
    **{s.key: _declared(s) for s in DECLARED if s.identity is not None and s.key not in _CORE},
}

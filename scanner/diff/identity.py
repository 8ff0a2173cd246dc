"""Each inventory section as a map from stable identity to the facts compared across releases.

Each section's identity is declared with its kind (`scanner/kinds/`): a model by name, an SDK
by (ecosystem, name, environment inside the target, installed), an endpoint by host, a credential by sha256, a
route by alias, a client by (provider, kind), an MCP server by name, an agent product by (name, install path), a
process by executable; a kill switch one item per file it is set in, sessions one item per vendor that served them
(`session_vendors`). Locations are kept only as context (`paths`). A section not inspected on either side (absent)
is not compared.
"""

from __future__ import annotations

import dataclasses
import json
from collections import defaultdict
from collections.abc import Callable, Iterable, Mapping
from enum import Enum
from typing import Any

from scanner.kinds import KINDS, Inventory
from scanner.kinds.base import DiffItem, Kind
from scanner.model import Location

MAX_PATHS = 5


def _paths(locs: Iterable[Location]) -> tuple[str, ...]:
    return tuple(sorted({loc.path for loc in locs}))


_CANONICAL = json.JSONEncoder(sort_keys=True, ensure_ascii=True).encode  # built once: `dumps(**kw)` builds one a call


def canonical_json(value: Any) -> str:
    return _CANONICAL(value)


def _merge(items: list[DiffItem]) -> DiffItem:
    """Several entries with one identity (two versions in one site-packages): each differing fact becomes a
    sorted list, so the merge is order-independent and the diff stays symmetric."""
    if len(items) == 1:
        return items[0]
    facets: dict[str, Any] = {}
    for name in sorted({f for it in items for f in it.facets}):
        values = {canonical_json(it.facets.get(name)): it.facets.get(name) for it in items}
        facets[name] = values[next(iter(values))] if len(values) == 1 else [values[k] for k in sorted(values)]
    paths = tuple(sorted({p for it in items for p in it.paths}))
    return DiffItem(items[0].key, items[0].label, facets, paths)


def _index(items: Iterable[DiffItem]) -> dict[str, DiffItem]:
    groups: dict[str, list[DiffItem]] = defaultdict(list)
    for it in items:
        groups[it.key].append(it)
    return {key: _merge(group) for key, group in sorted(groups.items())}


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


def _declared(section: Kind[Any]) -> Callable[[Inventory], dict[str, DiffItem] | None]:
    identity = section.identity
    assert identity is not None

    def items(inv: Inventory) -> dict[str, DiffItem] | None:
        found = section.entries(inv)
        if found is None:
            return None
        if identity.items is not None:  # several items per entry: a kill switch per file, a session per vendor
            return _index(it for entry in found for it in identity.items(entry))
        assert identity.key is not None
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
            out.append(DiffItem(key, label, facets, paths))
        return _index(out)

    return items


# Kind (or what it compares) -> its items, None when the kind was not inspected; in `KINDS` order, which is the
# order of a report.
COMPARED: dict[str, Callable[[Inventory], dict[str, DiffItem] | None]] = {
    (k.identity.section or k.key): _declared(k) for k in KINDS if k.identity is not None
}

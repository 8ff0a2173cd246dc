"""`fleet diff`: two releases of a fleet compared target by target, each change counted over the pairs.

Targets are paired when every label but the compared one is the same (customer=acme in release A and in
release B); each pair is compared with the single-target diff and its stable change ids, so "a model added in
812 of 1,000" is the count of pairs whose diff holds that change.
"""

from __future__ import annotations

import json
from collections import defaultdict
from dataclasses import asdict, dataclass

from scanner.diff import SEVERITY_RANK, Change, diff_inventories
from scanner.fleet import FleetError
from scanner.fleet.store import FleetStore
from scanner.inventory.load import InventoryLoadError, from_document
from scanner.model import Inventory, Severity


@dataclass(frozen=True)
class FleetChange:
    change_id: str
    kind: str
    severity: str
    targets: int  # pairs whose diff holds this change
    title: str  # the change's title in the first pair that has it
    examples: tuple[str, ...]  # a few of those pairs, by the new target's name


@dataclass(frozen=True)
class FleetDiff:
    old_label: str
    new_label: str
    pairs: int
    unpaired_old: int
    unpaired_new: int
    changes: tuple[FleetChange, ...]

    def to_json(self) -> dict[str, object]:
        return {"schema": "modelcensus/fleet-diff@1", **asdict(self)}


def parse_label(text: str) -> tuple[str, str]:
    key, sep, value = text.partition("=")
    if not sep or not key.strip():
        raise FleetError(f"--label {text!r}: expected KEY=VALUE, e.g. release=2026.11")
    return key.strip(), value.strip()


def fleet_diff(store: FleetStore, old: tuple[str, str], new: tuple[str, str]) -> FleetDiff:
    if old[0] != new[0]:
        raise FleetError(f"compare two values of one label, not {old[0]!r} and {new[0]!r}")
    key = old[0]
    _, rows = store.query("SELECT name, labels FROM targets WHERE status = 'scanned' ORDER BY name")
    sides: dict[str, dict[tuple[tuple[str, str], ...], list[str]]] = {
        old[1]: defaultdict(list),
        new[1]: defaultdict(list),
    }
    for name, labels_json in rows:
        labels = json.loads(labels_json or "{}")
        value = labels.get(key)
        if value in sides:
            rest = tuple(sorted((k, str(v)) for k, v in labels.items() if k != key))
            sides[value][rest].append(name)
    a, b = sides[old[1]], sides[new[1]]
    pairs = [(a[k][0], b[k][0]) for k in sorted(set(a) & set(b)) if len(a[k]) == 1 and len(b[k]) == 1]
    paired_a = {p[0] for p in pairs}
    paired_b = {p[1] for p in pairs}
    inventories = store.inventories([n for p in pairs for n in p])
    counts: dict[str, list[Change]] = defaultdict(list)
    names: dict[str, list[str]] = defaultdict(list)
    for old_name, new_name in pairs:
        result = diff_inventories(_load(old_name, inventories), _load(new_name, inventories))
        for change in {c.id: c for c in result.changes}.values():
            counts[change.id].append(change)
            names[change.id].append(new_name)
    changes = []
    for cid, seen in counts.items():
        worst = max(seen, key=lambda c: SEVERITY_RANK[c.severity])
        changes.append(
            FleetChange(cid, seen[0].kind.value, worst.severity.value, len(seen), seen[0].title, tuple(names[cid][:5]))
        )
    changes.sort(key=lambda c: (-c.targets, -SEVERITY_RANK[Severity(c.severity)], c.change_id))
    return FleetDiff(
        f"{key}={old[1]}",
        f"{key}={new[1]}",
        len(pairs),
        sum(len(v) for v in a.values()) - len(paired_a),
        sum(len(v) for v in b.values()) - len(paired_b),
        tuple(changes),
    )


def _load(name: str, inventories: dict[str, str]) -> Inventory:
    try:
        return from_document(json.loads(inventories[name]))
    except (KeyError, ValueError, InventoryLoadError) as exc:
        raise FleetError(f"{name}: its stored inventory cannot be read back ({exc})") from None

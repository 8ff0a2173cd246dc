"""`fleet diff`: two releases of a fleet, compared pair by pair where targets pair, as populations where not.

Targets are paired when every label but the compared one is the same (customer=acme in release A and in
release B); each pair is compared with the single-target diff and its stable change ids, so "a model added in
812 of 1,000" is the count of pairs whose diff holds that change. Targets left without a partner (six of release A
and two of release B with no other label) are compared as two populations: each thing the single-target diff
knows by identity (a model, an SDK, a kill switch) and each of its facts, counted in both ("gpt-6.1-sol: in 0 of 6
release=A, 2 of 2 release=B"). A fleet diff therefore never answers "no changes" about targets it did not compare.
"""

from __future__ import annotations

import json
from collections import defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import asdict, dataclass

from scanner.diff import SEVERITY_RANK, Change
from scanner.diff.compare import diff_inventories, diff_section
from scanner.diff.identity import COMPARED, canonical_json
from scanner.fleet import FleetError
from scanner.fleet.store import FleetStore
from scanner.inventory.load import InventoryLoadError, from_document
from scanner.kinds import Inventory
from scanner.kinds.base import DiffItem
from scanner.model import Severity

EXAMPLES = 5  # target names kept per change


@dataclass(frozen=True)
class FleetChange:
    change_id: str
    kind: str
    severity: str
    targets: int  # pairs whose diff holds this change
    title: str  # the change's title in the first pair that has it
    examples: tuple[str, ...]  # a few of those pairs, by the new target's name


@dataclass(frozen=True)
class PopulationChange:
    """One thing (or one fact of a thing) whose share differs between the unpaired old and new targets."""

    fact_id: str  # `section:key` for presence, `section:key:field=value` for one fact of it
    severity: str
    old_count: int  # unpaired old targets that have it
    new_count: int
    title: str  # "gpt-6.1-sol: in 0 of 6 release=A, 2 of 2 release=B"


@dataclass(frozen=True)
class FleetDiff:
    old_label: str
    new_label: str
    pairs: int
    unpaired_old: int
    unpaired_new: int
    changes: tuple[FleetChange, ...]
    populations: tuple[PopulationChange, ...] = ()
    population_old: int = 0  # targets of each side compared as a population (0: everything paired)
    population_new: int = 0

    def to_json(self) -> dict[str, object]:
        return {"schema": "modelcensus/fleet-diff@1", **asdict(self)}


def parse_label(text: str) -> tuple[str, str]:
    key, sep, value = text.partition("=")
    if not sep or not key.strip() or not value.strip():
        raise FleetError(f"--label {text!r}: expected KEY=VALUE, e.g. release=2026.11")
    return key.strip(), value.strip()


Group = dict[tuple[tuple[str, str], ...], list[str]]  # the other labels -> targets with them


def _sides(store: FleetStore, old: tuple[str, str], new: tuple[str, str]) -> tuple[Group, Group]:
    key = old[0]
    _, rows = store.query("SELECT name, labels FROM targets WHERE status = 'scanned' ORDER BY name")
    sides: dict[str, Group] = {old[1]: defaultdict(list), new[1]: defaultdict(list)}
    values: set[str] = set()
    for name, labels_json in rows:
        labels = json.loads(labels_json or "{}")
        value = labels.get(key)
        if value is None:
            continue
        values.add(str(value))
        if str(value) in sides:
            rest = tuple(sorted((k, str(v)) for k, v in labels.items() if k != key))
            sides[str(value)][rest].append(name)
    for side in (old, new):
        if not sides[side[1]]:
            shown = sorted(values)
            known = (", ".join(shown[:20]) + (f" (+{len(shown) - 20} more)" if len(shown) > 20 else "")) or "none"
            raise FleetError(f"--label {side[0]}={side[1]}: no scanned target has it ({side[0]} values in the "
                             f"store: {known})")
    return sides[old[1]], sides[new[1]]


def _check_label(store: FleetStore, key: str, value: str) -> None:
    """A label no scanned target has is an error (a typo must not compare nothing with nothing)."""
    _, rows = store.query("SELECT DISTINCT l.value FROM labels l JOIN targets t ON t.name = l.target "
                          "WHERE t.status = 'scanned' AND l.key = ? ORDER BY 1", [key])
    values = [str(v) for (v,) in rows]
    if value not in values:
        if values:
            more = f" (+{len(values) - 20} more)" if len(values) > 20 else ""
            known = f"{key} values in the store: {', '.join(values[:20])}{more}"
        else:
            _, keys = store.query("SELECT DISTINCT key FROM labels ORDER BY 1")
            more = f" (+{len(keys) - 20} more)" if len(keys) > 20 else ""
            known = f"label keys in the store: {', '.join(str(k) for (k,) in keys[:20]) or 'none'}{more}"
        raise FleetError(f"--label {key}={value}: no scanned target has it ({known})")


def fleet_diff(store: FleetStore, old: tuple[str, str], new: tuple[str, str]) -> FleetDiff:
    for label in (old, new):
        _check_label(store, *label)
    if old[0] != new[0]:
        raise FleetError(f"compare two values of one label, not {old[0]!r} and {new[0]!r}")
    if old[1] == new[1]:
        raise FleetError(f"compare two values of {old[0]!r}, not {old[1]!r} with itself")
    a, b = _sides(store, old, new)
    pairs = [(a[k][0], b[k][0]) for k in sorted(set(a) & set(b)) if len(a[k]) == 1 and len(b[k]) == 1]
    paired = {n for p in pairs for n in p}
    alone_old = sorted(n for names in a.values() for n in names if n not in paired)
    alone_new = sorted(n for names in b.values() for n in names if n not in paired)
    # Unpaired targets of one side are compared with those of the other; when one side has none left over,
    # with the whole of that side (the rows say of how many).
    pop_old = alone_old or (sorted(n for names in a.values() for n in names) if alone_new else [])
    pop_new = alone_new or (sorted(n for names in b.values() for n in names) if alone_old else [])
    inventories = store.inventories([*paired, *pop_old, *pop_new])
    old_text, new_text = f"{old[0]}={old[1]}", f"{new[0]}={new[1]}"
    populations = compare_populations([_load(n, inventories) for n in pop_old],
                                      [_load(n, inventories) for n in pop_new], old_text, new_text)
    return FleetDiff(old_text, new_text, len(pairs), len(alone_old), len(alone_new),
                     _pair_changes(pairs, inventories), populations, len(pop_old), len(pop_new))


def _pair_changes(pairs: Sequence[tuple[str, str]], inventories: dict[str, str]) -> tuple[FleetChange, ...]:
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
        changes.append(FleetChange(cid, seen[0].kind.value, worst.severity.value, len(seen), seen[0].title,
                                   tuple(names[cid][:EXAMPLES])))
    changes.sort(key=lambda c: (-c.targets, -SEVERITY_RANK[Severity(c.severity)], c.change_id))
    return tuple(changes)


# --- populations ------------------------------------------------------------------------------------------

Facts = dict[str, tuple[str, str, str | None, DiffItem]]  # fact id -> (section, key, field, the item it is of)


def _facts(inv: Inventory) -> Facts:
    """Everything the single-target diff compares, as facts: each thing by identity, and each of its facts."""
    out: Facts = {}
    for section, items_of in COMPARED.items():
        items = items_of(inv)
        for key, item in (items or {}).items():
            out[f"{section}:{key}"] = (section, key, None, item)
            for field, value in item.facets.items():
                out[f"{section}:{key}:{field}={canonical_json(value)}"] = (section, key, field, item)
    return out


def compare_populations(old: Sequence[Inventory], new: Sequence[Inventory], old_text: str,
                        new_text: str) -> tuple[PopulationChange, ...]:
    if not old or not new:
        return ()
    old_facts, new_facts = [_facts(i) for i in old], [_facts(i) for i in new]
    counted_old, counted_new = _count(old_facts), _count(new_facts)
    out = []
    for fact in sorted(counted_old.keys() | counted_new.keys()):
        n_old, n_new = counted_old.get(fact, 0), counted_new.get(fact, 0)
        if n_old * len(new) == n_new * len(old):
            continue  # the same share on both sides (every target, or a like fraction)
        section, key, field, _ = next(f[fact] for f in (*new_facts, *old_facts) if fact in f)
        if field is not None and not (_present(old_facts, section, key) and _present(new_facts, section, key)):
            continue  # a thing on one side only: its presence says it, not each of its facts
        shown = key if field is None else f"{key} {fact.rsplit(':', 1)[-1]}"
        severity = _severity(section, key, field, _example(old_facts, fact, f"{section}:{key}"),
                             _example(new_facts, fact, f"{section}:{key}"))
        out.append(PopulationChange(fact, severity.value, n_old, n_new,
                                    f"{section} {shown}: in {n_old} of {len(old)} {old_text}, "
                                    f"{n_new} of {len(new)} {new_text}"))
    out.sort(key=lambda c: (-abs(_share(c.new_count, len(new)) - _share(c.old_count, len(old))),
                            -SEVERITY_RANK[Severity(c.severity)], c.fact_id))
    return tuple(out)


def _share(count: int, total: int) -> float:
    return count / total if total else 0.0


def _count(facts: Iterable[Facts]) -> dict[str, int]:
    counts: dict[str, int] = defaultdict(int)
    for f in facts:
        for fact in f:
            counts[fact] += 1
    return counts


def _present(facts: Sequence[Facts], section: str, key: str) -> bool:
    return any(f"{section}:{key}" in f for f in facts)


def _example(facts: Sequence[Facts], fact: str, thing: str) -> DiffItem | None:
    """An item with the fact, else any item of the same thing (to grade a fact that differs between them)."""
    found = next((f[fact][3] for f in facts if fact in f), None)
    return found or next((f[thing][3] for f in facts if thing in f), None)


def _severity(section: str, key: str, field: str | None, old: DiffItem | None, new: DiffItem | None) -> Severity:
    """How the single-target diff grades the difference: present on one side (added or removed), or one fact
    changed between an old and a new example of the same thing."""
    changes = diff_section(section, {key: old} if old else {}, {key: new} if new else {})
    relevant = [c for c in changes if field is None or c.field == field] or changes
    return max((c.severity for c in relevant), key=lambda s: s.rank, default=Severity.INFO)


def _load(name: str, inventories: dict[str, str]) -> Inventory:
    try:
        return from_document(json.loads(inventories[name]))
    except (KeyError, ValueError, InventoryLoadError) as exc:
        raise FleetError(f"{name}: its stored inventory cannot be read back ({exc})") from None

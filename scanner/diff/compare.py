"""diff(old, new): pure, symmetric, location-blind.

Things present on both sides are compared fact by fact. What is left on each side is paired when the pairing is
unambiguous: a credential removed and another added at the same path is one rotation; a kill switch whose file
moved (the same name, left over once on each side) is the same switch; an agent product or SDK whose install
moved to the folder of its next release (`…/saoudrizwan.claude-dev-4.1.12` -> `…-4.1.13`) is the same install.
diff(b, a) is diff(a, b) inverted.
"""

from __future__ import annotations

import re
from collections import defaultdict
from collections.abc import Callable, Iterable

from scanner.diff.changes import Change, ChangeKind, InventoryDiff, Side
from scanner.diff.fold import fold
from scanner.diff.identity import COMPARED, canonical_json
from scanner.diff.rules import assess
from scanner.fileview.contexts import is_test_path
from scanner.kinds import Inventory
from scanner.kinds.base import DiffItem
from scanner.model import Context, Severity

# Facts that follow from the catalogs, not from the VM: a difference is drift, not a change of wiring.
_DRIFT_FIELDS = {"models": frozenset({"catalog"})}

# A path segment that names a release: `2.1.197`, or a name ending in one (`saoudrizwan.claude-dev-4.1.12`,
# `claude-dev-4.1.13-linux-x64`), as editors and native installers name the folder of each release.
_RELEASE = re.compile(r"^(?P<name>.*?-)?v?\d+(?:\.\d+)+(?:[-+][0-9A-Za-z.-]*)?$")


def _unreleased(it: DiffItem) -> tuple[str, ...]:
    """The key with the releases its path names left out: an upgrade that moves an install (and what it
    declares) to the next release's folder is the same install, compared fact by fact."""
    segs = it.key.split("/")
    out = [f"{m.group('name') or ''}*" if (m := _RELEASE.match(seg)) else seg for seg in segs]
    return ("/".join(out),) if out != segs else ()


# What pairs leftovers of a section, and whether a pair is one new thing (rotation) or the same thing moved.
_PAIR_TOKENS: dict[str, Callable[[DiffItem], Iterable[str]]] = {
    "credentials": lambda it: it.paths,
    "kill_switches": lambda it: (str(it.facets.get("name")),),
    "sdks": _unreleased,
    "agents": _unreleased,
}
_ROTATES = frozenset({"credentials"})


def diff_inventories(old: Inventory, new: Inventory, mentions: bool = False) -> InventoryDiff:
    """The changes from `old` to `new`. Model ids only mentioned in sessions' conversations come and go with every
    prompt and tool output: they are compared only with `mentions`."""
    changes: list[Change] = []
    for section, items_of in COMPARED.items():
        before, after = items_of(old), items_of(new)
        if before is None or after is None:  # a section one side did not inspect is not compared
            continue
        if section == "models":
            before, after = _beyond_fixtures(before), _beyond_fixtures(after)
            if not mentions:
                before, after = _beyond_mentions(before, old), _beyond_mentions(after, new)
        changes += diff_section(section, before, after)
    order = {name: i for i, name in enumerate(COMPARED)}
    changes.sort(key=lambda c: (order[c.section], c.key, c.field or "", c.kind.value))
    return InventoryDiff(_side(old), _side(new), tuple(fold(changes, old, new)))


def _beyond_fixtures(items: dict[str, DiffItem]) -> dict[str, DiffItem]:
    """A model id seen only in test files (a package's `*.test.js`, a `__tests__/` directory) is a fixture's
    value, not a model the image ships or wires: its coming and going is not a change."""
    return {k: it for k, it in items.items() if not (it.paths and all(is_test_path(p) for p in it.paths))}


def _beyond_mentions(items: dict[str, DiffItem], inv: Inventory) -> dict[str, DiffItem]:
    """Without the model ids a session's conversation only mentions (no location but a conversation's)."""
    talk = {
        m.name
        for m in inv.models
        if not m.wired and m.locations and all(loc.context is Context.CONVERSATION for loc in m.locations)
    }
    return {k: it for k, it in items.items() if k not in talk} if talk else items


def _side(inv: Inventory) -> Side:
    return Side(inv.tool_version, inv.target, inv.catalogs)


def diff_section(section: str, old: dict[str, DiffItem], new: dict[str, DiffItem]) -> list[Change]:
    out: list[Change] = []
    for key in sorted(old.keys() & new.keys()):
        out += _compare(section, key, old[key], new[key])
    removed = {k: old[k] for k in sorted(old.keys() - new.keys())}
    added = {k: new[k] for k in sorted(new.keys() - old.keys())}
    tokens = _PAIR_TOKENS.get(section)
    if tokens:
        for token, o_key, n_key in _pairs(removed, added, tokens):
            o, n = removed.pop(o_key), added.pop(n_key)
            if section in _ROTATES:
                sev, title = assess(section, ChangeKind.ROTATED, None, o, n)
                out.append(_change(section, f"@{token}", ChangeKind.ROTATED, None, o, n, sev, title))
            else:
                out += _compare(section, token, o, n)  # keyed by what the two share: diff(b, a) inverts it
    for o in removed.values():
        sev, title = assess(section, ChangeKind.REMOVED, None, o, None)
        out.append(_change(section, o.key, ChangeKind.REMOVED, None, o, None, sev, title))
    for n in added.values():
        sev, title = assess(section, ChangeKind.ADDED, None, None, n)
        out.append(_change(section, n.key, ChangeKind.ADDED, None, None, n, sev, title))
    return out


def _compare(section: str, key: str, o: DiffItem, n: DiffItem) -> list[Change]:
    out = []
    drift = _DRIFT_FIELDS.get(section, frozenset())
    for field in sorted(o.facets.keys() | n.facets.keys()):
        if canonical_json(o.facets.get(field)) == canonical_json(n.facets.get(field)):
            continue
        kind = ChangeKind.DRIFT if field in drift else ChangeKind.CHANGED
        sev, title = assess(section, kind, field, o, n)
        out.append(_change(section, key, kind, field, o, n, sev, title))
    return out


def _change(
    section: str,
    key: str,
    kind: ChangeKind,
    field: str | None,
    o: DiffItem | None,
    n: DiffItem | None,
    sev: Severity,
    title: str,
) -> Change:
    if field is None:
        old = {"key": o.key, **o.facets} if o else None
        new = {"key": n.key, **n.facets} if n else None
    else:
        old = o.facets.get(field) if o else None
        new = n.facets.get(field) if n else None
    where = tuple(sorted(set((o.paths if o else ()) + (n.paths if n else ()))))
    return Change(section, key, kind, field, old, new, sev, title, where)


def _pairs(
    removed: dict[str, DiffItem], added: dict[str, DiffItem], tokens: Callable[[DiffItem], Iterable[str]]
) -> list[tuple[str, str, str]]:
    """(token, removed key, added key) for each removed item that shares tokens with exactly one added item
    which in turn shares tokens with it alone: ambiguous leftovers stay added and removed."""
    by_token_old: dict[str, set[str]] = defaultdict(set)
    by_token_new: dict[str, set[str]] = defaultdict(set)
    for k, it in removed.items():
        for t in tokens(it):
            by_token_old[t].add(k)
    for k, it in added.items():
        for t in tokens(it):
            by_token_new[t].add(k)
    old_links = {k: {n for t in tokens(it) for n in by_token_new.get(t, ())} for k, it in removed.items()}
    new_links = {k: {o for t in tokens(it) for o in by_token_old.get(t, ())} for k, it in added.items()}
    out = []
    for o_key, links in sorted(old_links.items()):
        if len(links) == 1:
            n_key = next(iter(links))
            if new_links[n_key] == {o_key}:
                shared = set(tokens(removed[o_key])) & set(tokens(added[n_key]))
                out.append((min(shared), o_key, n_key))
    return out

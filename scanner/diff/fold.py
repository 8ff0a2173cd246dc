"""Which changes are details of another: a product upgrade and the packages, shipped models and hosts it
brings; a product's model selection and the models (and routes) it wires; a product's MCP list and the servers
(and their hosts) in it.

A release engineer reads one line per product upgrade and per configuration edit; the details stay in the diff
(each still its own change, with its own id, severity and ignore entries), marked `part_of` their parent.
Folding is computed from both sides alike, so diff(b, a) folds what diff(a, b) folds.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable

from scanner.diff.changes import Change, ChangeKind
from scanner.diff.identity import COMPARED
from scanner.kinds import Inventory
from scanner.kinds.agents import AgentEntry


def fold(changes: list[Change], old: Inventory, new: Inventory) -> list[Change]:
    """`changes` with `part_of` set on each change that details another one."""
    parent: dict[str, str] = {}
    by_id = {c.id: c for c in changes}
    for agent_key, agents in sorted(_agents(old, new).items()):
        upgrade = by_id.get(f"agents:{agent_key}:version")
        if upgrade is not None:
            inside = tuple(sorted({a.install_path for a in agents if a.install_path}))
            owned = _owned_sdk_keys(agents, old, new)
            for c in changes:
                if (c.section == "sdks" and c.key in owned) or (_shipped_with(c) and _within(c.where, inside)):
                    parent.setdefault(c.id, upgrade.id)
        for field, sections in (("models", ("models", "routes")), ("mcp_servers", ("mcp_servers",))):
            edit = by_id.get(f"agents:{agent_key}:{field}")
            if edit is None:
                continue
            moved = _symmetric(edit.old, edit.new)
            for c in changes:
                if c.section in sections and c.key in moved:
                    parent.setdefault(c.id, edit.id)
            # A host that appeared or went only in the files of the servers added or removed is their URL.
            files = {p for c in changes if c.section == "mcp_servers" and parent.get(c.id) == edit.id
                     for p in c.where}
            for c in changes:
                if c.section == "endpoints" and c.kind is not ChangeKind.CHANGED and c.where and set(c.where) <= files:
                    parent.setdefault(c.id, edit.id)
    return [_summed(c, changes, parent) if c.id in parent.values() else
            dataclasses.replace(c, part_of=parent[c.id]) if c.id in parent else c for c in changes]


def _shipped_with(c: Change) -> bool:
    """What a product's own files bring or take away: a model id its catalog names, a host its code mentions
    (never a wired host: that is a config's doing, and stays a change of its own)."""
    if c.section == "models":
        return c.kind in (ChangeKind.ADDED, ChangeKind.REMOVED)
    if c.section == "endpoints":
        sides = [v for v in (c.old, c.new) if isinstance(v, dict)]
        return c.field == "urls" or (c.kind in (ChangeKind.ADDED, ChangeKind.REMOVED)
                                     and not any(v.get("wired") for v in sides))
    return False


def _summed(c: Change, changes: list[Change], parent: dict[str, str]) -> Change:
    """A product upgrade's title says what it brings: how many packages, models, hosts changed with it."""
    if c.section != "agents" or c.field != "version":
        return c
    details = [d for d in changes if parent.get(d.id) == c.id]
    parts = []
    for section, label in (("sdks", "package"), ("models", "model"), ("endpoints", "host")):
        mine = [d for d in details if d.section == section]
        if not mine:
            continue
        added = sum(d.kind is ChangeKind.ADDED for d in mine)
        removed = sum(d.kind is ChangeKind.REMOVED for d in mine)
        changed = len(mine) - added - removed
        counts = ", ".join(f"{sign}{n}" for sign, n in (("+", added), ("-", removed), ("~", changed)) if n)
        parts.append(f"{label}s {counts}")
    return dataclasses.replace(c, title=c.title + (f" ({'; '.join(parts)})" if parts else ""))


def _agents(old: Inventory, new: Inventory) -> dict[str, list[AgentEntry]]:
    """Agent entries of both sides by their diff identity."""
    out: dict[str, list[AgentEntry]] = {}
    for inv in (old, new):
        for a in inv.agents:
            for key in COMPARED["agents"](dataclasses.replace(inv, agents=(a,))) or {}:
                out.setdefault(key, []).append(a)
    return out


def _owned_sdk_keys(agents: list[AgentEntry], old: Inventory, new: Inventory) -> set[str]:
    """Diff identities of the packages a product owns, on either side: a package installed inside the product's
    own directory (its platform packages, its bundled SDKs, its own package.json). When the install path is a
    shared environment (a site-packages), only the SDKs the product is known to bundle are its own."""
    keys: set[str] = set()
    for inv in (old, new):
        for a in agents:
            if not a.install_path:
                continue
            bundled = {(b.ecosystem, b.name) for b in a.sdks}
            mine = tuple(
                s for s in inv.sdks
                if s.locations and _within((loc.path for loc in s.locations), (a.install_path,))
                and (a.ecosystem == "npm" or (s.ecosystem, s.name) in bundled)
            )
            keys |= set(COMPARED["sdks"](dataclasses.replace(inv, sdks=mine)) or {})
    return keys


def _within(paths: Iterable[str], roots: tuple[str, ...]) -> bool:
    listed = list(paths)
    return bool(listed and roots) and all(
        any(p == r or p.startswith(r.rstrip("/") + "/") for r in roots) for p in listed)


def _symmetric(old: object, new: object) -> set[str]:
    before = {str(x) for x in old} if isinstance(old, list) else set()
    after = {str(x) for x in new} if isinstance(new, list) else set()
    return before ^ after

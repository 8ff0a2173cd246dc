"""How much a change matters, and how it reads: one small pure function per section.

Severity follows where data can now go and what protects it: a model that moved to another route, an unlisted
host that became wired, a secret that appeared, a kill switch that went from on to off are high; removals are
mostly info. Severities need not be symmetric (on -> off is worse than off -> on).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from scanner.diff.changes import ChangeKind
from scanner.kinds.base import DiffItem
from scanner.model import Severity
from scanner.vocab import PSEUDO_VENDORS

Rule = Callable[[ChangeKind, "str | None", "DiffItem | None", "DiffItem | None"], tuple[Severity, str]]
H, M, L, I = Severity.HIGH, Severity.MEDIUM, Severity.LOW, Severity.INFO  # noqa: E741
_CATALOG_FACTS = ("catalog", "lifecycle", "canonical", "family")


def show(value: Any) -> str:
    if value is None or value == []:
        return "none"
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, list):
        return ", ".join(show(v) for v in value)
    if isinstance(value, dict):
        return " ".join(f"{k}={show(v)}" for k, v in value.items())
    return str(value)


def _facet(item: DiffItem | None, name: str) -> Any:
    return item.facets.get(name) if item else None


def _arrow(field: str | None, o: DiffItem | None, n: DiffItem | None) -> str:
    name = field or ""
    return f"{name} {show(_facet(o, name))} → {show(_facet(n, name))}"


def _label(o: DiffItem | None, n: DiffItem | None) -> str:
    item = n or o
    return item.label if item else "?"


def _wired(item: DiffItem | None) -> bool:
    return bool(item and item.facets.get("wired") is True)


def models(kind: ChangeKind, field: str | None, o: DiffItem | None, n: DiffItem | None) -> tuple[Severity, str]:
    name = _label(o, n)
    if kind is ChangeKind.ADDED:
        vendor = _facet(n, "vendor")
        sev = (M if vendor else L) if _wired(n) else I
        return sev, f"model {name} added ({vendor or 'unknown vendor'}, {'wired' if _wired(n) else 'not wired'})"
    if kind is ChangeKind.REMOVED:
        return (L if _wired(o) else I), f"model {name} removed ({'was wired' if _wired(o) else 'was not wired'})"
    if kind is ChangeKind.DRIFT:
        before, after = _facet(o, "catalog"), _facet(n, "catalog")
        if not (isinstance(before, dict) and isinstance(after, dict)):  # two entries merged under one name
            return I, f"catalog drift on {name}: {show(before)} → {show(after)}"
        moved = [
            f"{k} {show(before.get(k))} → {show(after.get(k))}" for k in _CATALOG_FACTS if before.get(k) != after.get(k)
        ]
        life = after.get("lifecycle")
        sev = (M if life == "retired" else L if life == "deprecated" else I) if _wired(n) else I
        return sev, f"catalog drift on {name}: {'; '.join(moved)}"
    if field == "wired":
        if _wired(n):
            return (M if _facet(n, "vendor") else L), f"model {name} is newly wired"
        return L, f"model {name} is no longer wired"
    # served_via, base_model, vendor: where the alias's traffic goes.
    sev = H if (_wired(o) or _wired(n)) else L
    return sev, f"model {name}: {_arrow(field, o, n)}"


def _version_key(version: str) -> tuple[tuple[int, str], ...]:
    parts = "".join(c if c.isalnum() else " " for c in version.lstrip("^~=<>! v")).split()
    return tuple((int(p), "") if p.isascii() and p.isdigit() else (-1, p) for p in parts)


def sdks(kind: ChangeKind, field: str | None, o: DiffItem | None, n: DiffItem | None) -> tuple[Severity, str]:
    name = _label(o, n)
    if kind is ChangeKind.ADDED:
        return L, f"SDK {name} added ({show(_facet(n, 'version'))})"
    if kind is ChangeKind.REMOVED:
        return I, f"SDK {name} removed (was {show(_facet(o, 'version'))})"
    if field == "version":
        before, after = _facet(o, "version"), _facet(n, "version")
        if isinstance(before, str) and isinstance(after, str):
            up = _version_key(after) > _version_key(before)
            return (I if up else L), f"SDK {name} {'upgraded' if up else 'downgraded'}: {before} → {after}"
    return I, f"SDK {name}: {_arrow(field, o, n)}"


def endpoints(kind: ChangeKind, field: str | None, o: DiffItem | None, n: DiffItem | None) -> tuple[Severity, str]:
    host = _label(o, n)
    unlisted = _facet(n or o, "vendor") is None
    if kind is ChangeKind.ADDED or (field == "wired" and _wired(n)):
        if not _wired(n):
            return I, f"endpoint {host} mentioned"
        if unlisted:
            return H, f"base-URL override appeared: traffic may go to {host}, a host no catalog lists"
        return M, f"endpoint {host} is now wired ({_facet(n, 'vendor')})"
    if kind is ChangeKind.REMOVED or field == "wired":
        what = "base-URL override disappeared" if unlisted and _wired(o) else "endpoint no longer wired"
        return (L if _wired(o) else I), f"{what}: {host}"
    return (L if _wired(n) else I), f"endpoint {host}: {_arrow(field, o, n)}"


def _world_readable(modes: Any) -> bool:
    values = modes if isinstance(modes, list) else [modes]
    return any(isinstance(m, str) and m.isdigit() and int(m, 8) & 0o004 for m in values)


def credentials(kind: ChangeKind, field: str | None, o: DiffItem | None, n: DiffItem | None) -> tuple[Severity, str]:
    name = _label(o, n)
    if kind is ChangeKind.ADDED:
        loose = _world_readable(_facet(n, "mode"))
        return (H if loose else M), f"credential appeared: {name}" + (" (world-readable)" if loose else "")
    if kind is ChangeKind.REMOVED:
        return I, f"credential disappeared: {name}"
    if kind is ChangeKind.ROTATED:
        return L, f"credential rotated: {_label(o, None)} → {_label(None, n)}"
    if field == "mode":
        loose = _world_readable(_facet(n, "mode")) and not _world_readable(_facet(o, "mode"))
        return (H if loose else L), f"credential {name}: {_arrow(field, o, n)}"
    return (L if field == "owner" else I), f"credential {name}: {_arrow(field, o, n)}"


def _states(item: DiffItem | None) -> set[str]:
    setting = _facet(item, "setting")
    values = setting if isinstance(setting, list) else [setting]
    return {v["state"] for v in values if isinstance(v, dict) and "state" in v}


def kill_switches(kind: ChangeKind, field: str | None, o: DiffItem | None, n: DiffItem | None) -> tuple[Severity, str]:
    name = _label(o, n)
    item = n or o
    where = item.paths if item else ()
    at = f" in {where[0]}" if where else ""
    if kind is ChangeKind.ADDED:
        return (M if "off" in _states(n) else L), f"kill switch {name} appeared{at} ({show(_facet(n, 'setting'))})"
    if kind is ChangeKind.REMOVED:
        return (H if "on" in _states(o) else M), f"kill switch {name} disappeared{at}"
    before, after = _states(o), _states(n)
    if "on" in before and "off" in after and "on" not in after:
        sev = H
    elif "off" in before and "on" in after:
        sev = M
    else:
        sev = L
    return sev, f"kill switch {name}{at}: {show(_facet(o, 'setting'))} → {show(_facet(n, 'setting'))}"


def agents(kind: ChangeKind, field: str | None, o: DiffItem | None, n: DiffItem | None) -> tuple[Severity, str]:
    """An agent product: its upgrade is one line (packages and shipped models fold under it); a change of the
    models or MCP servers its users select is one line too (the models it wires fold under it)."""
    name = _facet(n or o, "product") or _label(o, n)
    item = n or o
    if kind in (ChangeKind.ADDED, ChangeKind.REMOVED) and _facet(item, "ecosystem") is None:
        # No install: a user's config of it, or only its sessions (served_via lists the configs' routes).
        how = "configured" if _facet(item, "served_via") else "used"
        done = "now" if kind is ChangeKind.ADDED else "no longer"
        return (L if kind is ChangeKind.ADDED else I), f"agent product {name} {done} {how} (not installed)"
    if kind is ChangeKind.ADDED:
        return L, f"agent product {name} installed ({show(_facet(n, 'version'))})"
    if kind is ChangeKind.REMOVED:
        return I, f"agent product {name} removed (was {show(_facet(o, 'version'))})"
    before, after = _facet(o, field or ""), _facet(n, field or "")
    if field == "version" and isinstance(before, str) and isinstance(after, str):
        up = _version_key(after) > _version_key(before)
        return (I if up else L), f"{name} {'upgraded' if up else 'downgraded'}: {before} → {after}"
    if field in ("models", "mcp_servers") and isinstance(before, list) and isinstance(after, list):
        gone = [x for x in before if x not in after]
        new = [x for x in after if x not in before]
        what = "selects" if field == "models" else "MCP servers"
        moved = "; ".join(part for part in (f"+{show(new)}" if new else "", f"-{show(gone)}" if gone else "")
                          if part)
        sev = M if (field == "mcp_servers" and new) else L
        return sev, f"{name} {what}: {show(before)} → {show(after)} ({moved})"
    return L, f"{name}: {_arrow(field, o, n)}"


def session_vendors(
    kind: ChangeKind, field: str | None, o: DiffItem | None, n: DiffItem | None
) -> tuple[Severity, str]:
    vendor = _label(o, n)
    if kind is ChangeKind.ADDED:
        return (L if vendor in PSEUDO_VENDORS else H), f"sessions now observed served by {vendor}"
    return I, f"no session observed served by {vendor} any more"


def generic(section: str) -> Rule:
    singular = section.rstrip("s").replace("_", " ")

    def rule(kind: ChangeKind, field: str | None, o: DiffItem | None, n: DiffItem | None) -> tuple[Severity, str]:
        name = _label(o, n)
        if kind is ChangeKind.ADDED:
            return (M if section == "mcp_servers" else L), f"{singular} {name} added"
        if kind is ChangeKind.REMOVED:
            return I, f"{singular} {name} removed"
        # An alias whose observed vendor changed is the question this section exists to answer.
        return (H if field and "vendor" in field else L), f"{singular} {name}: {_arrow(field, o, n)}"

    return rule


RULES: dict[str, Rule] = {
    "models": models,
    "sdks": sdks,
    "endpoints": endpoints,
    "credentials": credentials,
    "kill_switches": kill_switches,
    "session_vendors": session_vendors,
    "agents": agents,
}


def assess(
    section: str, kind: ChangeKind, field: str | None, o: DiffItem | None, n: DiffItem | None
) -> tuple[Severity, str]:
    return RULES.get(section, generic(section))(kind, field, o, n)

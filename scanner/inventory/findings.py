"""The conclusions an auditor reads first, derived from a finished inventory.

Each rule is a small pure function from the inventory to findings; `RULES` is the one list.
Finding ids are stable (no paths, no line numbers), so baselines and diffs can key on them.
"""

from __future__ import annotations

import dataclasses
import re
from collections import defaultdict
from collections.abc import Callable, Iterator

from scanner.live.findings import kill_switch_runtime_differs, live_connections, setting_runtime_differs
from scanner.model import WIRING_CONTEXTS, Context, Finding, Inventory, Location, Severity, SwitchState, location_key
from scanner.sessions.findings import SESSION_RULES

Rule = Callable[[Inventory], Iterator[Finding]]
_MAX_LOCS = 20


def _wiring(locs: tuple[Location, ...]) -> tuple[Location, ...]:
    return tuple(loc for loc in locs if loc.context in WIRING_CONTEXTS)[:_MAX_LOCS]


def external_models(inv: Inventory) -> Iterator[Finding]:
    groups: dict[tuple[str, str], list[str]] = defaultdict(list)
    locs: dict[tuple[str, str], list[Location]] = defaultdict(list)
    for m in inv.models:
        if m.wired and m.vendor:
            key = (m.vendor, m.served_via or "unstated route")
            groups[key].append(m.name)
            locs[key].extend(_wiring(m.locations)[:2])
    for (vendor, via), names in sorted(groups.items()):
        shown = ", ".join(sorted(names)[:8]) + (f" and {len(names) - 8} more" if len(names) > 8 else "")
        yield Finding(
            f"external-model-wired:{vendor}:{via}",
            Severity.MEDIUM,
            f"{len(names)} {vendor} model(s) wired via {via}: {shown}",
            tuple(sorted(set(locs[(vendor, via)]), key=location_key))[:_MAX_LOCS],
        )


def unknown_models(inv: Inventory) -> Iterator[Finding]:
    names = sorted(m.name for m in inv.models if m.wired and m.catalog == "unknown" and not m.vendor)
    if names:
        shown = ", ".join(names[:10]) + (f" and {len(names) - 10} more" if len(names) > 10 else "")
        yield Finding(
            "uncatalogued-models-wired",
            Severity.INFO,
            f"{len(names)} model id(s) no catalog knows (in-house?): {shown}",
        )


def lifecycle(inv: Inventory) -> Iterator[Finding]:
    for m in inv.models:
        if m.wired and m.lifecycle in ("deprecated", "retired"):
            sev = Severity.MEDIUM if m.lifecycle == "retired" else Severity.LOW
            when = f" (shut down {m.retires})" if m.lifecycle == "retired" and m.retires else ""
            when = when or (f" (shuts down {m.retires})" if m.retires else "")
            title = f"{m.name} is {m.lifecycle}{when} but still wired"
            yield Finding(f"model-{m.lifecycle}:{m.name}", sev, title, _wiring(m.locations))


def credentials(inv: Inventory) -> Iterator[Finding]:
    for c in inv.credentials:
        locs = tuple(cl.location for cl in c.locations)[:_MAX_LOCS]
        yield Finding(
            f"credential:{c.sha256[:16]}", Severity.MEDIUM, f"{c.type} credential present ({c.redacted})", locs
        )
        loose = tuple(cl.location for cl in c.locations if cl.mode and int(cl.mode, 8) & 0o004)
        if loose:
            yield Finding(
                f"credential-world-readable:{c.sha256[:16]}",
                Severity.HIGH,
                f"{c.type} credential ({c.redacted}) is in a world-readable file",
                loose[:_MAX_LOCS],
            )


def kill_switches(inv: Inventory) -> Iterator[Finding]:
    for k in inv.kill_switches:
        env = tuple(loc for loc in k.locations if loc.context is Context.ENV)
        if k.state is SwitchState.OFF and env:
            yield Finding(
                f"kill-switch-disarmed:{k.name}",
                Severity.HIGH,
                f"kill switch {k.name} is disarmed ({k.name}={k.value}) by an environment setting",
                env,
            )
        elif k.state is SwitchState.ON:
            yield Finding(
                f"kill-switch-armed:{k.name}",
                Severity.INFO,
                f"kill switch {k.name} is set ({k.value})",
                k.locations[:_MAX_LOCS],
            )


_SWITCH_VERB = {SwitchState.ON: "arms", SwitchState.OFF: "disarms"}
_WORD = re.compile(r"[A-Z]+(?![a-z])|[A-Z]?[a-z]+|[0-9]+")


def _words(name: str) -> tuple[str, ...]:
    """`safety.killSwitch` -> ("SAFETY", "KILL", "SWITCH"); `JARVIS_SAFETY_KILL_SWITCH` likewise, word by word."""
    return tuple(w.upper() for w in _WORD.findall(name))


def kill_switch_overridden(inv: Inventory) -> Iterator[Finding]:
    """A kill switch a config file sets and an environment assignment of the same switch sets otherwise: the
    environment override wins (`safety.kill_switch = true` in a TOML file, `SAFETY_KILL_SWITCH=0` in an env
    file or a unit's `Environment=`; an env name may carry a product prefix, `JARVIS_SAFETY_KILL_SWITCH`)."""
    known = [k for k in inv.kill_switches if k.state in _SWITCH_VERB]
    configs = [(k, loc) for k in known for loc in k.locations if loc.context is Context.CONFIG]
    envs = [(k, loc) for k in known for loc in k.locations if loc.context is Context.ENV]
    done: set[tuple[str, str]] = set()
    for cfg, cfg_loc in configs:
        words = _words(cfg.name)
        for env, env_loc in envs:
            if env.state is cfg.state or (cfg.name, env.name) in done:
                continue
            if not words or _words(env.name)[-len(words) :] != words:
                continue
            done.add((cfg.name, env.name))
            yield Finding(
                f"kill-switch-overridden:{cfg.name}:{env.name}",
                Severity.HIGH if env.state is SwitchState.OFF else Severity.MEDIUM,
                f"kill switch {cfg.name}: config {_SWITCH_VERB[cfg.state]} it ({cfg.name}={cfg.value} in "
                f"{cfg_loc.path}); the environment {_SWITCH_VERB[env.state]} it ({env.name}={env.value} in "
                f"{env_loc.path}); the environment override wins",
                tuple(sorted({cfg_loc, env_loc}, key=location_key)),
            )


def vendor_default_overridden(inv: Inventory) -> Iterator[Finding]:
    """A vendor SDK's base-URL variable sends its traffic to another host: a reverse proxy in the path."""
    for e in inv.endpoints:
        for vendor, variable in e.overrides:
            locs = _wiring(e.locations) or e.locations[:_MAX_LOCS]
            yield Finding(
                f"base-url-override:{vendor}:{e.host}",
                Severity.MEDIUM,
                f"{variable} sends {vendor} traffic to {e.host} instead of {vendor}'s own API (a proxy in the path)",
                locs,
            )


def base_url_overrides(inv: Inventory) -> Iterator[Finding]:
    for e in inv.endpoints:
        if e.wired and e.vendor is None:
            locs = _wiring(e.locations)
            if locs:
                yield Finding(
                    f"endpoint-unlisted:{e.host}",
                    Severity.LOW,
                    f"traffic may go to {e.host}, a host no catalog lists (proxy or in-house)",
                    locs,
                )


_CONFIGURING = frozenset({Context.CONFIG, Context.ENV, Context.SESSION})


def dormant_clients(inv: Inventory) -> Iterator[Finding]:
    """A provider client shipped (compiled in, built in source, installed) that no config routes to."""
    configured: set[str] = set()
    for m in inv.models:
        if any(loc.context in _CONFIGURING for loc in m.locations):
            configured.update(x for x in (m.vendor, m.served_via) if x)
    for e in inv.endpoints:
        if any(loc.context in _CONFIGURING for loc in e.locations):
            configured.update(x for x in (e.vendor, e.served_via) if x)
    shipped: dict[str, list[tuple[str, Location]]] = defaultdict(list)
    for c in inv.clients:
        if c.vendor and c.locations:
            shipped[c.vendor].append((f"{c.kind} {c.provider} client", c.locations[0]))
    for s in inv.sdks:
        if s.installed and s.vendor and s.locations:
            shipped[s.vendor].append((f"{s.ecosystem} {s.name} {s.version or ''}".rstrip(), s.locations[0]))
    for vendor, items in sorted(shipped.items()):
        if vendor in configured:
            continue
        what = sorted({label for label, _ in items})
        shown = ", ".join(what[:4]) + (f" and {len(what) - 4} more" if len(what) > 4 else "")
        locs = tuple(sorted({loc for _, loc in items}, key=location_key))[:_MAX_LOCS]
        yield Finding(
            f"dormant-client:{vendor}",
            Severity.LOW,
            f"{vendor} client shipped but no config routes to it: {shown}",
            locs,
        )


RULES: tuple[Rule, ...] = (
    external_models,
    unknown_models,
    lifecycle,
    credentials,
    kill_switches,
    kill_switch_overridden,
    base_url_overrides,
    vendor_default_overridden,
    dormant_clients,
    *SESSION_RULES,
)
# Rules of a live audit (they find nothing in an inventory without processes).
RULES += (kill_switch_runtime_differs, setting_runtime_differs, live_connections)
_ORDER = {Severity.HIGH: 0, Severity.MEDIUM: 1, Severity.LOW: 2, Severity.INFO: 3}


def derive_findings(inv: Inventory) -> Inventory:
    found = [f for rule in RULES for f in rule(inv)]
    found.sort(key=lambda f: (_ORDER[f.severity], f.id))
    return dataclasses.replace(inv, findings=tuple(found))

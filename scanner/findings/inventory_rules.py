"""What the inventory of files says an auditor must read: outside models, credentials, kill switches, proxies."""

from __future__ import annotations

import re
from collections import defaultdict
from collections.abc import Iterator

from scanner.findings.modelkey import is_alias, keyer
from scanner.findings.rule import FindingRule, RuleHit
from scanner.kinds import Inventory
from scanner.kinds.models import ModelEntry
from scanner.model import WIRING_CONTEXTS, CatalogStatus, Context, Location, Severity, location_key
from scanner.vocab import SwitchState


def _wiring(locs: tuple[Location, ...]) -> tuple[Location, ...]:
    return tuple(loc for loc in locs if loc.context in WIRING_CONTEXTS)


def _by_model(inv: Inventory) -> dict[str, list[ModelEntry]]:
    """Wired models by the one name each goes by (however spelled, pinned or aliased)."""
    wired = [m for m in inv.models if m.wired]
    key = keyer(wired)
    out: dict[str, list[ModelEntry]] = defaultdict(list)
    for m in wired:
        out[key(m)].append(m)
    return out


def _spelled(key: str, entries: list[ModelEntry]) -> str:
    spellings = sorted({m.name for m in entries if not is_alias(m)} - {key})
    aliases = sorted({m.name for m in entries if is_alias(m)})
    return ((f"; also spelled {', '.join(spellings)}" if spellings else "")
            + (f"; aliases {', '.join(aliases)}" if aliases else ""))


def _model_locations(entries: list[ModelEntry]) -> tuple[Location, ...]:
    locs = {loc for m in entries for loc in m.locations if loc.context in WIRING_CONTEXTS}
    return tuple(sorted(locs, key=location_key))


_UNSTATED = "unstated route"


def external_models(inv: Inventory) -> Iterator[RuleHit]:
    """One finding per outside model and route it is wired through, so that one model (or one route) can be
    accepted alone: `external-model-wired:openai:azure:gpt-5.5`."""
    for key, entries in sorted(_by_model(inv).items()):
        routes: dict[tuple[str, str], list[ModelEntry]] = defaultdict(list)
        for m in entries:
            if m.vendor:
                routes[(m.vendor, m.served_via or _UNSTATED)].append(m)
        _drop_echoes(routes)
        for (vendor, via), ms in sorted(routes.items()):
            yield RuleHit(f"{vendor}:{via}:{key}", f"{key} ({vendor}) wired via {via}{_spelled(key, ms)}",
                      _model_locations(ms), more=sum(m.locations_cut for m in ms))


def _drop_echoes(routes: dict[tuple[str, str], list[ModelEntry]]) -> None:
    """Without its route, a model named again in a file that wires it through a stated one (Zed's `display_name =
    "GLM-4.7"` beside `name = "glm-4.7"` under the provider's `api_url`) is that wiring's echo, no route unstated."""
    stated = {loc.path for (_, via), ms in routes.items() if via != _UNSTATED for loc in _model_locations(ms)}
    if not stated:
        return
    for key in [k for k in routes if k[1] == _UNSTATED]:
        kept = [m for m in routes[key] if not _echoes(m, stated)]
        if kept:
            routes[key] = kept
        else:
            del routes[key]


def _echoes(entry: ModelEntry, stated: set[str]) -> bool:
    """Whether every wiring location of a route-less entry is in a file that states a route for the model; an entry
    with none of its own (wired through another) is never an echo."""
    locs = _model_locations([entry])
    return bool(locs) and all(loc.path in stated for loc in locs)


def unknown_models(inv: Inventory) -> Iterator[RuleHit]:
    names = sorted(m.name for m in inv.models if m.wired and m.catalog == CatalogStatus.UNKNOWN and not m.vendor)
    if names:
        shown = ", ".join(names[:10]) + (f" and {len(names) - 10} more" if len(names) > 10 else "")
        yield RuleHit("", f"{len(names)} model id(s) no catalog knows (in-house?): {shown}")


def _lifecycle(inv: Inventory, stage: str) -> Iterator[RuleHit]:
    for key, entries in sorted(_by_model(inv).items()):
        staged = [m for m in entries if m.lifecycle == stage]
        if not staged:
            continue
        retires = next((m.retires for m in staged if m.retires), None)
        verb = "shut down" if stage == "retired" else "shuts down"
        when = f" ({verb} {retires})" if retires else ""
        yield RuleHit(key, f"{key} is {stage}{when} but still wired{_spelled(key, staged)}", _model_locations(staged),
                  more=sum(m.locations_cut for m in staged))


def deprecated_models(inv: Inventory) -> Iterator[RuleHit]:
    return _lifecycle(inv, "deprecated")


def retired_models(inv: Inventory) -> Iterator[RuleHit]:
    return _lifecycle(inv, "retired")


def credentials(inv: Inventory) -> Iterator[RuleHit]:
    for c in inv.credentials:
        locs = tuple(cl.location for cl in c.locations)
        yield RuleHit(c.sha256[:16], f"{c.type} credential present ({c.redacted})", locs, more=c.locations_cut)


def world_readable_credentials(inv: Inventory) -> Iterator[RuleHit]:
    for c in inv.credentials:
        loose = tuple(cl.location for cl in c.locations if cl.mode and int(cl.mode, 8) & 0o004)
        if loose:
            yield RuleHit(
                c.sha256[:16], f"{c.type} credential ({c.redacted}) is in a world-readable file", loose
            )


def disarmed_kill_switches(inv: Inventory) -> Iterator[RuleHit]:
    for k in inv.kill_switches:
        env = tuple(loc for loc in k.locations if loc.context is Context.ENV)
        if k.state is SwitchState.OFF and env:
            title = f"kill switch {k.name} is disarmed ({k.name}={k.value}) by an environment setting"
            yield RuleHit(k.name, title, env)


def armed_kill_switches(inv: Inventory) -> Iterator[RuleHit]:
    for k in inv.kill_switches:
        if k.state is SwitchState.ON:
            yield RuleHit(k.name, f"kill switch {k.name} is set ({k.value})", k.locations)


_SWITCH_VERB = {SwitchState.ON: "arms", SwitchState.OFF: "disarms"}
_WORD = re.compile(r"[A-Z]+(?![a-z])|[A-Z]?[a-z]+|[0-9]+")


def _words(name: str) -> tuple[str, ...]:
    """`safety.killSwitch` -> ("SAFETY", "KILL", "SWITCH"); `JARVIS_SAFETY_KILL_SWITCH` likewise, word by word."""
    return tuple(w.upper() for w in _WORD.findall(name))


def kill_switch_overridden(inv: Inventory) -> Iterator[RuleHit]:
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
            yield RuleHit(
                f"{cfg.name}:{env.name}",
                f"kill switch {cfg.name}: config {_SWITCH_VERB[cfg.state]} it ({cfg.name}={cfg.value} in "
                f"{cfg_loc.path}); the environment {_SWITCH_VERB[env.state]} it ({env.name}={env.value} in "
                f"{env_loc.path}); the environment override wins",
                tuple(sorted({cfg_loc, env_loc}, key=location_key)),
                Severity.HIGH if env.state is SwitchState.OFF else Severity.MEDIUM,
            )


def vendor_default_overridden(inv: Inventory) -> Iterator[RuleHit]:
    """A vendor SDK's base-URL variable sends its traffic to another host: a reverse proxy in the path."""
    for e in inv.endpoints:
        for vendor, variable in e.overrides:
            locs = _wiring(e.locations) or e.locations
            yield RuleHit(f"{vendor}:{e.host}",
                      f"{variable} sends {vendor} traffic to {e.host} instead of {vendor}'s own API "
                      "(a proxy in the path)", locs)


def unlisted_endpoints(inv: Inventory) -> Iterator[RuleHit]:
    for e in inv.endpoints:
        if e.wired and e.vendor is None and e.served_via is None:  # a cloud's or router's host is listed as a route
            locs = _wiring(e.locations)
            if locs:
                yield RuleHit(
                    e.host,
                    f"traffic may go to {e.host}, a host no catalog lists (proxy or in-house)",
                    locs,
                )


_CONFIGURING = frozenset({Context.CONFIG, Context.ENV, Context.SESSION})


def dormant_clients(inv: Inventory) -> Iterator[RuleHit]:
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
        locs = tuple(sorted({loc for _, loc in items}, key=location_key))
        yield RuleHit(
            vendor,
            f"{vendor} client shipped but no config routes to it: {shown}",
            locs,
        )


INVENTORY_RULES = (
    FindingRule(
        "external-model-wired", Severity.MEDIUM, "A third-party model is wired into the VM",
        "The VM's configuration, environment, code or binaries name a model of an outside vendor reached through the "
        "stated route (one finding per model and route). Data sent to it leaves for that vendor. Check that this "
        "vendor and route are approved for the data the agent handles.",
        external_models,
    ),
    FindingRule(
        "uncatalogued-models-wired", Severity.INFO, "Model ids no catalog knows are wired",
        "These ids are used by the VM but match no catalog: in-house models, aliases a router resolves, or vendors "
        "the catalogs do not know yet. Find out which model serves each, or add a catalog with --catalog.",
        unknown_models,
    ),
    FindingRule(
        "model-deprecated", Severity.LOW, "A deprecated model is still wired",
        "The vendor has announced the retirement of this model. Plan the move to its successor before it stops "
        "answering.",
        deprecated_models,
    ),
    FindingRule(
        "model-retired", Severity.MEDIUM, "A retired model is still wired",
        "The vendor no longer serves this model: calls to it fail, or a router silently sends them elsewhere. "
        "Replace it.",
        retired_models,
    ),
    FindingRule(
        "credential", Severity.MEDIUM, "An API credential is stored on the VM",
        "A provider credential is stored in a file of the VM (shown redacted, with the SHA-256 of the exact value "
        "so it can be matched against a key inventory). Whoever can read the file can spend on the account and read "
        "what the key can read. Check that it belongs here and is scoped and rotated.",
        credentials,
    ),
    FindingRule(
        "credential-world-readable", Severity.HIGH, "An API credential is in a world-readable file",
        "Every user and process of the VM can read this credential. Restrict the file's mode (0400 or 0600, owned "
        "by the service that needs it) and rotate the key.",
        world_readable_credentials,
    ),
    FindingRule(
        "kill-switch-disarmed", Severity.HIGH, "A kill switch is disarmed by an environment setting",
        "A setting that is meant to stop or redirect model traffic is turned off in the environment the service "
        "runs with. Check whether traffic reaches a vendor that the switch was meant to keep it from.",
        disarmed_kill_switches,
    ),
    FindingRule(
        "kill-switch-armed", Severity.INFO, "A kill switch is set",
        "A setting that stops or redirects model traffic is set. Recorded so that a change of its state shows up.",
        armed_kill_switches,
    ),
    FindingRule(
        "kill-switch-overridden", Severity.HIGH, "An environment setting overrides a kill switch of a config file",
        "A config file sets a kill switch one way and an environment assignment of the same switch (an env file, a "
        "unit's Environment=) sets it the other way. The environment override is the one in force.",
        kill_switch_overridden,
    ),
    FindingRule(
        "endpoint-unlisted", Severity.LOW, "Model traffic may go to a host no catalog lists",
        "A base URL or endpoint of the VM points at a host that is not a known vendor API: a proxy, a router or an "
        "in-house service. What it forwards to is not visible from here; find out which vendors stand behind it.",
        unlisted_endpoints,
    ),
    FindingRule(
        "base-url-override", Severity.MEDIUM, "A vendor's base URL is pointed at another host",
        "The variable a vendor's SDK reads for its base URL sends that vendor's traffic to a different host: a "
        "reverse proxy or gateway sits between the agent and the vendor. Find out what it logs, changes or forwards.",
        vendor_default_overridden,
    ),
    FindingRule(
        "dormant-client", Severity.LOW, "A provider client is shipped but not configured",
        "A client for this vendor is compiled into a binary, built in source or installed, yet no configuration, "
        "environment or session routes to the vendor. It can be switched on without a new release.",
        dormant_clients,
    ),
)

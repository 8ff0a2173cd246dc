"""The named steps that join one kind of fact with another: each is one sentence of what the inventory means.

Before the folds build (they need a fold's state, not finished entries), in this order:
1. overridden settings: a model setting a product overrides is no location of that model;
2. config routes: the route a user's agent config states reroutes the models that config selects;
3. shipped lists: a family-grammar id in a product's model-list file counts only where the list ships it;
4. bundled SDKs: an agent install bundles the SDKs installed inside or beside it and declared by it;
5. session products: what a session's records left open (vendor, route) is filled from the agent product
   whose folder holds it;
6. session models: a session's label the catalogs place takes the routes its providers of that vendor served
   (an unserved label, the route of the product whose folder holds the session); and how many sessions only
   mention each id.
After the folds build, on entries (each kind in its declared order):
7. unknown agents: programs that call models, with the configs found in folders of their name, are agents of
   unknown kind;
8. declared labels: a session label a config maps to the maker that served it is no mismatch;
9. session routes: each alias with the route configs declare and what sessions observed behind it;
10. then each kind's own joins (`Kind.joins`), in `KINDS` order.
"""

from __future__ import annotations

import dataclasses
from collections import Counter
from collections.abc import Sequence
from typing import Any

from scanner.catalog.spelling import identify_spelled
from scanner.inventory.unknown_agents import Found, unknown_agents
from scanner.kinds import Inventory
from scanner.kinds.agents import AgentFold
from scanner.kinds.base import FoldContext, Kind
from scanner.kinds.models import ModelFold
from scanner.kinds.sdks import SdkFold
from scanner.kinds.sessions import SessionEntry, SessionFold
from scanner.model import Context
from scanner.sessions.alias_routes import build_routes, declared_agree


def before_build(folds: dict[str, Any], ctx: FoldContext) -> None:
    """The steps on folds, in their order: every one of them only adds to or removes from another fold."""
    models: ModelFold = folds["models"]
    agents: AgentFold = folds["agents"]
    sessions: SessionFold = folds["sessions"]
    sdks: SdkFold = folds["sdks"]
    overridden_settings(agents, models)
    agents.own_route = models.own_route
    config_routes(agents, models)
    models.shipped = agents.shipped()
    agents.sdks = sdks.installs.keys()
    sessions.complete(agents.build())
    session_models(sessions.folded(), sessions.product_routes, models, ctx)


def overridden_settings(agents: AgentFold, models: ModelFold) -> None:
    """A model setting the product overrides (Claude Code's `model` under `env.ANTHROPIC_MODEL`) is read by no
    one: whichever detector reported that line, it is not a location of the model."""
    for ev in agents.configs:
        for value, line in ev.overridden:
            locs = models.locations.get(value)
            if locs is None:
                continue
            for key in [k for k in locs.by_key if k[0] == ev.location.path and k[1] == line]:
                del locs.by_key[key]
            if not locs.by_key:
                models.drop(value)


def config_routes(agents: AgentFold, models: ModelFold) -> None:
    """A route set in one file of a user's agent config (env) reroutes the model another file selects."""
    for configs in agents.user_configs().values():
        for config in configs:
            if config.served_via:
                for m in config.models:
                    # A model whose own record in these files states its route keeps it (Continue's autocomplete
                    # model on Ollama beside its chat model on Vertex).
                    if not any(f in models.via_at.get(m, {}) for f in config.files):
                        models.via[m].add(config.served_via)


def session_models(
    sessions: list[SessionEntry], product_routes: Sequence[tuple[str, str]], models: ModelFold, ctx: FoldContext
) -> None:
    """The route a session was served through is the route of the models it ran: a label the catalogs place
    takes the routes of the session's providers of its vendor (`google/gemini-2.5-flash` on OpenRouter), an
    unserved label the route its product carries it by (`product_routes`). And how many sessions of this machine
    only mention each id in their conversation (fixtures not counted)."""
    mentioned: Counter[str] = Counter()
    for s in sessions:
        if s.location.context is Context.TEST:
            continue
        mentioned.update(s.mentioned)
        for label in s.labels:
            if label not in models.locations or label in s.unserved_labels:
                continue  # not wired, or no record of the session was served under it
            vendor = identify_spelled(ctx.catalog, label).vendor
            for p in s.providers:
                if p.served_via and vendor and p.vendor == vendor:
                    models.via[label].add(p.served_via)
    for label, route in product_routes:
        if label in models.locations:
            models.via[label].add(route)
    models.mentioned = dict(mentioned)


def after_build(inv: Inventory, folds: dict[str, Any], ctx: FoldContext, kinds: Sequence[Kind[Any]]) -> Inventory:
    """The steps on entries, each kind already in its declared order."""
    agents: AgentFold = folds["agents"]
    found = Found(inv.models, inv.mcp_servers, inv.credentials, folds["models"].routes_at())
    unknown = unknown_agents(agents.programs.values(), agents.program_hosts, agents.sdks, found)
    sessions = declared_agree(inv.sessions, inv.models, ctx.catalog)
    inv = dataclasses.replace(
        inv, agents=inv.agents + tuple(unknown), sessions=sessions,
        routes=build_routes(inv.models, sessions, ctx.known_routes),
    )
    for kind in kinds:
        for join in kind.joins:
            inv = join.run(inv, ctx)
    return inv

"""Tie model aliases to what the session logs observed behind them.

An alias is any model name a config routes somewhere (`served_via` other than direct, or a `base_model`
from a deployment map) and any label a session ran under. For each: the route configs declare, the base
model a deployment map gives, and the provider the sessions under that label were served by.
"""

from __future__ import annotations

from collections import Counter

from scanner.kinds.models import ModelEntry
from scanner.kinds.routes import RouteEntry
from scanner.kinds.sessions import SessionEntry, SessionProvider
from scanner.model import WIRING_CONTEXTS, Context
from scanner.vocab import PSEUDO_VENDORS


def _main_provider(providers: tuple[SessionProvider, ...]) -> SessionProvider | None:
    """A session's dominant provider: external vendors first, then most records."""
    ranked = sorted(providers, key=lambda p: (p.vendor in PSEUDO_VENDORS, -p.records, p.vendor, p.api or ""))
    return ranked[0] if ranked else None


def build_routes(
    models: tuple[ModelEntry, ...], sessions: tuple[SessionEntry, ...], known_routes: frozenset[str]
) -> tuple[RouteEntry, ...]:
    """`known_routes`: the hosting routes the catalogs know (azure, bedrock, …); a config's own router name
    (`provider: jarvis`) is not a route an investigator needs tied to logs unless a session ran on it."""
    by_name = {m.name: m for m in models}
    routed = {m.name for m in models if m.wired and (m.served_via in known_routes or m.base_model)}
    observed: dict[str, list[SessionEntry]] = {}
    for s in sessions:
        if s.location.context is Context.TEST:
            continue  # a fixture is not this machine's traffic
        for label in s.labels:
            observed.setdefault(label, []).append(s)
    out = []
    for alias in sorted(routed | set(observed)):
        model = by_name.get(alias)
        runs = observed.get(alias, [])
        mains = [p for p in (_main_provider(s.providers) for s in runs) if p is not None]
        tally = Counter((p.vendor, p.served_via, p.api) for p in mains)
        vendor = via = api = None
        confidence = None
        if tally:
            (vendor, via, api), _ = sorted(
                tally.items(), key=lambda kv: (-kv[1], kv[0][0], kv[0][1] or "", kv[0][2] or "")
            )[0]
            confidence = max(
                (p.confidence for p in mains if (p.vendor, p.served_via, p.api) == (vendor, via, api)),
                key=lambda c: c.rank,
            )
        days = tuple(sorted({s.started_at[:10] for s in runs if s.started_at}))
        locs = tuple(
            loc for loc in (model.locations if model else ()) if loc.context in WIRING_CONTEXTS - {Context.SESSION}
        )[:5]
        out.append(
            RouteEntry(
                alias=alias,
                declared_via=model.served_via if model else None,
                base_model=model.base_model if model else None,
                observed_vendor=vendor,
                observed_via=via,
                observed_api=api,
                sessions=len(runs),
                days=days,
                confidence=confidence,
                locations=locs,
            )
        )
    return tuple(out)

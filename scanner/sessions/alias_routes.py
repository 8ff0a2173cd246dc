"""Tie model aliases to what the session logs observed behind them.

An alias is any model name a config routes somewhere (`served_via` other than direct, or a `base_model`
from a deployment map) and any label a session ran under. For each: the route configs declare, the base
model a deployment map gives, and the provider the sessions under that label were served by.
"""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import replace

from scanner.catalog import Catalog
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
        # A session no served record of which ran under the alias observed nothing of where it goes.
        mains = [p for p in (_main_provider(s.providers) for s in runs if alias not in s.unserved_labels)
                 if p is not None]
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


def declared_agree(
    sessions: tuple[SessionEntry, ...], models: tuple[ModelEntry, ...], catalog: Catalog
) -> tuple[SessionEntry, ...]:
    """A label that names its maker in its own words and that a config maps to that maker's model (a proxy's
    `ClaudeSonnet4` for `us.anthropic.claude-sonnet-4-…`) is no mismatch when that maker served the session: the
    alias is declared and says who serves it. A label that hides its maker (`muse-special`, mapped to gpt-5.5) or
    names another (`NovaPro1` served by Anthropic) stays a mismatch."""
    declared = {m.name: m.vendor for m in models if m.wired and m.base_model and m.vendor}
    if not declared:
        return sessions
    names = _maker_names(catalog)
    out = []
    for s in sessions:
        served = {p.vendor for p in s.providers}
        kept = tuple(
            label
            for label in s.mismatched_labels
            if not (declared.get(label) in served and names.get(declared[label] or "", set()) & _words(label))
        )
        out.append(s if kept == s.mismatched_labels else replace(s, mismatched_labels=kept))
    return tuple(out)


_WORD = re.compile(r"[A-Z]+(?=[A-Z][a-z])|[A-Z]?[a-z]+|[A-Z]+")


def _words(label: str) -> set[str]:
    return {w.lower() for w in _WORD.findall(label)}


def _maker_names(catalog: Catalog) -> dict[str, set[str]]:
    """The words a vendor's models are called by: its id and the first word of each family (`claude`, `gpt`)."""
    out: dict[str, set[str]] = {}
    for f in catalog.families:
        out.setdefault(f.vendor, {f.vendor}).add(re.split(r"[^a-z]+", f.id.lower())[0])
    return out

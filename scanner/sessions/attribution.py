"""Per-session conclusions: fold each record's fingerprint hits, facts and reasoning into one session entry.

State is bounded per session: counters keyed by rule and provider (both finite), one example per rule, at
most MAX_LABELS labels. Each record is attributed to one provider, the vendor whose rules weigh most in
it, so a session that switches provider mid-way shows several providers, each with its own records.
"""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass, field
from datetime import datetime, timezone

from scanner.catalog import Catalog
from scanner.model import FernetTimes, Location, RuleEvidence, SessionEntry, SessionProvider
from scanner.sessions.adapters.base import Facts
from scanner.sessions.fingerprints import Hit
from scanner.sessions.reasoning import session_reasoning

MAX_LABELS = 20
PSEUDO_VENDORS = ("self-hosted", "unknown")
_WEIGHT = {"high": 3, "medium": 2, "low": 1}
_CONFIDENCE = {v: k for k, v in _WEIGHT.items()}
_WORD = re.compile(r"[a-z0-9]+")


def iso(seconds: float | None) -> str | None:
    if seconds is None:
        return None
    return datetime.fromtimestamp(seconds, tz=timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")


def shorten(value: str, keep: int = 24) -> str:
    """An example value cut to its head and tail: enough to recognise a format, never a whole blob."""
    return value if len(value) <= keep + 12 else f"{value[:keep]}…{value[-8:]}"


@dataclass
class _Provider:
    records: int = 0
    first: float | None = None
    last: float | None = None
    rules: Counter[str] = field(default_factory=Counter)
    examples: dict[str, str] = field(default_factory=dict)
    confidence: dict[str, str] = field(default_factory=dict)

    def add(self, when: float | None, hits: list[Hit]) -> None:
        self.records += 1
        if when is not None:
            self.first = when if self.first is None else min(self.first, when)
            self.last = when if self.last is None else max(self.last, when)
        for hit in hits:
            self.rules[hit.rule.id] += 1
            self.examples.setdefault(hit.rule.id, shorten(hit.value))
            self.confidence[hit.rule.id] = hit.rule.confidence

    def merge(self, other: _Provider) -> None:
        self.records += other.records
        for when in (other.first, other.last):
            if when is not None:
                self.first = when if self.first is None else min(self.first, when)
                self.last = when if self.last is None else max(self.last, when)
        self.rules.update(other.rules)
        for rule, example in other.examples.items():
            self.examples.setdefault(rule, example)
        self.confidence.update(other.confidence)


def _pick(hits: list[Hit]) -> tuple[str, str | None, str | None, list[Hit]]:
    """(vendor, served_via, api, supporting hits) of one record."""
    weight: Counter[str] = Counter()
    for hit in hits:
        weight[hit.rule.vendor] += _WEIGHT[hit.rule.confidence]
    real = [v for v in weight if v not in PSEUDO_VENDORS]
    pool = real or list(weight)
    vendor = sorted(pool, key=lambda v: (-weight[v], v))[0]
    support = [h for h in hits if h.rule.vendor in (vendor, "unknown")]
    ranked = sorted(support, key=lambda h: (h.rule.vendor != vendor, -_WEIGHT[h.rule.confidence], h.rule.id))
    via = next((h.served_via or h.rule.served_via for h in ranked if h.served_via or h.rule.served_via), None)
    api = next((h.rule.api for h in ranked if h.rule.api), None)
    return vendor, via, api, support


class SessionAccumulator:
    def __init__(self, session_id: str, fmt: str, location: Location) -> None:
        self.session_id = session_id
        self.format = fmt
        self.location = location
        self.records = 0
        self.first: float | None = None
        self.last: float | None = None
        self.labels: dict[str, None] = {}
        self.reasoning: set[str] = set()
        self.providers: dict[tuple[str, str | None, str | None], _Provider] = {}
        self.declared: str | None = None
        self.parent: str | None = None
        self.fernet_tokens = 0
        self.fernet_ok = 0
        self.fernet_skew: int | None = None

    def add(self, facts: Facts, hits: list[Hit], reasoning: set[str]) -> None:
        self.records += 1
        when = facts.timestamp
        if when is not None:
            self.first = when if self.first is None else min(self.first, when)
            self.last = when if self.last is None else max(self.last, when)
        for label in facts.labels:
            if len(self.labels) < MAX_LABELS:
                self.labels.setdefault(label)
        self.declared = self.declared or facts.declared
        self.parent = self.parent or facts.parent_session_id
        self.reasoning |= reasoning
        if not hits:
            return
        vendor, via, api, support = _pick(hits)
        self.providers.setdefault((vendor, via, api), _Provider()).add(when, support)
        for hit in hits:
            if hit.fernet_time is not None and when is not None:
                skew = int(abs(when - hit.fernet_time))
                self.fernet_tokens += 1
                limit = hit.rule.max_skew_seconds
                self.fernet_ok += limit is None or skew <= limit
                self.fernet_skew = skew if self.fernet_skew is None else max(self.fernet_skew, skew)

    def _merge_unstated_api(self) -> None:
        """Records that carry only an API-neutral id (a tool result's `call_` id) join the one provider of the
        same vendor and route whose API is known."""
        for key in [k for k in self.providers if k[2] is None]:
            twins = [k for k in self.providers if k[:2] == key[:2] and k[2] is not None]
            if len(twins) == 1:
                self.providers[twins[0]].merge(self.providers.pop(key))

    def finish(self, catalog: Catalog, notes: tuple[str, ...]) -> SessionEntry:
        self._merge_unstated_api()
        labels = tuple(self.labels)
        providers = tuple(
            sorted(
                (self._provider(key, acc, labels, catalog) for key, acc in self.providers.items()),
                key=lambda p: (p.first_seen or "", -p.records, p.vendor, p.served_via or "", p.api or ""),
            )
        )
        fernet = None
        if self.fernet_tokens:
            bad = self.fernet_tokens - self.fernet_ok
            fernet = FernetTimes(self.fernet_tokens, self.fernet_ok, bad, self.fernet_skew)
        return SessionEntry(
            session_id=self.session_id,
            format=self.format,
            location=self.location,
            started_at=iso(self.first),
            ended_at=iso(self.last),
            records=self.records,
            labels=labels,
            reasoning=session_reasoning(self.reasoning),
            providers=providers,
            fernet=fernet,
            declared=self.declared,
            parent_session_id=self.parent,
            mismatched_labels=_mismatched(labels, providers, catalog),
            notes=notes,
        )

    def _provider(
        self, key: tuple[str, str | None, str | None], acc: _Provider, labels: tuple[str, ...], catalog: Catalog
    ) -> SessionProvider:
        vendor, via, api = key
        evidence = [
            RuleEvidence(rule, count, acc.examples[rule], acc.confidence[rule])
            for rule, count in sorted(acc.rules.items())
        ]
        if via is None and vendor not in PSEUDO_VENDORS:
            # Provider ids cannot tell OpenAI from Azure OpenAI (or Anthropic from Bedrock); a route the
            # session itself names completes them when it agrees with the vendor.
            via, source = _stated_route(vendor, labels, self.declared, catalog)
            if via:
                evidence.append(RuleEvidence("stated-route", acc.records, source, "medium"))
        confidence = _CONFIDENCE[max((_WEIGHT[e.confidence] for e in evidence), default=1)]
        return SessionProvider(
            vendor, via, api, acc.records, confidence, iso(acc.first), iso(acc.last), tuple(evidence)
        )


def _routes(catalog: Catalog) -> set[str]:
    found = {f.route for f in catalog.hosted_forms} | {h.served_via for h in catalog.hosts if h.served_via}
    return found - {"direct", "self-hosted"}


def _stated_route(
    vendor: str, labels: tuple[str, ...], declared: str | None, catalog: Catalog
) -> tuple[str | None, str]:
    for label in labels:
        ident = catalog.identify(label)
        if ident.served_via and ident.served_via != "direct" and ident.vendor in (vendor, None):
            return ident.served_via, label
    if declared:
        words = set(_WORD.findall(declared.lower()))
        for route in sorted(_routes(catalog)):
            if route in words:
                return route, declared
    return None, ""


def _mismatched(labels: tuple[str, ...], providers: tuple[SessionProvider, ...], catalog: Catalog) -> tuple[str, ...]:
    """Labels the fingerprints contradict: an uncatalogued (in-house-looking) name, or another vendor's model,
    on a session an external vendor served."""
    # Only a model maker's fingerprints contradict a label; a host (Groq) serves other makers' models.
    makers = {f.vendor for f in catalog.families}
    external = {p.vendor for p in providers if p.vendor in makers}
    if not external:
        return ()
    out = []
    for label in labels:
        ident = catalog.identify(label)
        if ident.catalog == "unknown" or ident.vendor not in external:
            out.append(label)
    return tuple(out)

"""Per-session conclusions: fold each record's fingerprint hits, facts and reasoning into one session entry.

Attribution is per record (`pick`): each record goes to one provider, and a record whose ids say less than its
neighbours' (a tool result's API-neutral id, a route marker alone) continues the provider before it. A session
whose records carry no served-by fact at all is named by its labels (`labels_only`): their vendor at low
confidence when they name one, `unknown` with them as candidates when several, so `providers` is never empty.
Each provider keeps which of its records carried visible and which encrypted reasoning; the session keeps the
models its replies name apart from its labels, and counts the catalogued ids its conversation only mentions.

State is bounded per session: counters keyed by rule and provider (both finite), one example per rule, at
most MAX_LABELS labels, MAX_RANGES record runs per provider and MAX_MENTIONED mentioned ids.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import replace
from datetime import datetime, timezone

from scanner.catalog import Catalog
from scanner.catalog.spelling import identify_spelled
from scanner.kinds.sessions import FernetTimes, RuleEvidence, SessionEntry, SessionProvider
from scanner.model import Location
from scanner.sessions.adapters.base import Facts
from scanner.sessions.fingerprints import Hit
from scanner.sessions.pick import LABEL_RULE, label_vendor, pick
from scanner.sessions.provider_tally import ProviderTally, shorten
from scanner.sessions.reasoning import session_reasoning
from scanner.vocab import PSEUDO_VENDORS, CatalogStatus, Confidence, PseudoVendor

MAX_LABELS = 20
MAX_MENTIONED = 500
_WORD = re.compile(r"[a-z0-9]+")
ProviderKey = tuple[str, str | None, str | None]


def iso(seconds: float | None) -> str | None:
    if seconds is None:
        return None
    return datetime.fromtimestamp(seconds, tz=timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")


class SessionAccumulator:
    def __init__(self, session_id: str, fmt: str, location: Location, catalog: Catalog) -> None:
        self.session_id = session_id
        self.format = fmt
        self.location = location
        self.catalog = catalog
        self.records = 0
        self.first: float | None = None
        self.last: float | None = None
        self.labels: dict[str, None] = {}
        self.served: dict[str, None] = {}
        self.mentioned: set[str] = set()
        self.title: str | None = None
        self.current_labels: tuple[str, ...] = ()
        # Reasoning of records before any provider (all of them in a label-only session).
        self.unplaced = ProviderTally()
        # The vendors that served the records each label ran under: a label no served record ran under (Aider's
        # weak model, named in the header and replaced by the main model's before any reply; a subagent's whose
        # records carry no served-by fact) is belied by none, and observes no route.
        self.label_vendors: dict[str, set[str]] = {}
        # Labels that are themselves a fingerprint of the vendor that served their record (Qwen Code's
        # `coder-model`): uncatalogued as models, yet no fingerprint of that vendor belies them.
        self.self_named: set[str] = set()
        self._last_seen: tuple[str, tuple[str, ...]] | None = None
        self.reasoning: set[str] = set()
        self.providers: dict[ProviderKey, ProviderTally] = {}
        self.last_key: ProviderKey | None = None
        self.declared: str | None = None
        self.parent: str | None = None
        self.fernet_tokens = 0
        self.fernet_ok = 0
        self.fernet_skew: int | None = None

    def add(self, facts: Facts, hits: list[Hit], reasoning: set[str], served: tuple[str, ...] = ()) -> None:
        self.records += 1
        when = facts.timestamp
        if when is not None:
            if self.first is None or when < self.first:
                self.first = when
            if self.last is None or when > self.last:
                self.last = when
        for label in facts.labels:
            if len(self.labels) < MAX_LABELS:
                self.labels.setdefault(label)
        for model in served:
            if len(self.served) < MAX_LABELS:
                self.served.setdefault(model)
        # A record without a label of its own runs under the last one the session named.
        if facts.labels:
            self.current_labels = facts.labels
        self.declared = self.declared or facts.declared
        self.parent = self.parent or facts.parent_session_id
        self.title = self.title or facts.title
        if reasoning:
            self.reasoning |= reasoning
        chosen = pick(hits, self.current_labels, self.catalog)
        if chosen is None:
            if reasoning:  # reasoning in a record with no ids of its own: the last provider's, or no provider's yet
                held = self.unplaced if self.last_key is None else self.providers[self.last_key]
                held.reasoned(self.records, reasoning)
            return
        key = self._continued((chosen.vendor, chosen.served_via, chosen.api), chosen.candidates)
        provider = self.providers.get(key)
        if provider is None:
            provider = self.providers[key] = ProviderTally()
        provider.add(self.records, when, chosen.support, chosen.candidates, self.last_key == key, chosen.vendor)
        if reasoning:
            provider.reasoned(self.records, reasoning)
        self.last_key = key
        vendor, last = chosen.vendor, self._last_seen  # compared by its parts: no tuple built a record
        if vendor not in PSEUDO_VENDORS and (last is None or last[0] != vendor or last[1] != self.current_labels):
            self._last_seen = (chosen.vendor, self.current_labels)
            for label in self.current_labels[:MAX_LABELS]:
                seen = self.label_vendors.get(label) or self.label_vendors.setdefault(label, set())
                if len(seen) < 8:
                    seen.add(chosen.vendor)
                if len(self.self_named) < MAX_LABELS and any(h.value == label and h.rule.vendor == vendor
                                                             for h in hits):
                    self.self_named.add(label)
        for hit in hits:
            if hit.fernet_time is not None and when is not None:
                skew = int(abs(when - hit.fernet_time))
                self.fernet_tokens += 1
                limit = hit.rule.max_skew_seconds
                self.fernet_ok += limit is None or skew <= limit
                self.fernet_skew = skew if self.fernet_skew is None else max(self.fernet_skew, skew)

    def mention(self, ids: Iterable[str]) -> None:
        """Model ids the conversation of the last record names (bounded: a few hundred distinct per session)."""
        if len(self.mentioned) < MAX_MENTIONED:
            self.mentioned.update(ids)

    def _continued(self, key: ProviderKey, candidates: tuple[str, ...]) -> ProviderKey:
        """A record whose ids say less than the previous record's (a tool result's API-neutral `call_` id, a
        route marker alone) continues the previous record's provider rather than open a new one."""
        last = self.last_key
        if last is None or key == last:
            return key
        same_vendor = key[0] == last[0] and key[1] in (None, last[1]) and key[2] in (None, last[2])
        route_only = key[0] == PseudoVendor.UNKNOWN and not candidates and key[1] is not None and key[1] == last[1]
        return last if same_vendor or route_only else key

    def _merge_partial(self) -> None:
        """Records whose ids say less than their neighbours' join them: a tool result's API-neutral `call_`
        id joins the one provider of the same vendor whose API is known, and a route-only record (`unknown`
        via azure) joins the one provider of that route."""
        for key in [k for k in self.providers if k[2] is None]:
            twins = [k for k in self.providers if k[0] == key[0] and k[2] is not None and key[1] in (None, k[1])]
            if len(twins) == 1 and key in self.providers:
                self.providers[twins[0]].merge(self.providers.pop(key))
        unknown = PseudoVendor.UNKNOWN
        for key in [k for k in self.providers if k[0] == unknown and k[1] and not self.providers[k].candidates]:
            twins = [k for k in self.providers if k != key and k[1] == key[1]]
            if len(twins) == 1 and key in self.providers:
                self.providers[twins[0]].merge(self.providers.pop(key))

    def finish(self, catalog: Catalog, notes: tuple[str, ...], max_mentions: int = 0) -> SessionEntry:
        self._merge_partial()
        labels = tuple(self.labels)
        providers = tuple(
            sorted(
                (self._provider(key, acc, labels, catalog) for key, acc in self.providers.items()),
                key=lambda p: (p.first_record or 0, p.first_seen or "", -p.records, p.vendor, p.served_via or ""),
            )
        ) or (self._labels_only(labels, catalog),)
        fernet = None
        if self.fernet_tokens:
            bad = self.fernet_tokens - self.fernet_ok
            fernet = FernetTimes(self.fernet_tokens, self.fernet_ok, bad, self.fernet_skew)
        steady = tuple(label for label, vendors in self.label_vendors.items() if len(vendors) > 1)
        # Only where some record was served under a label can the others be told apart as served under none.
        unserved = tuple(label for label in labels if label not in self.label_vendors) if self.label_vendors else ()
        contradicted = mismatched_labels(labels, providers, catalog, {*unserved, *self.self_named})
        mismatched = tuple(dict.fromkeys((*contradicted, *steady)))
        mentioned = only_mentioned(self.mentioned, (*labels, *self.served), catalog)[:max_mentions]
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
            served_models=tuple(self.served),
            fernet=fernet,
            declared=self.declared,
            parent_session_id=self.parent,
            mismatched_labels=mismatched,
            unserved_labels=unserved,
            notes=notes,
            title=self.title,
            mentioned=mentioned,
        )

    def _labels_only(self, labels: tuple[str, ...], catalog: Catalog) -> SessionProvider:
        found = labels_only(labels, self.declared, self.records, iso(self.first), iso(self.last), catalog)
        held = self.unplaced
        return replace(
            found,
            reasoning=session_reasoning(held.states()),
            visible_records=tuple((a, b) for a, b in held.visible),
            encrypted_records=tuple((a, b) for a, b in held.encrypted),
        )

    def _provider(
        self, key: ProviderKey, acc: ProviderTally, labels: tuple[str, ...], catalog: Catalog
    ) -> SessionProvider:
        vendor, via, api = key
        evidence = [
            RuleEvidence(rule, count, acc.examples[rule], acc.confidence[rule])
            for rule, count in sorted(acc.rules.items())
        ]
        if via is None and vendor not in PSEUDO_VENDORS:
            # Provider ids cannot tell OpenAI from Azure OpenAI (or Anthropic from Bedrock); a route the
            # session itself names completes them when it agrees with the vendor.
            routed = any(key[1] for key in self.providers)
            via, source = _stated_route(vendor, labels, self.declared, catalog, routed)
            if via:
                evidence.append(RuleEvidence("stated-route", acc.records, source, Confidence.MEDIUM))
        confidence = Confidence.of_rank(max((e.confidence.rank for e in evidence), default=1))
        if vendor == PseudoVendor.UNKNOWN:
            confidence = min(confidence, Confidence.MEDIUM, key=lambda c: c.rank)  # a route is sure, who served is not
        else:
            # As sure as what named the vendor: a label alone is a claim, however certain the route.
            confidence = Confidence.of_rank(min(confidence.rank, acc.vendor_weight or 1))
        return SessionProvider(
            vendor, via, api, acc.records, confidence, iso(acc.first), iso(acc.last), tuple(evidence),
            candidates=tuple(c for c in acc.candidates if c != vendor),
            record_ranges=tuple((a, b) for a, b in acc.ranges),
            reasoning=session_reasoning(acc.states()),
            visible_records=tuple((a, b) for a, b in acc.visible),
            encrypted_records=tuple((a, b) for a, b in acc.encrypted),
        )


def only_mentioned(found: Iterable[str], own: Iterable[str], catalog: Catalog) -> tuple[str, ...]:
    """The ids a conversation names that the catalogs recognise and that are none of the session's own models in
    any spelling (`publishers/google/models/gemini-2.0-flash` in a request URL is the label `gemini-2.0-flash`)."""
    mine = {identify_spelled(catalog, m).canonical or m for m in own}
    out = set()
    for name in found:
        ident = identify_spelled(catalog, name)
        if ident.catalog == CatalogStatus.UNKNOWN and not catalog.names_deployment(name):
            continue  # a hosted form around no id the catalogs know (`claude-code@latest`)
        if (ident.canonical or ident.base_model or name) not in mine and name not in mine:
            out.add(name)
    return tuple(sorted(out))


def labels_only(
    labels: tuple[str, ...], declared: str | None, records: int, first: str | None, last: str | None,
    catalog: Catalog,
) -> SessionProvider:
    """No record carried a served-by fact: the session's labels are all there is. When the catalogued ones name
    one vendor, it is that vendor (at a label's low confidence), via the route their prefix or the session's
    declared provider names; when they name several, `unknown` with those as candidates."""
    claimed = {label: v for label in labels if (v := label_vendor(label, catalog))}
    evidence = [RuleEvidence(LABEL_RULE.id, 1, shorten(label), Confidence.LOW) for label in claimed]
    ranges = ((1, records),) if records else ()
    vendors = tuple(dict.fromkeys(claimed.values()))
    if len(vendors) != 1:
        return SessionProvider(
            PseudoVendor.UNKNOWN, None, None, records, Confidence.LOW, first, last, tuple(evidence),
            candidates=vendors, record_ranges=ranges,
        )
    via, source = _stated_route(vendors[0], tuple(claimed), declared, catalog)
    if via:
        evidence.append(RuleEvidence("stated-route", records, shorten(source), Confidence.LOW))
    return SessionProvider(
        vendors[0], via, None, records, Confidence.LOW, first, last, tuple(evidence), record_ranges=ranges
    )


def _routes(catalog: Catalog) -> set[str]:
    found = {f.route for f in catalog.hosted_forms} | {h.served_via for h in catalog.hosts if h.served_via}
    return found - {"direct", "self-hosted"}


def _stated_route(
    vendor: str, labels: tuple[str, ...], declared: str | None, catalog: Catalog, routed: bool = False
) -> tuple[str | None, str]:
    """The route a session's labels or its declared provider name. A declared provider that is the vendor itself
    (Codex's `model_provider: openai`) is its own API, as is a label spelled with the vendor's own prefix (LiteLLM's
    `gemini/…`, `anthropic/…`), unless some record of the session names a route: then the declaration names the
    upstream of that route (OpenRouter's `provider: Google`)."""
    own: list[str] = []  # labels in the vendor's own prefix
    for label in labels:
        ident = identify_spelled(catalog, label)
        if ident.served_via and ident.served_via != "direct" and ident.vendor in (vendor, None):
            return ident.served_via, label
        if ident.served_via == "direct" and ident.vendor == vendor:
            own.append(label)
    if declared:
        words = set(_WORD.findall(declared.lower()))
        for route in sorted(_routes(catalog)):
            if route in words:
                return route, declared
        if not routed and declared.strip().lower() == vendor:
            return "direct", declared
        if catalog.route_named(declared) == "self-hosted":
            return "self-hosted", declared  # a local server's name (`provider: ollama`): it ran the model itself
    return ("direct", own[0]) if own and not routed else (None, "")


def mismatched_labels(
    labels: tuple[str, ...], providers: tuple[SessionProvider, ...], catalog: Catalog,
    exempt: set[str] | frozenset[str] = frozenset(),
) -> tuple[str, ...]:
    """Labels the fingerprints contradict: an uncatalogued (in-house-looking) name, or another vendor's model,
    on a session an external vendor served. No fingerprint belies a label `exempt`: one no served record ran
    under, or one that is itself a fingerprint of the vendor that served it."""
    # Only a model maker's fingerprints contradict a label; a host (Groq) serves other makers' models.
    makers = {f.vendor for f in catalog.families}
    external = {p.vendor for p in providers if p.vendor in makers}
    if not external:
        return ()
    out = []
    for label in labels:
        if label not in exempt and label_vendor(label, catalog) not in external:
            out.append(label)
    return tuple(out)

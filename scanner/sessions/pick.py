"""Who served one record: the vendor whose fingerprint hits weigh most in it, its route and API, from the hits of
the record's values and the models it names.

Rules of vendor `unknown` (a route marker, a host, a look-alike) say only the route; the vendor then comes from
the model the reply names (`served-model`, a medium rule of its maker) or a label the catalogs place. A served
model weighs only where no id names anyone; beside a self-hosted server's marks it names the model's maker, not
who served it. The route is the hop the agent talked to: a route marker's first, then the vendor's own ids', then
a model prefix's. Conclusions are memoised per combination of rules: records repeat the same few.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass

from scanner.catalog import Catalog
from scanner.catalog.schema import Examples, FingerprintSpec
from scanner.catalog.spelling import identify_spelled
from scanner.sessions.fingerprints import Hit
from scanner.sessions.percatalog import PerCatalog
from scanner.vocab import PSEUDO_VENDORS, CatalogStatus, Confidence, PseudoVendor

# A model label the catalogs place: it names the vendor where the ids name only a route or a look-alike.
LABEL_RULE = FingerprintSpec("model-label", PseudoVendor.UNKNOWN, "", Examples(), confidence=Confidence.LOW)
SERVED_RULE_ID = "served-model"
_SERVED: PerCatalog[dict[str, FingerprintSpec | None]] = PerCatalog(lambda _: {})


def served_rule(catalog: Catalog, model: str) -> FingerprintSpec | None:
    """The model a response names as what served it, as a fingerprint of its vendor (and of the route its prefix
    names); None when the catalogs do not place it. One rule per distinct model, kept per catalog."""
    cache = _SERVED.of(catalog)
    if model in cache:
        return cache[model]
    ident = identify_spelled(catalog, model)
    rule = None
    # A model no catalog lists is placed only by a hosted form that names its maker (`amazon.nova-pro-v1:0`), never
    # by one around a free deployment name (`azure/muse-special` says nothing of who made the model).
    if ident.vendor and (
        ident.catalog != CatalogStatus.UNKNOWN
        or (ident.served_via not in (None, "direct") and not catalog.names_deployment(model))
    ):
        via = ident.served_via if ident.served_via not in (None, "direct") else None
        rule = FingerprintSpec(
            SERVED_RULE_ID, ident.vendor, "", Examples(), served_via=via, confidence=Confidence.MEDIUM
        )
    if len(cache) < 10_000:
        cache[model] = rule
    return rule


@dataclass(slots=True)
class Pick:
    """Who served one record, and the hits that say so (one per record: slotted, not frozen, to build cheaply)."""

    vendor: str
    served_via: str | None
    api: str | None
    support: list[Hit]
    candidates: tuple[str, ...] = ()


def label_vendor(label: str, catalog: Catalog) -> str | None:
    """The vendor a model label names, when the catalogs know the model or its family (a route prefix alone,
    `azure/x`, names no vendor). A router's `vendor/model` slug is read by its model part."""
    ident = identify_spelled(catalog, label)
    return ident.vendor if ident.catalog != CatalogStatus.UNKNOWN else None


def _placed(labels: tuple[str, ...], catalog: Catalog) -> list[tuple[str, str]]:
    return [(label, v) for label in labels if (v := label_vendor(label, catalog))]


# (vendor, via, api, candidates, vendors of the supporting hits, the label that named the vendor)
_Concluded = tuple[str, str | None, str | None, tuple[str, ...], frozenset[str], str | None]
_MEMO: PerCatalog[dict[object, _Concluded]] = PerCatalog(lambda _: {})


def pick(hits: list[Hit], labels: tuple[str, ...], catalog: Catalog) -> Pick | None:
    """The provider of one record from its hits and model labels; None when nothing in it names one.
    Records repeat the same few combinations of rules: the conclusion is memoised per combination."""
    if not hits:
        return None
    memo = _MEMO.of(catalog)
    # A rule's id names a catalog rule, but not the rules made of hosts and served models (every host's is
    # `api-host`): its route is part of what it says.
    key = (tuple([(h.rule.id, h.rule.vendor, h.rule.served_via, h.served_via) for h in hits]), labels)
    found = memo.get(key)
    if found is None:
        chosen = _pick(hits, labels, catalog)
        keep = frozenset(h.rule.vendor for h in chosen.support)
        label = next((h.value for h in chosen.support if h.rule is LABEL_RULE), None)
        found = (chosen.vendor, chosen.served_via, chosen.api, chosen.candidates, keep, label)
        if len(memo) < 10_000:
            memo[key] = found
        return chosen
    vendor, via, api, candidates, keep, label = found
    support = [h for h in hits if h.rule.vendor in keep and (h.rule.id != SERVED_RULE_ID or h.rule.vendor == vendor)]
    if label is not None:
        support.append(Hit(LABEL_RULE, label))
    return Pick(vendor, via, api, support, candidates)


def _pick(hits: list[Hit], labels: tuple[str, ...], catalog: Catalog) -> Pick:
    vendors = {h.rule.vendor for h in hits}
    if len(vendors) == 1 and (only := next(iter(vendors))) not in PSEUDO_VENDORS:
        return _settled(only, hits)  # the common case: every hit names the same vendor
    ids = [h for h in hits if h.rule.id != SERVED_RULE_ID]
    # The models the record's reply names, then its labels: what names the vendor where ids name only a route.
    placed = [(h.value, h.rule.vendor) for h in hits if h.rule.id == SERVED_RULE_ID] + _placed(labels, catalog)
    served = {h.value for h in hits if h.rule.id == SERVED_RULE_ID}
    weight: Counter[str] = Counter()
    for hit in ids or hits:  # a served model weighs only where nothing else names anyone
        if hit.rule.vendor not in PSEUDO_VENDORS:
            weight[hit.rule.vendor] += hit.rule.rank
    candidates: tuple[str, ...] = ()
    chosen: tuple[str, str] | None = None
    if weight:
        top = max(weight.values())
        tied = sorted(v for v, w in weight.items() if w == top)
        vendor = tied[0]
        if len(tied) > 1:
            # Two vendors' ids weigh the same: a served model or a label may settle it; otherwise say both.
            chosen = next(((lb, v) for lb, v in placed if v in tied), None)
            vendor = chosen[1] if chosen else PseudoVendor.UNKNOWN
            candidates = tuple(tied)
    elif any(h.rule.vendor == PseudoVendor.UNKNOWN for h in ids):
        # A route or a look-alike: runtime-minted ids beside it are the cloud's (Azure AI Foundry's 32-hex).
        possible = tuple(
            dict.fromkeys(c for h in ids if h.rule.vendor == PseudoVendor.UNKNOWN for c in h.rule.candidates)
        )
        chosen = next(((lb, v) for lb, v in placed if not possible or v in possible), None)
        vendor = chosen[1] if chosen else PseudoVendor.UNKNOWN
        candidates = possible
    else:
        # A self-hosted server's marks or runtime-minted ids: the model it ran names its maker, not who served it.
        # A vendor whose API mints the same shape (Mistral's 32-hex ids) stays possible, and the model may name it.
        possible = tuple(dict.fromkeys(c for h in ids for c in h.rule.candidates))
        chosen = next(((lb, v) for lb, v in placed if v in possible), None)
        vendor = chosen[1] if chosen else PseudoVendor.SELF_HOSTED
        candidates = (PseudoVendor.SELF_HOSTED, *possible) if chosen else ()
    extra = [Hit(LABEL_RULE, chosen[0])] if chosen and chosen[0] not in served else []
    keep = {vendor, PseudoVendor.UNKNOWN, *candidates}
    if vendor != PseudoVendor.SELF_HOSTED:
        keep.discard(PseudoVendor.SELF_HOSTED)
    support = [h for h in hits if h.rule.vendor in keep and (h.rule.id != SERVED_RULE_ID or h.rule.vendor == vendor)]
    return _settled(vendor, support + extra, candidates)


def _settled(vendor: str, support: list[Hit], candidates: tuple[str, ...] = ()) -> Pick:
    """Route and API from the supporting hits: a route marker's (the hop the agent talked to: a host, a gateway's
    id) first, then the vendor's own ids', weightiest first, and a served model's prefix last."""
    ranked = sorted(
        support,
        key=lambda h: (
            h.rule.id == SERVED_RULE_ID,
            h.rule.vendor != PseudoVendor.UNKNOWN,
            h.rule.vendor != vendor,
            (h.served_via or h.rule.served_via) == "direct",  # a cloud's own id form names the route more surely
            -h.rule.confidence.rank,
            h.rule.id,
        ),
    )
    via = next((h.served_via or h.rule.served_via for h in ranked if h.served_via or h.rule.served_via), None)
    api = next((h.rule.api for h in ranked if h.rule.api), None)
    return Pick(vendor, via, api, support, candidates)

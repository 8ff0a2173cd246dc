"""Other spellings of a model id, as agents and gateways write them: `claude_3_5_sonnet` (underscores for dashes),
`claude-3.7-sonnet` (a dot between version digits for a dash), and a router's or a host's `org/model` slug
(`google/gemini-2.5-flash-preview`, `meta-llama/Llama-3.3-70B-Instruct-Turbo`, `anthropic/claude-3.7-sonnet:thinking`)
whose model part is the id. Only tried where the id as written is not recognised, and only on what a model field
holds (a label, a configured model): never on bytes searched for ids, where a path is not a model.
"""

from __future__ import annotations

import re
import weakref
from typing import TYPE_CHECKING

from scanner.vocab import CatalogStatus

if TYPE_CHECKING:  # the catalog index imports nothing from here; only the callers do
    from scanner.catalog.index import Catalog, Identity

_DOT_VERSION = re.compile(r"(?<=\d)\.(?=\d)")
# An org slug as routers and hosts write it: lower-case words, at most two levels (`openrouter/qwen`).
_ORG = re.compile(r"^[a-z0-9][a-z0-9._\-]{0,40}(?:/[a-z0-9][a-z0-9._\-]{0,40})?/", re.IGNORECASE)
# A router's variant suffix: `:free`, `:thinking`, `:nitro`, `:beta`, `:extended`, `:online`, `:floor`.
_VARIANT = re.compile(r":(?:free|thinking|nitro|beta|extended|online|floor|exacto)$")


def spellings(name: str) -> list[str]:
    """Alternative spellings of `name` to try, most specific first (none when it has no other)."""
    out: list[str] = []
    bare = _VARIANT.sub("", name)
    slug = _ORG.match(bare)
    tail = bare[slug.end() :] if slug else bare
    for candidate in (bare, tail):
        for variant in (candidate, candidate.replace("_", "-"), _DOT_VERSION.sub("-", candidate.replace("_", "-"))):
            if variant and variant != name and variant not in out:
                out.append(variant)
    return out


_CACHE: weakref.WeakKeyDictionary[Catalog, dict[str, Identity]] = weakref.WeakKeyDictionary()


def identify_spelled(catalog: Catalog, name: str) -> Identity:
    """What the catalogs know of a model id as an agent or a router spells it: the id as written when they
    recognise it, else the first other spelling they recognise (a slug's route is not known from it alone)."""
    ident = catalog.identify(name)
    if ident.catalog != CatalogStatus.UNKNOWN or ident.served_via:
        return ident
    cache = _CACHE.setdefault(catalog, {})
    found = cache.get(name)
    if found is None:
        found = next(
            (i for i in map(catalog.identify, spellings(name)) if i.catalog != CatalogStatus.UNKNOWN), ident
        )
        if len(cache) < 100_000:
            cache[name] = found
    return found

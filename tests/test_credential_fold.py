"""A credential's entry does not depend on which detector saw it first: the pipeline's order of detectors is the
registry's, and any order gives one answer."""

from __future__ import annotations

import itertools

from scanner.catalog import Catalog
from scanner.kinds.base import FoldContext
from scanner.kinds.credentials import CredentialEntry, CredentialFold, credential_evidence
from scanner.model import Context, FileMeta, Location

# One key on line 3 of an agent's `.env` under ~/.config, as the env-file reader and an agent settings reader see
# it (the one as `env`, the other as `config`), and once more where a unit names the file (no file facts).
_SECRET = "sk-or-v1-" + "0123456789abcdef" * 4
_AT = "/home/carol/.config/mini-swe-agent/.env"
_SIGHTINGS = (
    credential_evidence(_SECRET, "api-key", "openrouter", "sk-or-v1-", Location(_AT, 3, Context.ENV),
                        FileMeta("0600", "carol:carol"), route="openrouter"),
    credential_evidence(_SECRET, "api-key", "openrouter", "sk-or-v1-", Location(_AT, 3, Context.CONFIG),
                        FileMeta("0600", "carol:carol")),
    credential_evidence(_SECRET, "env-secret", None, "", Location(_AT, 3, Context.CONFIG), None),
)


def _folded(catalog: Catalog, order: tuple[int, ...]) -> CredentialEntry:
    fold = CredentialFold(FoldContext(catalog))
    for i in order:
        fold.add(_SIGHTINGS[i])
    (entry,) = fold.build()
    return entry


def test_any_order_of_sightings_gives_one_entry(catalog: Catalog) -> None:
    entries = {_folded(catalog, order) for order in itertools.permutations(range(len(_SIGHTINGS)))}
    assert len(entries) == 1
    (entry,) = entries
    (place,) = entry.locations
    assert place.location.context is Context.ENV and (place.mode, place.owner) == ("0600", "carol:carol")
    assert entry.route == "openrouter" and entry.vendor == "openrouter"
    assert _SECRET not in repr(entry)


def test_sightings_that_name_a_key_equally_well_agree_in_any_order(catalog: Catalog) -> None:
    # The same public prefix, neither with a route or pair: the type and vendor decide, never which came first.
    at = Location(_AT, 3, Context.ENV)
    meta = FileMeta("0600", "carol:carol")
    both = (credential_evidence(_SECRET, "api-key", "openrouter", "sk-or-v1-", at, meta),
            credential_evidence(_SECRET, "token", "other", "sk-or-v1-", at, meta))
    named: set[tuple[str, str | None]] = set()
    for order in (both, both[::-1]):
        fold = CredentialFold(FoldContext(catalog))
        for ev in order:
            fold.add(ev)
        (entry,) = fold.build()
        named.add((entry.type, entry.vendor))
    assert len(named) == 1

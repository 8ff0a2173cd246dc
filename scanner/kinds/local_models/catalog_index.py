"""The local-models knowledge of all loaded catalogs, merged and queryable (`SECTION.of(catalog)`): the kind's
catalog section (`scanner.catalog.sections`)."""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass

from scanner.catalog.globs import glob_regex
from scanner.catalog.sections import CatalogSection
from scanner.formats import pickles
from scanner.formats.servercmd import CommandGrammar
from scanner.kinds.local_models.catalog_tables import (
    TABLES,
    LicenseTerms,
    LocalModelsData,
    StoreSpec,
    check_local_examples,
    parse_local,
)


@dataclass(frozen=True)
class StoreHit:
    """A path inside a model store: which store, its root (as the path spells it) and the rest."""

    spec: StoreSpec
    root: str
    relative: str


class LocalModels:
    def __init__(self, parts: Iterable[LocalModelsData]) -> None:
        parts = list(parts)
        self.servers: tuple[CommandGrammar, ...] = tuple(s.grammar for p in parts for s in p.servers)
        self.stores: tuple[StoreSpec, ...] = tuple(s for p in parts for s in p.stores)
        self.licenses: tuple[LicenseTerms, ...] = tuple(t for p in parts for t in p.licenses)
        self.safe_globals: tuple[str, ...] = tuple(g for p in parts for g in p.pickle_globals.safe)
        self.dangerous_globals: tuple[str, ...] = tuple(g for p in parts for g in p.pickle_globals.dangerous)
        self._architecture: dict[str, str] = {}
        for p in parts:
            for spec in p.architectures:
                for name in spec.names:
                    self._architecture.setdefault(name, spec.family)
        self._license: dict[str, LicenseTerms] = {}
        for terms in self.licenses:
            for name in (terms.id, *terms.names):
                self._license.setdefault(name, terms)
        self._license_text = [(t, re.compile(t.text)) for t in self.licenses if t.text]
        self._store_rx = [
            (spec, re.compile(f"(?P<root>{glob_regex(path).pattern})/(?P<rest>.+)"))
            for spec in self.stores
            for path in spec.paths
        ]

    def family_of_architecture(self, name: str) -> str | None:
        """The family an architecture name belongs to (`qwen3moe` -> qwen), or None."""
        return self._architecture.get(name.lower())

    def license(self, name: str) -> LicenseTerms | None:
        """The restricting terms of a license id as a card or a GGUF header writes it, or None."""
        return self._license.get(name.strip().lower())

    def license_of_text(self, text: str) -> LicenseTerms | None:
        """The restricting license whose full text this is (an Ollama license layer, a LICENSE file)."""
        return next((t for t, rx in self._license_text if rx.search(text[:8192])), None)

    def store_at(self, path: str) -> StoreHit | None:
        """The default-located store a file at this inside path belongs to, or None."""
        for spec, rx in self._store_rx:
            m = rx.fullmatch(path)
            if m is not None:
                return StoreHit(spec, m.group("root"), m.group("rest"))
        return None

    def store_roots(self, env: Mapping[str, str]) -> list[tuple[StoreSpec, str]]:
        """Store roots an environment moves elsewhere (`OLLAMA_MODELS=/data/ollama`, `HF_HOME=/srv/hf`)."""
        out = []
        for spec in self.stores:
            for entry in spec.env:
                var, _, sub = entry.partition("/")
                value = env.get(var)
                if value and value.startswith("/"):
                    out.append((spec, value.rstrip("/") + (f"/{sub}" if sub else "")))
        return out

    def unsafe_globals(self, imported: Iterable[str]) -> tuple[str, ...]:
        """The globals a pickle imports beyond the safe set."""
        return pickles.beyond(imported, self.safe_globals)

    def dangerous(self, imported: Iterable[str]) -> tuple[str, ...]:
        """The globals a pickle imports that are known to run code or reach the system."""
        names = tuple(imported)
        return tuple(g for g in names if g not in pickles.beyond((g,), self.dangerous_globals))


def _families(part: LocalModelsData) -> list[tuple[str, str]]:
    return [(f"architectures {arch.names[:1]}", arch.family) for arch in part.architectures]


SECTION: CatalogSection[LocalModelsData, LocalModels] = CatalogSection(
    "local_models", TABLES, parse_local, LocalModels, check_local_examples, _families
)

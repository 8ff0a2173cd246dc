"""A kind's own part of the catalog: tables only its kind reads, declared by the kind (`Kind.catalog`).

The catalog core knows the tables every kind shares (models, hosts, SDKs, credentials, …). A kind that needs
knowledge of its own declares a `CatalogSection`: the tables it owns, how one file's tables parse, how the parts of
every loaded file merge into what its detector asks (`section.of(catalog)`), and how a part is checked against its
own examples and against the catalog's families. The loader, the schema's table list and `catalogs validate` take
every declared section, so a kind adds its tables without an edit to the catalog's code.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Generic, TypeVar, cast

if TYPE_CHECKING:
    from scanner.catalog.index import Catalog

Part = TypeVar("Part")
Merged = TypeVar("Merged")


def _no_problems(origin: str, part: Any) -> list[str]:
    return []


def _no_families(part: Any) -> Iterable[tuple[str, str]]:
    return ()


@dataclass(frozen=True)
class CatalogSection(Generic[Part, Merged]):
    name: str  # the key of its part in a catalog file, and of its merged form in the catalog
    tables: frozenset[str]  # the TOML tables it owns
    parse: Callable[[dict[str, Any], str], Part]  # one file's document and origin; raises ValueError on a violation
    merge: Callable[[Sequence[Part]], Merged]  # every loaded file's part, in load order
    check_examples: Callable[[str, Part], list[str]] = _no_problems  # where an entry disagrees with its examples
    families: Callable[[Part], Iterable[tuple[str, str]]] = _no_families  # (what names it, family id) to resolve

    def of(self, catalog: Catalog) -> Merged:
        """This section's knowledge in `catalog`, merged over its files."""
        return cast(Merged, catalog.section(self))


def declared() -> tuple[CatalogSection[Any, Any], ...]:
    """Every kind's catalog section, in the kinds' order."""
    # Imported here, not above: the kinds import the catalog, which must load before them.
    from scanner.kinds import KINDS

    return tuple(k.catalog for k in KINDS if k.catalog is not None)

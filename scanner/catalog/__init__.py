"""What evidence is matched against: the catalogs (data in `catalogs/*.toml`) and their one matcher."""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path

from scanner.catalog.index import Catalog, Identity
from scanner.catalog.loader import load_catalogs
from scanner.catalog.specs import CatalogError

__all__ = ["Catalog", "CatalogError", "Identity", "load"]


def load(extra: Iterable[Path] = ()) -> Catalog:
    """The built-in catalogs plus the user's (`--catalog`), as one knowledge base."""
    return Catalog(load_catalogs(extra))

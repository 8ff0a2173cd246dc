"""An inventory JSON document back into the typed model: the inverse of `document.to_document`.

The document is validated against the shipped schema before anything is built from it, so a foreign or
hand-edited file fails with one clear message (`InventoryLoadError`) and never with a KeyError deep inside.
"""

from __future__ import annotations

import json
from functools import cache
from pathlib import Path
from typing import TYPE_CHECKING, Any

from scanner.inventory.codec import decode, decoder_of
from scanner.inventory.document import SCHEMA_ID, load_schema
from scanner.inventory.validate import Check, compile_schema
from scanner.kinds import KINDS, Inventory
from scanner.model import CatalogRef, Stats, TargetInfo

if TYPE_CHECKING:
    import jsonschema

# An inventory file is small next to a VM, but a wrong argument (a disk image) must not be read whole.
MAX_DOCUMENT_BYTES = 256 << 20


class InventoryLoadError(ValueError):
    """The file is not a readable `modelcensus/inventory@1` document; the message says why."""


@cache
def _validator() -> jsonschema.Draft202012Validator:
    # Imported here: jsonschema's import costs seconds, and only a document that fails the fast check needs it.
    import jsonschema

    return jsonschema.Draft202012Validator(load_schema())


@cache
def _valid() -> Check:
    return compile_schema(load_schema())


def load_file(path: Path) -> Inventory:
    try:
        size = path.stat().st_size
        if size > MAX_DOCUMENT_BYTES:
            raise InventoryLoadError(f"{path}: {size} bytes is too large for an inventory document")
        with path.open("rb") as fh:
            data = json.loads(fh.read(MAX_DOCUMENT_BYTES + 1))
    except OSError as exc:
        raise InventoryLoadError(f"{path}: cannot read: {exc.strerror or exc}") from None
    except (ValueError, RecursionError) as exc:  # UnicodeDecodeError and JSONDecodeError are ValueErrors
        raise InventoryLoadError(f"{path}: not JSON ({type(exc).__name__})") from None
    try:
        return from_document(data)
    except InventoryLoadError as exc:
        raise InventoryLoadError(f"{path}: {exc}") from None


def from_document(doc: Any) -> Inventory:
    if not isinstance(doc, dict) or doc.get("schema") != SCHEMA_ID:
        found = doc.get("schema") if isinstance(doc, dict) else type(doc).__name__
        raise InventoryLoadError(f"not a modelcensus inventory (schema {found!r}, expected {SCHEMA_ID!r})")
    if not _valid()(doc):
        raise InventoryLoadError(_schema_error(doc))
    return _build(doc)


def _schema_error(doc: Any) -> str:
    """What jsonschema says is wrong: the contract's own words, asked for only when the fast check says no."""
    from jsonschema.exceptions import best_match

    error = best_match(_validator().iter_errors(doc))
    if error is None:  # the fast check and jsonschema disagree: a bug here, not in the document
        return f"does not match {SCHEMA_ID} (the fast schema check and jsonschema disagree)"
    where = "/".join(str(p) for p in error.absolute_path) or "(document)"
    return f"does not match {SCHEMA_ID} at {where}: {error.message[:200]}"


def _build(doc: dict[str, Any]) -> Inventory:
    sections: dict[str, Any] = {}
    absent: set[str] = set()
    for kind in KINDS:
        if kind.key in doc:
            item = decoder_of(kind.entry)
            sections[kind.key] = tuple(item(x) for x in doc[kind.key])
        elif not kind.optional:  # an optional section (processes) is None when absent: its own "not inspected"
            absent.add(kind.key)
    return Inventory(
        tool_version=doc["tool"]["version"],
        catalogs=decode(tuple[CatalogRef, ...], doc["catalogs"]),
        target=decode(TargetInfo, doc["target"]),
        stats=decode(Stats, doc["stats"]),
        absent=frozenset(absent),
        **sections,
    )

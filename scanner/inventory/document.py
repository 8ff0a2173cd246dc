"""The inventory as a JSON document: the contract other tools and later commands build on.

`to_document` is the only place the shape is written, from the kinds' declarations (`scanner/kinds/`) by the one
encoder (`codec.py`); the schema (assembled from the kinds' blocks by `json_schema.py`, written out as
`schema.json`) describes the same shape and every test validates against it.
Output is sorted and stable; only `stats` varies between runs. A section not inspected is absent, not empty.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

from scanner.inventory.codec import encode, encoder_of
from scanner.inventory.json_schema import inventory_schema
from scanner.kinds import KINDS, Inventory
from scanner.kinds.agents import AgentEntry
from scanner.kinds.sessions import SessionEntry

SCHEMA_ID = "modelcensus/inventory@1"


def session_document(s: SessionEntry) -> dict[str, Any]:
    """One session as the inventory JSON writes it."""
    out: dict[str, Any] = encode(s)
    return out


def agent_document(a: AgentEntry) -> dict[str, Any]:
    """One agent product as the inventory JSON writes it (the `agents` section)."""
    out: dict[str, Any] = encode(a)
    return out


def to_document(inv: Inventory) -> dict[str, Any]:
    doc = head_document(inv)
    for key, entries in entry_sections(inv):
        doc[key] = list(entries)
    return doc


def head_document(inv: Inventory) -> dict[str, Any]:
    """The document's keys before its kinds' sections."""
    return {
        "schema": SCHEMA_ID,
        "tool": {"name": "modelcensus", "version": inv.tool_version},
        "catalogs": encode(inv.catalogs),
        "target": encode(inv.target),
        "stats": encode(inv.stats),
    }


def entry_sections(inv: Inventory) -> Iterator[tuple[str, Iterator[dict[str, Any]]]]:
    """Each kind's section that the scan inspected, in order: its key and its entries, each encoded when it is
    reached. A writer that streams holds one entry's document at a time, not every one of a large scan's."""
    for kind in KINDS:
        entries = kind.entries(inv)
        if entries is not None:
            item = encoder_of(kind.entry)
            yield kind.key, (item(x) for x in entries)


def dumps(inv: Inventory) -> str:
    # ensure_ascii: a control or bidi character from a hostile file name never reaches a terminal raw.
    return json.dumps(to_document(inv), indent=2, ensure_ascii=True) + "\n"


def load_schema() -> dict[str, Any]:
    return inventory_schema()

"""The inventory as JSON (the `modelcensus/inventory@1` contract)."""

from __future__ import annotations

from scanner.inventory.document import dumps
from scanner.model import Inventory

description = "the full inventory as JSON (schema modelcensus/inventory@1)"


def render(inv: Inventory) -> str:
    return dumps(inv)

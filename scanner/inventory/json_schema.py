"""The inventory's JSON Schema, assembled from its frame (the document's header, a location, a live host) and
each kind's own block (`scanner/kinds/schema/<key>.json`: its section and the `$defs` it refers to).

`schema.json` beside this module is the assembled schema written out for other tools; a test checks the two are
equal, and `pytest --update-golden` rewrites it.
"""

from __future__ import annotations

import json
from functools import cache
from importlib import resources
from typing import Any

from scanner.kinds import KINDS


def _read(package: str, name: str) -> dict[str, Any]:
    data: dict[str, Any] = json.loads(resources.files(package).joinpath(name).read_text(encoding="utf-8"))
    return data


def _listed(keys: list[str]) -> str:
    return keys[0] if len(keys) == 1 else ", ".join(keys[:-1]) + " and " + keys[-1]


@cache
def _assembled() -> str:
    schema = _read("scanner.inventory", "schema_frame.json")
    optional = [k.key for k in KINDS if k.optional]
    walked = [k.key for k in KINDS if k.walked]
    described = {
        "description": f"A section not inspected is absent, not empty: {_listed(optional)} outside a live audit; "
        f"{_listed(walked)} in an audit that walked no files (`audit --live-only`)."
    }
    head = {k: schema[k] for k in ("$schema", "$id", "title")}
    schema = {**head, **described, **{k: v for k, v in schema.items() if k not in head}}
    for kind in KINDS:
        block = _read("scanner.kinds", f"schema/{kind.key}.json")
        schema["properties"][kind.key] = block["section"]
        schema["$defs"].update(block.get("defs", {}))
        if not (kind.optional or kind.walked):  # a section every document has
            schema["required"].append(kind.key)
    return json.dumps(schema, indent=2, ensure_ascii=False) + "\n"


def inventory_schema() -> dict[str, Any]:
    """The schema, as a fresh dict (callers may keep or change theirs)."""
    data: dict[str, Any] = json.loads(_assembled())
    return data


def schema_text() -> str:
    """The schema as `schema.json` holds it."""
    return _assembled()

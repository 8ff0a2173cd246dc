"""Cargo-auditable dependency data: the zlib-compressed JSON a Rust binary carries in `.dep-v0`."""

from __future__ import annotations

import json
import zlib

from scanner.formats.elf import section

_MAX_JSON = 8 << 20


def crates(data: bytes) -> list[tuple[str, str]]:
    """(name, version) of every crate the binary was built from; empty when it carries no such data."""
    blob = section(data, ".dep-v0")
    if not blob:
        return []
    try:
        inflater = zlib.decompressobj()
        text = inflater.decompress(blob, _MAX_JSON)
        doc = json.loads(text)
    except (zlib.error, ValueError, RecursionError):
        return []
    packages = doc.get("packages") if isinstance(doc, dict) else None
    if not isinstance(packages, list):
        return []
    return sorted(
        {
            (p["name"], p["version"])
            for p in packages
            if isinstance(p, dict) and isinstance(p.get("name"), str) and isinstance(p.get("version"), str)
        }
    )

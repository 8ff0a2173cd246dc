"""Cargo-auditable dependency data: the zlib-compressed JSON a Rust binary carries in `.dep-v0`."""

from __future__ import annotations

import json

from scanner.formats import deflate
from scanner.formats.elf import ReadAt, section, section_at

SECTION = ".dep-v0"
_MAX_JSON = 8 << 20
MAX_SECTION = 8 << 20  # compressed; real ones are a few KiB


def crates(data: bytes) -> list[tuple[str, str]]:
    """(name, version) of every crate the binary was built from; empty when it carries no such data."""
    return crates_of(section(data, SECTION))


def crates_at(read: ReadAt, file_size: int) -> list[tuple[str, str]]:
    """The same for a binary too large to hold: its section is found and read positionally, bounded."""
    return crates_of(section_at(read, file_size, SECTION, MAX_SECTION))


def crates_of(blob: bytes | None) -> list[tuple[str, str]]:
    """(name, version) of every crate in the bytes of a `.dep-v0` section."""
    if not blob:
        return []
    try:
        inflater = deflate.decompressobj()
        text = inflater.decompress(blob, _MAX_JSON)
        doc = json.loads(text)
    except (deflate.error, ValueError, RecursionError):
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

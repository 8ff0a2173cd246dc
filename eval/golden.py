"""The golden check of `make eval`: every corpus's JSON inventory (and each release pair's diff) byte for byte
against a saved run, apart from the one top-level `stats` block (times and counts of the run itself).

    make eval EVAL_ARGS="--golden-save /tmp/golden"    # before a change that must not change the output
    make eval EVAL_ARGS="--golden /tmp/golden"         # after it: a difference names its sections and exits 1
"""

from __future__ import annotations

import json
import re
from pathlib import Path

# The document is written by json with indent=2: `stats` is one top-level object of scalars.
_STATS = re.compile(r'^  "stats": \{\n(?:    [^\n]*\n)*?  \},\n', re.M)


def stripped(path: Path) -> bytes:
    """The document without its `stats` block; a diff document as it is."""
    return _STATS.sub("", path.read_text(encoding="utf-8"), count=1).encode("utf-8")


def save(outputs: dict[str, Path], into: Path) -> None:
    into.mkdir(parents=True, exist_ok=True)
    for name, path in outputs.items():
        (into / f"{name}.json").write_bytes(stripped(path))
    print(f"\ngolden: saved {len(outputs)} output(s) in {into}")


def check(outputs: dict[str, Path], against: Path) -> list[str]:
    """The names whose output differs from the saved one (or has none saved), each with what differs."""
    differ = []
    for name, path in outputs.items():
        saved = against / f"{name}.json"
        now = stripped(path)
        if not saved.exists():
            differ.append(f"{name}: nothing saved in {against}")
        elif saved.read_bytes() != now:
            differ.append(f"{name}: {_sections(saved.read_bytes(), now)}")
    for line in differ or [f"all {len(outputs)} output(s) byte-identical to {against} (stats apart)"]:
        print(f"golden: {line}")
    return differ


def _sections(old: bytes, new: bytes) -> str:
    a, b = json.loads(old), json.loads(new)
    if not (isinstance(a, dict) and isinstance(b, dict)):
        return "differs"
    keys = [k for k in dict.fromkeys([*a, *b]) if a.get(k) != b.get(k)]
    def count(doc: dict[str, object], key: str) -> str:
        value = doc.get(key)
        return str(len(value)) if isinstance(value, list) else "-"

    counts = ", ".join(f"{k} ({count(a, k)} -> {count(b, k)})" for k in keys)
    return f"sections differ: {counts or 'key order or spacing'}"

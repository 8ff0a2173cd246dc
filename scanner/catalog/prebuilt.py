"""Search rules compiled ahead of the scan, when the install built them (`make`, scripts/build_rules.py).

YARA-X compiles the shipped catalogs' ~200 patterns in ~0.4 s of CPU (it generates native code for their
conditions): a start-up every scan paid before its first file, a fifth of a scan of a small tree. The compiled
form loads in ~20 ms. A compiled set is named by the hash of the exact rule source and the installed YARA-X, so
an edited or added catalog compiles as before; one that does not load (another machine's, a cut file) is
passed over. Like the compiled session modules (`scanner/native.py`), these files are built in place and never
committed; `MODELCENSUS_PURE=1` leaves them unread (every rule compiled at start-up).
"""

from __future__ import annotations

import hashlib
import os
import sys
from functools import cache
from pathlib import Path

import yara_x

RULES_DIR = Path(__file__).resolve().parent.parent / "_rules"
SUFFIX = ".yarc"


@cache
def _engine() -> str:
    """The installed engine, by its extension file's size and time (importlib.metadata costs 30 ms to import)."""
    module = sys.modules.get("yara_x.yara_x") or yara_x
    try:
        st = os.stat(str(module.__file__))
    except (OSError, TypeError):
        return "unknown"
    return f"{st.st_size}:{st.st_mtime_ns}"


def path_for(source: str) -> Path:
    """Where the rules compiled from `source` are kept."""
    digest = hashlib.sha256(f"yara-x {_engine()}\0{source}".encode()).hexdigest()
    return RULES_DIR / f"{digest}{SUFFIX}"


def load(source: str) -> yara_x.Rules | None:
    """The rules compiled ahead from exactly `source`, or None when there are none to load."""
    if os.environ.get("MODELCENSUS_PURE"):
        return None
    try:
        with open(path_for(source), "rb") as f:
            return yara_x.Rules.deserialize_from(f)
    except Exception:  # absent, unreadable, or another engine's or machine's: compiled as before
        return None


def save(source: str, rules: yara_x.Rules) -> Path:
    """Keep compiled rules for later scans (the install's build step; a scan never writes)."""
    RULES_DIR.mkdir(exist_ok=True)
    path = path_for(source)
    part = path.with_suffix(".part")
    with open(part, "wb") as f:
        rules.serialize_into(f)
    part.replace(path)
    return path

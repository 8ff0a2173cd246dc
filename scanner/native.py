"""Which session modules run compiled (mypyc), and the guard that keeps a stale or unwanted build from running.

The per-record session read (the shape walk, the fingerprint match, the read loop, the adapters, the session
tally) is pure Python that mypyc compiles to C extensions beside the sources (`make native`,
scripts/build_native.py): /home of the perf tree in ~0.64x the CPU seconds. Without a C compiler or mypyc the
same modules run as Python. An extension shadows its `.py` on import, so the build records a hash of each
source it compiled; when a source no longer matches (an edit, a checkout) or MODELCENSUS_PURE=1 is set, the
sources are imported instead, every one of them: compiled modules call each other directly.
"""

from __future__ import annotations

import hashlib
import importlib.machinery
import importlib.util
import json
import os
import sys
from collections.abc import Sequence
from importlib.machinery import ModuleSpec
from pathlib import Path
from types import ModuleType

PACKAGE = Path(__file__).resolve().parent
MANIFEST = PACKAGE / "_native.json"  # written by the build: {module: sha256 of its source}
# The modules compiled, by their share of the session read's CPU (scripts/build_native.py builds these).
COMPILED = tuple(f"scanner.sessions.{name}" for name in (
    "shape", "keys", "reasoning", "fingerprints", "collect", "reader", "attribution", "provider_tally", "pick",
    "fernet", "budget", "adapters.base", "adapters.claude_code", "adapters.codex", "adapters.generic",
    "adapters.cline", "adapters.gemini_cli", "adapters.litellm", "adapters.pi", "adapters.raw_api",
))


def source_of(module: str) -> Path:
    return PACKAGE.parent / (module.replace(".", "/") + ".py")


def digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def _extensions() -> list[str]:
    """The compiled modules whose extension sits beside their source."""
    suffixes = importlib.machinery.EXTENSION_SUFFIXES
    out = []
    for module in COMPILED:
        source = source_of(module)
        stem = source.with_suffix("")
        if any(Path(f"{stem}{suffix}").is_file() for suffix in suffixes):
            out.append(module)
    return out


def _fresh(present: list[str]) -> bool:
    """Whether every extension present was built from the source beside it."""
    try:
        built = json.loads(MANIFEST.read_text())
        return all(built.get(m) == digest(source_of(m)) for m in present)
    except (OSError, ValueError, AttributeError):
        return False


class _Sources:
    """A meta path finder that imports the compiled modules from their `.py` files."""

    def find_spec(self, name: str, path: Sequence[str] | None = None,
                  target: ModuleType | None = None) -> ModuleSpec | None:
        if name not in COMPILED:
            return None
        return importlib.util.spec_from_file_location(name, source_of(name))


_STATE: list[str] = []  # "compiled", "pure", "pure (forced)", "pure (stale build)": decided once


def guard() -> str:
    """Decide, once a process, whether the compiled modules may load; install the source finder if not."""
    if not _STATE:
        present = _extensions()
        if not present:
            state = "pure"
        elif os.environ.get("MODELCENSUS_PURE"):
            state = "pure (forced)"
        elif not _fresh(present):
            state = "pure (stale build)"
        else:
            state = "compiled"
        if state != "compiled" and present:
            sys.meta_path.insert(0, _Sources())
        _STATE.append(state)
    return _STATE[0]


def build() -> str:
    """What runs, for `modelcensus version` and the benches: `compiled (mypyc, 20 session modules)`, or `pure ...`."""
    state = guard()
    if state != "compiled":
        return f"pure Python{state[4:]}"
    import scanner.sessions.shape as shape  # the module that shows which build loaded

    if (shape.__file__ or "").endswith(".py"):
        return "pure Python"
    return f"compiled (mypyc, {len(_extensions())} session modules)"

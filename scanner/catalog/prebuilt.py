"""The shipped catalogs parsed, and their search rules compiled, ahead of the scan, when the install built them
(`make`, scripts/build_rules.py).

Every scan paid both before its first file: YARA-X compiles the catalogs' ~200 patterns in ~0.4 s of CPU (it
generates native code for their conditions), and reading the 26 TOML files into checked specs takes ~0.3 s;
together a third of a scan of a small tree. Kept, they load in ~20 and ~10 ms. A compiled rule set is named by
the hash of its exact source and the installed YARA-X; the parsed catalogs by the hash of the catalog files'
bytes and of the source of every module their parse ran (recorded when they were kept), so an edited catalog,
an edited parser or an added catalog is read as before, and a file that does not load is passed over. They sit
in the package's own directory, as trusted as the code beside them (the parsed catalogs are a pickle, loaded
from there alone). Like the compiled session modules (`scanner/native.py`), they are built in place and never
committed; `MODELCENSUS_PURE=1` leaves them unread.
"""

from __future__ import annotations

import hashlib
import os
import pickle
import sys
from collections.abc import Callable, Sequence
from functools import cache
from pathlib import Path
from typing import TypeVar

import yara_x

from scanner.native import PACKAGE, digest

T = TypeVar("T")

RULES_DIR = PACKAGE / "_rules"
SUFFIX = ".yarc"
PARSED = "catalogs.pickle"  # the shipped catalogs parsed, with what they were parsed from and by


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


def rules_for(source: str) -> yara_x.Rules | None:
    """The rules compiled ahead from exactly `source`, or None when there are none to load."""
    if os.environ.get("MODELCENSUS_PURE"):
        return None
    try:
        with open(path_for(source), "rb") as f:
            return yara_x.Rules.deserialize_from(f)
    except Exception:  # absent, unreadable, or another engine's or machine's: compiled as before
        return None


def keep_rules(source: str, rules: yara_x.Rules) -> Path:
    """Keep compiled rules for later scans (the install's build step; a scan never writes)."""
    RULES_DIR.mkdir(exist_ok=True)
    path = path_for(source)
    part = path.with_suffix(".part")
    with open(part, "wb") as f:
        rules.serialize_into(f)
    part.replace(path)
    return path


def _digest(paths: Sequence[Path]) -> str:
    """One digest of several files: each one's name and its own digest."""
    return hashlib.sha256("\n".join(f"{path.name} {digest(path)}" for path in paths).encode()).hexdigest()


def _module_files(modules: Sequence[str]) -> list[Path]:
    return [PACKAGE / name for name in modules]


def parsed(catalogs: Sequence[Path]) -> object | None:
    """What `keep_parsed` kept for exactly these catalog files parsed by exactly this code, or None."""
    if os.environ.get("MODELCENSUS_PURE"):
        return None
    try:
        with open(RULES_DIR / PARSED, "rb") as f:
            made: dict[str, object] = pickle.load(f)  # what it was made from and by: plain strings
            modules = made["modules"]
            if not isinstance(modules, list) or made["catalogs"] != _digest(catalogs):
                return None
            if made["code"] != _digest(_module_files(modules)):
                return None
            value: object = pickle.load(f)
            return value
    except Exception:  # absent, cut, or made by other code: parsed as before
        return None


def keep_parsed(catalogs: Sequence[Path], parse: Callable[[], T]) -> T:
    """`parse()`'s result, kept for later scans with the catalogs' digest and the source of every module of this
    package loaded once it has run (the install's build step, in a process that loaded little else)."""
    value = parse()
    loaded = (Path(str(getattr(module, "__file__", None) or "")).resolve() for module in list(sys.modules.values()))
    modules = sorted(str(path.relative_to(PACKAGE)) for path in loaded
                     if path.suffix == ".py" and path.is_relative_to(PACKAGE))
    made = {"catalogs": _digest(catalogs), "modules": modules, "code": _digest(_module_files(modules))}
    RULES_DIR.mkdir(exist_ok=True)
    part = RULES_DIR / (PARSED + ".part")
    with open(part, "wb") as f:
        pickle.dump(made, f, pickle.HIGHEST_PROTOCOL)
        pickle.dump(value, f, pickle.HIGHEST_PROTOCOL)
    part.replace(RULES_DIR / PARSED)
    return value

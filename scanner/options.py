"""Settings of one scan, passed explicitly (never global)."""

from __future__ import annotations

import os
from dataclasses import dataclass

DEFAULT_MAX_FILE_SIZE = 64 << 20
# Past --max-file-size a file is still matched end to end, in windows of this size that overlap by
# WINDOW_OVERLAP bytes; the catalog's longest match must fit in the overlap (tests/test_windows.py checks it).
WINDOW_SIZE = 8 << 20
WINDOW_OVERLAP = 64 << 10


@dataclass(frozen=True)
class ScanOptions:
    max_file_size: int = DEFAULT_MAX_FILE_SIZE
    include_pseudo: bool = False
    one_file_system: bool = False
    progress: bool = False
    window_size: int = WINDOW_SIZE
    window_overlap: int = WINDOW_OVERLAP
    jobs: int = 1  # processes for the per-file work; the command line defaults to the usable cores
    turned_off: frozenset[str] = frozenset()  # detectors' settings turned off (`--no-hash-weights`: `hash-weights`)


def usable_cores() -> int:
    """The cores this process may run on (its affinity), at least one."""
    return max(1, len(os.sched_getaffinity(0))) if hasattr(os, "sched_getaffinity") else (os.cpu_count() or 1)

"""Settings of one scan, passed explicitly (never global)."""

from __future__ import annotations

from dataclasses import dataclass

DEFAULT_MAX_FILE_SIZE = 64 << 20


@dataclass(frozen=True)
class ScanOptions:
    max_file_size: int = DEFAULT_MAX_FILE_SIZE
    include_pseudo: bool = False
    one_file_system: bool = False
    progress: bool = False
    jobs: int = 1  # processes for the per-file work; the command line defaults to the usable cores

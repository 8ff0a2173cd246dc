"""The detector contract: what a detector declares, and what it hands back to the pipeline.

A detector says which files it wants (`wants`, cheap: path, size, context) and extracts evidence from the
`FileView` of each (`scanner.fileview.view`), the one view of a file every detector shares.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from enum import Enum
from typing import Protocol

from scanner.fileview.view import FileView
from scanner.kinds import Evidence
from scanner.model import Context, Skip


class Reading(Enum):
    """How a detector reads a file larger than --max-file-size (what the pipeline asks of it, by value)."""

    WHOLE = "whole"  # parses from the head, up to --max-file-size (most detectors)
    WINDOWS = "windows"  # parses from the head and is run again on every later window, which it respects
    MATCH_ONLY = "match"  # only matches patterns: any window will do, the head too; also runs on `Derived` bytes
    POSITIONAL = "positional"  # reads what it needs in place (`Window.read`): the head may be one window


@dataclass(frozen=True)
class Derived:
    """Bytes a detector decoded from its file (inflated gzip, a binary's UTF-16 strings), handed back to the
    pipeline: every `MATCH_ONLY` detector matches them as the file's own, in `context`, where they were yielded."""

    data: bytes
    context: Context
    cut_label: str | None  # what a cap's cut of their matches is recorded as (None: not recorded)


class Detector(Protocol):
    name: str
    description: str
    # How it reads a big file (see `Reading`): WINDOWS and MATCH_ONLY ones are run again on each later window
    # of a file past --max-file-size (a view with `window` set), which they must respect; for a file only
    # MATCH_ONLY and POSITIONAL ones want, its head is one window (a 60 MB jar is its zip directory and a few
    # members).
    reading: Reading

    def wants(self, view: FileView) -> bool: ...

    # Evidence, skips, and bytes it decoded for the pattern matchers (`Derived`); never another detector's work.
    def extract(self, view: FileView) -> Iterable[Evidence | Skip | Derived]: ...

"""How wide and how colourful text output may be, from where it goes and the usual variables.

Width: `COLUMNS` when set (a script asking for a width), else the terminal's when stdout is one; output piped or
written to a file is not cut at all (the reader's tools decide). Colour: never into a file; `NO_COLOR` (any value)
turns it off; `FORCE_COLOR` (any value but `0`) turns it on when stdout is not a terminal; else on a terminal only.
"""

from __future__ import annotations

import os
import shutil
import sys
from dataclasses import dataclass
from pathlib import Path

MIN_WIDTH = 40


@dataclass(frozen=True)
class Terminal:
    width: int | None  # None: no limit
    colour: bool


def _columns() -> int | None:
    try:
        value = int(os.environ.get("COLUMNS", ""))
    except ValueError:
        return None
    return value if value > 0 else None


def colour_wanted(tty: bool) -> bool:
    if os.environ.get("NO_COLOR"):
        return False
    force = os.environ.get("FORCE_COLOR")
    if force is not None and force != "":
        return force != "0"
    return tty


def terminal_for(destination: Path | None) -> Terminal:
    """The terminal a report written to `destination` (None: stdout) is read on."""
    if destination is not None:
        return Terminal(None, False)
    tty = sys.stdout.isatty()
    width = _columns()
    if width is None and tty:
        width = shutil.get_terminal_size((80, 24)).columns
    return Terminal(max(MIN_WIDTH, width) if width else None, colour_wanted(tty))


"""What every config format reader gives: items of (key path, value, line), the failure values, a work budget
per file, and the one offset-to-line map.

Each reader (`json_items`, `toml_items`, `yaml_items`, `line_items`, `loose_items`, `hcl_items`) takes text and
returns `ConfigItem`s, raises `ParseFailure` when the text is not in its format, or `BudgetExceeded` (with what
it read so far) when the file holds more than `MAX_ITEMS` nodes. Every reader is linear in the size of its input:
no regex here can backtrack over a run of the same character, and line numbers come from one offset-to-line map
per file (`LineMap`), never from searching the text again for a value.
"""

from __future__ import annotations

import re
import sys
from bisect import bisect_right
from dataclasses import dataclass
from itertools import accumulate
from typing import Any

if sys.version_info >= (3, 11):
    pass
else:  # pragma: no cover
    pass

# The work budget of one file, in nodes visited (values, containers, nulls, assignments). YAML aliases can
# make a small file a huge tree ("billion laughs"); a 4 MiB config has far fewer nodes than this.
MAX_ITEMS = 100_000



@dataclass(frozen=True)
class ConfigItem:
    path: tuple[str, ...]  # keys from the root; list positions are "[N]"
    value: str
    line: int | None
    comment: str | None = None  # the comment block right above (env files, INI, systemd)
    env: bool = False  # an environment assignment (env file, systemd Environment=)


class ParseFailure(Exception):
    pass


class BudgetExceeded(Exception):
    """The file has more nodes than a parser may visit; `items` is what was read before the cut."""

    def __init__(self, detail: str, items: list[ConfigItem]) -> None:
        super().__init__(detail)
        self.detail = detail
        self.items = items


class Budget:
    def __init__(self, items: list[ConfigItem], limit: int = MAX_ITEMS) -> None:
        self.left = limit
        self.items = items

    def spend(self, what: str) -> None:
        self.left -= 1
        if self.left < 0:
            raise BudgetExceeded(f"more than {MAX_ITEMS} {what}; read up to the cut", self.items)


class LineMap:
    """1-based line of any offset of one text, built in one pass; lines end at `\\n`."""

    def __init__(self, text: str) -> None:
        self._starts = list(accumulate((len(part) + 1 for part in text.split("\n")[:-1]), initial=0))

    def line(self, offset: int) -> int:
        return bisect_right(self._starts, offset)


def first_line(text: str, needle: str) -> int | None:
    """The 1-based line where `needle` first occurs in `text`, or None. One search: for a few names a file is
    asked about (a catalog's pins), not for every value of it (that is `LineMap`'s job)."""
    pos = text.find(needle)
    return text.count("\n", 0, pos) + 1 if pos != -1 else None



# Possessive quantifiers (Python 3.11+) keep no backtracking state; 3.10 gets the same patterns without.
_POSSESSIVE = "+" if sys.version_info >= (3, 11) else ""


def linear(pattern: str, flags: int = 0) -> re.Pattern[str]:
    """`~` in `pattern` marks a quantifier that may be possessive."""
    return re.compile(pattern.replace("~", _POSSESSIVE), flags)


def scalar(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)



"""One pattern that fully matches whatever any of several patterns fully matches, asked before a loop over them:
most ids a scan asks about are named by none of the catalog's 70 hosted forms, and fully matching each in turn
was 2.6% of a scan of /opt (the union is a tenth of the cost).

The union is never narrower than the patterns: where one of them cannot be joined as written (a back-reference,
a condition on a group, flags of its own), it matches everything, and the loop decides alone as before.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

# A group's name, made plain: a name may recur from pattern to pattern (`model`), which one pattern cannot hold.
_NAMED = re.compile(r"(?<!\\)\(\?P<\w+>")
# What refers to a group by name or number: joined, the reference would not mean what it meant alone.
_REFERS = re.compile(r"\(\?P=|\(\?\(|\\[1-9]")
EVERYTHING = re.compile(r"(?s:.*)")


def any_of(patterns: Sequence[re.Pattern[str]]) -> re.Pattern[str]:
    """The union of `patterns` for `fullmatch`, or EVERYTHING when they cannot be joined exactly."""
    if not patterns or len({p.flags for p in patterns}) != 1 or any(_REFERS.search(p.pattern) for p in patterns):
        return EVERYTHING
    try:
        return re.compile("|".join(f"(?:{_NAMED.sub('(?:', p.pattern)})" for p in patterns), patterns[0].flags)
    except re.error:
        return EVERYTHING

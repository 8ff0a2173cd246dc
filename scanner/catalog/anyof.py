"""The first of several patterns to fully match a text, found by one match of their union: most ids a scan asks
about are named by none of the catalog's 70 hosted forms, and fully matching each in turn was 2.6% of a scan of
/opt (the union is a tenth of the cost; a text one of them names is matched by that one again, for its groups).

A union's alternatives are tried in order, so the one that matches is the first pattern that does. Patterns that
cannot be joined as written (a back-reference, a condition on a group, flags other than ignoring case) are tried
in turn.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

# A group's name, made plain: a name may recur from pattern to pattern (`model`), which one pattern cannot hold.
_NAMED = re.compile(r"(?<!\\)\(\?P<\w+>")
# What refers to a group by name or number: joined, the reference would not mean what it meant alone.
_REFERS = re.compile(r"\(\?P=|\(\?\(|\\[1-9]")


class FirstOf:
    def __init__(self, patterns: Sequence[re.Pattern[str]]) -> None:
        self.patterns = tuple(patterns)
        self.union = _union(self.patterns)  # None: they are tried in turn

    def match(self, text: str) -> tuple[int, re.Match[str]] | None:
        """(index, its full match) of the first pattern that fully matches `text`; None when none does."""
        if self.union is not None:
            found = self.union.fullmatch(text)
            if found is None:
                return None
            at = int(str(found.lastgroup)[1:])  # the alternative's own group closes last: `_<index>`
            matched = self.patterns[at].fullmatch(text)
            if matched is not None:
                return at, matched
        return next(((at, m) for at, p in enumerate(self.patterns) if (m := p.fullmatch(text))), None)


def _union(patterns: Sequence[re.Pattern[str]]) -> re.Pattern[str] | None:
    # A pattern compiled to ignore case (by a leading `(?i)` or not) does so in its own alternative (`(?i:…)`);
    # any other flag of its own keeps them apart.
    if not patterns or any(p.flags & ~re.IGNORECASE != re.UNICODE or _REFERS.search(p.pattern) for p in patterns):
        return None
    alternatives = (
        f"(?P<_{at}>(?i:{_NAMED.sub('(?:', p.pattern.removeprefix('(?i)'))}))"
        if p.flags & re.IGNORECASE
        else f"(?P<_{at}>(?:{_NAMED.sub('(?:', p.pattern)}))"
        for at, p in enumerate(patterns)
    )
    try:
        return re.compile("|".join(alternatives))
    except re.error:
        return None

"""The longest text a catalog pattern can match, read from the pattern itself.

A model family's grammar says how long its ids can be: `\\bclaude-(?:opus|sonnet)-\\d{1,2}\\b` names nothing longer
than 16 characters, so a 32 KB run that the search engine still matched is no id. This reads Python regex syntax
for that one figure, without the standard library's private parser: literals, escapes, classes, groups of any
kind (lookarounds and flags are zero-width), alternation and every quantifier. Syntax it does not know (a
backreference) gives no bound rather than a wrong one.
"""

from __future__ import annotations

import re

_ZERO_WIDTH_ESCAPES = frozenset("bBAZ")
_HEX = {"x": 2, "u": 4, "U": 8}
_QUANTIFIER = re.compile(r"\{(\d*)(?:(,)(\d*))?\}")


class _Unknown(Exception):
    """Syntax this reader does not measure."""


def longest(pattern: str) -> int | None:
    """Characters in the longest match of `pattern`; None when it has no bound (a `*`, `+` or `{n,}` on something
    that matches text) or uses syntax not read here."""
    try:
        width, end = _alternation(pattern, 0)
    except (_Unknown, IndexError, ValueError):
        return None
    return width if end == len(pattern) else None


def _alternation(p: str, i: int) -> tuple[int | None, int]:
    """The widest branch of `a|b|…` from `i` to its closing `)` (or the end); (width, index of the stop)."""
    widest: int | None = 0
    while True:
        width, i = _sequence(p, i)
        widest = None if widest is None or width is None else max(widest, width)
        if i < len(p) and p[i] == "|":
            i += 1
            continue
        return widest, i


def _sequence(p: str, i: int) -> tuple[int | None, int]:
    total: int | None = 0
    while i < len(p) and p[i] not in "|)":
        width, i = _atom(p, i)
        width, i = _quantified(p, i, width)
        total = None if total is None or width is None else total + width
    return total, i


def _quantified(p: str, i: int, width: int | None) -> tuple[int | None, int]:
    if i >= len(p):
        return width, i
    c = p[i]
    if c in "*+?":
        i += 1
        repeat: int | None = 1 if c == "?" else None
    elif c == "{" and (m := _QUANTIFIER.match(p, i)) and (m.group(1) or m.group(3)):
        i = m.end()
        low, comma, high = m.group(1), m.group(2), m.group(3)
        repeat = int(high) if high else (None if comma else int(low))
    else:
        return width, i
    if i < len(p) and p[i] in "?+":  # lazy or possessive: the same widths
        i += 1
    if width == 0:
        return 0, i
    if width is None or repeat is None:
        return None, i
    return width * repeat, i


def _atom(p: str, i: int) -> tuple[int | None, int]:
    c = p[i]
    if c == "(":
        return _group(p, i)
    if c == "[":
        return 1, _class_end(p, i)
    if c == "\\":
        return _escape(p, i)
    if c in "^$":
        return 0, i + 1
    return 1, i + 1


def _group(p: str, i: int) -> tuple[int | None, int]:
    zero_width = False
    if p.startswith("(?", i):
        head = p[i + 2]
        if head == "#":  # a comment
            return 0, p.index(")", i) + 1
        if p.startswith("(?P<", i) or head == ":":
            i = p.index(">", i) + 1 if head == "P" else i + 3
        elif head in "=!" or p.startswith(("(?<=", "(?<!"), i):
            zero_width, i = True, i + (3 if head in "=!" else 4)
        elif (m := re.compile(r"\(\?[aiLmsux]*(?:-[imsx]+)?([:)])").match(p, i)) is not None:
            if m.group(1) == ")":
                return 0, m.end()  # flags for the whole pattern
            i = m.end()
        else:
            raise _Unknown(p[i : i + 4])  # a backreference by name, a conditional
    else:
        i += 1
    width, i = _alternation(p, i)
    if p[i] != ")":
        raise _Unknown("unclosed group")
    return (0 if zero_width else width), i + 1


def _class_end(p: str, i: int) -> int:
    """The index after the `]` closing the class that starts at `i`."""
    i += 1
    if p[i] == "^":
        i += 1
    if p[i] == "]":  # a `]` first is a member
        i += 1
    while p[i] != "]":
        i += 2 if p[i] == "\\" else 1
    return i + 1


def _escape(p: str, i: int) -> tuple[int | None, int]:
    c = p[i + 1]
    if c in _ZERO_WIDTH_ESCAPES:
        return 0, i + 2
    if c in _HEX:
        return 1, i + 2 + _HEX[c]
    if c == "N":
        return 1, p.index("}", i) + 1
    if c.isdigit() and c != "0":
        raise _Unknown("backreference")
    return 1, i + 2

"""TOML, with the line of every key."""

from __future__ import annotations

import re
import sys
from collections.abc import Iterator
from typing import Any

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover
    import tomli as tomllib


from scanner.formats.config.items import Budget, ConfigItem, ParseFailure, linear, scalar
from scanner.formats.config.json_items import json_string

# --- TOML ------------------------------------------------------------------------------------------


def parse_toml(text: str) -> list[ConfigItem]:
    text = text.lstrip("\ufeff")
    try:
        doc = tomllib.loads(text)
    except (ValueError, RecursionError) as exc:  # TOMLDecodeError, and int digit limits
        raise ParseFailure(f"{type(exc).__name__}: {exc}"[:200]) from None
    lines = _toml_key_lines(text)
    items: list[ConfigItem] = []
    budget = Budget(items)
    for path, value in _flatten(doc, budget):
        items.append(ConfigItem(path, value, _line_of_path(lines, path)))
    return items


def _flatten(doc: Any, budget: Budget) -> Iterator[tuple[tuple[str, ...], str]]:
    stack: list[tuple[tuple[str, ...], Any]] = [((), doc)]
    while stack:
        path, node = stack.pop()
        budget.spend("values")
        if isinstance(node, dict):
            stack.extend((path + (str(k),), v) for k, v in reversed(list(node.items())))
        elif isinstance(node, list):
            stack.extend((path + (f"[{i}]",), v) for i, v in reversed(list(enumerate(node))))
        elif node is not None:
            yield path, scalar(node)


def _line_of_path(lines: dict[tuple[str, ...], int], path: tuple[str, ...]) -> int | None:
    """The line of the key that declares `path`, or of its nearest declared ancestor (inline tables, arrays)."""
    for end in range(len(path), 0, -1):
        line = lines.get(path[:end])
        if line is not None:
            return line
    return None


# An unterminated string runs to the end of its line, so that a failed match never restarts at the next quote.
_TOML_STRINGS = linear(r'"[^"\\\n]*~(?:\\.[^"\\\n]*~)*~"?|\'[^\'\n]*~\'?')
_TOML_BARE = re.compile(r"[A-Za-z0-9_\-]+")


def _toml_key(text: str) -> tuple[str, ...] | None:
    """`a."b.c".d` -> ("a", "b.c", "d"); None when it is not a key."""
    parts: list[str] = []
    pos, end = 0, len(text)
    while True:
        while pos < end and text[pos] in " \t":
            pos += 1
        if pos < end and text[pos] in "\"'":
            m = _TOML_STRINGS.match(text, pos)
            if m is None:
                return None
            raw = m.group()
            if len(raw) < 2 or raw[-1] != raw[0]:
                return None
            parts.append(json_string(raw) if raw[0] == '"' else raw[1:-1])
        else:
            m = _TOML_BARE.match(text, pos)
            if m is None:
                return None
            parts.append(m.group())
        pos = m.end()
        while pos < end and text[pos] in " \t":
            pos += 1
        if pos == end:
            return tuple(parts)
        if text[pos] != ".":
            return None
        pos += 1


def _toml_key_lines(text: str) -> dict[tuple[str, ...], int]:
    """Each key path's line, from one pass over the lines (tables, arrays of tables, dotted keys)."""
    lines: dict[tuple[str, ...], int] = {}
    table: tuple[str, ...] = ()
    aot: dict[tuple[str, ...], int] = {}  # the current element of each array of tables
    multiline: str | None = None  # inside a """ or ''' string
    depth = 0  # inside a multi-line array

    def expand(key: tuple[str, ...]) -> tuple[str, ...]:
        out: tuple[str, ...] = ()
        for i, part in enumerate(key):
            out += (part,)
            if key[: i + 1] in aot and i + 1 < len(key):
                out += (f"[{aot[key[: i + 1]]}]",)
        return out

    for n, line in enumerate(text.split("\n"), 1):
        s = line.strip()
        if multiline is not None:
            if s.count(multiline) % 2:
                multiline = None
            continue
        bare = _TOML_STRINGS.sub('""', s)
        if depth > 0:
            depth = max(0, depth + bare.count("[") - bare.count("]"))
            continue
        if not s or s.startswith("#"):
            continue
        if s.startswith("[["):
            key = _toml_key(s[2 : s.find("]]")]) if "]]" in s else None
            if key:
                aot[key] = aot.get(key, -1) + 1
                for other in [k for k in aot if len(k) > len(key) and k[: len(key)] == key]:
                    del aot[other]
                table = expand(key) + (f"[{aot[key]}]",)
                lines.setdefault(table, n)
            continue
        if s.startswith("["):
            key = _toml_key(s[1 : s.find("]")]) if "]" in s else None
            if key:
                table = expand(key)
                lines.setdefault(table, n)
            continue
        eq = bare.find("=")
        if eq <= 0:
            continue
        key = _toml_key(bare[:eq]) if '"' not in bare[:eq] else _toml_key(_quoted_key(s))
        if key:
            lines.setdefault(table + key, n)
        value = bare[eq + 1 :]
        for quote in ('"""', "'''"):
            if s.count(quote) % 2:
                multiline = quote
        depth = max(0, value.count("[") - value.count("]"))
    return lines


def _quoted_key(s: str) -> str:
    """The key part of a line whose key is quoted (the blanked copy lost the quoted text)."""
    pos = 0
    while pos < len(s):
        m = _TOML_STRINGS.match(s, pos)
        if m:
            pos = m.end()
        elif s[pos] == "=":
            return s[:pos]
        else:
            pos += 1
    return s



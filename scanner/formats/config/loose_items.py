"""The last resort: a broken file read line by line, `key: value` and `key = value`."""

from __future__ import annotations

import re
import sys

if sys.version_info >= (3, 11):
    pass
else:  # pragma: no cover
    pass


from scanner.formats.config.items import MAX_ITEMS, ConfigItem

# --- last resort: a broken file read line by line -------------------------------------------------

_LOOSE_KEY = re.compile(r"""["']?([A-Za-z_][\w.\-]*)["']?[ \t]*[:=]""")
_LOOSE_STOP = re.compile(r"""["',#]""")


def _loose_pair(line: str) -> tuple[str, str] | None:
    """`key: value` / `key = value` / `"key": "value",` -> (key, value), read without backtracking."""
    s = line.strip()
    m = _LOOSE_KEY.match(s)
    if m is None:
        return None
    rest = s[m.end() :].lstrip()
    if rest[:1] in ('"', "'"):
        rest = rest[1:]
    stop = _LOOSE_STOP.search(rest)
    value, tail = (rest[: stop.start()], rest[stop.start() :]) if stop else (rest, "")
    if tail[:1] in ('"', "'"):
        tail = tail[1:]
    tail = tail.strip()
    if tail.startswith(","):
        tail = tail[1:].strip()
    value = value.strip()
    return (m.group(1), value) if value and not tail else None


def parse_loose(text: str) -> list[ConfigItem]:
    """`key: value` / `key = value` / `"key": "value"` lines of a file whose format would not parse."""
    items: list[ConfigItem] = []
    for n, line in enumerate(text.splitlines(), 1):
        pair = _loose_pair(line)
        if pair:
            items.append(ConfigItem((pair[0],), pair[1], n))
            if len(items) >= MAX_ITEMS:
                break
    return items



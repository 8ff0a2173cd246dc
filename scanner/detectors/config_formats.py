"""Structured config formats flattened to (key path, value, line) items.

Each parser takes text and returns `ConfigItem`s, or raises `ParseFailure`. JSON is read the tolerant
way agents write it (BOM, CRLF, `//` and `/* */` comments, trailing commas). Line numbers are exact for
YAML, env files, INI and systemd units, and recovered by position for JSON and TOML.
"""

from __future__ import annotations

import configparser
import json
import re
import shlex
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import yaml

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover
    import tomli as tomllib

MAX_ITEMS = 100_000  # YAML aliases can make a small file a huge tree ("billion laughs")


@dataclass(frozen=True)
class ConfigItem:
    path: tuple[str, ...]  # keys from the root; list positions are "[N]"
    value: str
    line: int | None
    comment: str | None = None  # the comment block right above (env files, INI, systemd)
    env: bool = False  # an environment assignment (env file, systemd Environment=)


class ParseFailure(Exception):
    pass


# --- JSON ------------------------------------------------------------------------------------------

_JSON_COMMENTS = re.compile(r'"(?:\\.|[^"\\])*"|//[^\n]*|/\*.*?\*/', re.DOTALL)
_JSON_TRAILING = re.compile(r'"(?:\\.|[^"\\])*"|,(?=\s*[}\]])', re.DOTALL)


def _blank(m: re.Match[str]) -> str:
    tok = m.group()
    if tok.startswith('"'):
        return tok
    return re.sub(r"[^\n]", " ", tok)  # keep newlines so line numbers still hold


def clean_json(text: str) -> str:
    """Comments, then trailing commas, blanked out; strings and line breaks left intact."""
    text = _JSON_COMMENTS.sub(_blank, text.lstrip("\ufeff"))
    return _JSON_TRAILING.sub(_blank, text)


def parse_json(text: str) -> list[ConfigItem]:
    cleaned = clean_json(text)
    try:
        doc = json.loads(cleaned)
    except (ValueError, RecursionError) as exc:  # JSONDecodeError, and int digit limits
        raise ParseFailure(type(exc).__name__) from None
    return _with_lines(_flatten(doc), cleaned, json_quote=True)


def parse_toml(text: str) -> list[ConfigItem]:
    try:
        doc = tomllib.loads(text.lstrip("\ufeff"))
    except (ValueError, RecursionError) as exc:  # TOMLDecodeError, and int digit limits
        raise ParseFailure(type(exc).__name__) from None
    return _with_lines(_flatten(doc), text, json_quote=False)


def _flatten(doc: Any) -> Iterator[tuple[tuple[str, ...], str]]:
    stack: list[tuple[tuple[str, ...], Any]] = [((), doc)]
    count = 0
    while stack:
        path, node = stack.pop()
        count += 1
        if count > MAX_ITEMS:
            return
        if isinstance(node, dict):
            stack.extend((path + (str(k),), v) for k, v in reversed(list(node.items())))
        elif isinstance(node, list):
            stack.extend((path + (f"[{i}]",), v) for i, v in reversed(list(enumerate(node))))
        elif node is not None:
            yield path, _scalar(node)


def _scalar(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)


def _with_lines(
    pairs: Iterator[tuple[tuple[str, ...], str]], text: str, json_quote: bool
) -> list[ConfigItem]:
    """Line numbers by finding each value where a value stands (after `:`, `=`, `[` or `,`), in document
    order; newlines are counted incrementally, so the cost stays linear in the file."""
    items = []
    cursor = 0
    counted_to, line_at = 0, 1

    def line_of(pos: int) -> int:
        nonlocal counted_to, line_at
        if pos < counted_to:
            counted_to, line_at = 0, 1
        line_at += text.count("\n", counted_to, pos)
        counted_to = pos
        return line_at

    for path, value in pairs:
        quoted = [json.dumps(value)] if json_quote else [json.dumps(value), f"'{value}'"]
        alternatives = [re.escape(f) for f in quoted] + [re.escape(value) + r"(?=[\s,\]}#]|$)"]
        rx = re.compile(r"[:=\[,]\s*(?:" + "|".join(alternatives) + ")")
        m = rx.search(text, cursor) or rx.search(text)
        if m is None:
            items.append(ConfigItem(path, value, None))
            continue
        start = m.end() - len(m.group().lstrip(":=[, \t\r\n"))
        if m.start() >= cursor:
            cursor = m.end()
        items.append(ConfigItem(path, value, line_of(start)))
    return items


# --- YAML ------------------------------------------------------------------------------------------


def parse_yaml(text: str) -> list[ConfigItem]:
    items: list[ConfigItem] = []
    budget = [MAX_ITEMS]  # shared by every document of the file
    try:
        for doc in yaml.compose_all(text.lstrip("\ufeff"), Loader=yaml.SafeLoader):
            if doc is not None:
                _walk_yaml(doc, items, budget)
            if budget[0] <= 0:
                break
    except (yaml.YAMLError, RecursionError) as exc:
        raise ParseFailure(type(exc).__name__) from None
    return items


def _walk_yaml(root: yaml.Node, items: list[ConfigItem], budget: list[int]) -> None:
    stack: list[tuple[tuple[str, ...], yaml.Node]] = [((), root)]
    while stack:
        path, node = stack.pop()
        budget[0] -= 1
        if budget[0] < 0:
            return
        if isinstance(node, yaml.MappingNode):
            pairs = [(k, v) for k, v in node.value if isinstance(k, yaml.ScalarNode)]
            stack.extend((path + (str(k.value),), v) for k, v in reversed(pairs))
        elif isinstance(node, yaml.SequenceNode):
            stack.extend((path + (f"[{i}]",), v) for i, v in reversed(list(enumerate(node.value))))
        elif isinstance(node, yaml.ScalarNode) and node.value not in ("", "~", "null"):
            items.append(ConfigItem(path, str(node.value), node.start_mark.line + 1))


# --- line formats: env files, INI, systemd units --------------------------------------------------

_ENV_LINE = re.compile(r"^\s*(?:export\s+)?([A-Za-z_][A-Za-z0-9_.]*)\s*=\s*(.*?)\s*$")


def _unquote(value: str) -> str:
    """`"v"  # note` -> v ; `'v'` -> v ; `v # note` -> v"""
    if value[:1] in ("\"", "'"):
        end = value.find(value[0], 1)
        if end != -1:
            return value[1:end]
    return re.sub(r"\s+#.*$", "", value)


def parse_env(text: str) -> list[ConfigItem]:
    items = []
    comment: list[str] = []
    for n, line in enumerate(text.splitlines(), 1):
        stripped = line.strip()
        if stripped.startswith("#"):
            comment.append(stripped.lstrip("#").strip())
            continue
        m = _ENV_LINE.match(line)
        if m:
            items.append(ConfigItem((m.group(1),), _unquote(m.group(2)), n, " ".join(comment) or None, env=True))
        comment = []
    return items


_INI_PAIR = re.compile(r"([^=:\s][^=:]*?)\s*[=:]\s*(.*)$")


def parse_ini(text: str) -> list[ConfigItem]:
    parser = configparser.RawConfigParser(strict=False, interpolation=None, allow_no_value=True)
    try:
        parser.read_string(text.lstrip("\ufeff"))
    except configparser.Error as exc:
        raise ParseFailure(type(exc).__name__) from None
    lines = text.splitlines()
    items = []
    section = ""
    comment: list[str] = []
    for n, line in enumerate(lines, 1):
        stripped = line.strip()
        if stripped.startswith(("#", ";")):
            comment.append(stripped.lstrip("#;").strip())
            continue
        if stripped.startswith("[") and stripped.endswith("]"):
            section = stripped[1:-1].strip()
        else:
            m = _INI_PAIR.match(stripped)
            if m:
                key, value = m.group(1), _unquote(m.group(2))
                path = (section, key) if section else (key,)
                items.append(ConfigItem(path, value, n, " ".join(comment) or None))
        comment = []
    return items


def parse_systemd(text: str) -> list[ConfigItem]:
    """Unit keys, with `Environment=` split into its assignments (flagged `env`)."""
    items = []
    section = ""
    comment: list[str] = []
    for n, line in enumerate(text.splitlines(), 1):
        stripped = line.strip()
        if stripped.startswith(("#", ";")):
            comment.append(stripped.lstrip("#;").strip())
            continue
        if stripped.startswith("[") and stripped.endswith("]"):
            section = stripped[1:-1]
        elif "=" in stripped:
            key, value = (s.strip() for s in stripped.split("=", 1))
            note = " ".join(comment) or None
            if key == "Environment":
                try:
                    words = shlex.split(value)
                except ValueError:
                    words = value.split()
                for word in words:
                    name, sep, val = word.partition("=")
                    if sep:
                        items.append(ConfigItem((name,), val, n, note, env=True))
            else:
                items.append(ConfigItem((section, key), value, n, note))
        comment = []
    return items


# --- last resort: a broken file read line by line -------------------------------------------------

_LOOSE_PAIR = re.compile(r"""^\s*["']?([A-Za-z_][\w.\-]*)["']?\s*[:=]\s*["']?([^"',#]*)["']?\s*,?\s*$""")


def parse_loose(text: str) -> list[ConfigItem]:
    """`key: value` / `key = value` / `"key": "value"` lines of a file whose format would not parse."""
    items = []
    for n, line in enumerate(text.splitlines(), 1):
        m = _LOOSE_PAIR.match(line)
        if m and m.group(2).strip():
            items.append(ConfigItem((m.group(1),), m.group(2).strip(), n))
    return items

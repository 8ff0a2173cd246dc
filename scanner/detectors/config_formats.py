"""Structured config formats flattened to (key path, value, line) items.

Each parser takes text and returns `ConfigItem`s, raises `ParseFailure` when the text is not in its format,
or `BudgetExceeded` (with what it read so far) when the file holds more than `MAX_ITEMS` nodes. JSON is read
the tolerant way agents write it (BOM, CRLF, `//` and `/* */` comments, trailing commas).

Every parser is linear in the size of its input: no regex here can backtrack over a run of the same
character, and line numbers come from one offset-to-line map per file (`LineMap`), never from searching
the text again for a value.
"""

from __future__ import annotations

import json
import re
import shlex
import sys
from bisect import bisect_right
from collections.abc import Iterator
from dataclasses import dataclass
from itertools import accumulate
from typing import Any

import yaml

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover
    import tomli as tomllib

# The work budget of one file, in nodes visited (values, containers, nulls, assignments). YAML aliases can
# make a small file a huge tree ("billion laughs"); a 4 MiB config has far fewer nodes than this.
MAX_ITEMS = 100_000

# libyaml's C loader where PyYAML was built with it; the pure-Python one is 10-20x slower.
YAML_LOADER: Any = getattr(yaml, "CSafeLoader", yaml.SafeLoader)


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


class _Budget:
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


# --- JSON ------------------------------------------------------------------------------------------

# One token at a time, each alternative unambiguous (unrolled, possessive loops that keep no backtracking
# state), an unterminated string or comment running to the end: a failed match never restarts at the next
# quote, so `\"` * 400k stays linear.
# Possessive quantifiers (Python 3.11+) keep no backtracking state; 3.10 gets the same patterns without.
_POSSESSIVE = "+" if sys.version_info >= (3, 11) else ""


def _linear(pattern: str, flags: int = 0) -> re.Pattern[str]:
    """`~` in `pattern` marks a quantifier that may be possessive."""
    return re.compile(pattern.replace("~", _POSSESSIVE), flags)


_JSON_TOKEN = _linear(
    r"\s*~(?:"  # the blanks before a token are consumed by the same match, never one search per character
    r'"[^"\\]*~(?:\\.[^"\\]*~)*~"?'  # a string
    r"|//[^\n]*~"  # a line comment
    r"|/\*[^*]*~(?:\*+~(?!/)[^*]*~)*~(?:\*+/)?"  # a block comment
    r"|[{}\[\]:,]"
    r'|[^\s{}\[\]:,"/]+~|/'  # a literal (number, true, false, null) or stray text
    r")",
    re.DOTALL,
)
_NOT_NEWLINE = re.compile(r"[^\n]")


# A value costs at most four tokens (key, colon, value, comma): past this many, a file is read in part (its
# first MAX_JSON_TOKENS tokens), and the token list is what a hostile file would grow in memory.
MAX_JSON_TOKENS = 4 * MAX_ITEMS


@dataclass
class _Tokens:
    tokens: list[tuple[int, str]]  # (offset, text) of the significant tokens, up to the cut
    text: str  # the text with comments and trailing commas blanked (offsets kept)
    cut: int | None = None  # the offset of the first token not kept, when there were too many


def _json_tokens(text: str, keep: bool = True) -> _Tokens:
    """The significant tokens and the text with comments and trailing commas blanked. Past MAX_JSON_TOKENS
    `keep=True` stops (`cut` says where; the text is blanked up to there only); `keep=False` keeps only the
    last token (enough for trailing commas) and reads to the end: cleaning alone has no token budget."""
    tokens: list[tuple[int, str]] = []
    blanks: list[tuple[int, int, str]] = []
    cut = None
    # Trailing blanks are cut first: after the last token, every position would retry the leading `\s*`.
    for m in _JSON_TOKEN.finditer(text, 0, len(text.rstrip())):
        end = m.end()
        tok = text[end - 1] if end - m.start() == 1 else m.group().lstrip()
        start = end - len(tok)
        if tok[0] == "/" and tok[1:2] in ("/", "*"):
            blanks.append((start, end, _NOT_NEWLINE.sub(" ", tok)))
            continue
        if tok in ("}", "]") and tokens and tokens[-1][1] == ",":
            comma = tokens.pop()[0]
            blanks.append((comma, comma + 1, " "))
        if len(tokens) >= MAX_JSON_TOKENS:
            if keep:
                cut = start
                break
            del tokens[:-1]
        tokens.append((start, tok))
    if not blanks:
        return _Tokens(tokens, text, cut)
    blanks.sort()
    pieces, last = [], 0
    for start, end, blank in blanks:
        pieces += [text[last:start], blank]
        last = end
    pieces.append(text[last:])
    return _Tokens(tokens, "".join(pieces), cut)


def clean_json(text: str) -> str:
    """Comments, then trailing commas, blanked out; strings and line breaks left intact."""
    return _json_tokens(text.lstrip("\ufeff"), keep=False).text


def parse_json(text: str) -> list[ConfigItem]:
    """The items of a JSON file; past MAX_JSON_TOKENS tokens, of its head (`BudgetExceeded` with them)."""
    text = text.lstrip("\ufeff")
    found = _json_tokens(text)
    cleaned = found.text if found.cut is None else _whole_json(text)
    try:
        json.loads(cleaned)  # the C decoder says whether it is JSON; the tokens say where each value is
    except (ValueError, RecursionError) as exc:  # JSONDecodeError, and int digit limits
        raise ParseFailure(_json_error(exc)) from None
    if found.cut is None:
        return _json_items(found.tokens, LineMap(cleaned))
    try:
        items = _json_items(found.tokens, LineMap(cleaned))
    except BudgetExceeded as over:
        items = over.items
    detail = (
        f"more than {MAX_JSON_TOKENS:,} JSON tokens: read the first {MAX_JSON_TOKENS:,} (up to byte {found.cut:,}"
        f" of {len(text):,}: {len(items):,} values); the rest matched by patterns only"
    )
    raise BudgetExceeded(detail, items)


def _whole_json(text: str) -> str:
    """The text of a file whose tokens were cut, for the decoder's verdict on all of it: itself when it is
    strict JSON (the usual case, one C call), else cleaned in full (comments and trailing commas blanked)."""
    try:
        json.loads(text)
    except (ValueError, RecursionError):
        return _json_tokens(text, keep=False).text
    return text


def _json_error(exc: Exception) -> str:
    if isinstance(exc, json.JSONDecodeError):
        return f"{type(exc).__name__} at line {exc.lineno}: {exc.msg}"
    return type(exc).__name__


@dataclass
class _Frame:
    path: tuple[str, ...]
    is_object: bool
    index: int = 0
    key: str | None = None
    want_key: bool = False


def _json_string(tok: str) -> str:
    return tok[1:-1] if "\\" not in tok else str(json.loads(tok))


def _json_items(tokens: list[tuple[int, str]], lines: LineMap) -> list[ConfigItem]:
    """Items in document order from a token stream the decoder accepted."""
    items: list[ConfigItem] = []
    budget = _Budget(items)
    stack: list[_Frame] = []

    def value_path() -> tuple[str, ...]:
        if not stack:
            return ()
        top = stack[-1]
        if top.is_object:
            return top.path + (top.key or "",)
        top.index += 1
        return top.path + (f"[{top.index - 1}]",)

    for offset, tok in tokens:
        first = tok[0]
        if first in "}]":
            stack.pop()
        elif first == ",":
            if stack and stack[-1].is_object:
                stack[-1].want_key = True
        elif first == ":":
            continue
        elif stack and stack[-1].want_key:
            stack[-1].key, stack[-1].want_key = _json_string(tok), False
        else:
            budget.spend("JSON values")
            path = value_path()
            if first in "{[":
                stack.append(_Frame(path, first == "{", want_key=first == "{"))
            elif first == '"':
                items.append(ConfigItem(path, _json_string(tok), lines.line(offset)))
            elif tok in ("true", "false"):
                items.append(ConfigItem(path, tok, lines.line(offset)))
            elif tok != "null":
                items.append(ConfigItem(path, _scalar(json.loads(tok)), lines.line(offset)))
    return items


def _scalar(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)


# --- TOML ------------------------------------------------------------------------------------------


def parse_toml(text: str) -> list[ConfigItem]:
    text = text.lstrip("\ufeff")
    try:
        doc = tomllib.loads(text)
    except (ValueError, RecursionError) as exc:  # TOMLDecodeError, and int digit limits
        raise ParseFailure(f"{type(exc).__name__}: {exc}"[:200]) from None
    lines = _toml_key_lines(text)
    items: list[ConfigItem] = []
    budget = _Budget(items)
    for path, value in _flatten(doc, budget):
        items.append(ConfigItem(path, value, _line_of_path(lines, path)))
    return items


def _flatten(doc: Any, budget: _Budget) -> Iterator[tuple[tuple[str, ...], str]]:
    stack: list[tuple[tuple[str, ...], Any]] = [((), doc)]
    while stack:
        path, node = stack.pop()
        budget.spend("values")
        if isinstance(node, dict):
            stack.extend((path + (str(k),), v) for k, v in reversed(list(node.items())))
        elif isinstance(node, list):
            stack.extend((path + (f"[{i}]",), v) for i, v in reversed(list(enumerate(node))))
        elif node is not None:
            yield path, _scalar(node)


def _line_of_path(lines: dict[tuple[str, ...], int], path: tuple[str, ...]) -> int | None:
    """The line of the key that declares `path`, or of its nearest declared ancestor (inline tables, arrays)."""
    for end in range(len(path), 0, -1):
        line = lines.get(path[:end])
        if line is not None:
            return line
    return None


# An unterminated string runs to the end of its line, so that a failed match never restarts at the next quote.
_TOML_STRINGS = _linear(r'"[^"\\\n]*~(?:\\.[^"\\\n]*~)*~"?|\'[^\'\n]*~\'?')
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
            parts.append(_json_string(raw) if raw[0] == '"' else raw[1:-1])
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


# --- YAML ------------------------------------------------------------------------------------------
# Read as a stream of parser events, never composed into a node tree: a 4 MiB file of `- a` lines would
# build a million nodes (hundreds of MB) before the budget could stop it. Anchored nodes keep their events
# (within the budget) so that an alias, merge keys (`<<: *defaults`) included, is walked where it is used.


@dataclass
class _YamlMap:
    path: tuple[str, ...]
    key: str = ""
    expect_key: bool = True
    skip_value: bool = False  # the value of a key that is no scalar (`? [a, b]`)


@dataclass
class _YamlSeq:
    path: tuple[str, ...]
    index: int = 0


@dataclass
class _YamlSkip:
    depth: int = 1


_YamlFrame = _YamlMap | _YamlSeq | _YamlSkip
_NULLS = ("", "~", "null")


def parse_yaml(text: str) -> list[ConfigItem]:
    items: list[ConfigItem] = []
    budget = _Budget(items)  # shared by every document of the file
    try:
        _yaml_events(yaml.parse(text.lstrip("\ufeff"), Loader=YAML_LOADER), items, budget)
    except (yaml.YAMLError, RecursionError, UnicodeError) as exc:  # libyaml refuses lone surrogates (UTF-8 only)
        raise ParseFailure(_yaml_error(exc)) from None
    return items


def _yaml_error(exc: Exception) -> str:
    mark = getattr(exc, "problem_mark", None)
    where = f" at line {mark.line + 1}" if mark is not None else ""
    return f"{type(exc).__name__}{where}"


def _yaml_events(events: Iterator[yaml.Event], items: list[ConfigItem], budget: _Budget) -> None:
    stack: list[_YamlFrame] = []
    anchors: dict[str, list[yaml.Event]] = {}
    dropped: set[str] = set()  # anchors whose events went over the budget: their aliases read as nothing
    recording: list[tuple[str, list[yaml.Event], list[int]]] = []  # anchor, its events, open depth
    recorded = 0
    sources: list[Iterator[yaml.Event]] = [events]
    while sources:
        ev = next(sources[-1], None)
        if ev is None:
            sources.pop()
            continue
        if len(sources) == 1:  # the file itself, not an alias being replayed
            if isinstance(ev, yaml.DocumentStartEvent):
                stack, anchors, dropped, recording = [], {}, set(), []
            anchor = getattr(ev, "anchor", None) if isinstance(ev, yaml.NodeEvent) else None
            if anchor is not None and not isinstance(ev, yaml.AliasEvent):
                recording.append((anchor, [], [0]))
            for _, kept, depth in recording:
                kept.append(ev)
                depth[0] += 1 if isinstance(ev, yaml.CollectionStartEvent) else 0
                depth[0] -= 1 if isinstance(ev, yaml.CollectionEndEvent) else 0
            recorded += len(recording)
            while recording and recording[-1][2][0] == 0:
                name, kept, _ = recording.pop()
                anchors[name] = kept
            if recorded > MAX_ITEMS and recording:
                dropped.update(name for name, _, _ in recording)
                recording, recorded = [], 0
        _yaml_event(ev, stack, items, budget, anchors, dropped, sources)


def _yaml_event(
    ev: yaml.Event,
    stack: list[_YamlFrame],
    items: list[ConfigItem],
    budget: _Budget,
    anchors: dict[str, list[yaml.Event]],
    dropped: set[str],
    sources: list[Iterator[yaml.Event]],
) -> None:
    top = stack[-1] if stack else None
    if isinstance(top, _YamlSkip):
        if isinstance(ev, yaml.CollectionStartEvent):
            top.depth += 1
        elif isinstance(ev, yaml.CollectionEndEvent):
            top.depth -= 1
            if top.depth == 0:
                stack.pop()
        return
    if isinstance(ev, yaml.CollectionEndEvent):
        if stack:
            stack.pop()
        return
    if not isinstance(ev, yaml.NodeEvent):
        return  # stream and document boundaries
    if isinstance(ev, yaml.AliasEvent):
        replay = anchors.get(ev.anchor or "")
        if replay is None:
            if ev.anchor in dropped:
                budget.spend("YAML nodes")
                if isinstance(top, _YamlMap):
                    top.expect_key = not top.expect_key
                return
            raise ParseFailure(f"an alias to an undefined anchor *{ev.anchor}")
        sources.append(iter(replay))
        return
    if isinstance(top, _YamlMap) and top.expect_key:
        if isinstance(ev, yaml.ScalarEvent):
            top.key, top.expect_key = str(ev.value), False
        else:  # a complex key: it and its value are skipped
            top.expect_key, top.skip_value = False, True
            stack.append(_YamlSkip())
        return
    budget.spend("YAML nodes")
    if isinstance(top, _YamlMap):
        path = top.path + (top.key,)
        skip, top.expect_key, top.skip_value = top.skip_value, True, False
        if skip:
            if isinstance(ev, yaml.CollectionStartEvent):
                stack.append(_YamlSkip())
            return
    elif isinstance(top, _YamlSeq):
        path = top.path + (f"[{top.index}]",)
        top.index += 1
    else:
        path = ()
    if isinstance(ev, yaml.ScalarEvent):
        if ev.value not in _NULLS:
            items.append(ConfigItem(path, str(ev.value), ev.start_mark.line + 1 if ev.start_mark else None))
    elif isinstance(ev, yaml.MappingStartEvent):
        stack.append(_YamlMap(path))
    elif isinstance(ev, yaml.SequenceStartEvent):
        stack.append(_YamlSeq(path))


# --- line formats: env files, INI, systemd units --------------------------------------------------

_ENV_KEY = re.compile(r"[A-Za-z_][A-Za-z0-9_.]*")
_INLINE_COMMENT = re.compile(r"\s#")
_INI_SEPARATOR = re.compile(r"[=:]")


def _unquote(value: str) -> str:
    """`"v"  # note` -> v ; `'v'` -> v ; `v # note` -> v"""
    if value[:1] in ('"', "'"):
        end = value.find(value[0], 1)
        if end != -1:
            return value[1:end]
    m = _INLINE_COMMENT.search(value)
    return (value[: m.start()] if m else value).rstrip()


def env_assignment(line: str) -> tuple[str, str] | None:
    """`export KEY = value # note` -> (KEY, value); None when the line assigns nothing."""
    s = line.strip()
    if s.startswith("export") and s[6:7] in (" ", "\t"):
        s = s[6:].lstrip()
    key, sep, rest = s.partition("=")
    key = key.rstrip()
    if not sep or not _ENV_KEY.fullmatch(key):
        return None
    return key, _unquote(rest.strip())


def _commented_out(body: str, assigns: bool) -> bool:
    """A comment line that is itself a setting turned off (`# KEY=1`): the prose above it documents it."""
    return assigns and env_assignment(body) is not None


def parse_env(text: str) -> list[ConfigItem]:
    items: list[ConfigItem] = []
    budget = _Budget(items)
    comment: list[str] = []
    for n, line in enumerate(text.splitlines(), 1):
        stripped = line.strip()
        if stripped.startswith("#"):
            body = stripped.lstrip("#").strip()
            comment = [] if _commented_out(body, True) else comment + [body]
            continue
        pair = env_assignment(stripped)
        if pair:
            budget.spend("assignments")
            items.append(ConfigItem((pair[0],), pair[1], n, " ".join(comment) or None, env=True))
        comment = []
    return items


def _ini_pair(stripped: str) -> tuple[str, str] | None:
    m = _INI_SEPARATOR.search(stripped)
    if m is None or m.start() == 0:
        return None
    key = stripped[: m.start()].rstrip()
    return (key, _unquote(stripped[m.end() :].strip())) if key else None


def parse_ini(text: str) -> list[ConfigItem]:
    """INI as configparser reads it: a setting before the first section header is a parse failure."""
    return _ini(text, strict=True)


def parse_conf(text: str) -> list[ConfigItem]:
    """`.conf` / `.properties`: INI, or plain `key = value` lines without sections."""
    return _ini(text, strict=False)


def _ini(text: str, strict: bool) -> list[ConfigItem]:
    items: list[ConfigItem] = []
    budget = _Budget(items)
    section: str | None = None
    comment: list[str] = []
    for n, line in enumerate(text.lstrip("\ufeff").splitlines(), 1):
        stripped = line.strip()
        if not stripped:
            comment = []
            continue
        if stripped.startswith(("#", ";")):
            body = stripped.lstrip("#;").strip()
            comment = [] if _commented_out(body, True) else comment + [body]
            continue
        if stripped.startswith("[") and stripped.endswith("]"):
            section = stripped[1:-1].strip()
        elif strict and section is None:
            raise ParseFailure(f"a setting before any [section] at line {n}")
        else:
            pair = _ini_pair(stripped)
            if pair:
                budget.spend("settings")
                path = (section, pair[0]) if section else (pair[0],)
                items.append(ConfigItem(path, pair[1], n, " ".join(comment) or None))
        comment = []
    return items


def parse_systemd(text: str) -> list[ConfigItem]:
    """Unit keys, with `Environment=` split into its assignments (flagged `env`)."""
    items: list[ConfigItem] = []
    budget = _Budget(items)
    section = ""
    comment: list[str] = []
    for n, line in enumerate(text.splitlines(), 1):
        stripped = line.strip()
        if stripped.startswith(("#", ";")):
            body = stripped.lstrip("#;").strip()
            comment = [] if "=" in body and _ENV_KEY.match(body) else comment + [body]
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
                        budget.spend("settings")
                        items.append(ConfigItem((name,), val, n, note, env=True))
            else:
                budget.spend("settings")
                items.append(ConfigItem((section, key), value, n, note))
        comment = []
    return items


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


# --- HCL (Terraform): blocks, attributes and object literals -----------------------------------------

_HCL_TOKEN = _linear(
    r'"[^"\\\n]*~(?:\\.[^"\\\n]*~)*~"?'  # a string (one line; an interpolation's quotes are tolerated)
    r"|<<-?[A-Za-z_][A-Za-z0-9_]*"  # a heredoc opener, its body skipped below
    r"|#[^\n]*~|//[^\n]*~|/\*[^*]*~(?:\*+~(?!/)[^*]*~)*~(?:\*+/)?"  # comments
    r"|[{}\[\]()=:,\n]"
    r"|[A-Za-z_][A-Za-z0-9_.\-]*~|-?[0-9][0-9A-Za-z.+\-]*~"  # identifiers, traversals, numbers
    r"|[ \t\r]+~|.",
)


@dataclass
class _HclFrame:
    path: tuple[str, ...]
    is_list: bool
    index: int = 0


def parse_hcl(text: str) -> list[ConfigItem]:
    """Terraform / HCL: `block "label" { key = "value" }`, nested blocks, object and list literals (also
    inside `yamlencode({...})`); Nix attribute sets read the same way (`a.b = "v";`). Values that are
    expressions (references, calls) are no items."""
    items: list[ConfigItem] = []
    budget = _Budget(items)
    lines = LineMap(text)
    stack: list[_HclFrame] = [_HclFrame((), False)]
    labels: list[tuple[str, ...]] = []  # the words of a block header since the last newline
    key: tuple[str, ...] | None = None  # the key path of a `key =` / `a.b =` waiting for its value
    pos, end = 0, len(text)
    while pos < end:
        m = _HCL_TOKEN.match(text, pos)
        assert m is not None  # the last alternative matches any character
        tok, start, pos = m.group(), m.start(), m.end()
        first = tok[0]
        top = stack[-1]
        if first in " \t\r#" or tok.startswith(("//", "/*")):
            continue
        if tok.startswith("<<"):
            term = re.compile(r"^[ \t]*" + re.escape(tok.lstrip("<-")) + r"[ \t]*$", re.MULTILINE)
            found = term.search(text, pos)
            pos = found.end() if found else end
            key = None
            continue
        if first == "\n":
            labels = []
            continue
        if first in "{[(":
            if key is not None:
                name: tuple[str, ...] = key
            elif top.is_list:
                name = (f"[{top.index}]",)
                top.index += 1
            else:
                name = tuple(part for label in labels for part in label)
            path = top.path if first == "(" else top.path + name
            stack.append(_HclFrame(path, first == "["))
            if first != "(":
                key = None
            labels = []
            continue
        if first in "}])":
            if len(stack) > 1:
                stack.pop()
            key = None
            continue
        if first in "=:":
            if labels:
                key = labels[-1]
            labels = []
            continue
        if first == ",":
            key = None
            continue
        word = tok[1:-1] if first == '"' and len(tok) > 1 and tok.endswith('"') else tok
        if key is not None:
            if first == '"' and "${" not in word or first.isdigit() or first == "-" or tok in ("true", "false"):
                budget.spend("HCL values")
                items.append(ConfigItem(top.path + key, word, lines.line(start)))
            key = None
        elif top.is_list and first == '"':
            budget.spend("HCL values")
            items.append(ConfigItem(top.path + (f"[{top.index}]",), word, lines.line(start)))
            top.index += 1
        else:
            # A bare `a.b` is an attribute path (Nix, HCL traversals); a quoted "a.b" is one name.
            labels.append((word,) if first == '"' else tuple(word.split(".")))
    return items

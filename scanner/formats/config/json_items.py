"""JSON read the tolerant way agents write it (BOM, CRLF, `//` and `/* */` comments, trailing commas)."""

from __future__ import annotations

import json
import re
import sys
from dataclasses import dataclass

if sys.version_info >= (3, 11):
    pass
else:  # pragma: no cover
    pass


from scanner.formats.config.items import (
    MAX_ITEMS,
    Budget,
    BudgetExceeded,
    ConfigItem,
    LineMap,
    ParseFailure,
    linear,
    scalar,
)

# --- JSON ------------------------------------------------------------------------------------------

# One token at a time, each alternative unambiguous (unrolled, possessive loops that keep no backtracking
# state), an unterminated string or comment running to the end: a failed match never restarts at the next
# quote, so `\"` * 400k stays linear.


_JSON_TOKEN = linear(
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
class _JsonFrame:
    path: tuple[str, ...]
    is_object: bool
    index: int = 0
    key: str | None = None
    want_key: bool = False


def json_string(tok: str) -> str:
    return tok[1:-1] if "\\" not in tok else str(json.loads(tok))


def _json_items(tokens: list[tuple[int, str]], lines: LineMap) -> list[ConfigItem]:
    """Items in document order from a token stream the decoder accepted."""
    items: list[ConfigItem] = []
    budget = Budget(items)
    stack: list[_JsonFrame] = []

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
            stack[-1].key, stack[-1].want_key = json_string(tok), False
        else:
            budget.spend("JSON values")
            path = value_path()
            if first in "{[":
                stack.append(_JsonFrame(path, first == "{", want_key=first == "{"))
            elif first == '"':
                items.append(ConfigItem(path, json_string(tok), lines.line(offset)))
            elif tok in ("true", "false"):
                items.append(ConfigItem(path, tok, lines.line(offset)))
            elif tok != "null":
                items.append(ConfigItem(path, scalar(json.loads(tok)), lines.line(offset)))
    return items



"""Lua table constructors (Neovim plugin specs, `setup({...})` calls): keyed fields, list elements and variables.

Only literal values are items (strings, numbers, booleans); an expression (`vim.env.X`, `"a" .. b`, a call) is
none. A table passed to a call (`require("avante").setup({...})`, `extend("openai_compatible", {...})`) or
returned (`return {...}`) belongs to the key the call or function is the value of, so a plugin spec reads as
the settings it holds: `opts.providers.ollama.model`, `adapters.http.my_local.schema.model.default`. A file that
is no Lua still gives what it holds in that shape; nothing raises but the item and token budgets.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from scanner.formats.config.items import MAX_ITEMS, Budget, BudgetExceeded, ConfigItem, LineMap, linear

# The token list is what a hostile file would grow in memory: past this many, the head is read and the cut said.
MAX_LUA_TOKENS = 4 * MAX_ITEMS

_TOKEN = linear(
    r'"(?:[^"\\\n]~|\\.)*~"?'  # a string (one line; escapes)
    r"|'(?:[^'\\\n]~|\\.)*~'?"
    r"|--\[=*\[|\[=*\["  # a long comment's or a long string's opener: its closer is found by `str.find`
    r"|--[^\n]*~"  # a line comment
    r"|\.\.\.?|==|\x7e=|<=|>=|::"  # (`\x7e`: a tilde here would mark a quantifier)
    r"|[A-Za-z_][A-Za-z0-9_]*~"
    r"|0[xX][0-9A-Fa-f]+~|[0-9][0-9.eE]*~"
    r"|[ \t\r\n]+~|.",
)
_MAX_DEPTH = 64  # nested tables, calls and functions that lengthen a key path; deeper ones share their parent's
_OPENS_BLOCK = frozenset({"function", "if", "do"})  # each is closed by one `end` (`for`/`while` open with `do`)
_LITERALS = frozenset({"true", "false"})
# What may follow a literal that is a whole value: a separator, a closer, or the next statement's first word.
_CLOSERS = frozenset({",", ";", "}", ")"})
_OPERATOR_WORDS = frozenset({"and", "or"})


@dataclass
class _Frame:
    path: tuple[str, ...]
    kind: str  # "table", "call" or "code"
    index: int = 0  # the next list position of a table
    depth: int = 1  # the open blocks of a code frame (its own `function` is one)
    # The stack positions of the innermost frame of each kind at or below this one (-1: none): a closer finds its
    # frame in one step however deep the stack, never by a search down it.
    inner: dict[str, int] = field(default_factory=dict)


def _push(stack: list[_Frame], frame: _Frame) -> None:
    if len(stack) > _MAX_DEPTH:
        frame.path = stack[-1].path  # a path grows no longer past the depth any settings nest to
    frame.inner = {**stack[-1].inner, frame.kind: len(stack)} if stack else {frame.kind: 0}
    stack.append(frame)


def _tokens(text: str) -> tuple[list[tuple[str, int, str]], int | None]:
    """(kind, offset, text) of each significant token: `s` a string, `n` a name or keyword, `d` a number, `p`
    punctuation. Comments and blanks are dropped; a long bracket is skipped to its closer in one search. Past
    MAX_LUA_TOKENS, the offset where the reading stopped."""
    out: list[tuple[str, int, str]] = []
    pos, end = 0, len(text)
    while pos < end:
        if len(out) >= MAX_LUA_TOKENS:
            return out, pos
        m = _TOKEN.match(text, pos)
        assert m is not None  # the last alternative matches any character
        tok, start, pos = m.group(), m.start(), m.end()
        first = tok[0]
        if tok.startswith("--["):
            pos = _after_long(text, pos, tok.count("="))
        elif first == "[" and len(tok) > 1:
            close = _after_long(text, pos, tok.count("="))
            out.append(("s", start, text[pos : max(pos, close - len(tok))]))
            pos = close
        elif first in " \t\r\n" or tok.startswith("--"):
            continue
        elif first in "\"'":
            out.append(("s", start, _unquote(tok)))
        elif first.isalpha() or first == "_":
            out.append(("n", start, tok))
        elif first.isdigit():
            out.append(("d", start, tok))
        else:
            out.append(("p", start, tok))
    return out, None


def _after_long(text: str, pos: int, level: int) -> int:
    """Past the closer `]=*]` of a long bracket of `level`; the text's end when it is never closed."""
    closer = "]" + "=" * level + "]"
    found = text.find(closer, pos)
    return len(text) if found == -1 else found + len(closer)


_ESCAPE = re.compile(r"\\(.)")


def _unquote(tok: str) -> str:
    inner = tok[1:-1] if len(tok) > 1 and tok[-1] == tok[0] else tok[1:]
    return _ESCAPE.sub(r"\1", inner) if "\\" in inner else inner


def parse_lua(text: str) -> list[ConfigItem]:
    items: list[ConfigItem] = []
    budget = Budget(items)
    lines = LineMap(text)
    toks, cut = _tokens(text)
    stack: list[_Frame] = []
    _push(stack, _Frame((), "code", depth=0))
    key: tuple[str, ...] | None = None  # the key of a `name =` / `a.b =` / `["name"] =` waiting for its value
    prev = ""  # the last significant token's text
    i, n = 0, len(toks)
    while i < n:
        kind, start, tok = toks[i]
        top = stack[-1]
        if kind == "n" and tok not in _LITERALS:
            chain, j = [tok], i + 1
            while j + 1 < n and toks[j][2] == "." and toks[j + 1][0] == "n":
                if len(chain) < _MAX_DEPTH:
                    chain.append(toks[j + 1][2])
                j += 2
            if tok == "function":
                _push(stack, _Frame(top.path + key if key and prev == "=" else top.path, "code"))
                budget.spend("Lua blocks")
            elif tok in _OPENS_BLOCK:
                _innermost_code(stack).depth += 1
            elif tok == "end":
                _close_block(stack)
            elif j < n and toks[j][2] == "=" and tok not in ("local", "return"):
                key = tuple(chain)
                prev, i = "=", j + 1
                continue
            key = None if tok != "local" else key
            prev, i = (chain[-1], j) if len(chain) > 1 else (tok, i + 1)
            continue
        if kind == "p":
            if tok == "[" and i + 3 < n and toks[i + 1][0] == "s" and toks[i + 2][2] == "]" and toks[i + 3][2] == "=":
                key, prev, i = (toks[i + 1][2],), "=", i + 4
                continue
            if tok == "{":
                _push(stack, _Frame(_table_path(top, key, prev), "table"))
                budget.spend("Lua tables")
            elif tok == "(":
                _push(stack, _Frame(top.path, "call"))
            elif tok in "})":
                _close(stack, "table" if tok == "}" else "call")
            key = key if tok == "=" else None
            prev, i = tok, i + 1
            continue
        # A literal value: a whole value only where one starts and ends.
        whole = i + 1 == n or _ends_value(toks[i + 1])
        if whole and key is not None and prev == "=":
            budget.spend("Lua values")
            items.append(ConfigItem(top.path + key, tok, lines.line(start)))
        elif whole and top.kind == "table" and prev in ("{", ",", ";"):
            budget.spend("Lua values")
            items.append(ConfigItem(top.path + (f"[{top.index}]",), tok, lines.line(start)))
            top.index += 1
        key, prev, i = None, tok, i + 1
    if cut is not None:
        raise _cut_at(cut, items)
    return items


def _cut_at(offset: int, items: list[ConfigItem]) -> BudgetExceeded:
    detail = f"more than {MAX_LUA_TOKENS:,} Lua tokens: read the first {MAX_LUA_TOKENS:,} (up to byte {offset:,})"
    return BudgetExceeded(detail, items)


def _ends_value(following: tuple[str, int, str]) -> bool:
    kind, _, tok = following
    return tok in _CLOSERS if kind == "p" else kind == "n" and tok not in _OPERATOR_WORDS


def _table_path(top: _Frame, key: tuple[str, ...] | None, prev: str) -> tuple[str, ...]:
    """Where a `{` opens: under the key it is the value of, at the next list position of the table it is an
    element of, else (a call's argument, a returned table) where the call or the function sits."""
    if key is not None and prev == "=":
        return top.path + key
    if top.kind == "table" and prev in ("{", ",", ";"):
        top.index += 1
        return top.path + (f"[{top.index - 1}]",)
    return top.path


def _innermost_code(stack: list[_Frame]) -> _Frame:
    return stack[stack[-1].inner["code"]]


def _close_block(stack: list[_Frame]) -> None:
    """`end`: the innermost code frame's block closes; its own `function` block closes the frame (and anything
    left open inside it). A stray `end` closes nothing."""
    at = stack[-1].inner["code"]
    code = stack[at]
    code.depth -= 1
    if code.depth <= 0 and at > 0:
        del stack[at:]
    code.depth = max(code.depth, 0)


def _close(stack: list[_Frame], kind: str) -> None:
    """`}` or `)`: the innermost frame of that kind closes, with what was left open inside it; a stray closer
    closes nothing past the innermost code frame."""
    at = stack[-1].inner.get(kind, -1)
    if at > stack[-1].inner["code"]:
        del stack[at:]

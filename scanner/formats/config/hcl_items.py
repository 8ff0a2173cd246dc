"""HCL (Terraform): blocks, attributes and object literals."""

from __future__ import annotations

import re
import sys
from dataclasses import dataclass

if sys.version_info >= (3, 11):
    pass
else:  # pragma: no cover
    pass


from scanner.formats.config.items import Budget, ConfigItem, LineMap, linear

# --- HCL (Terraform): blocks, attributes and object literals -----------------------------------------

_HCL_TOKEN = linear(
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


def _heredoc_end(text: str, tok: str, pos: int) -> int:
    """Past a heredoc (`<<EOF` ... `EOF`), or the text's end when it is never closed."""
    term = re.compile(r"^[ \t]*" + re.escape(tok.lstrip("<-")) + r"[ \t]*$", re.MULTILINE)
    found = term.search(text, pos)
    return found.end() if found else len(text)


def _opened(top: _HclFrame, key: tuple[str, ...] | None, labels: list[tuple[str, ...]], first: str) -> _HclFrame:
    """The frame a `{`, `[` or `(` opens: named by its key, its list position, or its block's labels."""
    if key is not None:
        name = key
    elif top.is_list:
        name = (f"[{top.index}]",)
        top.index += 1
    else:
        name = tuple(part for label in labels for part in label)
    return _HclFrame(top.path if first == "(" else top.path + name, first == "[")


def parse_hcl(text: str) -> list[ConfigItem]:
    """Terraform / HCL: `block "label" { key = "value" }`, nested blocks, object and list literals (also
    inside `yamlencode({...})`); Nix attribute sets read the same way (`a.b = "v";`). Values that are
    expressions (references, calls) are no items."""
    items: list[ConfigItem] = []
    budget = Budget(items)
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
            pos = _heredoc_end(text, tok, pos)
            key = None
            continue
        if first == "\n":
            labels = []
            continue
        if first in "{[(":
            stack.append(_opened(top, key, labels, first))
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

"""Path globs of catalog entries (where a tool keeps a file), matched against paths inside the target.

A glob is one of:
- `/etc/claude-code/managed-mcp.json`: absolute, from the target's root (managed, system-wide settings);
- `~/.cursor/mcp.json`: under a user home (`/root` or `/home/<user>`);
- `.vscode/mcp.json`: relative, under any directory at any depth (project files, and names that tools
  keep wherever their settings folder was put).

In a segment `*` matches any characters but `/` and `?` one such character; a whole segment `**` matches
zero or more directories. Everything else is literal, so a file name never needs escaping.
"""

from __future__ import annotations

import re
from functools import lru_cache

_HOME = r"(?:/root|/home/[^/]+)/"


def glob_problem(glob: str) -> str | None:
    """Why `glob` is not a usable file glob; None when it is."""
    body = _body(glob)[1]
    segments = body.split("/")
    if not body or "" in segments:
        return f"path {glob!r} has an empty segment (or names a directory)"
    if segments[-1] == "**":
        return f"path {glob!r} must end with a file name, not `**`"
    return None


@lru_cache(maxsize=256)
def glob_regex(glob: str) -> re.Pattern[str]:
    """The regex (for `fullmatch` against an inside path such as `/home/u/.cursor/mcp.json`) of a glob."""
    prefix, body = _body(glob)
    segments = body.split("/")
    out = [prefix]
    for i, seg in enumerate(segments):
        if seg == "**":
            out.append("(?:[^/]+/)*")
            continue
        out.append("".join("[^/]*" if ch == "*" else "[^/]" if ch == "?" else re.escape(ch) for ch in seg))
        if i < len(segments) - 1:
            out.append("/")
    return re.compile("".join(out))


def literal_name(glob: str) -> str | None:
    """The file name a glob requires, when its last segment has no wildcard (a cheap first test)."""
    name = glob.rsplit("/", 1)[-1]
    return None if "*" in name or "?" in name else name


def _body(glob: str) -> tuple[str, str]:
    if glob.startswith("~/"):
        return _HOME, glob[2:]
    if glob.startswith("/"):
        return "/", glob[1:]
    return ".*/", glob  # inside paths start with `/`, so `.*/` is "under any directory"

"""`--exclude` and `--skip-dirs`: globs over paths inside the target, matched as the walk reaches each entry.

A glob with a `/` is anchored at the target's root (`/var/cache`, `/home/*/.cache`); one without names an entry at
any depth (`*.log`, `node_modules`). `*` and `?` stay inside one path segment, `**` spans segments. A directory
that matches is not entered, so nothing under it is listed or read; each entry left out is recorded in `skipped`
(`excluded`, with the glob that matched), as every other gap is.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field


def glob_to_regex(glob: str) -> re.Pattern[str]:
    body = glob.rstrip("/") or "/"
    tail = ""
    if body.endswith("/**"):
        body, tail = body[:-3] or "/", "(?:/.*)?"  # `dir/**`: the directory and all it holds, as `dir` does
    anchored = body.startswith("/")
    out = []
    i = 0
    while i < len(body):
        if body.startswith("**", i):
            out.append(".*")
            i += 2
        elif body[i] == "*":
            out.append("[^/]*")
            i += 1
        elif body[i] == "?":
            out.append("[^/]")
            i += 1
        else:
            out.append(re.escape(body[i]))
            i += 1
    return re.compile(("" if anchored else "(?:.*/)?") + "".join(out) + tail)


Compiled = tuple[tuple[str, re.Pattern[str]], ...]


@dataclass(frozen=True)
class PathFilter:
    exclude: tuple[str, ...] = ()  # any entry
    skip_dirs: tuple[str, ...] = ()  # directories only
    _any: Compiled = field(init=False, compare=False, repr=False, default=())
    _dirs: Compiled = field(init=False, compare=False, repr=False, default=())

    def __post_init__(self) -> None:
        object.__setattr__(self, "_any", _compiled(self.exclude))
        object.__setattr__(self, "_dirs", _compiled(self.skip_dirs))

    def __bool__(self) -> bool:
        return bool(self.exclude or self.skip_dirs)

    def why(self, inside: str, is_dir: bool) -> str | None:
        """The glob that leaves `inside` out, as a skip's detail; None when it stays."""
        for glob, rx in self._any:
            if rx.fullmatch(inside):
                return f"--exclude {glob}"
        if is_dir:
            for glob, rx in self._dirs:
                if rx.fullmatch(inside):
                    return f"--skip-dirs {glob}"
        return None


def _compiled(globs: Sequence[str]) -> Compiled:
    return tuple((g, glob_to_regex(g)) for g in globs)

"""The detector contract: what a detector declares it needs, and what it hands back to the pipeline.

A detector declares the files it reads as data (`Needs`: kinds of file by name, folder, magic, context, size, or a
path its catalog names) and how it reads a big one (`Reading`); the pipeline compiles every detector's `Needs` once
into an index (`scanner.selection`) and hands each detector the `FileView` of the files it needs
(`scanner.fileview.view`), the one view of a file every detector shares.
"""

from __future__ import annotations

import fnmatch
import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from enum import Enum
from functools import cache
from typing import Protocol, runtime_checkable

from scanner.catalog import Catalog
from scanner.fileview.view import FileView
from scanner.kinds import Evidence
from scanner.model import Context, Skip


class Reading(Enum):
    """How a detector reads a file larger than --max-file-size (what the pipeline asks of it, by value)."""

    WHOLE = "whole"  # parses from the head, up to --max-file-size (most detectors)
    WINDOWS = "windows"  # parses from the head and is run again on every later window, which it respects
    MATCH_ONLY = "match"  # only matches patterns: any window will do, the head too; also runs on `Derived` bytes
    POSITIONAL = "positional"  # reads what it needs in place (`Window.read`): the head may be one window


class CatalogFiles(Enum):
    """Paths a catalog names by glob (catalogs/agents.toml), looked up in the catalog's own index."""

    AGENT_SETTINGS = "agent settings"  # `[[agents]] settings`: an agent product's settings files
    AGENT_CONFIGS = "agent configs"  # `[[agent_configs]]`: files that keep an MCP server list
    NATIVE_INSTALLS = "native installs"  # `[[agents]] native`: a native installer's executable

    def holds(self, catalog: Catalog, path: str) -> bool:
        if self is CatalogFiles.AGENT_SETTINGS:
            return bool(catalog.agent_settings_at(path))
        if self is CatalogFiles.AGENT_CONFIGS:
            return bool(catalog.agent_configs_at(path))
        return catalog.native_install(path) is not None

    def globs(self, catalog: Catalog) -> list[str]:
        """The catalog's globs of these paths (scanner/catalog/globs.py), for the index."""
        if self is CatalogFiles.AGENT_SETTINGS:
            return [sf.path for p in catalog.agents for sf in p.settings]
        if self is CatalogFiles.AGENT_CONFIGS:
            return [spec.path for spec in catalog.agent_configs]
        return [glob for p in catalog.agents for glob in p.native]


@dataclass(frozen=True)
class Files:
    """One kind of file a detector reads: every condition given holds for it (one left empty holds for any file).

    Name and folder patterns are globs (`*` any run, `?` one character) over one name, never a path."""

    names: tuple[str, ...] = ()  # its name matches one: `METADATA`, `*.jar`, `requirements*.txt`
    parents: tuple[str, ...] = ()  # the name of its folder matches one: `*.dist-info`, `conda-meta`
    under: tuple[str, ...] = ()  # a folder above it has one of these names: `node_modules`, `keys`
    magics: tuple[bytes, ...] = ()  # its first bytes are one of these
    catalog: CatalogFiles | None = None  # the catalog names its path
    contexts: frozenset[Context] = frozenset()  # its context is one of these
    not_in: frozenset[Context] = frozenset()  # its context is none of these
    max_size: int | None = None  # bytes, at most
    fold_case: bool = False  # `names` and `parents` match whatever the case
    # What the fields cannot say, asked last and only of a file they selected: a sniff of its head, a path shape.
    accept: Callable[[FileView], bool] | None = None

    def holds(self, view: FileView) -> bool:
        """Whether `view`'s file is of this kind: the declaration read directly (the index gives the same answer)."""
        entry = view.entry
        if self.max_size is not None and entry.size > self.max_size:
            return False
        if self.names and not _matches(self.names, view.name, self.fold_case):
            return False
        if self.parents or self.under:
            folders = entry.path.split("/")[:-1]
            if self.parents and not _matches(self.parents, folders[-1] if folders else "", self.fold_case):
                return False
            if self.under and not any(map(self.under.__contains__, folders)):
                return False
        if self.magics and not view.data.startswith(self.magics):
            return False
        if self.catalog is not None and not self.catalog.holds(view.catalog, entry.path):
            return False
        if self.contexts and view.context not in self.contexts:
            return False
        if self.not_in and view.context in self.not_in:
            return False
        return self.accept is None or self.accept(view)


@dataclass(frozen=True)
class Needs:
    """What a detector reads, as data: the kinds of file (any one selects a file) and how it reads a big one."""

    files: tuple[Files, ...]
    reading: Reading = Reading.WHOLE

    def selects(self, view: FileView) -> bool:
        return any(kind.holds(view) for kind in self.files)


def _matches(globs: tuple[str, ...], name: str, fold_case: bool) -> bool:
    name = name.lower() if fold_case else name
    return any(rx.match(name) for rx in _compiled(globs, fold_case))


@cache
def _compiled(globs: tuple[str, ...], fold_case: bool) -> tuple[re.Pattern[str], ...]:
    """The globs as patterns, as `fnmatch` reads them (`[…]` a class, as the shell's)."""
    return tuple(re.compile(fnmatch.translate(g.lower() if fold_case else g)) for g in globs)


@dataclass(frozen=True)
class Derived:
    """Bytes a detector decoded from its file (inflated gzip, a binary's UTF-16 strings), handed back to the
    pipeline: every `MATCH_ONLY` detector matches them as the file's own, in `context`, where they were yielded."""

    data: bytes
    context: Context
    cut_label: str | None  # what a cap's cut of their matches is recorded as (None: not recorded)


class Detector(Protocol):
    name: str
    description: str
    # The files it reads and how it reads a big one (see `Reading`): WINDOWS and MATCH_ONLY ones are run again on
    # each later window of a file past --max-file-size (a view with `window` set), which they must respect; for a
    # file only MATCH_ONLY and POSITIONAL ones need, its head is one window (a 60 MB jar is its zip directory and a
    # few members).
    needs: Needs

    # Evidence, skips, and bytes it decoded for the pattern matchers (`Derived`); never another detector's work.
    def extract(self, view: FileView) -> Iterable[Evidence | Skip | Derived]: ...


@dataclass(frozen=True)
class Setting:
    """A part of a detector's work a user may turn off: the scan command offers `--no-<name>` for it, with `help`
    as its text (every setting is on by default)."""

    name: str  # `hash-weights`: lower case words joined by `-`
    help: str


@runtime_checkable
class Settable(Protocol):
    """A detector with settings (`Setting`): it declares them and gives a copy of itself with some turned off."""

    settings: tuple[Setting, ...]

    def configured(self, off: frozenset[str]) -> Detector: ...


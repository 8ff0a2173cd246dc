"""Which detectors need a file: every detector's `Needs` compiled once, per scan, into lookups.

Each kind of file a detector declares (`Files`) is filed under keys one of which every file of it has: its exact
name, its parent's name, a folder above it, the literal end of its name glob (`*.jar` under the extension `jar`),
its magic, a path its catalog names (by those globs' own names and folders) or its context; a kind with none of
these (a sniff of every file) is asked of every file. Per file, a few dict lookups give the candidate kinds, and
only those are checked whole (`Files.holds`), in registry order: the answer is the declarations' own
(`Needs.selects`), the index only leaves out what cannot hold. Keys are compared in lower case, which only adds
candidates.
"""

from __future__ import annotations

import re
from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import TypeVar

from scanner.catalog import Catalog
from scanner.catalog.matcher import MatchTimeout
from scanner.detectors.contract import Detector, Files, Reading
from scanner.fileview.view import FileView
from scanner.model import Context

_WILD = frozenset("*?[")


@dataclass(frozen=True)
class Selected:
    """A detector that needs a file; `failure` says why asking it failed (its error, recorded for the file)."""

    detector: Detector
    failure: str | None = None


class Selection:
    def __init__(self, detectors: Sequence[Detector], catalog: Catalog) -> None:
        self.detectors = tuple(detectors)
        # The pattern matchers, which also match the bytes a detector decodes (`Derived`).
        self.matchers = tuple(d for d in self.detectors if d.needs.reading is Reading.MATCH_ONLY)
        self._kinds = [(position, kind) for position, d in enumerate(self.detectors) for kind in d.needs.files]
        index = _Index()
        for k, (_, kind) in enumerate(self._kinds):
            index.file(k, kind, catalog)
        self._always = tuple(index.always)
        self._names, self._parents = _frozen(index.names), _frozen(index.parents)
        self._extensions, self._ends = _frozen(index.extensions), _frozen(index.ends)
        self._end_lengths = sorted({len(end) for end in self._ends})
        self._under = _frozen(index.under)
        self._folders = re.compile("/(" + "|".join(map(re.escape, sorted(self._under))) + ")(?=/)")
        self._magics, self._contexts = _frozen(index.magics), _frozen(index.contexts)
        self._magic_lengths = sorted({len(magic) for magic in self._magics})

    def of(self, view: FileView) -> list[Selected]:
        """The detectors that need the file, in registry order."""
        chosen: list[Selected] = []
        last = -1
        for k in sorted(self.candidates(view)):
            position, kind = self._kinds[k]
            if position == last:
                continue  # the detector was chosen by an earlier kind
            try:
                if not kind.holds(view):
                    continue
            except MatchTimeout as exc:
                chosen.append(Selected(self.detectors[position], str(exc)))
            except (KeyboardInterrupt, SystemExit):
                raise
            except BaseException as exc:  # a detector's bug costs its file, never the scan
                chosen.append(Selected(self.detectors[position], type(exc).__name__))
            else:
                chosen.append(Selected(self.detectors[position]))
            last = position
        return chosen

    def candidates(self, view: FileView) -> set[int]:
        """The kinds (by their number) whose key the file has: a few dict lookups."""
        found = set(self._always)
        path, name = view.entry.path, view.name.lower()
        found.update(self._names.get(name, ()))
        dot = name.rfind(".")
        if dot != -1:
            found.update(self._extensions.get(name[dot + 1 :], ()))
        last_part = name[dot + 1 :]  # a literal end without a dot ends the part after the name's last dot
        for length in self._end_lengths:
            if length > len(last_part):
                break
            found.update(self._ends.get(last_part[-length:], ()))
        if self._parents:
            slash = path.rfind("/")
            found.update(self._parents.get(path[path.rfind("/", 0, slash) + 1 : slash].lower(), ()))
        if self._under:
            for folder in self._folders.findall(path):
                found.update(self._under[folder])
        for length in self._magic_lengths:
            found.update(self._magics.get(view.data[:length], ()))
        if self._contexts:
            found.update(self._contexts.get(view.context, ()))
        return found


K = TypeVar("K")


def _frozen(table: defaultdict[K, list[int]]) -> dict[K, tuple[int, ...]]:
    return {key: tuple(ids) for key, ids in table.items()}


def _table() -> defaultdict[str, list[int]]:
    return defaultdict(list)


@dataclass
class _Index:
    """The keys of every kind, while they are filed."""

    names: defaultdict[str, list[int]] = field(default_factory=_table)
    parents: defaultdict[str, list[int]] = field(default_factory=_table)
    extensions: defaultdict[str, list[int]] = field(default_factory=_table)
    ends: defaultdict[str, list[int]] = field(default_factory=_table)  # literal ends without a dot (`*token`)
    under: defaultdict[str, list[int]] = field(default_factory=_table)
    magics: defaultdict[bytes, list[int]] = field(default_factory=lambda: defaultdict(list))
    contexts: defaultdict[Context, list[int]] = field(default_factory=lambda: defaultdict(list))
    always: list[int] = field(default_factory=list)

    def file(self, k: int, kind: Files, catalog: Catalog) -> None:
        """File kind `k` under the keys one of which every file of it has (the most telling first)."""
        if kind.names and all(_WILD.isdisjoint(n) for n in kind.names):
            for name in kind.names:
                self.names[name.lower()].append(k)
        elif kind.parents and all(_WILD.isdisjoint(p) for p in kind.parents):
            for parent in kind.parents:
                self.parents[parent.lower()].append(k)
        elif kind.under:
            for folder in kind.under:
                self.under[folder].append(k)
        elif kind.names and all(_end(n) is not None for n in kind.names):
            for name in kind.names:
                self.name(k, name)
        elif kind.magics and all(kind.magics):
            for magic in kind.magics:
                self.magics[magic].append(k)
        elif kind.catalog is not None:
            for glob in kind.catalog.globs(catalog):
                self.catalog_glob(k, glob)
        elif kind.contexts:
            for context in kind.contexts:
                self.contexts[context].append(k)
        else:
            self.always.append(k)

    def name(self, k: int, glob: str) -> None:
        """A name glob with a key: a literal name or a literal end (`*.json`, `requirements*.txt`, `*token`)."""
        if _WILD.isdisjoint(glob):
            self.names[glob.lower()].append(k)
            return
        end = _end(glob)
        assert end is not None
        if "." in end:
            self.extensions[end[end.rindex(".") + 1 :]].append(k)
        else:
            self.ends[end].append(k)

    def catalog_glob(self, k: int, glob: str) -> None:
        """A catalog's path glob: by its file name, else the literal end of it, else its last literal folder."""
        segments = glob.split("/")
        if _end(segments[-1]) is not None:
            self.name(k, segments[-1])
            return
        folder = next((s for s in reversed(segments[:-1]) if s not in ("~", "") and _WILD.isdisjoint(s)), None)
        if folder is not None:
            self.under[folder].append(k)
        elif k not in self.always:
            self.always.append(k)


def _end(glob: str) -> str | None:
    """The lower-case literal a name glob ends with (a literal name is its own end); None when it has none."""
    glob = glob.lower()
    if _WILD.isdisjoint(glob):
        return glob
    star = glob.rfind("*")
    end = glob[star + 1 :]
    return end if star != -1 and end and _WILD.isdisjoint(end) else None

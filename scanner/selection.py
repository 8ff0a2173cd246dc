"""Which detectors need a file: every detector's `Needs` compiled once, per scan, into lookups.

Each kind of file a detector declares (`Files`) is filed under one key it cannot hold without: an exact name, the
literal end of a name glob (`*.jar` under `.jar`), its folder's name, a folder above it, its magic or its context;
a kind with none of these (a sniff of every file, a path its catalog names) is asked of every file. Per file, a few
dict lookups give the candidate kinds, and only those are checked whole (`Files.holds`), in registry order. The
answer is the declarations' own (`Needs.selects`): the index only avoids asking what cannot hold.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import TypeVar

from scanner.catalog.matcher import MatchTimeout
from scanner.detectors.base import Detector, Files, Reading
from scanner.fileview.view import FileView
from scanner.model import Context

_WILD = frozenset("*?[")


@dataclass(frozen=True)
class Selected:
    """A detector that needs a file; `failure` says why asking it failed (its error, recorded for the file)."""

    detector: Detector
    failure: str | None = None


class Selection:
    def __init__(self, detectors: Sequence[Detector]) -> None:
        self.detectors = tuple(detectors)
        # The pattern matchers, which also match the bytes a detector decodes (`Derived`).
        self.matchers = tuple(d for d in self.detectors if d.needs.reading is Reading.MATCH_ONLY)
        self._kinds = [(position, kind) for position, d in enumerate(self.detectors) for kind in d.needs.files]
        index = _Index()
        for k, (_, kind) in enumerate(self._kinds):
            index.file(k, kind)
        self._always = frozenset(index.always)
        self._names, self._folded = _frozen(index.names), _frozen(index.folded)
        self._ends, self._folded_ends = _frozen(index.ends), _frozen(index.folded_ends)
        self._parents, self._under = _frozen(index.parents), _frozen(index.under)
        self._magics, self._contexts = _frozen(index.magics), _frozen(index.contexts)
        self._end_lengths = sorted({len(k) for k in (*self._ends, *self._folded_ends)})
        self._magic_lengths = sorted({len(k) for k in self._magics})

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
        """The kinds whose key the file has (by their number): a few dict lookups."""
        found = set(self._always)
        name = view.name
        lower = name.lower()
        found.update(self._names.get(name, ()))
        found.update(self._folded.get(lower, ()))
        for length in self._end_lengths:
            if length > len(name):
                break
            found.update(self._ends.get(name[-length:], ()))
            found.update(self._folded_ends.get(lower[-length:], ()))
        if self._parents or self._under:
            folders = view.entry.path.split("/")[1:-1]
            if folders:
                found.update(self._parents.get(folders[-1], ()))
            for folder in folders:
                found.update(self._under.get(folder, ()))
        head = view.data
        for length in self._magic_lengths:
            found.update(self._magics.get(head[:length], ()))
        if self._contexts:
            found.update(self._contexts.get(view.context, ()))
        return found


K = TypeVar("K")


def _frozen(table: defaultdict[K, list[int]]) -> dict[K, tuple[int, ...]]:
    return {key: tuple(ids) for key, ids in table.items()}


@dataclass
class _Index:
    """The keys of every kind, while they are filed."""

    names: defaultdict[str, list[int]] = field(default_factory=lambda: defaultdict(list))
    folded: defaultdict[str, list[int]] = field(default_factory=lambda: defaultdict(list))
    ends: defaultdict[str, list[int]] = field(default_factory=lambda: defaultdict(list))
    folded_ends: defaultdict[str, list[int]] = field(default_factory=lambda: defaultdict(list))
    parents: defaultdict[str, list[int]] = field(default_factory=lambda: defaultdict(list))
    under: defaultdict[str, list[int]] = field(default_factory=lambda: defaultdict(list))
    magics: defaultdict[bytes, list[int]] = field(default_factory=lambda: defaultdict(list))
    contexts: defaultdict[Context, list[int]] = field(default_factory=lambda: defaultdict(list))
    always: list[int] = field(default_factory=list)

    def file(self, k: int, kind: Files) -> None:
        """File kind `k` under the keys one of which every file of it has; under none when it has no such key."""
        if kind.names and all(_keyed(glob) for glob in kind.names):
            for glob in kind.names:
                key = glob.lower() if kind.fold_case else glob
                if _WILD.isdisjoint(key):
                    (self.folded if kind.fold_case else self.names)[key].append(k)
                else:
                    (self.folded_ends if kind.fold_case else self.ends)[key[key.rindex("*") + 1 :]].append(k)
        elif kind.parents and not kind.fold_case and all(_WILD.isdisjoint(p) for p in kind.parents):
            for parent in kind.parents:
                self.parents[parent].append(k)
        elif kind.under:
            for folder in kind.under:
                self.under[folder].append(k)
        elif kind.magics and all(kind.magics):
            for magic in kind.magics:
                self.magics[magic].append(k)
        elif kind.contexts:
            for context in kind.contexts:
                self.contexts[context].append(k)
        else:
            self.always.append(k)


def _keyed(glob: str) -> bool:
    """A name glob with a key: a literal name, or a literal end after its last `*` (`requirements*.txt`)."""
    if _WILD.isdisjoint(glob):
        return True
    star = glob.rfind("*")
    return star != -1 and star < len(glob) - 1 and _WILD.isdisjoint(glob[star + 1 :])

"""Which detectors need a file: every detector's `Needs` compiled once, per scan, into lookups.

Each kind of file a detector declares (`Files`) is filed under keys one of which every file of it has: its exact
name, its parent's name, a folder above it, the literal end of its name glob (`*.jar` under the extension `jar`),
its magic, a path its catalog names (by those globs' own names and folders) or its context; a kind with none of
these (a sniff of every file) is asked of every file, and one that only rules contexts out (`not_in`) is filed
under every other context. Per file, a few dict lookups give the candidate kinds as one bit mask (a folder's keys
are looked up once for its files in a row), and only those are checked whole (`Files.holds`, not asked of a kind
with no condition), in registry order: the answer is the declarations' own (`Needs.selects`), the index only
leaves out what cannot hold. Keys are compared in lower case, which only adds candidates.
"""

from __future__ import annotations

import re
from collections import defaultdict
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from typing import TypeVar

from scanner.catalog import Catalog
from scanner.catalog.matcher import MatchTimeout
from scanner.detectors.contract import Detector, Files, Reading
from scanner.fileview.view import FileView
from scanner.model import Context

_WILD = frozenset("*?[")
K = TypeVar("K")
Check = Callable[[FileView], bool]


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
        left = [index.file(k, kind, catalog) for k, (_, kind) in enumerate(self._kinds)]
        # Each table gives the kinds of a key as one bit mask (bit k: kind k), so a file's candidates are an `or`.
        self._always = _mask(index.always)
        self._names, self._parents = _masks(index.names), _masks(index.parents)
        self._extensions, self._ends = _masks(index.extensions), _masks(index.ends)
        self._end_lengths = sorted({len(end) for end in self._ends})
        self._under = _masks(index.under)
        self._folders = re.compile("/(" + "|".join(map(re.escape, sorted(self._under))) + ")(?=/)")
        self._magics: dict[bytes, tuple[tuple[bytes, int], ...]] = {}  # by the first byte: (magic, its kinds)
        for magic, ids in sorted(index.magics.items()):
            self._magics[magic[:1]] = (*self._magics.get(magic[:1], ()), (magic, _mask(ids)))
        self._contexts = _masks(index.contexts)
        # Per scan, bounded: a folder's keys (its files come one after another) and a name end's.
        self._folder: tuple[str, int] = ("", -1)
        self._last_parts: dict[str, int] = {}
        # The candidates of a mask, in registry order, each with what is left to ask of a file its keys selected.
        self._ordered: dict[int, tuple[tuple[int, Check | None], ...]] = {}
        self._checks = [_left_to_ask(kind) for kind in left]
        self._selected = tuple(Selected(d) for d in self.detectors)  # each detector's, chosen without a failure

    def of(self, view: FileView) -> list[Selected]:
        """The detectors that need the file, in registry order."""
        chosen: list[Selected] = []
        last = -1
        for position, check in self._in_order(self.candidates(view)):
            if position == last:
                continue  # the detector was chosen by an earlier kind
            try:
                if check is not None and not check(view):
                    continue
            except MatchTimeout as exc:
                chosen.append(Selected(self.detectors[position], str(exc)))
            except (KeyboardInterrupt, SystemExit):
                raise
            except BaseException as exc:  # a detector's bug costs its file, never the scan
                chosen.append(Selected(self.detectors[position], type(exc).__name__))
            else:
                chosen.append(self._selected[position])
            last = position
        return chosen

    def candidates(self, view: FileView) -> int:
        """The kinds whose key the file has, as a bit mask (bit k: kind k): a few dict lookups."""
        path = view.entry.path
        slash = path.rfind("/")
        name = path[slash + 1 :].lower()
        found = self._always | self._names.get(name, 0) | self._name_end(name)
        folder, keys = self._folder
        if folder != path[:slash] or keys < 0:
            keys = self._folder_keys(path[: slash + 1])
            self._folder = (path[:slash], keys)
        found |= keys
        data = view.data
        for magic, ids in self._magics.get(data[:1], ()):
            if data.startswith(magic):
                found |= ids
        if self._contexts:
            found |= self._contexts.get(view.context, 0)
        return found

    def _name_end(self, name: str) -> int:
        """The kinds keyed on the part after a name's last dot (its extension), or on a literal end of it."""
        dot = name.rfind(".")
        last_part = name[dot + 1 :]  # a literal end without a dot ends the part after the name's last dot
        known = self._last_parts.get(last_part) if dot != -1 else None
        if known is not None:
            return known
        found = self._extensions.get(last_part, 0) if dot != -1 else 0
        for length in self._end_lengths:
            if length > len(last_part):
                break
            found |= self._ends.get(last_part[-length:], 0)
        if dot != -1 and len(self._last_parts) < _MAX_REMEMBERED:
            self._last_parts[last_part] = found
        return found

    def _folder_keys(self, folder: str) -> int:
        """The kinds keyed on a folder's name (its files' parent) or on a folder above its files (`folder` ends
        with `/`)."""
        found = 0
        if self._parents:
            found |= self._parents.get(folder[folder.rfind("/", 0, -1) + 1 : -1].lower(), 0)
        if self._under:
            for above in self._folders.findall(folder):
                found |= self._under[above]
        return found

    def _in_order(self, mask: int) -> tuple[tuple[int, Check | None], ...]:
        ordered = self._ordered.get(mask)
        if ordered is None:
            ordered = tuple(
                (position, self._checks[k]) for k, (position, _) in enumerate(self._kinds) if mask >> k & 1
            )
            if len(self._ordered) < _MAX_REMEMBERED:
                self._ordered[mask] = ordered
        return ordered


# Entries a per-scan table of the index keeps at most (name ends, candidate masks): a few hundred in practice.
_MAX_REMEMBERED = 4096


def _left_to_ask(left: Files) -> Check | None:
    """What a file the index selected must still pass, given the conditions its keys left (`_Index.file`): nothing
    when none is left, its own question alone when only that is left, else those conditions (`Files.holds`)."""
    if replace(left, accept=None) == Files():
        return left.accept
    return left.holds


def _mask(ids: list[int]) -> int:
    return sum(1 << k for k in set(ids))


def _masks(table: defaultdict[K, list[int]]) -> dict[K, int]:
    return {key: _mask(ids) for key, ids in table.items()}


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

    def file(self, k: int, kind: Files, catalog: Catalog) -> Files:
        """File kind `k` under the keys one of which every file of it has (the most telling first); what is left to
        ask of a file its keys select: the kind less the condition they settle exactly (a folder above, found by
        its exact name; the contexts a kind of no other condition rules out), else the whole kind."""
        if kind.names and all(_WILD.isdisjoint(n) for n in kind.names):
            for name in kind.names:
                self.names[name.lower()].append(k)
        elif kind.parents and all(_WILD.isdisjoint(p) for p in kind.parents):
            for parent in kind.parents:
                self.parents[parent.lower()].append(k)
        elif kind.under:
            for folder in kind.under:
                self.under[folder].append(k)
            # Checked again, `under` was a split of the path and a scan of its folders per file (2% of /opt).
            return replace(kind, under=())
        elif kind.names and all(_end(n) is not None for n in kind.names):
            for name in kind.names:
                self.name(k, name)
        elif kind.magics and all(kind.magics):
            for magic in kind.magics:
                self.magics[magic].append(k)
        elif kind.catalog is not None:
            for glob in kind.catalog.globs(catalog):
                self.catalog_glob(k, glob)
        elif kind.contexts or kind.not_in:
            for context in kind.contexts or frozenset(Context) - kind.not_in:
                self.contexts[context].append(k)
            if not kind.contexts:
                return replace(kind, not_in=frozenset())
        else:
            self.always.append(k)
        return kind

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

"""A file is read once: a second path to the same (device, inode), through a hard link or a symlink, takes the
first path's result relocated to it, without a second read.

Only results that may be met again are kept: files with more than one link, and files reached through a
symlink (whose real path the walk may meet later). A bounded number of evidence items is kept; past it, a
repeat is read again (correct, only slower). Everything is decided in walk order, so it is deterministic.
"""

from __future__ import annotations

import pickle
from collections.abc import Callable
from dataclasses import replace

from scanner.kinds import Evidence
from scanner.kinds.sessions import SessionEvidence, SessionLogEvidence, SessionMetaEvidence
from scanner.model import Location, Skip
from scanner.sightings import Item, Sightings, count
from scanner.targets.base import FileEntry
from scanner.textsafe import display_path

MAX_KEPT_ITEMS = 200_000

# (device, inode) as one int: a tree of hard links (a copied /usr) keeps one key per file, and an int
# costs a third of a tuple of two.
Key = int


def key_of(entry: FileEntry) -> Key | None:
    return (entry.dev << 64) | entry.ino if entry.ino else None


def worth_keeping(entry: FileEntry) -> bool:
    return entry.nlink > 1 or entry.via is not None


class RepeatFilter:
    """At dispatch, in walk order: is this entry a repeat of one whose result will be kept?"""

    def __init__(self) -> None:
        self._keys: set[Key] = set()

    def __call__(self, entry: FileEntry) -> bool:
        key = key_of(entry)
        if key is None:
            return False
        if key in self._keys:
            return True
        if worth_keeping(entry):
            self._keys.add(key)
        return False


class SeenFiles:
    """The results kept for repeats. Most files give nothing: those are kept as a key alone (no entry, no
    list), so a tree where every file has a second link costs a set of ints, not a copy of its walk. The
    rest are kept pickled: a copied /usr (every file a hard link whose twin is outside the tree) kept ~60k
    evidence items for repeats that never came, a sixth of the parent's memory as objects, a fifth of
    that as bytes. Only this process's own objects are ever unpickled."""

    def __init__(self) -> None:
        self._kept: dict[Key, bytes | tuple[FileEntry, list[Item]]] = {}
        self._empty: set[Key] = set()
        self._items = 0
        self.reused = 0

    def first(self, entry: FileEntry) -> tuple[FileEntry, list[Item]] | None:
        key = key_of(entry)
        if key is None:
            return None
        if key in self._empty:
            return entry, []
        kept = self._kept.get(key)
        if kept is None or isinstance(kept, tuple):
            return kept
        first: tuple[FileEntry, list[Item]] = pickle.loads(kept)
        return first

    def keep(self, entry: FileEntry, items: list[Item]) -> None:
        key = key_of(entry)
        if key is None or key in self._kept or key in self._empty or not worth_keeping(entry):
            return
        if not items:
            self._empty.add(key)
            return
        sightings = count(items)
        if self._items + sightings > MAX_KEPT_ITEMS:
            return
        try:
            self._kept[key] = pickle.dumps((entry, items), pickle.HIGHEST_PROTOCOL)
        except (pickle.PicklingError, TypeError, AttributeError):
            # A backend's own int types (a disk image parser's uint16 link counts) may not pickle: kept as is.
            self._kept[key] = (entry, items)
        self._items += sightings


def relocate(items: list[Item], first: FileEntry, entry: FileEntry) -> list[Item]:
    """The first path's evidence as seen at `entry`'s path (and the symlink it came through)."""
    old_path, new_path = display_path(first.path), display_path(entry.path)
    new_via = display_path(entry.via) if entry.via else None

    def moved(loc: Location) -> Location:
        if loc.path != old_path:
            return loc  # a file the first one named (an EnvironmentFile): it stays where it is
        return replace(loc, path=new_path, via=new_via)

    out: list[Item] = []
    for item in items:
        if isinstance(item, Skip):
            out.append(replace(item, path=new_path) if item.path == old_path else item)
        elif isinstance(item, Sightings):
            out.append(Sightings(_relocated(item.evidence, moved), tuple(moved(loc) for loc in item.more)))
        else:
            out.append(_relocated(item, moved))
    return out


def _relocated(item: Evidence, moved: Callable[[Location], Location]) -> Evidence:
    if isinstance(item, SessionEvidence):
        return replace(item, session=replace(item.session, location=moved(item.session.location)))
    if isinstance(item, SessionMetaEvidence):
        return replace(item, meta=replace(item.meta, location=moved(item.meta.location)))
    if isinstance(item, SessionLogEvidence):
        return replace(item, note=replace(item.note, location=moved(item.note.location)))
    return replace(item, location=moved(item.location))

"""Paths resolved inside a root, as if chrooted there: the contained walker's resolution.

Every path is resolved by hand, one component at a time, relative to open directory descriptors; no call follows a
symlink, so a directory swapped for a symlink mid-scan is refused, never followed. `Walker` is built on
`ContainedResolver`; the filesystem calls themselves are `hostfs.Filesystem`.
"""

from __future__ import annotations

import errno
import stat
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, field
from os import stat_result
from typing import TYPE_CHECKING

from scanner.model import SkipReason
from scanner.targets.hostfs import Filesystem, Handle
from scanner.textsafe import display_path

if TYPE_CHECKING:  # the walker's options; the walker imports this module, not the other way round
    from scanner.targets.walker import WalkOptions

MAX_SYMLINK_HOPS = 40
# The walk holds one descriptor per level; a hostile tree deeper than this would exhaust them (the common soft
# limit is 1024), so deeper directories are a recorded skip. Real trees stay far below; PATH_MAX stopped the old walk
# around 2,000 levels anyway.
MAX_DEPTH = 512
PSEUDO_TOP_DIRS = frozenset({"proc", "sys", "dev"})

DirKey = tuple[int, int]  # (st_dev, st_ino): one directory however it is reached


class Unresolvable(Exception):
    def __init__(self, reason: SkipReason, detail: str) -> None:
        super().__init__(detail)
        self.reason = reason
        self.detail = detail


@dataclass
class DirFrame:
    """One open directory of the walk's chain (root first)."""

    inside: str
    handle: Handle
    via: str | None = None
    owned: bool = True  # closed by whoever popped it; a borrowed frame belongs to an outer chain
    pending: deque[tuple[str, DirKey]] = field(default_factory=deque)  # subdirectories not walked yet


def path_parts(path: str) -> list[str]:
    return [p for p in path.split("/") if p not in ("", ".")]


def join_inside(parent: str, name: str) -> str:
    return f"/{name}" if parent == "/" else f"{parent}/{name}"


def dir_key(st: stat_result) -> DirKey:
    return (st.st_dev, st.st_ino)


class ContainedResolver:
    """The resolution half of `Walker`: it owns the attributes below and the walk's chain of frames."""

    fs: Filesystem
    options: WalkOptions
    _exclude: dict[str, str]
    _current: DirFrame | None  # the directory the walk is listing: dropped here when its frame closes

    def resolve(self, inside: str) -> str:
        """The inside path with every symlink resolved inside the root (raises `Unresolvable`)."""
        root = self.fs.open_root()
        try:
            found, _ = self._resolve([DirFrame("/", root, owned=False)], path_parts(inside))
        finally:
            self.fs.close(root)
        return found[0]

    def _refused(self, inside: str) -> str | None:
        """Why a path may not be entered, however it was reached (by name, through a link, from a config)."""
        if inside in self._exclude:
            return self._exclude[inside]
        if not self.options.include_pseudo and inside.count("/") == 1 and inside[1:] in PSEUDO_TOP_DIRS:
            return f"-> {display_path(inside)}"
        return None

    def _resolve(
        self,
        base: list[DirFrame],
        parts: list[str],
        opener: Callable[[Handle, str, stat_result], Handle | None] | None = None,
    ) -> tuple[tuple[str, stat_result], Handle | None]:
        """Resolve `parts` from the open chain `base`, as in a chroot at the root.

        Absolute link targets restart at the root and `..` stops there. A relative link whose `..` climbs above the
        root would leave it on the host: refused, as documented. Returns the resolved inside path with its stat
        and, when `opener` is given, what it opened from the final parent directory (while that is still open).
        """
        chain = list(base)
        pending = deque(parts)
        hops = 0
        fs = self.fs
        try:
            while pending:
                part = pending.popleft()
                if part == "..":
                    if len(chain) > 1:
                        self._drop(chain.pop())
                    continue
                parent = chain[-1]
                inside = join_inside(parent.inside, part)
                refusal = self._refused(inside)
                if refusal is not None:
                    raise Unresolvable(SkipReason.PSEUDO_FILESYSTEM, refusal)
                st = lstat_at(fs, parent.handle, part)
                if stat.S_ISLNK(st.st_mode):
                    hops += 1
                    if hops > MAX_SYMLINK_HOPS:
                        raise Unresolvable(SkipReason.SYMLINK_LOOP, f"more than {MAX_SYMLINK_HOPS} links")
                    link = readlink_at(fs, parent.handle, part)
                    if link.startswith("/"):
                        while len(chain) > 1:
                            self._drop(chain.pop())
                    elif climbs_above(len(chain) - 1, link):
                        raise Unresolvable(SkipReason.SYMLINK_OUTSIDE_ROOT, f"-> {display_path(link)} leaves the root")
                    pending.extendleft(reversed(path_parts(link)))
                    continue
                if not pending:
                    return (inside, st), (opener(parent.handle, part, st) if opener else None)
                if not stat.S_ISDIR(st.st_mode):
                    raise Unresolvable(SkipReason.SYMLINK_BROKEN, "a component is not a directory")
                if len(chain) > MAX_DEPTH:
                    raise Unresolvable(SkipReason.CAP_REACHED, f"deeper than {MAX_DEPTH} directory levels")
                chain.append(DirFrame(inside, self._open_dir(parent.handle, part, dir_key(st))))
            top = chain[-1]  # resolved to a directory already open: the root, or one reached by `..`
            return (top.inside, fs.fstat(top.handle)), None
        finally:
            for frame in chain:
                self._drop(frame)

    def _open_dir(self, parent: Handle, name: str, expected: DirKey) -> Handle:
        """A directory seen as `expected`: refused if it changed (became a link, or was swapped) since."""
        try:
            handle = self.fs.open_dir(parent, name)
        except OSError as exc:
            raise dir_failure(exc) from None
        try:
            same = dir_key(self.fs.fstat(handle)) == expected
        except OSError:
            same = False
        if not same:
            self.fs.close(handle)
            raise Unresolvable(SkipReason.CHANGED, "directory replaced while walking")
        return handle

    def _drop(self, frame: DirFrame) -> None:
        if frame.owned:
            frame.owned = False
            if self._current is frame:
                self._current = None
            self.fs.close(frame.handle)


def lstat_at(fs: Filesystem, parent: Handle, name: str) -> stat_result:
    try:
        return fs.lstat(parent, name)
    except FileNotFoundError:
        raise Unresolvable(SkipReason.SYMLINK_BROKEN, "target does not exist") from None
    except NotADirectoryError:
        raise Unresolvable(SkipReason.SYMLINK_BROKEN, "a component is not a directory") from None
    except PermissionError:
        raise Unresolvable(SkipReason.PERMISSION_DENIED, "cannot inspect link target") from None
    except OSError as exc:
        raise Unresolvable(SkipReason.READ_ERROR, exc.strerror or str(exc)) from None


def readlink_at(fs: Filesystem, parent: Handle, name: str) -> str:
    try:
        return fs.readlink(parent, name)
    except OSError as exc:
        if exc.errno in (errno.EINVAL, errno.ENOENT):  # no longer a link (or gone) since its lstat
            raise Unresolvable(SkipReason.CHANGED, "link replaced while walking") from None
        raise Unresolvable(SkipReason.READ_ERROR, exc.strerror or str(exc)) from None


def dir_failure(exc: OSError) -> Unresolvable:
    if exc.errno in (errno.ELOOP, errno.ENOTDIR):
        return Unresolvable(SkipReason.CHANGED, "directory replaced while walking")
    if isinstance(exc, PermissionError):
        return Unresolvable(SkipReason.PERMISSION_DENIED, "directory not listable")
    return Unresolvable(SkipReason.READ_ERROR, exc.strerror or str(exc))


def climbs_above(depth: int, link: str) -> bool:
    for part in path_parts(link):
        depth += -1 if part == ".." else 1
        if depth < 0:
            return True
    return False


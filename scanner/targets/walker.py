"""The one contained walker: every target (a host directory, the live root, a container image's squashed tree, a
disk image's mounts) is this walk over its backend's `Filesystem` (hostfs.py, memfs.py, disk/dissectfs.py), with
the target's root as `/`.

Contained: every path is resolved by hand, one component at a time, relative to open directory descriptors, as if
chrooted at the root. The host's own resolution never runs on a path of more than one component, and no call
follows a symlink (`O_NOFOLLOW`, `AT_SYMLINK_NOFOLLOW`), so a directory swapped for a symlink mid-scan is refused,
never followed. The walk keeps its chain of open directories (one descriptor per level, so at most the depth of the
tree) and reads each file relative to the directory it was listed in. Non-blocking: only regular files are opened,
with O_NONBLOCK as a second guard. Read-only: O_NOATIME on directories and files where the kernel allows it.
Resolution inside the root is `contained.ContainedResolver`, the readers' kept chain `open_chain`, what a listed
name is `walked_entry`. What a backend can do beyond the `Filesystem` calls it declares by type
(`KnowsOrigins`, `OpensWalked`), read once here.
"""

from __future__ import annotations

import os
import stat
import weakref
from collections import deque
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from os import stat_result

from scanner.model import Skip, SkipReason, TargetInfo
from scanner.targets.base import FileEntry, ReadFailure, ReadResult
from scanner.targets.contained import (
    MAX_DEPTH,
    PSEUDO_TOP_DIRS,
    ContainedResolver,
    DirFrame,
    DirKey,
    Unresolvable,
    dir_failure,
    dir_key,
    join_inside,
    path_parts,
)
from scanner.targets.hostfs import Filesystem, Handle, HostFilesystem, KnowsOrigins, OpensWalked
from scanner.targets.open_chain import OpenChain, open_file_at
from scanner.targets.pathglob import PathFilter
from scanner.targets.walked_entry import entry_or_skip
from scanner.textsafe import display_path


@dataclass(frozen=True)
class WalkOptions:
    include_pseudo: bool = False
    one_file_system: bool = False
    # Inside paths never entered, with why (a live root's /proc, /sys and network mounts, by fstype).
    exclude: tuple[tuple[str, str], ...] = ()
    paths: PathFilter = PathFilter()  # --exclude and --skip-dirs


class Walker(ContainedResolver):
    """A target's tree as the root: a host directory, or another backend's `fs`. One walk or read at a time (the
    target is not shared between threads)."""

    def __init__(
        self, root: str, options: WalkOptions | None = None, kind: str = "directory", fs: Filesystem | None = None
    ) -> None:
        """`root` is a host directory, or with `fs` just the location shown for another backend's tree."""
        self.location = root
        if fs is None:
            if not os.path.isdir(root):
                raise NotADirectoryError(root)
            # The root argument is the user's own path, so the host may resolve it; nothing below it is.
            root = os.path.realpath(root)
            fs = HostFilesystem(root)
        self.root = root
        self.fs: Filesystem = fs
        self._origins = fs if isinstance(fs, KnowsOrigins) else None
        self._by_identity = fs if isinstance(fs, OpensWalked) else None
        self.options = options or WalkOptions()
        self.info = TargetInfo(kind=kind, location=self.location)
        handle = fs.open_root()
        try:
            self._root_dev = fs.fstat(handle).st_dev
        finally:
            fs.close(handle)
        self._exclude = dict(self.options.exclude)
        self._current: DirFrame | None = None  # the directory the walk is listing: its files are opened from it
        self._opened = OpenChain(fs)
        weakref.finalize(self, self._opened.close)

    @property
    def shareable(self) -> bool:
        """Whether forked scan workers may read through this target (its backend keeps no shared positions)."""
        return self.fs.shareable

    # --- paths ------------------------------------------------------------------------------------

    def host_path(self, inside: str) -> str:
        """For display and tests only: never opened."""
        return self.root if inside == "/" else self.root + inside

    # --- walk -------------------------------------------------------------------------------------

    def walk(self) -> Iterator[FileEntry | Skip]:
        """Files in a stable order: each directory's own entries by name, then its subdirectories depth-first;
        directories reached only through symlinks after the real tree, in the order they were met."""
        try:
            root = self.fs.open_root()
        except OSError as exc:
            yield Skip("/", SkipReason.READ_ERROR, exc.strerror or str(exc))
            return
        frames = [DirFrame("/", root)]
        visited = {dir_key(self.fs.fstat(root))}
        linked: deque[tuple[str, str, DirKey]] = deque()  # (resolved dir, link path, key): walked after the real tree
        try:
            yield from self._list(frames, linked, visited)
            while frames or linked:
                if not frames:
                    real, link, key = linked.popleft()
                    if key in visited:
                        continue
                    try:
                        frames.extend(self._open_chain(real, key))
                    except Unresolvable as exc:
                        yield Skip(display_path(link), exc.reason, exc.detail)
                        continue
                    visited.add(key)
                    frames[-1].via = link
                    yield from self._list(frames, linked, visited)
                    continue
                top = frames[-1]
                if not top.pending:
                    self._drop(frames.pop())
                    continue
                name, key = top.pending.popleft()
                inside = join_inside(top.inside, name)
                if len(frames) > MAX_DEPTH:
                    yield Skip(
                        display_path(inside), SkipReason.CAP_REACHED, f"deeper than {MAX_DEPTH} directory levels"
                    )
                    continue
                try:
                    handle = self._open_dir(top.handle, name, key)
                except Unresolvable as exc:
                    yield Skip(display_path(inside), exc.reason, exc.detail)
                    continue
                frames.append(DirFrame(inside, handle, f"{top.via}/{name}" if top.via else None))
                yield from self._list(frames, linked, visited)
        finally:
            while frames:
                self._drop(frames.pop())

    def _open_chain(self, real: str, key: DirKey) -> list[DirFrame]:
        """The open directories from the root down to `real` (already resolved: no link may appear on the way)."""
        chain = [DirFrame("/", self.fs.open_root())]
        try:
            for part in path_parts(real):
                try:
                    handle = self.fs.open_dir(chain[-1].handle, part)
                except OSError as exc:
                    raise dir_failure(exc) from None
                chain.append(DirFrame(join_inside(chain[-1].inside, part), handle))
            if dir_key(self.fs.fstat(chain[-1].handle)) != key:
                raise Unresolvable(SkipReason.CHANGED, "directory replaced while walking")
        except BaseException:
            for frame in chain:
                self._drop(frame)
            raise
        return chain  # the ancestors stay open for resolving links below; they have nothing pending

    def _list(
        self, frames: list[DirFrame], linked: deque[tuple[str, str, DirKey]], visited: set[DirKey]
    ) -> Iterator[FileEntry | Skip]:
        top = frames[-1]
        try:
            entries = self.fs.scandir(top.handle)
        except PermissionError:
            yield Skip(display_path(top.inside), SkipReason.PERMISSION_DENIED, "directory not listable")
            return
        except OSError as exc:
            yield Skip(display_path(top.inside), SkipReason.READ_ERROR, exc.strerror or str(exc))
            return
        self._current = top
        try:
            yield from self._entries(frames, entries, linked, visited)
        except OSError as exc:  # an entry's stat failed past the listing (an I/O error): the rest is not walked
            yield Skip(display_path(top.inside), SkipReason.READ_ERROR, f"listing cut: {exc.strerror or exc}")

    def _entries(
        self,
        frames: list[DirFrame],
        entries: Iterable[tuple[str, stat_result]],
        linked: deque[tuple[str, str, DirKey]],
        visited: set[DirKey],
    ) -> Iterator[FileEntry | Skip]:
        top = frames[-1]
        at_root = top.inside == "/"
        paths = self.options.paths or None
        for name, st in entries:
            inside = join_inside(top.inside, name)
            if inside in self._exclude:
                yield Skip(display_path(inside), SkipReason.PSEUDO_FILESYSTEM, self._exclude[inside])
                continue
            if at_root and name in PSEUDO_TOP_DIRS and not self.options.include_pseudo:
                yield Skip(display_path(inside), SkipReason.PSEUDO_FILESYSTEM, "skipped by default")
                continue
            mode = st.st_mode
            left_out = paths.why(inside, not stat.S_ISREG(mode)) if paths is not None else None
            if left_out:
                yield Skip(display_path(inside), SkipReason.EXCLUDED, left_out)
                continue
            if stat.S_ISLNK(mode):
                yield from self._follow(frames, name, inside, linked, visited)
                continue
            if stat.S_ISDIR(mode):
                if self.options.one_file_system and st.st_dev != self._root_dev:
                    yield Skip(display_path(inside), SkipReason.PSEUDO_FILESYSTEM, "other filesystem")
                    continue
                key = dir_key(st)
                if key in visited:
                    continue  # a bind mount or hard-linked directory already walked
                visited.add(key)
                top.pending.append((name, key))
                continue
            yield entry_or_skip(inside, st, f"{top.via}/{name}" if top.via else None)

    def _follow(
        self, frames: list[DirFrame], name: str, link: str, linked: deque[tuple[str, str, DirKey]], visited: set[DirKey]
    ) -> Iterator[FileEntry | Skip]:
        try:
            (real, st), _ = self._resolve([DirFrame(f.inside, f.handle, owned=False) for f in frames], [name])
        except Unresolvable as exc:
            yield Skip(display_path(link), exc.reason, exc.detail)
            return
        if stat.S_ISDIR(st.st_mode):
            if self.options.one_file_system and st.st_dev != self._root_dev:
                yield Skip(display_path(link), SkipReason.PSEUDO_FILESYSTEM, "other filesystem")
            elif dir_key(st) not in visited:
                linked.append((real, link, dir_key(st)))
            return
        yield entry_or_skip(real, st, link)

    # --- read -------------------------------------------------------------------------------------

    def origin_of(self, inside_path: str) -> str | None:
        return self._origins.origin_of(inside_path) if self._origins is not None else None

    def read(self, entry: FileEntry, limit: int) -> ReadResult:
        handle = self._open_walked(entry)
        try:
            return self._read_open(handle, limit)
        finally:
            self.fs.close(handle)

    def read_window(self, entry: FileEntry, offset: int, size: int) -> bytes:
        # Opened afresh for each window, from the directory like `read`; pread keeps no offset.
        handle = self._open_walked(entry)
        try:
            if not stat.S_ISREG(self.fs.fstat(handle).st_mode):
                raise ReadFailure(SkipReason.CHANGED, "no longer a regular file")
            data = self.fs.pread(handle, size, offset)
            want = min(size, entry.size - offset)
            if len(data) < want:
                raise ReadFailure(SkipReason.READ_ERROR, f"short read: {len(data)} of {want} bytes at byte {offset}")
            return data
        except OSError as exc:
            raise ReadFailure(SkipReason.READ_ERROR, exc.strerror or str(exc)) from None
        finally:
            self.fs.close(handle)

    def _open_walked(self, entry: FileEntry) -> Handle:
        """The walked file: from the directory the walk is listing, or by the identity the walk gave it where the
        backend can (a disk image's inode, in a worker: nothing on the host is named by it), else by its path."""
        current = self._current
        listed_here = current is not None and current.inside == (entry.path.rpartition("/")[0] or "/")
        if self._by_identity is not None and not listed_here:
            try:
                return self._by_identity.open_walked(entry)
            except OSError:
                pass  # not found as walked: by its path, as any backend
        return self._open_entry(entry.path)

    def _open_entry(self, path: str) -> Handle:
        """The walked file at `path` (a resolved inside path), opened from its directory; no link is followed."""
        parent, _, name = path.rpartition("/")
        parent = parent or "/"
        current = self._current
        if current is not None and current.inside == parent:
            return open_file_at(self.fs, current.handle, name)
        # Reached through a link, or read in a worker (which does not walk): from the kept chain of the last
        # such file's directories, which the next file most often shares. A failure there may be the chain's
        # staleness (a directory replaced since): it is asked once more from a fresh chain.
        try:
            handle = open_file_at(self.fs, self._opened.parent_at(parent), name)
        except (ReadFailure, Unresolvable):
            self._opened.close()
            try:
                handle = open_file_at(self.fs, self._opened.parent_at(parent), name)
            except Unresolvable as failure:
                raise ReadFailure(failure.reason, failure.detail) from None
        if len(self._opened.names) > OpenChain.MAX_KEPT:
            self._opened.close()
        return handle

    def _read_open(self, handle: Handle, limit: int) -> ReadResult:
        try:
            st = self.fs.fstat(handle)
            if not stat.S_ISREG(st.st_mode):
                raise ReadFailure(SkipReason.CHANGED, "no longer a regular file")
            # One read of the whole (capped) file; a short read past its size is its end: no chunk copies and no
            # read that returns nothing, for the usual case.
            # Files that report size 0 (pseudo files) are read in 64 KiB steps up to the cap.
            size = st.st_size
            if 0 < size < limit:
                first = self.fs.read(handle, size + 1)  # the usual case, in one call and no loop
                if len(first) == size:
                    return ReadResult(first, False)
                chunks, got = [first], len(first)  # it changed since: read on as below
            else:
                chunks, got = [], 0
            want = min(limit, size + 1)
            while got < limit:
                asked = min(limit - got, max(want - got, 1 << 16))
                chunk = self.fs.read(handle, asked)
                if not chunk:
                    break
                chunks.append(chunk)
                got += len(chunk)
                if len(chunk) < asked and 0 < st.st_size <= got:
                    break  # a short read past the size fstat gave: the end, without a read that returns nothing
            if got < min(limit, st.st_size):  # the file says it holds more: never a silent 0-byte or cut file
                raise ReadFailure(SkipReason.READ_ERROR, f"short read: {got} of {st.st_size} bytes")
            data = chunks[0] if len(chunks) == 1 else b"".join(chunks)
            return ReadResult(data, got >= limit and st.st_size > limit)
        except OSError as exc:
            raise ReadFailure(SkipReason.READ_ERROR, exc.strerror or str(exc)) from None

    def read_path(self, inside_path: str, limit: int) -> bytes | None:
        """A file named by its inside path (`EnvironmentFile=`, `/etc/passwd`, a config naming another file).

        Resolved like the walk: inside the root, never through /proc, /sys, /dev (unless included) or an excluded
        mount, and only a regular, non-sparse file is read. None when it cannot be.
        """
        try:
            root = self.fs.open_root()
        except OSError:
            return None
        handle: Handle | None = None
        try:
            _, handle = self._resolve([DirFrame("/", root, owned=False)], path_parts(inside_path), self._open_named)
            if handle is None:
                return None
            return self._read_open(handle, limit).data
        except (Unresolvable, ReadFailure):
            return None
        finally:
            if handle is not None:
                self.fs.close(handle)
            self.fs.close(root)

    def _open_named(self, parent: Handle, name: str, st: stat_result) -> Handle | None:
        if not isinstance(entry_or_skip(name, st, None), FileEntry):
            return None
        try:
            handle = open_file_at(self.fs, parent, name)
        except ReadFailure:
            return None
        if dir_key(self.fs.fstat(handle)) != dir_key(st):
            self.fs.close(handle)
            return None
        return handle


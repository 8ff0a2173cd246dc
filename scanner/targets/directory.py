"""A directory treated as the root (`/`) of an agent VM.

Contained: every path is resolved by hand, one component at a time, relative to open directory descriptors, as if
chrooted at the root. The host's own resolution never runs on a path of more than one component, and no call
follows a symlink (`O_NOFOLLOW`, `AT_SYMLINK_NOFOLLOW`), so a directory swapped for a symlink mid-scan is refused,
never followed. The walk keeps its chain of open directories (one descriptor per level, so at most the depth of the
tree) and reads each file relative to the directory it was listed in. Non-blocking: only regular files are opened,
with O_NONBLOCK as a second guard. Read-only: O_NOATIME on directories and files where the kernel allows it.
The filesystem calls themselves are `hostfs.Filesystem`; this module is the walker over them.
"""

from __future__ import annotations

import errno
import os
import stat
import weakref
from collections import deque
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from os import stat_result

from scanner.model import Skip, SkipReason, TargetInfo
from scanner.targets.base import FileEntry, ReadFailure, ReadResult
from scanner.targets.hostfs import Filesystem, Handle, HostFilesystem
from scanner.targets.pathglob import PathFilter
from scanner.textsafe import display_path

MAX_SYMLINK_HOPS = 40
# The walk holds one descriptor per level; a hostile tree deeper than this would exhaust them (the common soft
# limit is 1024), so deeper directories are a recorded skip. Real trees stay far below; PATH_MAX stopped the old walk
# around 2,000 levels anyway.
MAX_DEPTH = 512
PSEUDO_TOP_DIRS = frozenset({"proc", "sys", "dev"})
# A file counts as sparse when less than 1/8 of it is allocated and it is big enough to matter.
SPARSE_MIN_SIZE = 1 << 20
SPARSE_RATIO = 8

_Key = tuple[int, int]  # (st_dev, st_ino): one directory however it is reached


@dataclass(frozen=True)
class WalkOptions:
    include_pseudo: bool = False
    one_file_system: bool = False
    # Inside paths never entered, with why (a live root's /proc, /sys and network mounts, by fstype).
    exclude: tuple[tuple[str, str], ...] = ()
    paths: PathFilter = PathFilter()  # --exclude and --skip-dirs


class _Unresolvable(Exception):
    def __init__(self, reason: SkipReason, detail: str) -> None:
        super().__init__(detail)
        self.reason = reason
        self.detail = detail


@dataclass
class _Frame:
    """One open directory of the walk's chain (root first)."""

    inside: str
    handle: Handle
    via: str | None = None
    owned: bool = True  # closed by whoever popped it; a borrowed frame belongs to an outer chain
    pending: deque[tuple[str, _Key]] = field(default_factory=deque)  # subdirectories not walked yet


def _parts(path: str) -> list[str]:
    return [p for p in path.split("/") if p not in ("", ".")]


def _join(parent: str, name: str) -> str:
    return f"/{name}" if parent == "/" else f"{parent}/{name}"


def _key(st: stat_result) -> _Key:
    return (st.st_dev, st.st_ino)


class DirectoryTarget:
    """A host directory as the root. One walk or read at a time (the target is not shared between threads)."""

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
        self.options = options or WalkOptions()
        self.info = TargetInfo(kind=kind, location=self.location)
        handle = fs.open_root()
        try:
            self._root_dev = fs.fstat(handle).st_dev
        finally:
            fs.close(handle)
        self._exclude = dict(self.options.exclude)
        self._current: _Frame | None = None  # the directory the walk is listing: its files are opened from it
        self._opened = _OpenChain(fs)
        weakref.finalize(self, self._opened.close)

    @property
    def shareable(self) -> bool:
        """Whether forked scan workers may read through this target (its backend keeps no shared positions)."""
        return self.fs.shareable

    # --- paths ------------------------------------------------------------------------------------

    def host_path(self, inside: str) -> str:
        """For display and tests only: never opened."""
        return self.root if inside == "/" else self.root + inside

    def resolve(self, inside: str) -> str:
        """The inside path with every symlink resolved inside the root (raises `_Unresolvable`)."""
        root = self.fs.open_root()
        try:
            found, _ = self._resolve([_Frame("/", root, owned=False)], _parts(inside))
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
        base: list[_Frame],
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
                inside = _join(parent.inside, part)
                refusal = self._refused(inside)
                if refusal is not None:
                    raise _Unresolvable(SkipReason.PSEUDO_FILESYSTEM, refusal)
                st = _lstat(fs, parent.handle, part)
                if stat.S_ISLNK(st.st_mode):
                    hops += 1
                    if hops > MAX_SYMLINK_HOPS:
                        raise _Unresolvable(SkipReason.SYMLINK_LOOP, f"more than {MAX_SYMLINK_HOPS} links")
                    link = _readlink(fs, parent.handle, part)
                    if link.startswith("/"):
                        while len(chain) > 1:
                            self._drop(chain.pop())
                    elif _climbs_above(len(chain) - 1, link):
                        raise _Unresolvable(SkipReason.SYMLINK_OUTSIDE_ROOT, f"-> {display_path(link)} leaves the root")
                    pending.extendleft(reversed(_parts(link)))
                    continue
                if not pending:
                    return (inside, st), (opener(parent.handle, part, st) if opener else None)
                if not stat.S_ISDIR(st.st_mode):
                    raise _Unresolvable(SkipReason.SYMLINK_BROKEN, "a component is not a directory")
                if len(chain) > MAX_DEPTH:
                    raise _Unresolvable(SkipReason.CAP_REACHED, f"deeper than {MAX_DEPTH} directory levels")
                chain.append(_Frame(inside, self._open_dir(parent.handle, part, _key(st))))
            top = chain[-1]  # resolved to a directory already open: the root, or one reached by `..`
            return (top.inside, fs.fstat(top.handle)), None
        finally:
            for frame in chain:
                self._drop(frame)

    def _open_dir(self, parent: Handle, name: str, expected: _Key) -> Handle:
        """A directory seen as `expected`: refused if it changed (became a link, or was swapped) since."""
        try:
            handle = self.fs.open_dir(parent, name)
        except OSError as exc:
            raise _dir_failure(exc) from None
        try:
            same = _key(self.fs.fstat(handle)) == expected
        except OSError:
            same = False
        if not same:
            self.fs.close(handle)
            raise _Unresolvable(SkipReason.CHANGED, "directory replaced while walking")
        return handle

    def _drop(self, frame: _Frame) -> None:
        if frame.owned:
            frame.owned = False
            if self._current is frame:
                self._current = None
            self.fs.close(frame.handle)

    # --- walk -------------------------------------------------------------------------------------

    def walk(self) -> Iterator[FileEntry | Skip]:
        """Files in a stable order: each directory's own entries by name, then its subdirectories depth-first;
        directories reached only through symlinks after the real tree, in the order they were met."""
        try:
            root = self.fs.open_root()
        except OSError as exc:
            yield Skip("/", SkipReason.READ_ERROR, exc.strerror or str(exc))
            return
        frames = [_Frame("/", root)]
        visited = {_key(self.fs.fstat(root))}
        linked: deque[tuple[str, str, _Key]] = deque()  # (resolved dir, link path, key): walked after the real tree
        try:
            yield from self._list(frames, linked, visited)
            while frames or linked:
                if not frames:
                    real, link, key = linked.popleft()
                    if key in visited:
                        continue
                    try:
                        frames.extend(self._open_chain(real, key))
                    except _Unresolvable as exc:
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
                inside = _join(top.inside, name)
                if len(frames) > MAX_DEPTH:
                    yield Skip(
                        display_path(inside), SkipReason.CAP_REACHED, f"deeper than {MAX_DEPTH} directory levels"
                    )
                    continue
                try:
                    handle = self._open_dir(top.handle, name, key)
                except _Unresolvable as exc:
                    yield Skip(display_path(inside), exc.reason, exc.detail)
                    continue
                frames.append(_Frame(inside, handle, f"{top.via}/{name}" if top.via else None))
                yield from self._list(frames, linked, visited)
        finally:
            while frames:
                self._drop(frames.pop())

    def _open_chain(self, real: str, key: _Key) -> list[_Frame]:
        """The open directories from the root down to `real` (already resolved: no link may appear on the way)."""
        chain = [_Frame("/", self.fs.open_root())]
        try:
            for part in _parts(real):
                try:
                    handle = self.fs.open_dir(chain[-1].handle, part)
                except OSError as exc:
                    raise _dir_failure(exc) from None
                chain.append(_Frame(_join(chain[-1].inside, part), handle))
            if _key(self.fs.fstat(chain[-1].handle)) != key:
                raise _Unresolvable(SkipReason.CHANGED, "directory replaced while walking")
        except BaseException:
            for frame in chain:
                self._drop(frame)
            raise
        return chain  # the ancestors stay open for resolving links below; they have nothing pending

    def _list(
        self, frames: list[_Frame], linked: deque[tuple[str, str, _Key]], visited: set[_Key]
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
        frames: list[_Frame],
        entries: Iterable[tuple[str, stat_result]],
        linked: deque[tuple[str, str, _Key]],
        visited: set[_Key],
    ) -> Iterator[FileEntry | Skip]:
        top = frames[-1]
        at_root = top.inside == "/"
        for name, st in entries:
            inside = _join(top.inside, name)
            if inside in self._exclude:
                yield Skip(display_path(inside), SkipReason.PSEUDO_FILESYSTEM, self._exclude[inside])
                continue
            if at_root and name in PSEUDO_TOP_DIRS and not self.options.include_pseudo:
                yield Skip(display_path(inside), SkipReason.PSEUDO_FILESYSTEM, "skipped by default")
                continue
            mode = st.st_mode
            left_out = self.options.paths.why(inside, not stat.S_ISREG(mode)) if self.options.paths else None
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
                key = _key(st)
                if key in visited:
                    continue  # a bind mount or hard-linked directory already walked
                visited.add(key)
                top.pending.append((name, key))
                continue
            yield _entry_or_skip(inside, st, f"{top.via}/{name}" if top.via else None)

    def _follow(
        self, frames: list[_Frame], name: str, link: str, linked: deque[tuple[str, str, _Key]], visited: set[_Key]
    ) -> Iterator[FileEntry | Skip]:
        try:
            (real, st), _ = self._resolve([_Frame(f.inside, f.handle, owned=False) for f in frames], [name])
        except _Unresolvable as exc:
            yield Skip(display_path(link), exc.reason, exc.detail)
            return
        if stat.S_ISDIR(st.st_mode):
            if self.options.one_file_system and st.st_dev != self._root_dev:
                yield Skip(display_path(link), SkipReason.PSEUDO_FILESYSTEM, "other filesystem")
            elif _key(st) not in visited:
                linked.append((real, link, _key(st)))
            return
        yield _entry_or_skip(real, st, link)

    # --- read -------------------------------------------------------------------------------------

    def origin_of(self, inside_path: str) -> str | None:
        origin = getattr(self.fs, "origin_of", None)  # a backend that knows layers (memfs of an image)
        return origin(inside_path) if origin is not None else None

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
        by_identity = getattr(self.fs, "open_walked", None)
        current = self._current
        listed_here = current is not None and current.inside == (entry.path.rpartition("/")[0] or "/")
        if by_identity is not None and not listed_here:
            try:
                handle: Handle = by_identity(entry)
                return handle
            except OSError:
                pass  # not found as walked: by its path, as any backend
        return self._open_entry(entry.path)

    def _open_entry(self, path: str) -> Handle:
        """The walked file at `path` (a resolved inside path), opened from its directory; no link is followed."""
        parent, _, name = path.rpartition("/")
        parent = parent or "/"
        current = self._current
        if current is not None and current.inside == parent:
            return _open_file(self.fs, current.handle, name)
        # Reached through a link, or read in a worker (which does not walk): from the kept chain of the last
        # such file's directories, which the next file most often shares. A failure there may be the chain's
        # staleness (a directory replaced since): it is asked once more from a fresh chain.
        parts = _parts(parent)
        try:
            handle = _open_file(self.fs, self._opened.parent_of(parts), name)
        except (ReadFailure, _Unresolvable):
            self._opened.close()
            try:
                handle = _open_file(self.fs, self._opened.parent_of(parts), name)
            except _Unresolvable as failure:
                raise ReadFailure(failure.reason, failure.detail) from None
        if len(parts) > _OpenChain.MAX_KEPT:
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
            chunks: list[bytes] = []
            got = 0
            want = min(limit, st.st_size + 1)
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
            _, handle = self._resolve([_Frame("/", root, owned=False)], _parts(inside_path), self._open_named)
            if handle is None:
                return None
            return self._read_open(handle, limit).data
        except (_Unresolvable, ReadFailure):
            return None
        finally:
            if handle is not None:
                self.fs.close(handle)
            self.fs.close(root)

    def _open_named(self, parent: Handle, name: str, st: stat_result) -> Handle | None:
        if not isinstance(_entry_or_skip(name, st, None), FileEntry):
            return None
        try:
            handle = _open_file(self.fs, parent, name)
        except ReadFailure:
            return None
        if _key(self.fs.fstat(handle)) != _key(st):
            self.fs.close(handle)
            return None
        return handle


def _lstat(fs: Filesystem, parent: Handle, name: str) -> stat_result:
    try:
        return fs.lstat(parent, name)
    except FileNotFoundError:
        raise _Unresolvable(SkipReason.SYMLINK_BROKEN, "target does not exist") from None
    except NotADirectoryError:
        raise _Unresolvable(SkipReason.SYMLINK_BROKEN, "a component is not a directory") from None
    except PermissionError:
        raise _Unresolvable(SkipReason.PERMISSION_DENIED, "cannot inspect link target") from None
    except OSError as exc:
        raise _Unresolvable(SkipReason.READ_ERROR, exc.strerror or str(exc)) from None


def _readlink(fs: Filesystem, parent: Handle, name: str) -> str:
    try:
        return fs.readlink(parent, name)
    except OSError as exc:
        if exc.errno in (errno.EINVAL, errno.ENOENT):  # no longer a link (or gone) since its lstat
            raise _Unresolvable(SkipReason.CHANGED, "link replaced while walking") from None
        raise _Unresolvable(SkipReason.READ_ERROR, exc.strerror or str(exc)) from None


class _OpenChain:
    """The open directories, root first, of the last file read off the walk (through a link, or in a worker).

    A worker reads files the walk listed in another process: opening each one's directories from the root, one
    level at a time, cost a tenth of a scan's reads in descriptors alone. Kept open, the chain serves the next
    file from the levels it shares with the last one (in walk order, most often all of them). Each level is
    opened by name from the one above with no link followed, as the walk opens it; a chain deeper than
    MAX_KEPT levels is opened for its file and closed again (a hostile depth never holds descriptors).
    """

    MAX_KEPT = 64

    def __init__(self, fs: Filesystem) -> None:
        self.fs = fs
        self.names: list[str] = []
        self.handles: list[Handle] = []  # handles[0] is the root; handles[i] is names[:i]

    def parent_of(self, parts: list[str]) -> Handle:
        """The open directory at `parts` (borrowed: valid until the next call or `close`)."""
        fs, names, handles = self.fs, self.names, self.handles
        if not handles:
            try:
                handles.append(fs.open_root())
            except OSError as exc:
                raise ReadFailure(SkipReason.READ_ERROR, exc.strerror or str(exc)) from None
        shared = 0
        for have, want in zip(names, parts, strict=False):
            if have != want:
                break
            shared += 1
        while len(names) > shared:
            names.pop()
            fs.close(handles.pop())
        for part in parts[shared:]:
            try:
                handles.append(fs.open_dir(handles[-1], part))
            except OSError as exc:
                raise _dir_failure(exc) from None
            names.append(part)
        return handles[-1]

    def close(self) -> None:
        while self.handles:
            self.fs.close(self.handles.pop())
        self.names.clear()


def _dir_failure(exc: OSError) -> _Unresolvable:
    if exc.errno in (errno.ELOOP, errno.ENOTDIR):
        return _Unresolvable(SkipReason.CHANGED, "directory replaced while walking")
    if isinstance(exc, PermissionError):
        return _Unresolvable(SkipReason.PERMISSION_DENIED, "directory not listable")
    return _Unresolvable(SkipReason.READ_ERROR, exc.strerror or str(exc))


def _open_file(fs: Filesystem, parent: Handle, name: str) -> Handle:
    try:
        return fs.open_file(parent, name)
    except PermissionError:
        raise ReadFailure(SkipReason.PERMISSION_DENIED, "open refused") from None
    except OSError as exc:
        if exc.errno == errno.ELOOP:
            raise ReadFailure(SkipReason.CHANGED, "became a symlink") from None
        raise ReadFailure(SkipReason.READ_ERROR, exc.strerror or str(exc)) from None


def _climbs_above(depth: int, link: str) -> bool:
    for part in _parts(link):
        depth += -1 if part == ".." else 1
        if depth < 0:
            return True
    return False


def _entry_or_skip(inside: str, st: stat_result, via: str | None) -> FileEntry | Skip:
    mode = st.st_mode
    if stat.S_ISREG(mode) and st.st_size < SPARSE_MIN_SIZE:  # the common case, decided in one test
        return FileEntry(inside, st.st_size, mode, st.st_uid, st.st_gid, via, st.st_dev, st.st_ino, st.st_nlink)
    # A skip names what the walk met: the symlink, when the file was reached through one.
    shown = display_path(via or inside)
    to = f" (-> {display_path(inside)})" if via else ""
    if not stat.S_IFMT(mode):  # a backend lists a name whose inode it cannot read (a damaged image)
        return Skip(shown, SkipReason.READ_ERROR, "its inode cannot be read" + to)
    if stat.S_ISFIFO(mode):
        return Skip(shown, SkipReason.FIFO, "named pipe" + to)
    if stat.S_ISSOCK(mode):
        return Skip(shown, SkipReason.SOCKET, "unix socket" + to)
    if stat.S_ISCHR(mode) or stat.S_ISBLK(mode):
        return Skip(shown, SkipReason.DEVICE, ("character device" if stat.S_ISCHR(mode) else "block device") + to)
    if not stat.S_ISREG(mode):
        return Skip(shown, SkipReason.OTHER_TYPE, oct(stat.S_IFMT(mode)) + to)
    allocated = getattr(st, "st_blocks", 0) * 512
    if st.st_size >= SPARSE_MIN_SIZE and allocated * SPARSE_RATIO < st.st_size:
        return Skip(shown, SkipReason.SPARSE, f"size {st.st_size} bytes, {allocated} allocated" + to)
    return FileEntry(
        path=inside,
        size=st.st_size,
        mode=mode,
        uid=st.st_uid,
        gid=st.st_gid,
        via=via,
        dev=st.st_dev,
        ino=st.st_ino,
        nlink=st.st_nlink,
    )

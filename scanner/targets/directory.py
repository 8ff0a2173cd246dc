"""A directory treated as the root (`/`) of an agent VM.

Contained: symlinks are resolved by hand, component by component, as if chrooted at the root; the host's
own resolution (realpath, following links in open) is never used on target paths. Non-blocking: only
regular files are opened, and with O_NONBLOCK | O_NOFOLLOW as a second guard. Read-only: O_NOATIME
where the kernel allows it; nothing is ever written, executed or imported.
"""

from __future__ import annotations

import errno
import os
import stat
from collections.abc import Iterator
from dataclasses import dataclass

from scanner.model import Skip, SkipReason, TargetInfo
from scanner.targets.base import FileEntry, ReadFailure, ReadResult
from scanner.textsafe import display_path

MAX_SYMLINK_HOPS = 40
PSEUDO_TOP_DIRS = frozenset({"proc", "sys", "dev"})
# A file counts as sparse when less than 1/8 of it is allocated and it is big enough to matter.
SPARSE_MIN_SIZE = 1 << 20
SPARSE_RATIO = 8

_OPEN_FLAGS = os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_CLOEXEC", 0)
_O_NOATIME = getattr(os, "O_NOATIME", 0)


@dataclass(frozen=True)
class WalkOptions:
    include_pseudo: bool = False
    one_file_system: bool = False
    # Inside paths never entered, with why (a live root's /proc, /sys and network mounts, by fstype).
    exclude: tuple[tuple[str, str], ...] = ()


class _Unresolvable(Exception):
    def __init__(self, reason: SkipReason, detail: str) -> None:
        super().__init__(detail)
        self.reason = reason
        self.detail = detail


def _parts(path: str) -> list[str]:
    return [p for p in path.split("/") if p not in ("", ".")]


class DirectoryTarget:
    def __init__(self, root: str, options: WalkOptions | None = None, kind: str = "directory") -> None:
        if not os.path.isdir(root):
            raise NotADirectoryError(root)
        self.location = root
        # The root argument is the user's own path, so the host may resolve it; nothing below it is.
        self.root = os.path.realpath(root)
        self.options = options or WalkOptions()
        self.info = TargetInfo(kind=kind, location=root)
        self._root_dev = os.lstat(self.root).st_dev
        self._exclude = dict(self.options.exclude)

    # --- paths ------------------------------------------------------------------------------------

    def host_path(self, inside: str) -> str:
        return self.root if inside == "/" else self.root + inside

    def resolve(self, inside: str) -> str:
        """The inside path with every symlink resolved inside the root.

        Absolute link targets are re-anchored at the root and `..` in them stops at the root, as in a
        chroot. A relative link whose `..` climbs above the root would leave it on the host: refused.
        """
        pending = _parts(inside)
        done: list[str] = []
        hops = 0
        while pending:
            part = pending.pop(0)
            if part == "..":
                if done:
                    done.pop()
                continue
            host = self.root + "/" + "/".join([*done, part])
            try:
                st = os.lstat(host)
            except FileNotFoundError:
                raise _Unresolvable(SkipReason.SYMLINK_BROKEN, "target does not exist") from None
            except NotADirectoryError:
                raise _Unresolvable(SkipReason.SYMLINK_BROKEN, "a component is not a directory") from None
            except PermissionError:
                raise _Unresolvable(SkipReason.PERMISSION_DENIED, "cannot inspect link target") from None
            if not stat.S_ISLNK(st.st_mode):
                done.append(part)
                continue
            hops += 1
            if hops > MAX_SYMLINK_HOPS:
                raise _Unresolvable(SkipReason.SYMLINK_LOOP, f"more than {MAX_SYMLINK_HOPS} links")
            link = os.readlink(host)
            if link.startswith("/"):
                done = []
            elif _climbs_above(len(done), link):
                raise _Unresolvable(SkipReason.SYMLINK_OUTSIDE_ROOT, f"-> {display_path(link)} leaves the root")
            pending = _parts(link) + pending
        return "/" + "/".join(done)

    # --- walk -------------------------------------------------------------------------------------

    def walk(self) -> Iterator[FileEntry | Skip]:
        root_st = os.stat(self.root)
        visited = {(root_st.st_dev, root_st.st_ino)}
        stack: list[tuple[str, str | None]] = [("/", None)]
        linked_dirs: list[tuple[str, str]] = []  # (resolved dir, link path): walked after the real tree
        while stack or linked_dirs:
            if not stack:
                real, link = linked_dirs.pop(0)
                skip = self._linked_dir_skip(real, link, visited)
                if skip is not None:
                    yield skip
                elif self._mark_visited(real, visited):
                    stack.append((real, link))
                continue
            inside_dir, via = stack.pop()
            subdirs: list[tuple[str, str | None]] = []
            yield from self._list_dir(inside_dir, via, subdirs, linked_dirs, visited)
            stack.extend(reversed(subdirs))

    def _linked_dir_skip(self, real: str, link: str, visited: set[tuple[int, int]]) -> Skip | None:
        """A directory reached through a symlink obeys the same rules as one walked directly."""
        top = _parts(real)[:1]
        if real in self._exclude:
            return Skip(display_path(link), SkipReason.PSEUDO_FILESYSTEM, self._exclude[real])
        if top and top[0] in PSEUDO_TOP_DIRS and not self.options.include_pseudo:
            return Skip(display_path(link), SkipReason.PSEUDO_FILESYSTEM, f"-> {display_path(real)}")
        if self.options.one_file_system and os.lstat(self.host_path(real)).st_dev != self._root_dev:
            return Skip(display_path(link), SkipReason.PSEUDO_FILESYSTEM, "other filesystem")
        return None

    def _mark_visited(self, real: str, visited: set[tuple[int, int]]) -> bool:
        """Record a directory as walked; False if it was already (a cycle or a second path to it)."""
        try:
            st = os.lstat(self.host_path(real))
        except OSError:
            return False
        key = (st.st_dev, st.st_ino)
        if key in visited:
            return False
        visited.add(key)
        return True

    def _list_dir(
        self,
        inside_dir: str,
        via: str | None,
        subdirs: list[tuple[str, str | None]],
        linked_dirs: list[tuple[str, str]],
        visited: set[tuple[int, int]],
    ) -> Iterator[FileEntry | Skip]:
        try:
            with os.scandir(self.host_path(inside_dir)) as it:
                entries = sorted(it, key=lambda e: e.name)
        except PermissionError:
            yield Skip(display_path(inside_dir), SkipReason.PERMISSION_DENIED, "directory not listable")
            return
        except OSError as exc:
            yield Skip(display_path(inside_dir), SkipReason.READ_ERROR, exc.strerror or str(exc))
            return
        prefix = "" if inside_dir == "/" else inside_dir
        for entry in entries:
            inside = f"{prefix}/{entry.name}"
            try:
                st = entry.stat(follow_symlinks=False)
            except OSError as exc:
                yield Skip(display_path(inside), SkipReason.READ_ERROR, exc.strerror or str(exc))
                continue
            if inside in self._exclude:
                yield Skip(display_path(inside), SkipReason.PSEUDO_FILESYSTEM, self._exclude[inside])
                continue
            if inside_dir == "/" and entry.name in PSEUDO_TOP_DIRS and not self.options.include_pseudo:
                yield Skip(display_path(inside), SkipReason.PSEUDO_FILESYSTEM, "skipped by default")
                continue
            if stat.S_ISLNK(st.st_mode):
                yield from self._follow(inside, linked_dirs, visited)
                continue
            child_via = f"{via}/{entry.name}" if via else None
            if stat.S_ISDIR(st.st_mode):
                if self.options.one_file_system and st.st_dev != self._root_dev:
                    yield Skip(display_path(inside), SkipReason.PSEUDO_FILESYSTEM, "other filesystem")
                    continue
                key = (st.st_dev, st.st_ino)
                if key in visited:
                    continue  # a bind mount or hard-linked directory already walked
                visited.add(key)
                subdirs.append((inside, child_via))
                continue
            yield _entry_or_skip(inside, st, child_via)

    def _follow(
        self, link: str, linked_dirs: list[tuple[str, str]], visited: set[tuple[int, int]]
    ) -> Iterator[FileEntry | Skip]:
        try:
            real = self.resolve(link)
            st = os.lstat(self.host_path(real))
        except _Unresolvable as exc:
            yield Skip(display_path(link), exc.reason, exc.detail)
            return
        except OSError as exc:
            yield Skip(display_path(link), SkipReason.READ_ERROR, exc.strerror or str(exc))
            return
        if stat.S_ISDIR(st.st_mode):
            if (st.st_dev, st.st_ino) not in visited:
                linked_dirs.append((real, link))
            return
        yield _entry_or_skip(real, st, link)

    # --- read -------------------------------------------------------------------------------------

    def read(self, entry: FileEntry, limit: int) -> ReadResult:
        host = self.host_path(entry.path)
        fd = _open_readonly(host)
        try:
            st = os.fstat(fd)
            if not stat.S_ISREG(st.st_mode):
                raise ReadFailure(SkipReason.CHANGED, "no longer a regular file")
            # One read of the whole (capped) file, then one that sees EOF: no chunk copies for the usual case.
            # Files that report size 0 (pseudo files) are read in 64 KiB steps up to the cap.
            chunks: list[bytes] = []
            got = 0
            want = min(limit, st.st_size + 1)
            while got < limit:
                chunk = os.read(fd, min(limit - got, max(want - got, 1 << 16)))
                if not chunk:
                    break
                chunks.append(chunk)
                got += len(chunk)
            data = chunks[0] if len(chunks) == 1 else b"".join(chunks)
            return ReadResult(data, got >= limit and st.st_size > limit)
        except OSError as exc:
            raise ReadFailure(SkipReason.READ_ERROR, exc.strerror or str(exc)) from None
        finally:
            os.close(fd)

    def read_window(self, entry: FileEntry, offset: int, size: int) -> bytes:
        # Opened afresh for each window through the same guarded open as `read`; pread keeps no offset.
        fd = _open_readonly(self.host_path(entry.path))
        try:
            if not stat.S_ISREG(os.fstat(fd).st_mode):
                raise ReadFailure(SkipReason.CHANGED, "no longer a regular file")
            return os.pread(fd, size, offset)
        except OSError as exc:
            raise ReadFailure(SkipReason.READ_ERROR, exc.strerror or str(exc)) from None
        finally:
            os.close(fd)

    def read_path(self, inside_path: str, limit: int) -> bytes | None:
        try:
            real = self.resolve(inside_path)
            st = os.lstat(self.host_path(real))
        except (_Unresolvable, OSError):
            return None
        if not stat.S_ISREG(st.st_mode):
            return None
        entry = _entry_or_skip(real, st, None)
        if not isinstance(entry, FileEntry):
            return None
        try:
            return self.read(entry, limit).data
        except ReadFailure:
            return None


def _climbs_above(depth: int, link: str) -> bool:
    for part in _parts(link):
        depth += -1 if part == ".." else 1
        if depth < 0:
            return True
    return False


def _entry_or_skip(inside: str, st: os.stat_result, via: str | None) -> FileEntry | Skip:
    mode = st.st_mode
    # A skip names what the walk met: the symlink, when the file was reached through one.
    shown = display_path(via or inside)
    to = f" (-> {display_path(inside)})" if via else ""
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
    return FileEntry(path=inside, size=st.st_size, mode=mode, uid=st.st_uid, gid=st.st_gid, via=via)


def _open_readonly(host: str) -> int:
    try:
        return os.open(host, _OPEN_FLAGS | _O_NOATIME)
    except PermissionError as exc:
        # O_NOATIME is refused (EPERM) on files the caller does not own; plain read-only is still fine.
        if exc.errno == errno.EPERM and _O_NOATIME:
            try:
                return os.open(host, _OPEN_FLAGS)
            except PermissionError:
                pass
        raise ReadFailure(SkipReason.PERMISSION_DENIED, "open refused") from None
    except OSError as exc:
        if exc.errno == errno.ELOOP:
            raise ReadFailure(SkipReason.CHANGED, "became a symlink") from None
        raise ReadFailure(SkipReason.READ_ERROR, exc.strerror or str(exc)) from None

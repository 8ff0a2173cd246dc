"""A disk image's filesystems as the walker's `Filesystem`, through dissect.target (AGPL-3.0, the `images` extra,
imported only here and only when a disk image is scanned).

Each directory is listed once and its entries kept (a lookup by path rescans an ext directory: 10–30x slower),
so the walk costs one listing per directory. Handles number open entries; nothing follows a symlink.
"""

from __future__ import annotations

import contextlib
import errno
import itertools
import os
import stat
from typing import Any

from scanner.targets.hostfs import Handle

MAX_CACHED = 2_000_000  # directory entries kept across the walk; beyond it the cache starts again


def _err(code: int, name: str = "") -> OSError:
    return OSError(code, os.strerror(code), name)


def _stat(st: Any) -> os.stat_result:
    return os.stat_result(
        (
            st.st_mode,
            st.st_ino,
            st.st_dev,
            st.st_nlink,
            st.st_uid,
            st.st_gid,
            st.st_size,
            int(st.st_atime),
            int(st.st_mtime),
            int(st.st_ctime),
        ),
        {"st_blocks": getattr(st, "st_blocks", None) or (st.st_size + 511) // 512},
    )


class DissectFilesystem:
    def __init__(self, root_fs: Any) -> None:
        self.fs = root_fs
        self._open: dict[int, list[Any]] = {}  # handle -> [entry, file object or None, position]
        self._children: dict[str, dict[str, Any]] = {}
        self._cached = 0
        self._next = itertools.count(3)

    def _handle(self, entry: Any) -> Handle:
        h = next(self._next)
        self._open[h] = [entry, None, 0]
        return h

    def _entry(self, handle: Handle) -> Any:
        try:
            return self._open[handle][0]
        except KeyError:
            raise _err(errno.EBADF) from None

    def _listing(self, entry: Any) -> dict[str, Any]:
        key = str(entry.path)
        found = self._children.get(key)
        if found is None:
            try:
                found = {d.name: d for d in entry.scandir()}
            except Exception as exc:  # a dissect parser error on a hostile directory: unreadable, not fatal
                raise _err(errno.EIO, f"{type(exc).__name__}") from None
            if self._cached + len(found) > MAX_CACHED:
                self._children.clear()
                self._cached = 0
            self._children[key] = found
            self._cached += len(found)
        return found

    def _dirent(self, parent: Handle, name: str) -> Any:
        entry = self._entry(parent)
        if not _lstat_of(entry) or not stat.S_ISDIR(_lstat_of(entry).st_mode):
            raise _err(errno.ENOTDIR, name)
        found = self._listing(entry).get(name)
        if found is None:
            raise _err(errno.ENOENT, name)
        return found

    def open_root(self) -> Handle:
        return self._handle(self.fs.get("/"))

    def open_dir(self, parent: Handle, name: str) -> Handle:
        d = self._dirent(parent, name)
        mode = _dirent_stat(d).st_mode
        if stat.S_ISLNK(mode):
            raise _err(errno.ELOOP, name)
        if not stat.S_ISDIR(mode):
            raise _err(errno.ENOTDIR, name)
        return self._handle(d.get())

    def open_file(self, parent: Handle, name: str) -> Handle:
        d = self._dirent(parent, name)
        if stat.S_ISLNK(_dirent_stat(d).st_mode):
            raise _err(errno.ELOOP, name)
        return self._handle(d.get())

    def lstat(self, parent: Handle, name: str) -> os.stat_result:
        return _stat(_dirent_stat(self._dirent(parent, name)))

    def fstat(self, handle: Handle) -> os.stat_result:
        st = _lstat_of(self._entry(handle))
        if st is None:
            raise _err(errno.EIO)
        return _stat(st)

    def readlink(self, parent: Handle, name: str) -> str:
        d = self._dirent(parent, name)
        if not stat.S_ISLNK(_dirent_stat(d).st_mode):
            raise _err(errno.EINVAL, name)
        try:
            return str(d.get().readlink())
        except Exception:
            raise _err(errno.EIO, name) from None

    def scandir(self, handle: Handle) -> list[tuple[str, os.stat_result]]:
        entry = self._entry(handle)
        out = []
        for name, d in sorted(self._listing(entry).items()):
            try:
                out.append((name, _stat(_dirent_stat(d))))
            except OSError:
                continue  # an entry dissect cannot stat (a damaged inode): not listed
        return out

    def read(self, handle: Handle, size: int) -> bytes:
        slot = self._slot(handle)
        data = self.pread(handle, size, slot[2])
        slot[2] += len(data)
        return data

    def pread(self, handle: Handle, size: int, offset: int) -> bytes:
        slot = self._slot(handle)
        if slot[1] is None:
            try:
                slot[1] = slot[0].open()
            except Exception as exc:
                raise _err(errno.EIO, type(exc).__name__) from None
        try:
            slot[1].seek(offset)
            return bytes(slot[1].read(size))
        except Exception as exc:
            raise _err(errno.EIO, type(exc).__name__) from None

    def _slot(self, handle: Handle) -> list[Any]:
        try:
            return self._open[handle]
        except KeyError:
            raise _err(errno.EBADF) from None

    def close(self, handle: Handle) -> None:
        slot = self._open.pop(handle, None)
        if slot is not None and slot[1] is not None:
            with contextlib.suppress(Exception):  # closing what a hostile image opened must not fail the scan
                slot[1].close()


def _dirent_stat(d: Any) -> Any:
    # The entry's own inode first: a root-filesystem DirEntry's stat() looks its path up again from the root,
    # rescanning every directory on the way (quadratic over a walk).
    try:
        return d.get().lstat()
    except Exception:
        pass
    try:
        # dissect.btrfs raises on lstat of a symlink to a symlink; stat without following still has its facts.
        return d.stat(follow_symlinks=False)
    except Exception:
        raise _err(errno.EIO, str(getattr(d, "name", ""))) from None


def _lstat_of(entry: Any) -> Any:
    try:
        return entry.lstat()
    except Exception:
        return None

"""The filesystem under a walk: a handful of calls, every one relative to an open directory, none following a link.

The contained walker (`walker.py`) resolves paths itself, one component at a time, and asks the filesystem only
for these operations. Nothing here takes a path of more than one component, so the host's own resolution never
runs on target paths: a directory swapped for a symlink between two calls is refused by `O_NOFOLLOW`, not followed.
A handle is an open descriptor here; another backend (an in-memory tree, a disk image) may number its nodes instead.
Failures are `OSError` with the errno the kernel would give (ELOOP, ENOTDIR, ENOENT, EACCES, ...).
"""

from __future__ import annotations

import errno
import os
from collections.abc import Iterable, Iterator
from typing import Protocol, runtime_checkable

from scanner.targets.base import FileEntry

Handle = int

_O_NOFOLLOW = getattr(os, "O_NOFOLLOW", 0)
_O_CLOEXEC = getattr(os, "O_CLOEXEC", 0)
_O_NOATIME = getattr(os, "O_NOATIME", 0)
_O_DIRECTORY = getattr(os, "O_DIRECTORY", 0)
_DIR_FLAGS = os.O_RDONLY | _O_NOFOLLOW | _O_DIRECTORY | _O_CLOEXEC
_FILE_FLAGS = os.O_RDONLY | os.O_NONBLOCK | _O_NOFOLLOW | _O_CLOEXEC


class Filesystem(Protocol):
    # Forked scan workers may read through it: every call relative to a descriptor, reads positional.
    shareable: bool

    def open_root(self) -> Handle:
        """The root directory of the target."""
        ...

    def open_dir(self, parent: Handle, name: str) -> Handle:
        """The directory `name` in `parent`; never through a symlink (ELOOP or ENOTDIR)."""
        ...

    def open_file(self, parent: Handle, name: str) -> Handle:
        """The file `name` in `parent` for reading; never through a symlink, never blocking."""
        ...

    def lstat(self, parent: Handle, name: str) -> os.stat_result: ...

    def fstat(self, handle: Handle) -> os.stat_result: ...

    def readlink(self, parent: Handle, name: str) -> str: ...

    def scandir(self, handle: Handle) -> Iterable[tuple[str, os.stat_result]]:
        """Every entry of an open directory with its own (not followed) stat, sorted by name. The listing is
        made at the call (a failure raises there); the stats may come as the entries are reached."""
        ...

    def read(self, handle: Handle, size: int) -> bytes: ...

    def pread(self, handle: Handle, size: int, offset: int) -> bytes: ...

    def close(self, handle: Handle) -> None: ...


# What a backend can do beyond the calls above, declared by the methods it has (the walker checks each once, by
# type, when it is handed the filesystem).
@runtime_checkable
class KnowsOrigins(Protocol):
    def origin_of(self, inside: str) -> str | None:
        """Where the file at a resolved inside path came from (a container layer's digest), for locations."""
        ...


@runtime_checkable
class OpensWalked(Protocol):
    def open_walked(self, entry: FileEntry) -> Handle:
        """A walked file reopened by the identity the walk gave it (its inode), without a lookup by path; raises
        `OSError` when it is not known so (the walker then opens it by its path)."""
        ...


class HostFilesystem:
    """A host directory as the root, through `openat`-style calls relative to directory descriptors."""

    # Forked scan workers may use it: every call is relative to a descriptor, reads are positional or on
    # descriptors of their own.
    shareable = True

    def __init__(self, root: str) -> None:
        self.root = root

    def open_root(self) -> Handle:
        # The root is the user's own argument (already resolved by the caller), so it may be followed.
        return _open_noatime(self.root, os.O_RDONLY | _O_DIRECTORY | _O_CLOEXEC, None)

    def open_dir(self, parent: Handle, name: str) -> Handle:
        return _open_noatime(name, _DIR_FLAGS, parent)

    def open_file(self, parent: Handle, name: str) -> Handle:
        return _open_noatime(name, _FILE_FLAGS, parent)

    def lstat(self, parent: Handle, name: str) -> os.stat_result:
        return os.stat(name, dir_fd=parent, follow_symlinks=False)

    def fstat(self, handle: Handle) -> os.stat_result:
        return os.fstat(handle)

    def readlink(self, parent: Handle, name: str) -> str:
        # The kernel updates a symlink's atime on readlink (as on any traversal); no flag avoids it.
        return os.readlink(name, dir_fd=parent)

    def scandir(self, handle: Handle) -> Iterator[tuple[str, os.stat_result]]:
        # The names are listed now and sorted; each stat is taken as the walk reaches its entry (fstatat, the one
        # call per entry a DirEntry makes too). Only names are held: a directory of 300,000 files is ~25 MB of
        # names, where its stat results held at once were ~230 MB. listdir works on a duplicate of the descriptor
        # and rewinds it when done.
        return self._stats(handle, sorted(os.listdir(handle)))

    @staticmethod
    def _stats(handle: Handle, names: list[str]) -> Iterator[tuple[str, os.stat_result]]:
        for name in names:
            try:
                st = os.stat(name, dir_fd=handle, follow_symlinks=False)
            except FileNotFoundError:
                continue  # gone since the listing: no longer an entry
            yield name, st

    def read(self, handle: Handle, size: int) -> bytes:
        return os.read(handle, size)

    def pread(self, handle: Handle, size: int, offset: int) -> bytes:
        return os.pread(handle, size, offset)

    def close(self, handle: Handle) -> None:
        os.close(handle)


def _open_noatime(name: str, flags: int, dir_fd: int | None) -> int:
    """Open with O_NOATIME where permitted: it is refused (EPERM) on what the caller does not own, unless root."""
    if _O_NOATIME:
        try:
            return os.open(name, flags | _O_NOATIME, dir_fd=dir_fd)
        except PermissionError as exc:
            if exc.errno != errno.EPERM:
                raise
    return os.open(name, flags, dir_fd=dir_fd)

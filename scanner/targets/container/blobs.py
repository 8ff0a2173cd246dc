"""Where an image's blobs live, read in place: an OCI layout directory, or a member range of an uncompressed tar.

Nothing is extracted: a blob is a byte range of the archive (or a file of the layout), read with `pread`. A
layout's blob is opened one component at a time from the layout's directory, never through a symlink, and only
if it is a regular file. An archive cut short is said to be a truncated archive: a blob it cuts reads short, and
its layer's stream then fails (and its digest does not match).
"""

from __future__ import annotations

import errno
import os
import stat
import tarfile
from dataclasses import dataclass

from scanner.targets.container.tarheader import FastTarInfo
from scanner.targets.images import ImageError

_O_CLOEXEC = getattr(os, "O_CLOEXEC", 0)
_O_NOFOLLOW = getattr(os, "O_NOFOLLOW", 0)
_O_DIRECTORY = getattr(os, "O_DIRECTORY", 0)
_FILE = os.O_RDONLY | os.O_NONBLOCK | _O_CLOEXEC | _O_NOFOLLOW
_DIR = os.O_RDONLY | _O_DIRECTORY | _O_CLOEXEC | _O_NOFOLLOW


@dataclass(frozen=True, slots=True)  # one for each file of an image: no __dict__ each
class Range:
    """A byte range of one open file: a blob."""

    fd: int
    start: int
    size: int

    def read_at(self, offset: int, size: int) -> bytes:
        if offset >= self.size or size <= 0:
            return b""
        return os.pread(self.fd, min(size, self.size - offset), self.start + offset)


class BlobStore:
    """The blobs of an image, by their path inside the archive or layout (`blobs/sha256/…`, `abc/layer.tar`)."""

    def __init__(self, path: str) -> None:
        self.path = path
        self._fds: list[int] = []
        self.truncated = ""  # where an archive ends early, for messages
        st = os.stat(path)
        self.is_dir = stat.S_ISDIR(st.st_mode)
        self._members: dict[str, tuple[int, int]] = {}
        if self.is_dir:
            self._root_fd = os.open(path, os.O_RDONLY | _O_DIRECTORY | _O_CLOEXEC)  # the user's own path
            self._fds.append(self._root_fd)
        else:
            if not stat.S_ISREG(st.st_mode):  # checked before the open: a FIFO or a device is never opened
                raise ImageError(f"{path}: not a regular file")
            self._archive_fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | _O_CLOEXEC)
            self._fds.append(self._archive_fd)
            self._index_archive(path, os.fstat(self._archive_fd).st_size)

    def _index_archive(self, path: str, size: int) -> None:
        last = ""
        try:
            with tarfile.open(path, mode="r:", tarinfo=FastTarInfo) as tar:  # headers only: data is skipped by seeking
                for member in tar:
                    last = member.name
                    if member.isreg():
                        self._members[_norm(member.name)] = (member.offset_data, member.size)
                        if member.offset_data + member.size > size:
                            self.truncated = f"it ends at byte {size}, inside {member.name!r}"
        except (tarfile.ReadError, EOFError) as exc:
            if not self._members:
                raise ImageError(f"{path}: not an uncompressed tar archive ({exc}); decompress it first") from None
            self.truncated = f"it ends at byte {size}, after {last!r}"

    def exists(self, name: str) -> bool:
        name = _norm(name)
        if self.is_dir:
            try:
                os.close(self._open_in_layout(name))
            except (OSError, ImageError):
                return False
            return True
        return name in self._members

    def _open_in_layout(self, name: str) -> int:
        """`name` below the layout, one component at a time, never through a symlink; only a regular file."""
        parts = name.split("/")
        if any(p in ("", ".", "..") for p in parts):
            raise ImageError(f"blob {name!r} lies outside the layout")
        fd = self._root_fd
        opened: list[int] = []
        try:
            for part in parts[:-1]:
                fd = os.open(part, _DIR, dir_fd=fd)
                opened.append(fd)
            st = os.stat(parts[-1], dir_fd=fd, follow_symlinks=False)
            if stat.S_ISLNK(st.st_mode):
                raise ImageError(f"{name}: a symlink in the layout; refused")
            if not stat.S_ISREG(st.st_mode):
                raise ImageError(f"{name}: not a regular file in the layout; refused")
            found = os.open(parts[-1], _FILE, dir_fd=fd)
        except OSError as exc:
            if exc.errno in (errno.ELOOP, errno.ENOTDIR):
                raise ImageError(f"{name}: reached through a symlink in the layout; refused") from None
            raise
        finally:
            for d in opened:
                os.close(d)
        return found

    def blob(self, name: str) -> Range:
        name = _norm(name)
        if self.is_dir:
            try:
                fd = self._open_in_layout(name)
            except OSError as exc:
                raise ImageError(f"{name}: {exc.strerror}") from None
            self._fds.append(fd)
            return Range(fd, 0, os.fstat(fd).st_size)
        found = self._members.get(name)
        if found is None:
            where = f" (truncated archive: {self.truncated})" if self.truncated else ""
            raise ImageError(f"{name}: no such blob in the archive{where}")
        start, size = found
        end = os.fstat(self._archive_fd).st_size
        return Range(self._archive_fd, start, max(0, min(size, end - start)))

    def read(self, name: str, limit: int = 16 << 20) -> bytes:
        r = self.blob(name)
        if r.size > limit:
            raise ImageError(f"{name}: {r.size} bytes, larger than a manifest or config may be")
        data = r.read_at(0, r.size)
        if not self.is_dir and len(data) < self._members[_norm(name)][1]:
            raise ImageError(f"{name}: cut short (truncated archive: {self.truncated})")
        return data

    def close(self) -> None:
        for fd in self._fds:
            os.close(fd)
        self._fds.clear()


def _norm(name: str) -> str:
    return "/".join(p for p in name.split("/") if p not in ("", "."))

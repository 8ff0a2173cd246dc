"""Where an image's blobs live, read in place: an OCI layout directory, or a member range of an uncompressed tar.

Nothing is extracted: a blob is a byte range of the archive (or a file of the layout), read with `pread`.
"""

from __future__ import annotations

import os
import stat
import tarfile
from dataclasses import dataclass

from scanner.targets.container.errors import ImageError


@dataclass(frozen=True)
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
        st = os.stat(path)
        self.is_dir = stat.S_ISDIR(st.st_mode)
        self._members: dict[str, tuple[int, int]] = {}
        if not self.is_dir:
            fd = self._open(path)
            self._archive_fd = fd
            self._index_archive(path)

    def _open(self, path: str) -> int:
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0))
        self._fds.append(fd)
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            raise ImageError(f"{path}: not a regular file")
        return fd

    def _index_archive(self, path: str) -> None:
        try:
            with tarfile.open(path, mode="r:") as tar:  # headers only: data is skipped by seeking
                for member in tar:
                    if member.isreg():
                        self._members[_norm(member.name)] = (member.offset_data, member.size)
        except tarfile.ReadError as exc:
            raise ImageError(f"{path}: not an uncompressed tar archive ({exc}); decompress it first") from None

    def exists(self, name: str) -> bool:
        name = _norm(name)
        if self.is_dir:
            return _contained(self.path, name) and os.path.isfile(os.path.join(self.path, name))
        return name in self._members

    def blob(self, name: str) -> Range:
        name = _norm(name)
        if self.is_dir:
            if not _contained(self.path, name):
                raise ImageError(f"blob {name!r} lies outside the layout")
            full = os.path.join(self.path, name)
            try:
                fd = self._open(full)
            except OSError as exc:
                raise ImageError(f"{name}: {exc.strerror}") from None
            return Range(fd, 0, os.fstat(fd).st_size)
        found = self._members.get(name)
        if found is None:
            raise ImageError(f"{name}: no such blob in the archive")
        return Range(self._archive_fd, found[0], found[1])

    def read(self, name: str, limit: int = 16 << 20) -> bytes:
        r = self.blob(name)
        if r.size > limit:
            raise ImageError(f"{name}: {r.size} bytes, larger than a manifest or config may be")
        return r.read_at(0, r.size)

    def close(self) -> None:
        for fd in self._fds:
            os.close(fd)
        self._fds.clear()


def _norm(name: str) -> str:
    return "/".join(p for p in name.split("/") if p not in ("", "."))


def _contained(root: str, name: str) -> bool:
    """A blob name of a layout names a file below it, never through `..` or a symlink out of it."""
    if any(p == ".." for p in name.split("/")):
        return False
    real = os.path.realpath(os.path.join(root, name))
    return real.startswith(os.path.realpath(root) + os.sep)

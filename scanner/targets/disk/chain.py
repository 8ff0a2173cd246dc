"""Every file a disk image opens: the image itself, and each file it names, by one rule.

A qcow2 backing file and external data file, a VHDX parent locator, a vmdk's extents and parent are names held in
the image. `ImageChain.open` is the one place such a name becomes an open file: only a plain name beside the image
(`name` or `./name`; never absolute, never `..`, never a Windows path), only a regular file (checked with `fstatat`
before any open, so a FIFO or a device is never opened), never through a symlink (`O_NOFOLLOW`, relative to the
image's directory descriptor), and, except a split vmdk's own extents, only with `--allow-backing-files`. The
parsers get file objects with no usable path, so they cannot open anything themselves.
"""

from __future__ import annotations

import errno
import os
import stat
from dataclasses import dataclass
from enum import Enum

from scanner.formats.positional import PositionalFile
from scanner.secrets import safe_url
from scanner.targets.images import ImageError

MAX_CHAIN = 16
_O_CLOEXEC = getattr(os, "O_CLOEXEC", 0)
_O_NOFOLLOW = getattr(os, "O_NOFOLLOW", 0)
_O_NOCTTY = getattr(os, "O_NOCTTY", 0)
_O_DIRECTORY = getattr(os, "O_DIRECTORY", 0)
_FILE_FLAGS = os.O_RDONLY | os.O_NONBLOCK | _O_CLOEXEC | _O_NOCTTY
# The name parsers see for a file of the chain: a path with a NUL byte, so any open of a path derived from it
# (pathlib's with_name, joinpath) fails with ValueError instead of reaching the host.
_NO_PATH = "\0"


class Role(str, Enum):
    EXTENT = "extent"  # a split vmdk's own data: part of the image, no flag needed
    BACKING = "backing file"  # another image under this one: qcow2 backing file, vmdk or VHDX parent
    DATA = "data file"  # a qcow2 external data file


def _kind(mode: int) -> str:
    if stat.S_ISFIFO(mode):
        return "a named pipe"
    if stat.S_ISSOCK(mode):
        return "a socket"
    if stat.S_ISCHR(mode) or stat.S_ISBLK(mode):
        return "a device"
    if stat.S_ISDIR(mode):
        return "a directory"
    return "not a regular file"


def beside_name(name: str) -> str | None:
    """`name` as one component of the image's own directory (`./name` too), or None if it names anything else."""
    text = name.replace("\\", "/")
    while text.startswith("./"):
        text = text[2:]
    if not text or "/" in text or text in (".", "..") or "\0" in text or text[1:2] == ":":  # C:name is a drive
        return None
    return text


def shown_name(name: str) -> str:
    """A name an image holds, as a message may show it: a URL without its user info, query or fragment
    (`https://user:pass@host/base.qcow2`), qemu's inline options (`json:{…}`, which may hold a password) without
    their text."""
    if name.startswith("json:"):
        return "json:{…}"
    return safe_url(name) if "://" in name else name


@dataclass
class ImageFile:
    """One open, regular file of the chain."""

    fd: int
    chain: str  # how it was reached, for messages: `vm.qcow2 -> base.qcow2`
    size: int
    key: tuple[int, int]
    past_end: list[int]  # reads of the chain's files asked to start past their end, shared by the chain

    def pread(self, offset: int, size: int) -> bytes:
        return os.pread(self.fd, size, offset) if offset < self.size and size > 0 else b""

    def reader(self, size: int | None = None) -> PositionalFile:
        """A file object for a parser, `size` bytes long (the whole file by default), with no path of its own."""
        end = self.size if size is None else min(size, self.size)

        def counted() -> None:
            self.past_end[0] += 1

        fh = PositionalFile(lambda offset, n: self.pread(offset, min(n, end - offset)), end, counted)
        fh.name = _NO_PATH + "/" + os.path.basename(self.chain.rpartition(" -> ")[2])  # type: ignore[attr-defined]
        return fh


class ImageChain:
    """The image the user named and every file it names, opened from one directory, closed together."""

    def __init__(self, path: str, allow_backing: bool) -> None:
        self.path = path
        self.allow_backing = allow_backing
        self._files: list[ImageFile] = []
        self._past_end = [0]
        self._dir_fd = -1
        # The path the user gave is theirs to resolve (a symlink to an image is fine); what it names is not.
        shown = os.path.basename(path) or path
        try:
            st = os.stat(path)
            if not stat.S_ISREG(st.st_mode):  # checked before the open: a FIFO or a device is never opened
                raise ImageError(f"{path}: {_kind(st.st_mode)}, not a disk image file; refused")
            self._dir_fd = os.open(os.path.dirname(os.path.abspath(path)), os.O_RDONLY | _O_DIRECTORY | _O_CLOEXEC)
            fd = os.open(path, _FILE_FLAGS)
        except OSError as exc:
            self.close()
            raise ImageError(f"{path}: {exc.strerror or exc}") from None
        except ImageError:
            self.close()
            raise
        self.top = self._adopt(fd, shown)
        if self.top.key != (st.st_dev, st.st_ino):
            self.close()
            raise ImageError(f"{path}: changed while opening; refused")

    def _adopt(self, fd: int, chain: str) -> ImageFile:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode):
            os.close(fd)
            raise ImageError(f"{self.path}: {chain} is {_kind(st.st_mode)}; refused")
        key = (st.st_dev, st.st_ino)
        if any(f.key == key for f in self._files):
            os.close(fd)
            raise ImageError(f"{self.path}: the chain is circular ({chain}); refused")
        found = ImageFile(fd, chain, st.st_size, key, self._past_end)
        self._files.append(found)
        return found

    def open(self, referrer: ImageFile, name: str, role: Role) -> ImageFile:
        """The file `referrer` names as its `role`, by the rule above; raises `ImageError` naming the chain."""
        plain = beside_name(name)
        if plain is None:
            shown = shown_name(name)
            raise ImageError(f"{self.path}: refers to {shown!r} outside its directory ({referrer.chain} -> {shown}); "
                             "refused")
        chain = f"{referrer.chain} -> {name}"
        if role is not Role.EXTENT and not self.allow_backing:
            raise ImageError(
                f"{self.path}: refers to another file, its {role.value} {plain!r} ({chain}); pass "
                "--allow-backing-files to read files beside the image"
            )
        if len(self._files) >= MAX_CHAIN:
            raise ImageError(f"{self.path}: more than {MAX_CHAIN} files in the chain ({chain}); refused")
        try:
            st = os.stat(plain, dir_fd=self._dir_fd, follow_symlinks=False)
        except FileNotFoundError:
            raise ImageError(f"{self.path}: its {role.value} {plain!r} is missing ({chain})") from None
        except OSError as exc:
            raise ImageError(f"{self.path}: its {role.value} {plain!r}: {exc.strerror} ({chain})") from None
        if stat.S_ISLNK(st.st_mode):
            raise ImageError(f"{self.path}: its {role.value} {plain!r} is a symlink ({chain}); refused")
        if not stat.S_ISREG(st.st_mode):
            raise ImageError(f"{self.path}: its {role.value} {plain!r} is {_kind(st.st_mode)} ({chain}); refused")
        try:
            fd = os.open(plain, _FILE_FLAGS | _O_NOFOLLOW, dir_fd=self._dir_fd)
        except OSError as exc:
            why = "a symlink" if exc.errno == errno.ELOOP else exc.strerror
            raise ImageError(f"{self.path}: its {role.value} {plain!r}: {why} ({chain}); refused") from None
        opened = self._adopt(fd, chain)
        if opened.key != (st.st_dev, st.st_ino):
            raise ImageError(f"{self.path}: its {role.value} {plain!r} changed while opening ({chain}); refused")
        return opened

    def reads_past_end(self) -> int:
        """How many reads so far were asked to start past the end of a file of the chain."""
        return self._past_end[0]

    def close(self) -> None:
        for f in self._files:
            os.close(f.fd)
        self._files.clear()
        if self._dir_fd >= 0:
            os.close(self._dir_fd)
            self._dir_fd = -1

"""A filesystem held as a tree of nodes: the backend for trees that are not host directories.

A container image's squashed layers (and a test's in-memory tree) become `Node`s; the one contained walker in
`walker.py` runs over them exactly as over a host directory, through the same `Filesystem` calls. Handles are
numbers in a table of open nodes. A node's bytes come from its `Content`, read on demand (a layer blob, memory).
Failures are `OSError`s with the errno the kernel would give, so the walker cannot tell the backends apart.
"""

from __future__ import annotations

import errno
import itertools
import os
import stat
from dataclasses import dataclass, field
from typing import Protocol

from scanner.targets.base import FileEntry
from scanner.targets.hostfs import Handle


class Content(Protocol):
    def read_at(self, offset: int, size: int) -> bytes:
        """At most `size` bytes from `offset`; fewer at the end."""
        ...


@dataclass(frozen=True)
class Bytes:
    """Content held in memory (small files, tests)."""

    data: bytes

    def read_at(self, offset: int, size: int) -> bytes:
        return self.data[offset : offset + size]


@dataclass(slots=True)  # a container image holds tens of thousands: no per-node __dict__
class Node:
    mode: int  # st_mode with the file type bits
    uid: int = 0
    gid: int = 0
    size: int = 0
    mtime: int = 0
    target: str = ""  # a symlink's text
    content: Content | None = None  # a regular file's bytes
    children: dict[str, Node] = field(default_factory=dict)  # a directory's entries
    origin: str | None = None  # where the node came from (a container layer's digest)
    ino: int = 0
    layer: int = -1  # the index of the container layer that gave it; -1: a directory only implied by others


_inodes = itertools.count(1)


def directory(mode: int = 0o755, uid: int = 0, gid: int = 0, mtime: int = 0) -> Node:
    return Node(stat.S_IFDIR | (mode & 0o7777), uid, gid, mtime=mtime, ino=next(_inodes))


def regular(
    content: Content,
    size: int,
    mode: int = 0o644,
    uid: int = 0,
    gid: int = 0,
    mtime: int = 0,
    origin: str | None = None,
) -> Node:
    return Node(
        stat.S_IFREG | (mode & 0o7777), uid, gid, size, mtime, content=content, origin=origin, ino=next(_inodes)
    )


def symlink(target: str, uid: int = 0, gid: int = 0, mtime: int = 0, origin: str | None = None) -> Node:
    return Node(
        stat.S_IFLNK | 0o777,
        uid,
        gid,
        len(target.encode("utf-8", "surrogateescape")),
        mtime,
        target=target,
        origin=origin,
        ino=next(_inodes),
    )


def special(file_type: int, mode: int = 0o644, uid: int = 0, gid: int = 0, origin: str | None = None) -> Node:
    """A FIFO, socket or device: listed, never opened."""
    return Node(file_type | (mode & 0o7777), uid, gid, origin=origin, ino=next(_inodes))


_DEV = 0x4D43  # every node of one tree is on one (made-up) device


def node_stat(node: Node) -> os.stat_result:
    blocks = (node.size + 511) // 512  # never sparse: the walker reads all of it
    return os.stat_result(
        (node.mode, node.ino, _DEV, 1, node.uid, node.gid, node.size, node.mtime, node.mtime, node.mtime),
        {"st_blocks": blocks},
    )


class MemoryFilesystem:
    shareable = True  # a fork copies the tree; contents are read by position (pread on layer blobs)

    def __init__(self, root: Node) -> None:
        if not stat.S_ISDIR(root.mode):
            raise ValueError("the root of a tree must be a directory")
        self.root = root
        self._open: dict[int, tuple[Node, int]] = {}  # handle -> (node, read position)
        self._next = itertools.count(3)
        # Regular files by inode: (mode, size, content, origin). A forked worker opens a walked file from here and
        # never touches the tree's nodes, whose pages it would otherwise copy (a reference count is a write).
        self._known: dict[int, tuple[int, int, Content | None, str | None]] = {}
        self._recent: tuple[str, str | None] = ("", None)  # the last file opened by identity, and its origin
        pending = [root]
        while pending:
            for child in pending.pop().children.values():
                if stat.S_ISDIR(child.mode):
                    pending.append(child)
                elif stat.S_ISREG(child.mode):
                    self._known[child.ino] = (child.mode, child.size, child.content, child.origin)

    def _node(self, handle: Handle) -> Node:
        try:
            return self._open[handle][0]
        except KeyError:
            raise OSError(errno.EBADF, os.strerror(errno.EBADF)) from None

    def _child(self, parent: Handle, name: str) -> Node:
        node = self._node(parent)
        if not stat.S_ISDIR(node.mode):
            raise NotADirectoryError(errno.ENOTDIR, os.strerror(errno.ENOTDIR), name)
        child = node.children.get(name)
        if child is None:
            raise FileNotFoundError(errno.ENOENT, os.strerror(errno.ENOENT), name)
        return child

    def _handle(self, node: Node) -> Handle:
        handle = next(self._next)
        self._open[handle] = (node, 0)
        return handle

    def open_root(self) -> Handle:
        return self._handle(self.root)

    def open_dir(self, parent: Handle, name: str) -> Handle:
        child = self._child(parent, name)
        if stat.S_ISLNK(child.mode):
            raise OSError(errno.ELOOP, os.strerror(errno.ELOOP), name)  # as O_NOFOLLOW | O_DIRECTORY
        if not stat.S_ISDIR(child.mode):
            raise NotADirectoryError(errno.ENOTDIR, os.strerror(errno.ENOTDIR), name)
        return self._handle(child)

    def open_file(self, parent: Handle, name: str) -> Handle:
        child = self._child(parent, name)
        if stat.S_ISLNK(child.mode):
            raise OSError(errno.ELOOP, os.strerror(errno.ELOOP), name)
        return self._handle(child)

    def lstat(self, parent: Handle, name: str) -> os.stat_result:
        return node_stat(self._child(parent, name))

    def fstat(self, handle: Handle) -> os.stat_result:
        return node_stat(self._node(handle))

    def readlink(self, parent: Handle, name: str) -> str:
        child = self._child(parent, name)
        if not stat.S_ISLNK(child.mode):
            raise OSError(errno.EINVAL, os.strerror(errno.EINVAL), name)
        return child.target

    def scandir(self, handle: Handle) -> list[tuple[str, os.stat_result]]:
        node = self._node(handle)
        if not stat.S_ISDIR(node.mode):
            raise NotADirectoryError(errno.ENOTDIR, os.strerror(errno.ENOTDIR))
        return [(name, node_stat(child)) for name, child in sorted(node.children.items())]

    def read(self, handle: Handle, size: int) -> bytes:
        node, pos = self._open.get(handle, (None, 0))
        if node is None:
            raise OSError(errno.EBADF, os.strerror(errno.EBADF))
        data = self.pread(handle, size, pos)
        self._open[handle] = (node, pos + len(data))
        return data

    def pread(self, handle: Handle, size: int, offset: int) -> bytes:
        node = self._node(handle)
        if stat.S_ISDIR(node.mode):
            raise IsADirectoryError(errno.EISDIR, os.strerror(errno.EISDIR))
        if node.content is None or offset >= node.size:
            return b""
        return node.content.read_at(offset, min(size, node.size - offset))

    def close(self, handle: Handle) -> None:
        self._open.pop(handle, None)

    def open_walked(self, entry: FileEntry) -> Handle:
        """A walked regular file by its inode (a `FileEntry`'s `ino`), without a path lookup through the tree."""
        known = self._known.get(entry.ino)
        if known is None or not stat.S_ISREG(entry.mode):
            raise FileNotFoundError(errno.ENOENT, os.strerror(errno.ENOENT))
        mode, size, content, origin = known
        self._recent = (entry.path, origin)
        return self._handle(Node(mode, size=size, content=content, origin=origin, ino=entry.ino))

    def origin_of(self, inside: str) -> str | None:
        """The origin (layer) of the node at a resolved inside path, for locations."""
        if inside == self._recent[0]:
            return self._recent[1]
        node = self.root
        for part in (p for p in inside.split("/") if p):
            found = node.children.get(part)
            if found is None:
                return None
            node = found
        return node.origin

"""Directories and files opened by name from an open parent, no link followed: the readers' kept chain."""

from __future__ import annotations

import errno

from scanner.model import SkipReason
from scanner.targets.base import ReadFailure
from scanner.targets.contained import dir_failure, path_parts
from scanner.targets.hostfs import Filesystem, Handle


class OpenChain:
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
        self._last: str | None = None  # the inside path of the chain's deepest directory, as last asked

    def parent_at(self, inside: str) -> Handle:
        """The open directory at an inside path (borrowed, as `parent_of`); files in walk order most often share
        the last one's, which is then neither split nor compared again."""
        if inside == self._last and self.handles:
            return self.handles[-1]
        handle = self.parent_of(path_parts(inside))
        self._last = inside
        return handle

    def parent_of(self, parts: list[str]) -> Handle:
        """The open directory at `parts` (borrowed: valid until the next call or `close`)."""
        fs, names, handles = self.fs, self.names, self.handles
        if not handles:
            try:
                handles.append(fs.open_root())
            except OSError as exc:
                raise ReadFailure(SkipReason.READ_ERROR, exc.strerror or str(exc)) from None
        self._last = None
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
                raise dir_failure(exc) from None
            names.append(part)
        return handles[-1]

    def close(self) -> None:
        self._last = None
        while self.handles:
            self.fs.close(self.handles.pop())
        self.names.clear()


def open_file_at(fs: Filesystem, parent: Handle, name: str) -> Handle:
    try:
        return fs.open_file(parent, name)
    except PermissionError:
        raise ReadFailure(SkipReason.PERMISSION_DENIED, "open refused") from None
    except OSError as exc:
        if exc.errno == errno.ELOOP:
            raise ReadFailure(SkipReason.CHANGED, "became a symlink") from None
        raise ReadFailure(SkipReason.READ_ERROR, exc.strerror or str(exc)) from None


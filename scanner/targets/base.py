"""The target contract: where bytes come from.

A target walks its files and reads them, bounded. Detectors never see host paths: every path they
get is the path inside the target (`/etc/agent/config.yaml`).
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from typing import Protocol

from scanner.model import Skip, SkipReason, TargetInfo


@dataclass(frozen=True, init=False)
class FileEntry:
    """A regular file of the target, found by the walk (not yet opened)."""

    path: str  # inside path, as the OS gave it (may hold surrogate escapes)
    size: int
    mode: int
    uid: int
    gid: int
    via: str | None = None  # inside path of the symlink it was reached through
    dev: int = 0  # (dev, ino): one file however many paths reach it (hard links, symlinks)
    ino: int = 0
    nlink: int = 1

    # One is made per file walked, and crosses to a worker and back: a frozen dataclass's own __init__ sets each
    # field through object.__setattr__, and pickle sends each as a dict with the class. Here the fields are set in
    # one update and pickled as a tuple: half the cost of each (2-4% of a scan of /usr).
    def __init__(
        self, path: str, size: int, mode: int, uid: int, gid: int, via: str | None = None, dev: int = 0,
        ino: int = 0, nlink: int = 1,
    ) -> None:
        self.__dict__.update(
            path=path, size=size, mode=mode, uid=uid, gid=gid, via=via, dev=dev, ino=ino, nlink=nlink
        )

    def __reduce__(self) -> tuple[type[FileEntry], tuple[str, int, int, int, int, str | None, int, int, int]]:
        return FileEntry, (self.path, self.size, self.mode, self.uid, self.gid, self.via, self.dev, self.ino,
                           self.nlink)


@dataclass(frozen=True)
class ReadResult:
    data: bytes
    truncated: bool  # the file is larger than what was read


class ReadFailure(Exception):
    """A file could not be read; carries the reason recorded in `skipped`."""

    def __init__(self, reason: SkipReason, detail: str = "") -> None:
        super().__init__(f"{reason.value}: {detail}")
        self.reason = reason
        self.detail = detail


class DecompressionLimit(ReadFailure):
    """A compressed source under the file (a container layer) inflated past its cap; what came before stands."""

    def __init__(self, detail: str) -> None:
        super().__init__(SkipReason.DECOMPRESSION_LIMIT, detail)


class Target(Protocol):
    info: TargetInfo
    @property
    def shareable(self) -> bool:
        """Whether forked workers may read through it: positional reads only, no state a fork could tear."""
        ...

    def walk(self) -> Iterator[FileEntry | Skip]:
        """Every regular file to scan, and a `Skip` for everything passed over, in a stable order."""
        ...

    def read(self, entry: FileEntry, limit: int) -> ReadResult:
        """At most `limit` bytes of the file; raises `ReadFailure`."""
        ...

    def read_window(self, entry: FileEntry, offset: int, size: int) -> bytes:
        """At most `size` bytes from `offset` (fewer at the end of the file); raises `ReadFailure`.

        Large files are matched in overlapping windows read one after another, so memory stays bounded.
        """
        ...

    def origin_of(self, inside_path: str) -> str | None:
        """Where a walked file came from inside the target (a container layer's digest); None for a directory."""
        ...

    def read_path(self, inside_path: str, limit: int) -> bytes | None:
        """A file named by its inside path (e.g. `/etc/passwd`), resolved inside the target; None if absent."""
        ...

"""A disk image's mounted filesystems as the walker's `Filesystem`, through dissect.target (AGPL-3.0, the `images`
extra, imported only when a disk image is scanned).

The mounts (`mounts.py`) are laid over the root here: a mount point's entry is the mounted filesystem's root, and a
directory the mounts need but the root lacks (`/$fs$`) is made up. Every mounted filesystem has its own device
number, and so has every btrfs subvolume (as the kernel gives them), so the walker's (device, inode) identity of a
directory holds across filesystems whose inode numbers repeat. A directory's listing is kept while the walk may
come back to it (a bounded, least-recently-used set), so the walk costs about one listing per directory.
What fails (an unreadable inode, a read error, a read shorter than the file, a read past the end of the image
file) is an `OSError` the walker records, and is counted against its filesystem for the image-level result.
"""

from __future__ import annotations

import contextlib
import errno
import itertools
import os
import stat
from collections import OrderedDict
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from scanner.targets.directory import SPARSE_MIN_SIZE
from scanner.targets.disk.mounts import Mount
from scanner.targets.hostfs import Handle

TRUNCATED = "the image file ends before the data it points to (truncated image)"
MAX_CACHED = 200_000  # directory entries kept in listings the walk may come back to
_VIRTUAL_DEV = 1
_BTRFS_TOP = "btrfs"


def _err(code: int, detail: str = "") -> OSError:
    return OSError(code, f"{os.strerror(code)}: {detail}" if detail else os.strerror(code))


@dataclass(frozen=True)
class _Virtual:
    """A directory only the mounts need (`/$fs$`, a mount point the root lacks)."""

    inside: str
    ino: int


@dataclass
class _Slot:
    entry: Any  # a dissect FilesystemEntry, or a _Virtual
    mount: Mount | None
    inside: str
    st: os.stat_result
    fh: Any = None
    pos: int = 0


@dataclass
class Failures:
    """Read failures per mount point: how many, and the first one's detail."""

    count: dict[str, int] = field(default_factory=dict)
    first: dict[str, str] = field(default_factory=dict)

    def add(self, point: str, detail: str) -> None:
        self.count[point] = self.count.get(point, 0) + 1
        self.first.setdefault(point, detail)


class DissectFilesystem:
    def __init__(self, mounts: Sequence[Mount], past_end: Callable[[], int] = lambda: 0) -> None:
        walked = [m for m in mounts if m.point is not None and m.fs is not None]
        roots = [m for m in walked if m.point == "/"]
        if not roots:
            raise ValueError("no filesystem is mounted at /")
        self._root = roots[0]
        self._past_end = past_end  # how many reads so far started past the end of an image file
        self.failures = Failures()
        self._devs: dict[tuple[int, int], int] = {}
        self._open: dict[int, _Slot] = {}
        self._next = itertools.count(3)
        self._listings: OrderedDict[tuple[int, int, str], dict[str, Any]] = OrderedDict()
        self._cached = 0
        self._inodes = itertools.count(2)
        self._overlay: dict[str, dict[str, Mount | _Virtual]] = {}
        for m in sorted(walked, key=lambda m: str(m.point)):
            if m.point != "/":
                self._lay(str(m.point), m)

    def _lay(self, point: str, mount: Mount) -> None:
        parts = [p for p in point.split("/") if p]
        for i in range(len(parts)):
            parent = "/" + "/".join(parts[:i])
            here = "/" + "/".join(parts[: i + 1])
            children = self._overlay.setdefault(parent, {})
            if i == len(parts) - 1:
                children[parts[i]] = mount
            elif parts[i] not in children:
                children[parts[i]] = _Virtual(here, next(self._inodes))

    # --- identity and stat -------------------------------------------------------------------------

    def _dev(self, mount: Mount, entry: Any) -> int:
        inode = getattr(entry, "entry", None)
        subvolume = getattr(inode, "subvolume", None)
        key = (id(mount.fs), int(getattr(subvolume, "objectid", 0)) if mount.ident.fstype == _BTRFS_TOP else 0)
        found = self._devs.get(key)
        if found is None:
            found = self._devs[key] = len(self._devs) + 2
        return found

    def _stat(self, mount: Mount, entry: Any) -> os.stat_result:
        btrfs = mount.ident.fstype == _BTRFS_TOP
        before = self._past_end()
        try:
            # A btrfs inode is read directly: dissect's lstat resolves a symlink's target first, and fails with it.
            st = _inode_stat(entry) if btrfs else entry.lstat()
        except Exception as exc:  # a damaged inode
            self.failures.add(str(mount.point), f"cannot read an inode: {self._why(exc, before)}")
            return os.stat_result((0, 0, self._dev(mount, entry), 0, 0, 0, 0, 0, 0, 0))
        blocks = getattr(st, "st_blocks", None)
        if btrfs and stat.S_ISREG(st.st_mode) and st.st_size >= SPARSE_MIN_SIZE:
            blocks = _btrfs_blocks(entry, st.st_size)
        if blocks is None:
            blocks = (st.st_size + 511) // 512
        return os.stat_result(
            (st.st_mode, st.st_ino, self._dev(mount, entry), st.st_nlink, st.st_uid, st.st_gid, st.st_size,
             int(st.st_atime), int(st.st_mtime), int(st.st_ctime)),
            {"st_blocks": blocks},
        )

    def _why(self, exc: Exception, before: int) -> str:
        """What a dissect failure means: a truncated image when a read past the image file's end came first."""
        return TRUNCATED if self._past_end() != before else f"{type(exc).__name__}: {str(exc)[:80]}".rstrip(": ")

    def _virtual_stat(self, v: _Virtual) -> os.stat_result:
        return os.stat_result((stat.S_IFDIR | 0o755, v.ino, _VIRTUAL_DEV, 2, 0, 0, 0, 0, 0, 0), {"st_blocks": 0})

    # --- listings -----------------------------------------------------------------------------------

    def _slot(self, handle: Handle) -> _Slot:
        try:
            return self._open[handle]
        except KeyError:
            raise _err(errno.EBADF) from None

    def _listing(self, slot: _Slot) -> dict[str, Any]:
        if isinstance(slot.entry, _Virtual) or slot.mount is None:
            return {}
        key = (slot.st.st_dev, slot.st.st_ino, str(slot.mount.point))
        found = self._listings.get(key)
        if found is not None:
            self._listings.move_to_end(key)
            return found
        before = self._past_end()
        try:
            found = {d.name: d for d in slot.entry.scandir()}
        except Exception as exc:  # a dissect parser error on a hostile directory: unreadable, not fatal
            why = self._why(exc, before)
            self.failures.add(str(slot.mount.point), f"cannot list {slot.inside}: {why}")
            raise _err(errno.EIO, f"cannot list the directory: {why}") from None
        self._listings[key] = found
        self._cached += len(found)
        while self._cached > MAX_CACHED and len(self._listings) > 1:
            _, dropped = self._listings.popitem(last=False)
            self._cached -= len(dropped)
        return found

    def _child(self, parent: Handle, name: str) -> tuple[Any, Mount | None, str]:
        """The entry `name` in `parent`: (a dissect FilesystemEntry or a _Virtual, its mount, its inside path)."""
        slot = self._slot(parent)
        if not stat.S_ISDIR(slot.st.st_mode):
            raise _err(errno.ENOTDIR, name)
        inside = f"/{name}" if slot.inside == "/" else f"{slot.inside}/{name}"
        over = self._overlay.get(slot.inside, {}).get(name)
        if isinstance(over, Mount):
            return _root_of(over), over, inside
        real = self._listing(slot).get(name)
        if real is not None:
            return real.get(), slot.mount, inside
        if over is not None:
            return over, None, inside
        raise _err(errno.ENOENT, name)

    def _stat_of(self, entry: Any, mount: Mount | None) -> os.stat_result:
        if isinstance(entry, _Virtual) or mount is None:
            return self._virtual_stat(entry)
        return self._stat(mount, entry)

    # --- the Filesystem calls -----------------------------------------------------------------------

    def _handle(self, entry: Any, mount: Mount | None, inside: str, st: os.stat_result) -> Handle:
        h = next(self._next)
        self._open[h] = _Slot(entry, mount, inside, st)
        return h

    def open_root(self) -> Handle:
        entry = _root_of(self._root)
        return self._handle(entry, self._root, "/", self._stat(self._root, entry))

    def open_dir(self, parent: Handle, name: str) -> Handle:
        entry, mount, inside = self._child(parent, name)
        st = self._stat_of(entry, mount)
        if stat.S_ISLNK(st.st_mode):
            raise _err(errno.ELOOP, name)
        if not stat.S_ISDIR(st.st_mode):
            raise _err(errno.ENOTDIR, name)
        return self._handle(entry, mount, inside, st)

    def open_file(self, parent: Handle, name: str) -> Handle:
        entry, mount, inside = self._child(parent, name)
        st = self._stat_of(entry, mount)
        if stat.S_ISLNK(st.st_mode):
            raise _err(errno.ELOOP, name)
        return self._handle(entry, mount, inside, st)

    def lstat(self, parent: Handle, name: str) -> os.stat_result:
        entry, mount, _ = self._child(parent, name)
        return self._stat_of(entry, mount)

    def fstat(self, handle: Handle) -> os.stat_result:
        return self._slot(handle).st

    def readlink(self, parent: Handle, name: str) -> str:
        entry, mount, _ = self._child(parent, name)
        if mount is None or not stat.S_ISLNK(self._stat_of(entry, mount).st_mode):
            raise _err(errno.EINVAL, name)
        try:
            return str(getattr(entry, "entry", entry).link)  # the inode's own text: nothing resolved
        except Exception:
            try:
                return str(entry.readlink())
            except Exception as exc:
                self.failures.add(str(mount.point), f"cannot read a symlink ({type(exc).__name__})")
                raise _err(errno.EIO, name) from None

    def scandir(self, handle: Handle) -> list[tuple[str, os.stat_result]]:
        slot = self._slot(handle)
        if not stat.S_ISDIR(slot.st.st_mode):
            raise _err(errno.ENOTDIR)
        names = set(self._listing(slot)) | set(self._overlay.get(slot.inside, {}))
        out = []
        for name in sorted(names):
            entry, mount, _ = self._child(handle, name)
            out.append((name, self._stat_of(entry, mount)))  # st_mode 0: an inode that cannot be read
        return out

    def read(self, handle: Handle, size: int) -> bytes:
        slot = self._slot(handle)
        data = self.pread(handle, size, slot.pos)
        slot.pos += len(data)
        return data

    def pread(self, handle: Handle, size: int, offset: int) -> bytes:
        slot = self._slot(handle)
        if slot.mount is None or isinstance(slot.entry, _Virtual):
            raise _err(errno.EISDIR)
        point = str(slot.mount.point)
        before = self._past_end()
        try:
            if slot.fh is None:
                slot.fh = slot.entry.open()
            slot.fh.seek(offset)
            data = bytes(slot.fh.read(size))
        except Exception as exc:
            why = self._why(exc, before)
            self.failures.add(point, f"cannot read {slot.inside}: {why}")
            raise _err(errno.EIO, why) from None
        if self._past_end() != before:
            self.failures.add(point, f"cannot read {slot.inside}: {TRUNCATED}")
            raise _err(errno.EIO, TRUNCATED)
        want = max(0, min(size, slot.st.st_size - offset))
        if len(data) < want:
            self.failures.add(point, f"cannot read {slot.inside}: short read")
            raise _err(errno.EIO, f"short read: {len(data)} of {want} bytes at offset {offset}")
        return data

    def close(self, handle: Handle) -> None:
        slot = self._open.pop(handle, None)
        if slot is not None and slot.fh is not None:
            with contextlib.suppress(Exception):  # closing what a hostile image opened must not fail the scan
                slot.fh.close()


def _root_of(mount: Mount) -> Any:
    return mount.fs.get("/")


def _inode_stat(entry: Any) -> os.stat_result:
    """A btrfs inode's own facts (its size, owner and times; no st_blocks: counted from extents when it matters)."""
    inode = entry.entry
    mtime = int(inode.mtime.timestamp())
    return os.stat_result(
        (int(inode.mode), int(inode.inum), 0, int(inode.inode.nlink), int(inode.uid), int(inode.gid),
         int(inode.size), mtime, mtime, mtime)
    )


def _btrfs_blocks(entry: Any, size: int) -> int:
    """A btrfs file's allocated 512-byte blocks, from its extents (holes have no disk address)."""
    try:
        extents = entry.entry.extents() or []
    except Exception:
        return (size + 511) // 512
    allocated = sum(int(e.disk_length if e.compression else e.length) for e in extents if e.disk_offset)
    return (allocated + 511) // 512

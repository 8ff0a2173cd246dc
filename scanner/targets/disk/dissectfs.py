"""A disk image's mounted filesystems as the walker's `Filesystem`, through dissect.target (AGPL-3.0, the `images`
extra, imported only when a disk image is scanned).

The mounts (`mounts.py`) are laid over the root here: a mount point's entry is the mounted filesystem's root, and a
directory the mounts need but the root lacks (`/$fs$`) is made up. Each filesystem and btrfs subvolume has its own
device number (`inodetable.py`). A directory's listing is kept while the walk may
come back to it (a bounded, least-recently-used set), so the walk costs about one listing per directory; and so is
an inode's stat, so the walk reads each inode once however often it asks (listed, then opened as a directory, or
met again resolving a link). An open file's stat is read afresh from the inode it reads, so what is read and the
size that bounds it always agree.

Every read is positional on the image's own descriptors (`ImageChain`), so forked scan workers share the target:
a worker opens a walked file by the (device, inode) the walk gave it, without listing its directories again.
What fails (an unreadable inode, a read error, a read shorter than the file, a read past the end of the image
file) is an `OSError` the walker records, and is counted against its filesystem, in memory shared with the
workers, for the image-level result.
"""

from __future__ import annotations

import contextlib
import errno
import itertools
import os
import stat
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from dissect.target.filesystem import DirEntry

from scanner.targets.base import FileEntry
from scanner.targets.disk.blockcache import direct
from scanner.targets.disk.btrfsfast import listing as btrfs_listing
from scanner.targets.disk.failures import Failures
from scanner.targets.disk.inodes import block_size, ext_listing, inode_stat
from scanner.targets.disk.inodetable import InodeTable
from scanner.targets.disk.mounts import Mount
from scanner.targets.disk.recent import Recent
from scanner.targets.hostfs import Handle

TRUNCATED = "the image file ends before the data it points to (truncated image)"
MAX_CACHED = 16_384  # directory entries kept in listings the walk may come back to
MAX_STATS = 16_384  # inode stats kept: a directory's subdirectories are listed, then opened after its others
_FAST = ("ext", "xfs", "btrfs")  # types whose inodes are read directly (`inodes.py`)
_VIRTUAL_DEV = 1


def _err(code: int, detail: str = "") -> OSError:
    return OSError(code, f"{os.strerror(code)}: {detail}" if detail else os.strerror(code))


@dataclass(frozen=True)
class _Virtual:
    """A directory only the mounts need (`/$fs$`, a mount point the root lacks)."""

    inside: str
    ino: int


@dataclass
class _Slot:
    mount: Mount | None  # None for a made-up directory
    inside: str
    st: os.stat_result
    entry: Any = None  # a directory's dissect FilesystemEntry (for listing), or a _Virtual
    raw: Any = None  # the filesystem's own inode object (reads, links)
    fh: Any = None
    pos: int = 0


class DissectFilesystem:
    shareable = True  # positional reads on the image's descriptors; walked files are reopened by identity

    def __init__(self, mounts: Sequence[Mount], past_end: Callable[[], int] = lambda: 0) -> None:
        walked = [m for m in mounts if m.point is not None and m.fs is not None]
        roots = [m for m in walked if m.point == "/"]
        if not roots:
            raise ValueError("no filesystem is mounted at /")
        self._root = roots[0]
        self._past_end = past_end  # how many reads so far started past the end of an image file
        self.failures = Failures([str(m.point) for m in walked])
        self._open: dict[int, _Slot] = {}
        self._next = itertools.count(3)
        self._listings: Recent[tuple[int, int, str], dict[str, Any]] = Recent(MAX_CACHED, len)
        self._blocks = {id(m): block_size(m.ident.fstype, m.fs) for m in walked}
        self._table = InodeTable(walked)
        self._stats: Recent[tuple[int, Any], os.stat_result] = Recent(MAX_STATS)
        inodes = itertools.count(2)
        self._overlay: dict[str, dict[str, Mount | _Virtual]] = {}
        for m in sorted(walked, key=lambda m: str(m.point)):
            if m.point != "/":
                self._lay(str(m.point), m, inodes)

    def _lay(self, point: str, mount: Mount, inodes: itertools.count[int]) -> None:
        parts = [p for p in point.split("/") if p]
        for i in range(len(parts)):
            children = self._overlay.setdefault("/" + "/".join(parts[:i]), {})
            if i == len(parts) - 1:
                children[parts[i]] = mount
            elif parts[i] not in children:
                children[parts[i]] = _Virtual("/" + "/".join(parts[: i + 1]), next(inodes))

    # --- identity and stat -------------------------------------------------------------------------

    def _stat(self, mount: Mount, entry: Any) -> os.stat_result:
        """The stat of a dissect DirEntry or FilesystemEntry (`.entry` is the filesystem's own inode)."""
        fstype = mount.ident.fstype
        raw = getattr(entry, "entry", None)
        before = self._past_end()
        try:
            if fstype in _FAST:
                return inode_stat(fstype, raw, self._blocks[id(mount)], self._table.dev(mount, raw))
            st = _opened(entry).lstat()
        except Exception as exc:  # a damaged inode: listed with no type, recorded by the walker
            self.failures.add(str(mount.point), f"cannot read an inode: {self._why(exc, before)}")
            return os.stat_result((0, 0, 0, 0, 0, 0, 0, 0, 0, 0))
        blocks = getattr(st, "st_blocks", None)
        if blocks is None:
            blocks = (st.st_size + 511) // 512
        # Plain ints: dissect's own int types do not pickle, and results cross back from forked workers.
        fields = (st.st_mode, st.st_ino, self._table.dev(mount, None), st.st_nlink, st.st_uid, st.st_gid,
                  st.st_size, st.st_atime, st.st_mtime, st.st_ctime)
        return os.stat_result(tuple(int(x) for x in fields), {"st_blocks": int(blocks)})

    def _why(self, exc: Exception, before: int) -> str:
        """What a dissect failure means: a truncated image when a read past the image file's end came first."""
        return TRUNCATED if self._past_end() != before else f"{type(exc).__name__}: {str(exc)[:80]}".rstrip(": ")

    # --- listings -----------------------------------------------------------------------------------

    def _slot(self, handle: Handle) -> _Slot:
        try:
            return self._open[handle]
        except KeyError:
            raise _err(errno.EBADF) from None

    def _listing(self, slot: _Slot) -> dict[str, Any]:
        if slot.mount is None:
            return {}
        key = (slot.st.st_dev, slot.st.st_ino, str(slot.mount.point))
        found = self._listings.get(key)
        if found is not None:
            return found
        before = self._past_end()
        try:
            found = _list_names(slot)
        except Exception as exc:  # a dissect parser error on a hostile directory: unreadable, not fatal
            why = self._why(exc, before)
            self.failures.add(str(slot.mount.point), f"cannot list {slot.inside}: {why}")
            raise _err(errno.EIO, f"cannot list the directory: {why}") from None
        self._listings.put(key, found)
        return found

    def _child(self, parent: Handle, name: str) -> tuple[Any, Mount | None, str]:
        """The entry `name` in `parent`: (a dissect DirEntry or FilesystemEntry, a _Numbered or a _Virtual; its
        mount; its inside path)."""
        slot = self._slot(parent)
        if not stat.S_ISDIR(slot.st.st_mode):
            raise _err(errno.ENOTDIR, name)
        inside = f"/{name}" if slot.inside == "/" else f"{slot.inside}/{name}"
        over = self._overlay.get(slot.inside, {}).get(name)
        if isinstance(over, Mount):
            return over.fs.get("/"), over, inside
        real = self._listing(slot).get(name)
        if isinstance(real, (int, tuple)) and slot.mount is not None:  # an inode's number (ext, xfs, btrfs)
            return _Numbered(real), slot.mount, inside
        if real is not None:
            return real, slot.mount, inside
        if over is not None:
            return over, None, inside
        raise _err(errno.ENOENT, name)

    def _raw(self, mount: Mount, entry: Any, keep: bool = True) -> Any:
        """The filesystem's own inode object of an entry `_child` gave."""
        if not isinstance(entry, _Numbered):
            return getattr(entry, "entry", None)
        try:
            return self._table.inode(mount, entry.number, keep)
        except Exception:
            raise _err(errno.EIO, "its inode cannot be found") from None

    def _stat_of(self, entry: Any, mount: Mount | None) -> os.stat_result:
        """An entry's stat; a numbered inode's is read once while it is kept (`_stats`)."""
        if mount is None:
            made_up = (stat.S_IFDIR | 0o755, entry.ino, _VIRTUAL_DEV, 2, 0, 0, 0, 0, 0, 0)
            return os.stat_result(made_up, {"st_blocks": 0})
        if not isinstance(entry, _Numbered):
            return self._stat(mount, entry)
        key = (id(mount.fs), entry.number)
        found = self._stats.get(key)
        if found is None:
            found = self._stat(mount, _Holder(self._raw(mount, entry, keep=False)))
            self._stats.put(key, found)
        return found

    def _opened_stat(self, entry: Any, mount: Mount, raw: Any) -> os.stat_result:
        """The stat of an inode about to be read, from that inode (not from what was kept)."""
        if not isinstance(entry, _Numbered):
            return self._stat(mount, entry)
        found = self._stat(mount, _Holder(raw))
        self._stats.put((id(mount.fs), entry.number), found)
        return found

    # --- the Filesystem calls -----------------------------------------------------------------------

    def _handle(self, slot: _Slot) -> Handle:
        h = next(self._next)
        self._open[h] = slot
        return h

    def open_root(self) -> Handle:
        entry = self._root.fs.get("/")
        return self._handle(_Slot(self._root, "/", self._stat(self._root, entry), entry, entry.entry))

    def open_dir(self, parent: Handle, name: str) -> Handle:
        entry, mount, inside = self._child(parent, name)
        st = self._stat_of(entry, mount)
        if stat.S_ISLNK(st.st_mode):
            raise _err(errno.ELOOP, name)
        if not stat.S_ISDIR(st.st_mode):
            raise _err(errno.ENOTDIR, name)
        if mount is None:
            return self._handle(_Slot(None, inside, st, entry))
        return self._handle(_Slot(mount, inside, st, _opened(entry), self._raw(mount, entry)))

    def open_file(self, parent: Handle, name: str) -> Handle:
        entry, mount, inside = self._child(parent, name)
        if mount is None:
            raise _err(errno.EISDIR, name)
        raw = self._raw(mount, entry)
        st = self._opened_stat(entry, mount, raw)
        if stat.S_ISLNK(st.st_mode):
            raise _err(errno.ELOOP, name)
        return self._handle(_Slot(mount, inside, st, entry, raw))

    def open_walked(self, entry: FileEntry) -> Handle:
        """A file the walk found, by its (device, inode): no directory is listed again (a worker's open)."""
        owner = self._table.owner(entry.dev)
        if owner is None or owner[0].ident.fstype not in _FAST:
            raise _err(errno.ENOENT, "not known by identity")
        mount, subvolume = owner
        try:
            raw = self._table.inode(mount, (subvolume, entry.ino) if mount.ident.fstype == "btrfs" else entry.ino)
        except Exception:
            raise _err(errno.ENOENT, "not known by identity") from None
        holder = _Holder(raw)
        st = self._stat(mount, holder)
        if st.st_dev != entry.dev or stat.S_IFMT(st.st_mode) != stat.S_IFMT(entry.mode):
            raise _err(errno.ESTALE, "not the walked file")
        return self._handle(_Slot(mount, entry.path, st, holder, raw))

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
            return str(self._raw(mount, entry).link)  # the inode's own text: nothing resolved
        except Exception:
            try:
                return str(_opened(entry).readlink())
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
        if slot.mount is None or slot.raw is None or stat.S_ISDIR(slot.st.st_mode):
            raise _err(errno.EISDIR)
        point = str(slot.mount.point)
        before = self._past_end()
        try:
            if slot.fh is None:
                slot.fh = direct(slot.raw.open())
            data: bytes = slot.fh.read_at(offset, size)
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


def _list_names(slot: _Slot) -> dict[str, Any]:
    """A directory's names, each with what finds its inode again: the number (ext, xfs), (subvolume, number)
    (btrfs), or dissect's entry (other types). Numbers, not inode objects: a kept listing stays small."""
    fstype = slot.mount.ident.fstype if slot.mount is not None else ""
    if fstype == "ext":
        return ext_listing(slot.raw)
    if fstype == "xfs":
        return {n.filename: int(n.inum) for n in slot.raw.iterdir() if n.filename not in (".", "..")}
    if fstype == "btrfs":
        return btrfs_listing(slot.raw)
    return {d.name: d for d in slot.entry.scandir()}


def _opened(entry: Any) -> Any:
    """A listing's DirEntry as the FilesystemEntry it names (what lists, stats and opens); others as they are."""
    return entry.get() if isinstance(entry, DirEntry) else entry


@dataclass(frozen=True)
class _Numbered:
    """An inode a listing names by its number ((subvolume, number) on btrfs): its object is made when needed."""

    number: int | tuple[int, int]


@dataclass(frozen=True)
class _Holder:
    """An inode found by number, shaped as dissect's entries are (`.entry` is the inode)."""

    entry: Any

"""A disk image's inodes found by number, and a device number for each mounted filesystem and btrfs subvolume.

Every mounted filesystem has its own device number, and so has every btrfs subvolume (as the kernel gives them),
so the walker's (device, inode) identity holds across filesystems whose inode numbers repeat, and a forked worker
finds a walked file again by it, without listing its directories.
"""

from __future__ import annotations

import contextlib
from collections.abc import Sequence
from typing import Any

from scanner.targets.disk.btrfsfast import SUBVOLUME_ROOT
from scanner.targets.disk.btrfsfile import BtrfsInode
from scanner.targets.disk.mounts import Mount
from scanner.targets.disk.recent import Recent

INODES_KEPT = 256  # inode objects kept: a directory's entries are stat'ed as it is listed, then opened


class InodeTable:
    def __init__(self, walked: Sequence[Mount]) -> None:
        self._devs: dict[tuple[int, int], int] = {}
        self._owners: dict[int, tuple[Mount, int]] = {}  # device -> (its mount, its btrfs subvolume or 0)
        self._subvolumes: dict[int, dict[int, Any]] = {}  # btrfs -> subvolume id -> its dissect Subvolume
        self._inodes: Recent[tuple[int, Any], Any] = Recent(INODES_KEPT)
        for m in walked:
            self._own(m)

    def _own(self, mount: Mount) -> None:
        """Device numbers for the mount, and for every subvolume of a btrfs, given before any worker forks."""
        if mount.ident.fstype == "btrfs":
            btrfs = mount.fs.btrfs
            with contextlib.suppress(Exception):  # subvolumes dissect cannot list get numbers when met
                for sub in btrfs.subvolumes():
                    self._dev_for((id(btrfs), int(sub.objectid)), mount)
            return
        self._dev_for((id(mount.fs), 0), mount)

    def _dev_for(self, key: tuple[int, int], mount: Mount) -> int:
        found = self._devs.get(key)
        if found is None:
            found = self._devs[key] = len(self._devs) + 2
            self._owners[found] = (mount, key[1])
        return found

    def dev(self, mount: Mount, raw: Any) -> int:
        """The device of an inode object of `mount` (a btrfs one's subvolume's; None: the mount's own)."""
        if mount.ident.fstype == "btrfs" and raw is not None:
            return self._dev_for((id(mount.fs.btrfs), int(raw.subvolume.objectid)), mount)
        return self._dev_for((id(mount.fs), 0), mount)

    def owner(self, dev: int) -> tuple[Mount, int] | None:
        """The mount a device number was given to, and its btrfs subvolume (0 for other types)."""
        return self._owners.get(dev)

    def inode(self, mount: Mount, number: int | tuple[int, int], keep: bool = True) -> Any:
        """The inode object a listing names by number; a btrfs one by (subvolume, number); kept for the next ask
        unless not `keep` (one only stat'ed, whose stat is kept instead). Raises what dissect raises for one it
        cannot find."""
        key = (id(mount.fs), number)
        found = self._inodes.get(key)
        if found is not None:
            return found
        if isinstance(number, tuple):
            subvolumes = self._subvolumes.setdefault(id(mount.fs.btrfs), {})
            sub = subvolumes.get(number[0])
            if sub is None:
                sub = subvolumes[number[0]] = mount.fs.btrfs.open_subvolume(number[0])
            inum = int(sub.tree.root_item.root_dirid) if number[1] == SUBVOLUME_ROOT else number[1]
            found = BtrfsInode(sub, inum)
        elif mount.ident.fstype == "ext":
            found = mount.fs.extfs.get_inode(number)
        else:
            found = mount.fs.xfs.get_inode(number)
        if keep:
            self._inodes.put(key, found)
        return found

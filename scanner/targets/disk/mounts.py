"""Which filesystems of a disk image are walked, and where: the image's root, and the others where its own
`/etc/fstab` mounts them (by UUID, label, partition, LVM name, and for btrfs `subvol=` or `subvolid=`).

dissect.target finds the filesystems (partitions, LVM, btrfs subvolumes); this module decides the mounts, so a
btrfs `@home` is mounted at `/home` as the machine mounts it. A filesystem fstab does not name is walked under
`/$fs$/fsN` (nothing in the image is left out silently), except btrfs subvolumes the machine does not mount when
it mounts others of the same filesystem (snapshots, the top level holding `@` and `@home`): listed, not walked
twice. A btrfs the machine does not mount at all is walked from its top level, which holds every subvolume. An encrypted
volume is listed with why it cannot be read.
"""

from __future__ import annotations

import uuid
from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import Any

from scanner.targets.disk.fstab import FstabEntry, VolumeIdentity, names, parse_fstab

UNMOUNTED_TOP = "/$fs$"
_TOP_LEVEL = 5  # a btrfs's top-level subvolume: every other subvolume is a directory somewhere below it
_ENCRYPTED = ((0, b"LUKS\xba\xbe", "LUKS"), (0, b"SKUL\xba\xbe", "LUKS"), (3, b"-FVE-FS-", "BitLocker"))


@dataclass(frozen=True)
class Mount:
    """One filesystem (or btrfs subvolume) the image holds, and where it is walked (None: not walked)."""

    ident: VolumeIdentity
    fs: Any  # a dissect filesystem; None for a volume that cannot be read (encrypted)
    volume: str | None
    size: int | None
    point: str | None = None
    not_read: str = ""  # why a volume's contents cannot be read at all ("encrypted (LUKS)")


def found_in(target: Any) -> list[Mount]:
    """Every filesystem and btrfs subvolume dissect found, and every encrypted volume, none mounted yet."""
    out: list[Mount] = []
    for fs in getattr(target, "filesystems", []) or []:
        vol = getattr(fs, "volume", None)
        if isinstance(vol, list):
            vol = vol[0] if vol else None
        out.append(Mount(_identity(fs, vol), fs, _name(vol), getattr(vol, "size", None)))
    with_fs = {id(getattr(fs, "volume", None)) for fs in getattr(target, "filesystems", []) or []}
    for vol in getattr(target, "volumes", []) or []:
        if id(vol) in with_fs or getattr(vol, "fs", None) is not None:
            continue
        kind = _encryption(vol)
        if kind:
            out.append(Mount(VolumeIdentity(kind.lower()), None, _name(vol), getattr(vol, "size", None),
                             not_read=f"encrypted ({kind})"))
    return out


def _name(vol: Any) -> str | None:
    name = getattr(vol, "name", None)
    return str(name) if name else None


def _encryption(vol: Any) -> str | None:
    try:
        vol.seek(0)
        head = vol.read(16)
    except Exception:  # a volume dissect cannot read is listed by what it found, nothing more
        return None
    for offset, magic, kind in _ENCRYPTED:
        if head[offset : offset + len(magic)] == magic:
            return kind
    return None


def _identity(fs: Any, vol: Any) -> VolumeIdentity:
    fstype = str(getattr(fs, "__type__", "unknown"))
    uid = label = subvolume = None
    subvolume_id: int | None = None
    default = False
    if fstype == "ext":
        uid, label = getattr(fs.extfs, "uuid", None), getattr(fs.extfs, "volume_name", None)
    elif fstype == "xfs":
        uid, label = getattr(fs.xfs, "uuid", None), getattr(fs.xfs, "name", None)
    elif fstype == "btrfs":
        uid, label = getattr(fs.btrfs, "uuid", None), getattr(fs.btrfs, "label", None)
        subvolume = str(getattr(fs.subvolume, "path", "") or "").strip("/")
        subvolume_id = int(fs.subvolume.objectid)
        default = subvolume_id == int(fs.btrfs.default_subvolume.objectid)
    elif fstype == "fat":
        raw = str(getattr(fs.fatfs, "volume_id", "") or "")
        uid = f"{raw[:4]}-{raw[4:]}".upper() if len(raw) == 8 else raw or None
    part_uuid = getattr(vol, "guid", None)
    if isinstance(part_uuid, bytes) and len(part_uuid) == 16:
        part_uuid = uuid.UUID(bytes_le=part_uuid)
    return VolumeIdentity(
        fstype=fstype,
        uuid=str(uid) if uid else None,
        label=str(label).rstrip("\0") or None if label else None,
        part_uuid=str(part_uuid) if part_uuid else None,
        part_label=_name(vol),
        volume=_name(vol),
        partition=getattr(vol, "number", None),
        subvolume=subvolume,
        subvolume_id=subvolume_id,
        default_subvolume=default,
    )


def plan(found: list[Mount], fstab_of: Callable[[Mount], str | None]) -> list[Mount]:
    """`found` with mount points: the root, fstab's mounts, then everything else readable under /$fs$."""
    readable = [m for m in found if m.fs is not None]
    if not readable:
        return found
    scores = [_root_score(m) for m in readable]
    root = readable[scores.index(max(scores))]
    points: dict[int, str] = {id(root): "/"}
    for entry in sorted(parse_fstab(fstab_of(root) or ""), key=lambda e: e.point.count("/")):
        _mount_entry(entry, readable, points)
    mounted_btrfs = {m.ident.uuid for m in readable if id(m) in points and m.ident.fstype == "btrfs"}
    spare = 0
    for m in readable:
        if id(m) in points:
            continue
        if m.ident.fstype == "btrfs" and (m.ident.uuid in mounted_btrfs or m.ident.subvolume_id != _TOP_LEVEL):
            continue  # the machine mounts other subvolumes of it, or it is reachable from its top level
        points[id(m)] = f"{UNMOUNTED_TOP}/fs{spare}"
        spare += 1
        if m.ident.fstype == "btrfs":
            mounted_btrfs.add(m.ident.uuid)
    return [replace(m, point=points.get(id(m))) for m in found]


def _mount_entry(entry: FstabEntry, readable: list[Mount], points: dict[int, str]) -> None:
    if entry.point == "/" or entry.point in points.values():
        return
    for m in readable:
        if id(m) not in points and names(entry, m.ident):
            points[id(m)] = entry.point
            return


def _root_score(m: Mount) -> int:
    """How much a filesystem looks like a machine's root: /etc/fstab 3, /etc and /usr 2, /etc 1."""
    try:
        top = {d.name for d in m.fs.get("/").scandir()}
        has_fstab = "etc" in top and any(d.name == "fstab" for d in m.fs.get("/etc").scandir())
    except Exception:  # a filesystem dissect cannot list is no root
        return -1
    if has_fstab:
        return 3
    return 2 if {"etc", "usr"} <= top else 1 if "etc" in top else 0

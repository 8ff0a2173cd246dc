"""Disk images (raw with MBR or GPT, qcow2, vmdk, vhd, vhdx; LVM inside any; ext4, xfs, btrfs) read unmounted and
unprivileged through dissect.target. dissect is AGPL-3.0: it is the optional `images` extra, imported only here and
only when a disk image is scanned; modelcensus itself stays MIT. The image's filesystems are mounted as its own
`/etc/fstab` says (dissect's OS detection), and the one contained walker walks them through `DissectFilesystem`.
"""

from __future__ import annotations

import logging
from typing import Any

from scanner.model import DiskFilesystem, DiskInfo, TargetInfo
from scanner.targets.container.errors import ImageError
from scanner.targets.directory import DirectoryTarget, WalkOptions
from scanner.targets.disk.backing import check_chain

IMAGES_EXTRA_HINT = "disk images need the images extra (dissect.target, AGPL-3.0): pip install 'modelcensus[images]'"


def open_disk(path: str, fmt: str, options: WalkOptions | None = None, allow_backing: bool = False) -> DirectoryTarget:
    check_chain(path, allow_backing)  # before anything opens the image: a backing file could be a host path
    try:
        from dissect.target import Target
        from dissect.target.exceptions import TargetError
    except ImportError:
        raise ImageError(f"{path}: {IMAGES_EXTRA_HINT}") from None
    from scanner.targets.disk.dissectfs import DissectFilesystem

    quiet = logging.getLogger("dissect")
    level = quiet.level
    quiet.setLevel(logging.CRITICAL)  # dissect reports what it cannot parse as warnings: the scan reports skips
    try:
        target = Target.open(path)
    except TargetError as exc:
        raise ImageError(f"{path}: cannot open the {fmt} image: {str(exc).splitlines()[0]}") from None
    except Exception as exc:  # a hostile image can break any parser: one line, never a traceback
        raise ImageError(f"{path}: cannot open the {fmt} image ({type(exc).__name__})") from None
    finally:
        quiet.setLevel(level)
    filesystems = _filesystems(target)
    if not filesystems:
        raise ImageError(f"{path}: no filesystem found in the {fmt} image")
    info = TargetInfo(kind="disk-image", location=path, disk=DiskInfo(fmt, tuple(filesystems)))
    walker = DirectoryTarget(path, options, kind="disk-image", fs=DissectFilesystem(target.fs))
    walker.info = info
    return walker


def _filesystems(target: Any) -> list[DiskFilesystem]:
    mounted = {id(fs): point for point, fs in (getattr(target.fs, "mounts", {}) or {}).items()}
    out = []
    for fs in getattr(target, "filesystems", []) or []:
        volume = getattr(fs, "volume", None)
        out.append(
            DiskFilesystem(
                type=str(getattr(fs, "__type__", "unknown")),
                mount=mounted.get(id(fs)),
                volume=str(getattr(volume, "name", None) or "") or None,
                size=getattr(volume, "size", None),
            )
        )
    out.sort(key=lambda f: (f.mount is None, f.mount or "", f.type, f.volume or ""))
    return out

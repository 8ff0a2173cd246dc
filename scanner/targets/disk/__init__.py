"""Disk images (raw with MBR or GPT, qcow2, vmdk, vhd, vhdx; LVM inside any; ext4, xfs, btrfs) read unmounted and
unprivileged through dissect.target. dissect is AGPL-3.0: it is the optional `images` extra, imported only here and
only when a disk image is scanned; modelcensus itself stays MIT.

The image and every file it names are opened by `ImageChain` alone (`chain.py`); dissect parses what it is handed
(`formats.py`) and finds the volumes and filesystems; the mounts are the image's own `/etc/fstab` (`mounts.py`);
the one contained walker walks them through `DissectFilesystem`. What failed part-way is counted per filesystem and
said in `target.filesystems` after the walk.
"""

from __future__ import annotations

import logging
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import replace
from typing import Any

from scanner.model import PART_COMPLETE, PART_INCOMPLETE, PART_NOT_READ, DiskFilesystem, DiskInfo, TargetInfo
from scanner.targets.disk.chain import ImageChain
from scanner.targets.images import ImageError
from scanner.targets.walker import Walker, WalkOptions

IMAGES_EXTRA_HINT = "disk images need the images extra (dissect.target, AGPL-3.0): pip install 'modelcensus[images]'"
MAX_FSTAB = 1 << 20


def sniff_disk(path: str) -> str | None:
    """The disk image format of the file at `path`, or None (never blocks: a FIFO or device is not opened)."""
    from scanner.targets.disk.formats import sniff

    try:
        chain = ImageChain(path, allow_backing=False)
    except ImageError:
        return None
    try:
        return sniff(chain.top)
    finally:
        chain.close()


class DiskTarget(Walker):
    """The walker over an image's mounts; `info` says, after the walk, which filesystem failed part-way."""

    def __init__(self, path: str, options: WalkOptions | None, fmt: str, mounts: list[Any], chain: ImageChain) -> None:
        from scanner.targets.disk.dissectfs import DissectFilesystem

        self._fmt, self._mounts, self._chain = fmt, mounts, chain
        self._disk_fs = DissectFilesystem(mounts, chain.reads_past_end)
        super().__init__(path, options, kind="disk-image", fs=self._disk_fs)

    @property
    def info(self) -> TargetInfo:
        failures = self._disk_fs.failures
        described = []
        for m in self._mounts:
            status, detail = PART_COMPLETE, ""
            if m.not_read:
                status, detail = PART_NOT_READ, m.not_read
            elif m.point is not None and failures.count(m.point):
                n = failures.count(m.point)
                status, detail = PART_INCOMPLETE, f"{n} read failure(s), the first: {failures.first(m.point)}"
            described.append(DiskFilesystem(m.ident.fstype, m.point, m.volume, m.size,
                                            (m.ident.subvolume or "/") if m.ident.fstype == "btrfs" else None,
                                            status, detail))
        described.sort(key=lambda f: (f.mount is None, f.mount or "", f.type, f.volume or "", f.subvolume or ""))
        return TargetInfo(kind="disk-image", location=self.location, disk=DiskInfo(self._fmt, tuple(described)))

    @info.setter
    def info(self, value: TargetInfo) -> None:
        pass  # computed from the mounts and what failed while walking them

    def close(self) -> None:
        self._chain.close()


def open_disk(path: str, fmt: str, options: WalkOptions | None = None, allow_backing: bool = False) -> DiskTarget:
    chain = ImageChain(path, allow_backing)  # refuses a FIFO or a device before anything reads it
    try:
        return _open(chain, path, fmt, options)
    except BaseException:
        chain.close()
        raise


def _open(chain: ImageChain, path: str, fmt: str, options: WalkOptions | None) -> DiskTarget:
    try:
        from dissect.target import Target
        from dissect.target.containers.raw import RawContainer
    except ImportError:
        raise ImageError(f"{path}: {IMAGES_EXTRA_HINT}") from None
    from scanner.targets.disk import btrfsfast, extfast, xfsfast
    from scanner.targets.disk.blockcache import cache_volumes
    from scanner.targets.disk.formats import open_disk_stream, sniff
    from scanner.targets.disk.mounts import found_in, plan

    btrfsfast.install()
    extfast.install()
    xfsfast.install()

    fmt = sniff(chain.top) or fmt
    with _quiet():
        try:
            stream = open_disk_stream(chain, chain.top, fmt)
            target = Target()
            target.disks.add(RawContainer(stream))
            target.disks.apply()
            target.volumes.apply()
            target.filesystems.apply()
            cache_volumes(target, chain.reads_past_end)
        except ImageError:
            raise
        except Exception as exc:  # a hostile image can break any parser: one line, never a traceback
            reason = str(exc).splitlines()[0][:200] if str(exc) else type(exc).__name__
            raise ImageError(f"{path}: cannot open the {fmt} image: {reason}") from None
    found = found_in(target)
    if not any(m.fs is not None for m in found):
        locked = sorted({m.not_read for m in found if m.not_read})
        why = f"its volumes are {' and '.join(locked)}" if locked else "no filesystem found"
        raise ImageError(f"{path}: nothing readable in the {fmt} image: {why}")
    mounts = plan(found, _fstab)
    return DiskTarget(path, options, fmt, mounts, chain)


def _fstab(root: Any) -> str | None:
    """The root filesystem's /etc/fstab, resolved inside it like any path the scan names."""
    from scanner.targets.disk.dissectfs import DissectFilesystem

    alone = Walker("", fs=DissectFilesystem([replace(root, point="/")]))
    data = alone.read_path("/etc/fstab", MAX_FSTAB)
    return data.decode("utf-8", "replace") if data is not None else None


@contextmanager
def _quiet() -> Iterator[None]:
    """dissect reports what it cannot parse as log warnings: the scan reports skips and failures itself."""
    log = logging.getLogger("dissect")
    level = log.level
    log.setLevel(logging.CRITICAL)
    try:
        yield
    finally:
        log.setLevel(level)

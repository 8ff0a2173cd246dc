"""A disk image file as the stream of its virtual disk, through dissect.hypervisor (AGPL-3.0, the `images` extra).

Each format's parser gets file objects from `ImageChain` and nothing else: what an image names (a qcow2 backing
file or data file, a vmdk extent or parent, a VHDX parent) is resolved here, by `ImageChain.open`, and handed to
the parser. dissect's own path-based opener of a VHDX parent is replaced by that one function while the parser is
built, and a vmdk's extents are assembled here (`vmdk.py`); the file objects carry no usable path, so nothing else
can open a file.
"""

from __future__ import annotations

import struct
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

from scanner.targets.disk.chain import ImageChain, ImageFile, Role
from scanner.targets.images import ImageError

_VHD_DIFFERENCING = 4


def disk_format(head: bytes, tail: bytes) -> str | None:
    """The format a file's first 64 KiB and last 512 bytes say it is; None if not a disk image."""
    for magic, fmt in ((b"QFI\xfb", "qcow2"), (b"KDMV", "vmdk"), (b"# Disk DescriptorFile", "vmdk"),
                       (b"vhdxfile", "vhdx")):
        if head.startswith(magic):
            return fmt
    if tail.startswith(b"conectix"):
        return "vhd"
    if len(head) >= 512 and head[510:512] == b"\x55\xaa":
        return "raw"
    # A bare filesystem, LVM physical volume or LUKS volume (no partition table): (offset, magic).
    raw = ((1080, b"\x53\xef"), (0, b"XFSB"), (65600, b"_BHRfS_M"), (512, b"LABELONE"), (0, b"LUKS\xba\xbe"))
    for offset, magic in raw:
        if head[offset : offset + len(magic)] == magic:
            return "raw"
    return None


def sniff(f: ImageFile) -> str | None:
    return disk_format(f.pread(0, 65608), f.pread(max(0, f.size - 512), 512))


def open_disk_stream(chain: ImageChain, f: ImageFile, fmt: str | None = None) -> Any:
    """The virtual disk `f` holds (a seekable stream with `size`), its chain resolved through `chain`."""
    fmt = fmt or sniff(f) or "raw"
    opener = _OPENERS.get(fmt)
    return opener(chain, f) if opener else f.reader()


def _qcow2(chain: ImageChain, f: ImageFile) -> Any:
    from dissect.hypervisor.disk import qcow2

    # Built without its data file and backing file, which are then opened here and given to it.
    image = qcow2.QCow2(f.reader(), allow_no_data_file=True, allow_no_backing_file=True)
    if image.needs_data_file:
        if not image.image_data_file:
            raise ImageError(f"{chain.path}: {f.chain} needs an external data file but names none")
        image.data_file = chain.open(f, image.image_data_file, Role.DATA).reader()
    if image.needs_backing_file:
        image.backing_file = open_disk_stream(chain, chain.open(f, image.auto_backing_file, Role.BACKING))
    return image.open()


def _vhdx(chain: ImageChain, f: ImageFile) -> Any:
    from dissect.hypervisor.disk import vhdx

    def parent(_directory: Any, locator: dict[str, str]) -> Any:
        # Hyper-V writes the relative path first; an absolute one alone is refused by the rule, naming it.
        name = locator.get("relative_path") or locator.get("absolute_win32_path") or locator.get("volume_path")
        if not name:
            raise ImageError(f"{chain.path}: {f.chain} is a differencing VHDX whose parent locator names no file")
        found = chain.open(f, name, Role.BACKING)
        if found.pread(0, 8) != b"vhdxfile":
            raise ImageError(f"{chain.path}: the parent of a VHDX must be a VHDX ({found.chain})")
        return _vhdx(chain, found)

    with _replaced(vhdx, "open_parent", parent):
        return vhdx.VHDX(f.reader())


def _vmdk(chain: ImageChain, f: ImageFile) -> Any:
    from scanner.targets.disk.vmdk import open_vmdk

    return open_vmdk(chain, f)


def _vhd(chain: ImageChain, f: ImageFile) -> Any:
    from dissect.hypervisor.disk import vhd

    footer = f.pread(max(0, f.size - 512), 512)
    if len(footer) >= 64 and struct.unpack(">I", footer[60:64])[0] == _VHD_DIFFERENCING:
        raise ImageError(
            f"{chain.path}: {f.chain} is a differencing VHD; its parent cannot be read (convert it with qemu-img)"
        )
    return vhd.VHD(f.reader())


_OPENERS: dict[str, Callable[[ImageChain, ImageFile], Any]] = {
    "qcow2": _qcow2,
    "vhdx": _vhdx,
    "vmdk": _vmdk,
    "vhd": _vhd,
}


@contextmanager
def _replaced(module: Any, name: str, value: Any) -> Iterator[None]:
    """`module.name` is `value` while a parser is built (its own opener would take a host path)."""
    before = getattr(module, name)
    setattr(module, name, value)
    try:
        yield
    finally:
        setattr(module, name, before)

"""A vmdk as one disk, from extents opened by `ImageChain`: dissect.hypervisor parses each extent (sparse grains,
flat data); the extents are laid end to end here, so dissect's own descriptor reader, which opens extent and parent
files by path, is never used. Imported only when a vmdk is scanned (dissect is the `images` extra)."""

from __future__ import annotations

from bisect import bisect_right
from typing import Any

from dissect.hypervisor.disk import vmdk
from dissect.util.stream import AlignedStream

from scanner.targets.disk.chain import ImageChain, ImageFile, Role
from scanner.targets.images import ImageError

SECTOR = 512
NO_PARENT = "ffffffff"
_SPARSE = ("SPARSE", "VMFSSPARSE", "SESPARSE")
_FLAT = ("FLAT", "VMFS")


class Extents(AlignedStream):  # type: ignore[misc]
    """Extents end to end, read by sector as dissect's VMDK reads its own."""

    def __init__(self, parts: list[Any]) -> None:
        self.parts = parts
        self._starts: list[int] = []
        sectors = 0
        for part in parts:
            if sectors:
                self._starts.append(sectors)
            part.offset, part.sector_offset = sectors * SECTOR, sectors
            sectors += part.sector_count
        self.sector_count = sectors
        super().__init__(sectors * SECTOR)

    def read_sectors(self, sector: int, count: int) -> bytes:
        out = []
        index = bisect_right(self._starts, sector)
        while count > 0 and index < len(self.parts):
            part = self.parts[index]
            take = min(part.sector_count - (sector - part.sector_offset), count)
            out.append(part.read_sectors(sector, take))
            sector += take
            count -= take
            index += 1
        return b"".join(out)

    def _read(self, offset: int, length: int) -> bytes:
        return self.read_sectors(offset // SECTOR, (length + SECTOR - 1) // SECTOR)


def open_vmdk(chain: ImageChain, f: ImageFile) -> Extents:
    if f.pread(0, 4) != b"# Di":  # one sparse file; its embedded descriptor may name a parent
        part = vmdk.SparseDisk(f.reader())
        disk = Extents([part])
        part.parent = _parent(chain, f, getattr(part.descriptor, "attr", {}) or {})
        return disk
    descriptor = vmdk.DiskDescriptor.parse(f.pread(0, 1 << 20).decode("utf-8", "replace"))
    above = _parent(chain, f, descriptor.attr)
    parts = [_extent(chain, f, e, above) for e in descriptor.extents]
    if not parts:
        raise ImageError(f"{chain.path}: the vmdk descriptor {f.chain} lists no extent")
    return Extents(parts)


def _parent(chain: ImageChain, f: ImageFile, attr: dict[str, str]) -> Extents | None:
    if attr.get("parentCID", NO_PARENT).lower() == NO_PARENT:
        return None
    found = chain.open(f, attr.get("parentFileNameHint", ""), Role.BACKING)
    head = found.pread(0, 21)
    if not (head.startswith(b"KDMV") or head.startswith(b"# Disk DescriptorFile")):
        raise ImageError(f"{chain.path}: the parent of a vmdk must be a vmdk ({found.chain})")
    return open_vmdk(chain, found)


def _extent(chain: ImageChain, f: ImageFile, extent: Any, parent: Extents | None) -> Any:
    kind = str(extent.type).upper()
    if kind not in _SPARSE + _FLAT:
        raise ImageError(f"{chain.path}: a vmdk extent of type {kind} is not supported ({f.chain})")
    found = chain.open(f, str(extent.filename), Role.EXTENT)
    if kind in _SPARSE:
        if found.pread(0, 4) == b"# Di":
            raise ImageError(f"{chain.path}: an extent is itself a descriptor ({found.chain}); refused")
        return vmdk.SparseDisk(found.reader(), parent=parent)
    want = int(extent.sectors) * SECTOR
    if found.size < want:
        name = found.chain.rpartition(" -> ")[2]
        raise ImageError(
            f"{chain.path}: its extent {name!r} is {found.size} bytes, shorter than the {want} its descriptor "
            "says (truncated image)"
        )
    return vmdk.RawDisk(found.reader(want), want)

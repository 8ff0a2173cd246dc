"""A disk image's backing chain, checked before the image is opened: a qcow2 backing file or a vmdk parent named
by an absolute or climbing path would be opened on the host. Only files beside the image are allowed, and only
when the user says so (`--allow-backing-files`)."""

from __future__ import annotations

import os
import re
import struct

from scanner.targets.container.errors import ImageError

_VMDK_PARENT = re.compile(rb'parentFileNameHint\s*=\s*"([^"]*)"')
_VMDK_EXTENT = re.compile(rb'^\s*(?:RW|RDONLY|NOACCESS)\s+\d+\s+\w+\s+"([^"]*)"', re.MULTILINE)
_MAX_CHAIN = 16


def referenced_files(path: str) -> list[tuple[str, bool]]:
    """The other files this image names, each with whether it is a backing file (qcow2 backing file, vmdk parent)
    rather than a part of the image itself (a split vmdk's extents)."""
    with open(path, "rb") as f:
        head = f.read(1 << 20)
        if head.startswith(b"QFI\xfb"):
            offset, size = struct.unpack(">QI", head[8:20])
            if not offset:
                return []
            f.seek(offset)
            return [(f.read(min(size, 4096)).decode("utf-8", "replace"), True)]
        if head.startswith(b"KDMV"):  # sparse vmdk: the descriptor is embedded
            sector, count = struct.unpack("<QQ", head[28:44])
            f.seek(sector * 512)
            text = f.read(min(count, 2048) * 512)
        elif head.startswith(b"# Disk DescriptorFile"):
            text = head
        else:
            return []
    names = [(m.decode("utf-8", "replace"), True) for m in _VMDK_PARENT.findall(text)]
    names += [(m.decode("utf-8", "replace"), False) for m in _VMDK_EXTENT.findall(text)]
    return [(n, backing) for n, backing in names if n and n != os.path.basename(path)]


def check_chain(path: str, allow_backing: bool) -> None:
    """Raises `ImageError` naming the chain unless every file it names is a plain name beside the image, and, for
    a backing file, backing files are allowed. A split vmdk's own extents beside it need no flag."""
    chain = [path]
    pending = [path]
    while pending:
        current = pending.pop()
        for name, backing in referenced_files(current):
            shown = " -> ".join([*chain, name])
            if "/" in name or "\\" in name or name in ("..", "."):
                raise ImageError(f"{path}: refers to {name!r} outside its directory ({shown}); refused")
            if not backing:
                continue
            if not allow_backing:
                raise ImageError(
                    f"{path}: refers to another file ({shown}); pass --allow-backing-files to read "
                    "files beside the image"
                )
            beside = os.path.join(os.path.dirname(current), name)
            if len(chain) > _MAX_CHAIN or beside in chain:
                raise ImageError(f"{path}: backing chain too long or circular ({shown})")
            if not os.path.isfile(beside):
                raise ImageError(f"{path}: backing file missing ({shown})")
            chain.append(beside)
            pending.append(beside)

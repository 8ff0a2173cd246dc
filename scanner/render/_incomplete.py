"""What an image scan could not read whole, said before the answer: a filesystem or a layer that failed part-way,
the layers read above it, a volume that cannot be read at all. The same facts are in `target` (`status`, `detail`
of each filesystem or layer), for tools; here they are one line each, for people."""

from __future__ import annotations

from scanner.kinds import Inventory
from scanner.model import PART_COMPLETE, PART_INCOMPLETE, PART_NOT_READ, PART_ON_INCOMPLETE_BASE
from scanner.textsafe import safe

_SAID = {PART_INCOMPLETE: "read part-way", PART_NOT_READ: "not read"}


def incomplete_lines(inv: Inventory) -> list[tuple[int, str]]:
    """(depth, text) lines: a heading, then one per part; none when everything was read."""
    lines: list[tuple[int, str]] = []
    disk, image = inv.target.disk, inv.target.image
    if disk is not None:
        for fs in disk.filesystems:
            if fs.status == PART_COMPLETE:
                continue
            what = f"filesystem {fs.mount}" if fs.mount else f"volume {fs.volume or '(unnamed)'}"
            what += f" ({fs.type}" + (f" subvolume {fs.subvolume}" if fs.subvolume else "") + ")"
            lines.append((1, safe(f"{what} {_SAID.get(fs.status, fs.status)}: {fs.detail}")))
    if image is not None:
        above = 0
        for layer in image.layers:
            if layer.status == PART_ON_INCOMPLETE_BASE:
                above += 1
            elif layer.status != PART_COMPLETE:
                lines.append((1, safe(f"layer {layer.digest} {_SAID.get(layer.status, layer.status)}: {layer.detail}")))
        if above:
            lines.append((1, f"{above} layer(s) above it read on an incomplete base"))
    if not lines:
        return []
    return [(0, "incomplete: the image was not read whole (see target and skipped)"), *lines]

"""`open_target`: the one place that says what a path is (a directory, a container image, a disk image) and
opens it with its backend. Every backend hands the same contained walker a `Filesystem`."""

from __future__ import annotations

import os
import stat
from collections.abc import Callable
from dataclasses import dataclass, field
from enum import Enum

from scanner.model import Skip
from scanner.targets.base import Target
from scanner.targets.images import CONFIG_LOCATION, DEFAULT_PLATFORM, ImageError, is_container_image
from scanner.targets.walker import Walker, WalkOptions

__all__ = [
    "CONFIG_LOCATION",
    "DEFAULT_PLATFORM",
    "ImageError",
    "OpenedTarget",
    "TargetKind",
    "detect_kind",
    "open_target",
]


class TargetKind(str, Enum):
    DIRECTORY = "directory"
    CONTAINER = "container"
    DISK = "disk"


@dataclass
class OpenedTarget:
    target: Target
    skips: tuple[Skip, ...] = ()
    # Settings the target holds outside its files (a container image's config): (where, pairs, env-style).
    settings: tuple[tuple[str, tuple[tuple[str, str], ...], bool], ...] = ()
    close: Callable[[], None] = field(default=lambda: None)


def _disk_format(path: str) -> str | None:
    from scanner.targets.disk import sniff_disk  # the format by its magic; dissect is not imported for it

    return sniff_disk(path)


def detect_kind(path: str) -> TargetKind | None:
    try:
        st = os.stat(path)
    except OSError:
        return None
    if stat.S_ISDIR(st.st_mode):
        return TargetKind.CONTAINER if is_container_image(path) else TargetKind.DIRECTORY
    if not stat.S_ISREG(st.st_mode):
        return None
    if is_container_image(path):
        return TargetKind.CONTAINER
    return TargetKind.DISK if _disk_format(path) else None


def open_target(
    path: str,
    kind: TargetKind | None,
    options: WalkOptions,
    platform: str = DEFAULT_PLATFORM,
    allow_backing: bool = False,
) -> OpenedTarget:
    """Raises `ImageError` (a one-line reason) or `OSError` for what cannot be opened."""
    kind = kind or detect_kind(path)
    if kind is None:
        raise ImageError(f"{path}: not a directory, a container image (docker save, OCI) or a disk image")
    if kind is TargetKind.DIRECTORY:
        if not os.path.isdir(path):
            raise ImageError(f"{path}: not a directory")
        return OpenedTarget(Walker(path, options))
    if kind is TargetKind.DISK:
        from scanner.targets.disk import open_disk  # dissect (AGPL, the images extra) only for disk images

        disk = open_disk(path, _disk_format(path) or "raw", options, allow_backing)
        return OpenedTarget(disk, close=disk.close)
    from scanner.targets.container import open_container  # its layers and in-memory tree: images only

    image = open_container(path, platform, options)
    settings = (
        (f"{CONFIG_LOCATION}/Env", image.env, True),
        (f"{CONFIG_LOCATION}/Labels", image.labels, False),
        (f"{CONFIG_LOCATION}/Cmd", _flags(image.command), False),
    )
    return OpenedTarget(image.target, image.skips, settings, image.close)


def _flags(command: tuple[str, ...]) -> tuple[tuple[str, str], ...]:
    """A command line as settings: `--model X` and `--model=X` name a value; the whole line is matched too."""
    pairs: list[tuple[str, str]] = []
    for i, arg in enumerate(command):
        if arg.startswith("--") and len(arg) > 2:
            name, eq, value = arg[2:].partition("=")
            if eq:
                pairs.append((name, value))
            elif i + 1 < len(command) and not command[i + 1].startswith("-"):
                pairs.append((name, command[i + 1]))
    if command:
        pairs.append(("command", " ".join(command)))
    return tuple(pairs)

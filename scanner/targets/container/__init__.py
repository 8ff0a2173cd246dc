"""Container images read in place, unprivileged: `docker save` tarballs, OCI archives and OCI layout directories.

The image's layers are squashed into one in-memory tree (`squash.py`) and walked by the same contained walker
as a directory, through `memfs`. The image config's environment and labels are settings, read like an env file.
"""

from __future__ import annotations

import os
import stat
from dataclasses import dataclass

from scanner.model import ImageInfo, ImageLayer, Skip, TargetInfo
from scanner.targets.container.blobs import BlobStore
from scanner.targets.container.errors import ImageError
from scanner.targets.container.layers import open_layer
from scanner.targets.container.layout import read_image
from scanner.targets.container.squash import Layer, squash
from scanner.targets.directory import DirectoryTarget, WalkOptions
from scanner.targets.memfs import MemoryFilesystem

DEFAULT_PLATFORM = "linux/amd64"
CONFIG_LOCATION = "image-config"  # the path shown for settings of the image config (it is no file of the tree)

__all__ = ["DEFAULT_PLATFORM", "ContainerImage", "ImageError", "is_container_image", "open_container"]


@dataclass
class ContainerImage:
    target: DirectoryTarget
    env: tuple[tuple[str, str], ...]  # ENV of the image config, in order
    labels: tuple[tuple[str, str], ...]
    command: tuple[str, ...]  # entrypoint then cmd
    skips: tuple[Skip, ...]  # layers that could not be read whole
    store: BlobStore

    def close(self) -> None:
        self.store.close()


def is_container_image(path: str) -> bool:
    """An OCI layout directory, or a tar archive holding `manifest.json` or `index.json` at its top."""
    try:
        st = os.stat(path)
    except OSError:
        return False
    if stat.S_ISDIR(st.st_mode):
        return os.path.isfile(os.path.join(path, "oci-layout")) and os.path.isfile(os.path.join(path, "index.json"))
    if not stat.S_ISREG(st.st_mode):
        return False
    import tarfile

    try:
        with tarfile.open(path, mode="r:") as tar:
            for n, member in enumerate(tar):
                if member.name.lstrip("./") in ("manifest.json", "index.json", "oci-layout"):
                    return True
                if n > 10_000:
                    break
    except (tarfile.TarError, OSError, EOFError):
        return False
    return False


def open_container(path: str, platform: str = DEFAULT_PLATFORM, options: WalkOptions | None = None) -> ContainerImage:
    try:
        store = BlobStore(path)
    except OSError as exc:
        raise ImageError(f"{path}: {exc.strerror or exc}") from None
    try:
        ref = read_image(store, platform)
        layers = [Layer(r.digest, open_layer(store.blob(r.blob))) for r in ref.layers]
        root, skips = squash(layers)
    except BaseException:
        store.close()
        raise
    info = TargetInfo(
        kind="container-image",
        location=path,
        image=ImageInfo(
            ref.format,
            ref.digest,
            ref.platform,
            tuple(ImageLayer(r.digest, r.media_type, r.size) for r in ref.layers),
            ref.tags,
        ),
    )
    target = DirectoryTarget(path, options, kind="container-image", fs=MemoryFilesystem(root))
    target.info = info
    config = ref.config.get("config") or {}
    env = tuple(_pair(e) for e in config.get("Env") or [] if isinstance(e, str))
    labels = tuple(sorted((str(k), str(v)) for k, v in (config.get("Labels") or {}).items()))
    command = tuple(str(x) for x in (config.get("Entrypoint") or []) + (config.get("Cmd") or []))
    return ContainerImage(target, env, labels, command, tuple(skips), store)


def _pair(assignment: str) -> tuple[str, str]:
    name, _, value = assignment.partition("=")
    return name, value

"""Container images read in place, unprivileged: `docker save` tarballs, OCI archives and OCI layout directories.

The image's layers are squashed into one in-memory tree (`squash.py`) and walked by the same contained walker
as a directory, through `memfs`. The image config's environment and labels are settings, read like an env file.
"""

from __future__ import annotations

from dataclasses import dataclass

from scanner.model import ImageInfo, ImageLayer, Skip, TargetInfo
from scanner.targets.container.blobs import BlobStore
from scanner.targets.container.layout import LayerRef, read_image
from scanner.targets.container.spool import Spool
from scanner.targets.container.squash import SquashLayer, squash
from scanner.targets.images import DEFAULT_PLATFORM, ImageError
from scanner.targets.memfs import MemoryFilesystem
from scanner.targets.walker import Walker, WalkOptions

__all__ = ["DEFAULT_PLATFORM", "ContainerImage", "ImageError", "open_container"]


@dataclass
class ContainerImage:
    target: Walker
    env: tuple[tuple[str, str], ...]  # ENV of the image config, in order
    labels: tuple[tuple[str, str], ...]
    command: tuple[str, ...]  # entrypoint then cmd
    skips: tuple[Skip, ...]  # layers that could not be read whole
    store: BlobStore
    spool: Spool

    def close(self) -> None:
        self.spool.close()
        self.store.close()


def open_container(path: str, platform: str = DEFAULT_PLATFORM, options: WalkOptions | None = None) -> ContainerImage:
    try:
        store = BlobStore(path)
    except OSError as exc:
        raise ImageError(f"{path}: {exc.strerror or exc}") from None
    spool = Spool()
    try:
        ref = read_image(store, platform)
        layers = [_layer(store, r) for r in ref.layers]
        root, skips, states = squash(layers, spool)
    except BaseException:
        spool.close()
        store.close()
        raise
    described = tuple(
        ImageLayer(r.digest, r.media_type, r.size, state.status, state.detail)
        for r, state in zip(ref.layers, states, strict=True)
    )
    info = TargetInfo(
        kind="container-image",
        location=path,
        image=ImageInfo(ref.format, ref.digest, ref.platform, described, ref.tags),
    )
    target = Walker(path, options, kind="container-image", fs=MemoryFilesystem(root))
    target.info = info
    config = ref.config.get("config") or {}
    env = tuple(_pair(e) for e in config.get("Env") or [] if isinstance(e, str))
    labels = tuple(sorted((str(k), str(v)) for k, v in (config.get("Labels") or {}).items()))
    command = tuple(str(x) for x in (config.get("Entrypoint") or []) + (config.get("Cmd") or []))
    return ContainerImage(target, env, labels, command, tuple(skips), store, spool)


def _layer(store: BlobStore, ref: LayerRef) -> SquashLayer:
    """A layer with its blob; one the image does not hold (a cut archive, a missing or refused file) is a layer
    that fails when it is read, so the layers around it are still read."""
    try:
        return SquashLayer(ref.digest, store.blob(ref.blob), ref.check)
    except ImageError as exc:
        return SquashLayer(ref.digest, None, ref.check, str(exc))


def _pair(assignment: str) -> tuple[str, str]:
    name, _, value = assignment.partition("=")
    return name, value

"""Which manifest, config and layers an image holds: `docker save` tarballs, OCI archives and OCI layouts.

An OCI index (`index.json`, also inside a recent `docker save`) is followed to the manifest of the wanted
platform, nested indexes included; an index with one manifest gives that one whatever its platform. An older
`docker save` has only `manifest.json`, with layer paths and the config's `rootfs.diff_ids` as layer ids.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass
from typing import Any

from scanner.targets.container.blobs import BlobStore
from scanner.targets.container.layers import Digest
from scanner.targets.images import ImageError

_INDEX_TYPES = {"application/vnd.oci.image.index.v1+json", "application/vnd.docker.distribution.manifest.list.v2+json"}
MAX_NESTING = 4


@dataclass(frozen=True)
class LayerRef:
    digest: str  # the layer's id: its blob digest, or for an old docker save its diff_id
    blob: str  # the blob's path in the store
    media_type: str | None
    size: int | None
    check: Digest | None = None  # what its bytes must hash to


@dataclass(frozen=True)
class ImageRef:
    format: str  # docker-archive | oci-archive | oci-layout
    digest: str | None  # the manifest's digest
    platform: str | None
    config: dict[str, Any]
    layers: tuple[LayerRef, ...]
    tags: tuple[str, ...] = ()


def _json(store: BlobStore, name: str, digest: str | None = None) -> Any:
    """A JSON document of the image; one named by a digest (a manifest, a config) must hash to it."""
    data = store.read(name)
    if digest is not None:
        algorithm, _, expected = digest.partition(":")
        if algorithm in hashlib.algorithms_guaranteed and hashlib.new(algorithm, data).hexdigest() != expected:
            raise ImageError(f"{name}: does not match its digest {digest} (a damaged or altered image)")
    try:
        return json.loads(data)
    except (ValueError, UnicodeDecodeError) as exc:
        raise ImageError(f"{name}: not valid JSON ({exc})") from None


def _blob_path(digest: str) -> str:
    alg, _, hexpart = digest.partition(":")
    if not alg.isalnum() or not hexpart or not all(c in "0123456789abcdef" for c in hexpart):
        raise ImageError(f"{digest!r}: not a digest")
    return f"blobs/{alg}/{hexpart}"


def _platform(desc: dict[str, Any]) -> str | None:
    p = desc.get("platform")
    if not isinstance(p, dict) or not p.get("os"):
        return None
    return "/".join(str(x) for x in (p.get("os"), p.get("architecture"), p.get("variant")) if x)


def read_image(store: BlobStore, platform: str) -> ImageRef:
    is_dir = store.is_dir
    if store.exists("index.json"):
        ref = _from_index(store, _json(store, "index.json"), platform, "oci-layout" if is_dir else "oci-archive")
        if store.exists("manifest.json") and not is_dir:
            ref = ImageRef("docker-archive", ref.digest, ref.platform, ref.config, ref.layers, ref.tags)
        return ref
    if store.exists("manifest.json"):
        return _from_docker(store, _json(store, "manifest.json"))
    if store.truncated:
        raise ImageError(f"{store.path}: truncated archive ({store.truncated}): no index.json or manifest.json in it")
    raise ImageError(f"{store.path}: neither an OCI image (index.json) nor a docker save archive (manifest.json)")


def _from_index(store: BlobStore, index: Any, platform: str, fmt: str, depth: int = 0) -> ImageRef:
    manifests = index.get("manifests") if isinstance(index, dict) else None
    if not isinstance(manifests, list) or not manifests:
        raise ImageError("the image index lists no manifests")
    # Attestation manifests (buildx) carry an unknown/unknown platform: never an image to scan.
    images = [m for m in manifests if isinstance(m, dict) and _platform(m) != "unknown/unknown"]
    chosen = images[0] if len(images) == 1 else next((m for m in images if _platform(m) == platform), None)
    if chosen is None:
        offered = ", ".join(sorted({p for m in images if (p := _platform(m))})) or "none named"
        raise ImageError(f"no manifest for platform {platform} (the index offers: {offered}); use --platform")
    digest = str(chosen.get("digest", ""))
    doc = _json(store, _blob_path(digest), digest)
    if chosen.get("mediaType") in _INDEX_TYPES or doc.get("manifests") is not None:
        if depth >= MAX_NESTING:
            raise ImageError("image indexes nested too deeply")
        return _from_index(store, doc, platform, fmt, depth + 1)
    config_desc = doc.get("config") or {}
    config_digest = str(config_desc.get("digest", ""))
    config = _json(store, _blob_path(config_digest), config_digest)
    layers = tuple(
        LayerRef(str(d["digest"]), _blob_path(str(d["digest"])), d.get("mediaType"), d.get("size"),
                 Digest(str(d["digest"])))
        for d in doc.get("layers") or []
        if isinstance(d, dict) and "digest" in d
    )
    tag = (chosen.get("annotations") or {}).get("org.opencontainers.image.ref.name")
    return ImageRef(
        fmt, digest, _platform(chosen) or _config_platform(config), config, layers, (str(tag),) if tag else ()
    )


def _from_docker(store: BlobStore, manifest: Any) -> ImageRef:
    if not isinstance(manifest, list) or not manifest:
        raise ImageError("manifest.json lists no image")
    if len(manifest) > 1:
        tags = ", ".join(t for m in manifest for t in (m.get("RepoTags") or []))
        raise ImageError(f"the archive holds {len(manifest)} images ({tags}); save one image per archive")
    entry = manifest[0]
    config = _json(store, str(entry.get("Config", "")))
    diff_ids = (config.get("rootfs") or {}).get("diff_ids") or []
    paths = entry.get("Layers") or []
    # An old docker save names layers by path; the config's diff_ids are the digests of their tar streams.
    layers = tuple(
        LayerRef(str(diff_ids[i]) if i < len(diff_ids) else str(p), str(p), None, None,
                 Digest(str(diff_ids[i]), of_blob=False) if i < len(diff_ids) else None)
        for i, p in enumerate(paths)
    )
    return ImageRef(
        "docker-archive", None, _config_platform(config), config, layers, tuple(entry.get("RepoTags") or ())
    )


def _config_platform(config: dict[str, Any]) -> str | None:
    if config.get("os"):
        return "/".join(str(x) for x in (config.get("os"), config.get("architecture"), config.get("variant")) if x)
    return None

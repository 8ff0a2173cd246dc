"""Container images built in a test the way image tools write them: tar layers, `docker save`, OCI layouts."""

from __future__ import annotations

import gzip
import hashlib
import io
import json
import os
import stat
import tarfile
from dataclasses import dataclass
from pathlib import Path

import pytest

from scanner.targets.memfs import Bytes, Node, directory, regular, special, symlink


@dataclass(frozen=True)
class Member:
    name: str
    kind: str = "file"  # file | dir | symlink | hardlink | chr | fifo
    data: bytes = b""
    link: str = ""
    mode: int = 0o644
    uid: int = 0
    gid: int = 0


def layer_tar(members: list[Member]) -> bytes:
    buf = io.BytesIO()
    with tarfile.open(fileobj=buf, mode="w", format=tarfile.PAX_FORMAT) as tar:
        for m in members:
            info = tarfile.TarInfo(m.name)
            info.mode, info.uid, info.gid, info.mtime = m.mode, m.uid, m.gid, 1_700_000_000
            kinds = {"file": tarfile.REGTYPE, "dir": tarfile.DIRTYPE, "symlink": tarfile.SYMTYPE,
                     "hardlink": tarfile.LNKTYPE, "chr": tarfile.CHRTYPE, "fifo": tarfile.FIFOTYPE}
            info.type = kinds[m.kind]
            info.linkname = m.link
            if m.kind == "file":
                info.size = len(m.data)
                tar.addfile(info, io.BytesIO(m.data))
            else:
                tar.addfile(info)
    return buf.getvalue()


def tree_members(root: Path, only: str | None = None) -> list[Member]:
    """A host tree as layer members (sorted, as image builders write them); `only` keeps one top directory."""
    out: list[Member] = []
    for dirpath, dirnames, filenames in os.walk(root):
        dirnames.sort()
        rel_dir = os.path.relpath(dirpath, root)
        for name in sorted(dirnames + filenames):
            full = os.path.join(dirpath, name)
            rel = os.path.normpath(os.path.join(rel_dir, name))
            if only and rel.split("/")[0] != only:
                continue
            st = os.lstat(full)
            mode = stat.S_IMODE(st.st_mode)
            if stat.S_ISLNK(st.st_mode):
                out.append(Member(rel, "symlink", link=os.readlink(full), mode=0o777, uid=st.st_uid, gid=st.st_gid))
            elif stat.S_ISDIR(st.st_mode):
                out.append(Member(rel, "dir", mode=mode, uid=st.st_uid, gid=st.st_gid))
            elif stat.S_ISREG(st.st_mode):
                out.append(Member(rel, "file", Path(full).read_bytes(), mode=mode, uid=st.st_uid, gid=st.st_gid))
    return out


def mirror(root: Path) -> Node:
    """A host tree as memfs nodes: the same files, links, FIFOs and sockets, for walking it through memfs."""
    node = directory()
    for entry in sorted(os.scandir(root), key=lambda e: e.name):
        st = entry.stat(follow_symlinks=False)
        mode = stat.S_IMODE(st.st_mode)
        if stat.S_ISLNK(st.st_mode):
            child = symlink(os.readlink(entry.path), st.st_uid, st.st_gid)
        elif stat.S_ISDIR(st.st_mode):
            child = mirror(Path(entry.path))
            child.mode, child.uid, child.gid = stat.S_IFDIR | mode, st.st_uid, st.st_gid
        elif stat.S_ISREG(st.st_mode):
            try:
                data = Path(entry.path).read_bytes()
            except PermissionError:
                data = b""
            child = regular(Bytes(data), len(data), mode, st.st_uid, st.st_gid)
        else:
            child = special(stat.S_IFMT(st.st_mode), mode, st.st_uid, st.st_gid)
        node.children[entry.name] = child
    return node


def zstd_compress(data: bytes) -> bytes:
    import sys

    if sys.version_info >= (3, 14):
        from compression import zstd  # type: ignore[import-not-found,unused-ignore]
    else:
        zstd = pytest.importorskip("backports.zstd", reason="zstd layers need backports.zstd (the images extra)")
    return bytes(zstd.compress(data))


def _digest(data: bytes) -> str:
    return "sha256:" + hashlib.sha256(data).hexdigest()


def _config(layers: list[bytes], env: list[str] | None, labels: dict[str, str] | None,
            cmd: list[str] | None) -> bytes:
    return json.dumps({
        "architecture": "amd64", "os": "linux",
        "config": {"Env": env or ["PATH=/usr/bin"], "Labels": labels or {}, "Cmd": cmd or []},
        "rootfs": {"type": "layers", "diff_ids": [_digest(x) for x in layers]},
    }).encode()


def oci_layout(dest: Path, layers: list[bytes], compress: str = "gzip", env: list[str] | None = None,
               labels: dict[str, str] | None = None, cmd: list[str] | None = None,
               platforms: tuple[str, ...] = ("linux/amd64",)) -> Path:
    """An OCI image layout directory; several platforms make an index of several manifests (same layers)."""
    blobs = dest / "blobs" / "sha256"
    blobs.mkdir(parents=True)

    def put(data: bytes) -> str:
        d = _digest(data)
        (blobs / d.split(":")[1]).write_bytes(data)
        return d

    stored = []
    for raw in layers:
        if compress == "zstd-given":  # already a zstd blob (a bomb streamed by the test)
            data, media = raw, "application/vnd.oci.image.layer.v1.tar+zstd"
        elif compress == "gzip":
            data, media = gzip.compress(raw, mtime=0), "application/vnd.oci.image.layer.v1.tar+gzip"
        elif compress == "zstd":
            data, media = zstd_compress(raw), "application/vnd.oci.image.layer.v1.tar+zstd"
        else:
            data, media = raw, "application/vnd.oci.image.layer.v1.tar"
        stored.append({"mediaType": media, "digest": put(data), "size": len(data)})
    config = _config(layers, env, labels, cmd)
    manifests = []
    for platform in platforms:
        os_, arch = platform.split("/")[:2]
        manifest = json.dumps({
            "schemaVersion": 2, "mediaType": "application/vnd.oci.image.manifest.v1+json",
            "config": {"mediaType": "application/vnd.oci.image.config.v1+json", "digest": put(config),
                       "size": len(config)},
            "layers": stored,
        }).encode()
        manifests.append({"mediaType": "application/vnd.oci.image.manifest.v1+json", "digest": put(manifest),
                          "size": len(manifest), "platform": {"os": os_, "architecture": arch}})
    (dest / "oci-layout").write_text('{"imageLayoutVersion": "1.0.0"}')
    (dest / "index.json").write_text(json.dumps({"schemaVersion": 2, "manifests": manifests}))
    return dest


def tar_of(directory_path: Path, dest: Path, first: tuple[str, ...] = ()) -> Path:
    """A directory (an OCI layout) as an uncompressed tar archive: an OCI archive. Its files in path order, those
    `first` names (relative paths) first."""
    files = sorted(str(p.relative_to(directory_path)) for p in directory_path.rglob("*") if p.is_file())
    with tarfile.open(dest, "w") as tar:
        for name in sorted(files, key=lambda n: (n not in first, first.index(n) if n in first else 0, n)):
            tar.add(directory_path / name, arcname=name)
    return dest


def layer_blobs(layout: Path) -> list[Path]:
    """The layer blobs of an OCI layout's (first) manifest, bottom first."""
    index = json.loads((layout / "index.json").read_text())
    blob = layout / "blobs" / "sha256"
    manifest = json.loads((blob / index["manifests"][0]["digest"].split(":")[1]).read_text())
    return [blob / d["digest"].split(":")[1] for d in manifest["layers"]]


def zstd_bomb(name: str, size: int) -> bytes:
    """A zstd layer blob holding one file of `size` zero bytes: a few KiB for a GiB, streamed, never in memory."""
    import sys

    if sys.version_info >= (3, 14):
        from compression import zstd  # type: ignore[import-not-found,unused-ignore]
    else:
        zstd = pytest.importorskip("backports.zstd", reason="zstd layers need backports.zstd (the images extra)")
    info = tarfile.TarInfo(name)
    info.size, info.mode = size, 0o644
    compressor = zstd.ZstdCompressor(level=1)
    out = [compressor.compress(info.tobuf(tarfile.PAX_FORMAT))]
    zeros = bytes(1 << 20)
    for _ in range(size >> 20):
        out.append(compressor.compress(zeros))
    out.append(compressor.compress(bytes(1024)))  # the end-of-archive blocks
    out.append(compressor.flush())
    return b"".join(out)


def docker_archive(dest: Path, layers: list[bytes], env: list[str] | None = None) -> Path:
    """The classic `docker save` tarball: manifest.json, the config, and `<id>/layer.tar` per layer."""
    config = _config(layers, env, None, None)
    with tarfile.open(dest, "w") as tar:
        def add(name: str, data: bytes) -> None:
            info = tarfile.TarInfo(name)
            info.size = len(data)
            tar.addfile(info, io.BytesIO(data))

        paths = []
        for raw in layers:
            layer_id = hashlib.sha256(raw).hexdigest()
            add(f"{layer_id}/layer.tar", raw)
            paths.append(f"{layer_id}/layer.tar")
        config_name = hashlib.sha256(config).hexdigest() + ".json"
        add(config_name, config)
        add("manifest.json", json.dumps([{"Config": config_name, "RepoTags": ["agent:1.0"], "Layers": paths}]).encode())
    return dest

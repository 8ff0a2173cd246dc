"""Container images that are not what their manifest says: a flipped byte, a cut archive, a bomb, a layer in an
order the walk does not follow. Each is a recorded skip, a layer status and a headline line, never a silent gap;
each layer is read once, forward, within one inflation cap whatever its compression."""

from __future__ import annotations

import hashlib
import json
import os
import stat
import subprocess
import sys
import tarfile
from pathlib import Path
from typing import Any

import pytest

from scanner import api
from scanner.catalog import Catalog
from scanner.inventory.document import dumps
from scanner.options import ScanOptions
from scanner.targets import Walker, WalkOptions
from scanner.targets.container import open_container
from scanner.targets.container.spool import SpoolSlice
from scanner.targets.images import ImageError
from scanner.targets.memfs import MemoryFilesystem, Node
from scanner.targets.registry import TargetKind, detect_kind, open_target
from tests.conftest import SAMPLE_VM
from tests.imagebuild import (
    Member,
    docker_archive,
    layer_blobs,
    layer_tar,
    oci_layout,
    tar_of,
    tree_members,
    zstd_bomb,
)
from tests.test_bounds import scan_in_child
from tests.test_container_images import _without, scan_image


def _flip(path: Path, at: float = 0.5) -> None:
    data = bytearray(path.read_bytes())
    data[int(len(data) * at)] ^= 0x5A
    path.write_bytes(bytes(data))


def _three_layers() -> list[bytes]:
    """A base with a model, a middle layer of many files that ends by deleting it, a top with another model."""
    base = layer_tar([Member("etc/agent/base.yaml", data=b"model: claude-opus-4-1\n")])
    many = [Member(f"opt/app/part{i:04}.txt", data=hashlib.sha512(str(i).encode()).hexdigest().encode() * 40)
            for i in range(400)]
    middle = layer_tar([*many, Member("etc/agent/.wh.base.yaml")])
    top = layer_tar([Member("etc/agent/top.yaml", data=b"model: claude-sonnet-4-5\n")])
    return [base, middle, top]


def _cli(image: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "scanner", "scan", str(image)], capture_output=True, text=True,
                          timeout=300)


@pytest.mark.parametrize("compress", ["gzip", "zstd"])
def test_a_flipped_byte_in_a_compressed_layer_is_a_skip_and_marks_the_layers_above(
    tmp_path: Path, catalog: Catalog, compress: str
) -> None:
    image = oci_layout(tmp_path / "img", _three_layers(), compress)
    middle = layer_blobs(image)[1]
    _flip(middle)
    doc = scan_image(image, catalog)
    layers = doc["target"]["layers"]
    assert [x["status"] for x in layers] == ["complete", "incomplete", "on-incomplete-base"]
    (skip,) = [s for s in doc["skipped"] if s["path"] == layers[1]["digest"]]
    assert skip["reason"] == "read-error"
    assert "deleted from the layers below may show" in skip["detail"]
    assert "claude-sonnet-4-5" in {m["name"] for m in doc["models"]}  # the layer above still read
    done = _cli(image)
    assert done.returncode == 0 and "incomplete: the image was not read whole" in done.stdout
    assert "1 layer(s) above it read on an incomplete base" in done.stdout
    assert done.stderr.startswith("warning: ") and done.stderr.count("\n") == 1


def test_a_flipped_byte_in_a_plain_layer_fails_its_digest_but_keeps_its_files(tmp_path: Path, catalog: Catalog) -> None:
    layers = _three_layers()
    image = oci_layout(tmp_path / "img", layers, "none")
    middle = layer_blobs(image)[1]
    data = bytearray(middle.read_bytes())
    at = data.index(b"part0200.txt") + 1024  # inside that file's bytes: the tar still parses
    data[at] ^= 0x01
    middle.write_bytes(bytes(data))
    doc = scan_image(image, catalog)
    layers_doc = doc["target"]["layers"]
    assert layers_doc[1]["status"] == "incomplete" and "does not match its digest" in layers_doc[1]["detail"]
    assert "claude-opus-4-1" not in {m["name"] for m in doc["models"]}  # its whiteout was read before the end


def test_an_old_docker_save_layer_is_checked_against_its_diff_id(tmp_path: Path, catalog: Catalog) -> None:
    layers = _three_layers()
    archive = docker_archive(tmp_path / "agent.tar", layers)
    data = bytearray(archive.read_bytes())
    data[data.index(b"part0100.txt") + 2048] ^= 0x01
    archive.write_bytes(bytes(data))
    doc = scan_image(archive, catalog)
    statuses = [x["status"] for x in doc["target"]["layers"]]
    assert statuses == ["complete", "incomplete", "on-incomplete-base"]
    assert "uncompressed layer does not match its digest" in doc["target"]["layers"][1]["detail"]


def test_a_truncated_archive_says_so(tmp_path: Path, catalog: Catalog) -> None:
    layout = oci_layout(tmp_path / "img", _three_layers(), "gzip")
    archive = tar_of(layout, tmp_path / "agent.tar")  # blobs first, index.json last
    whole = archive.read_bytes()
    archive.write_bytes(whole[: len(whole) // 2])
    assert detect_kind(str(archive)) is TargetKind.CONTAINER
    with pytest.raises(ImageError, match=r"truncated archive \(it ends at byte \d+, .*\): no index.json"):
        open_target(str(archive), None, WalkOptions())
    blob_dir = layout / "blobs" / "sha256"
    documents = [f"blobs/sha256/{p.name}" for p in sorted(blob_dir.iterdir()) if p not in layer_blobs(layout)]
    layers_last = ("index.json", "oci-layout", *documents, *(f"blobs/sha256/{p.name}" for p in layer_blobs(layout)))
    early = tar_of(layout, tmp_path / "index-first.tar", first=layers_last)
    with tarfile.open(early) as tar:
        where = {m.name: m.offset_data for m in tar if m.isreg()}
    cut = where[f"blobs/sha256/{layer_blobs(layout)[1].name}"] + 2000  # inside the middle layer's blob
    early.write_bytes(early.read_bytes()[:cut])
    doc = scan_image(early, catalog)
    layers = doc["target"]["layers"]
    assert [x["status"] for x in layers] == ["complete", "incomplete", "incomplete"]  # the top one is not there
    assert "ends early" in layers[1]["detail"] and "no such blob in the archive (truncated archive" in \
        layers[2]["detail"]


def test_a_zstd_layer_bomb_stops_at_the_cap_in_bounded_memory(tmp_path: Path) -> None:
    bomb = zstd_bomb("srv/huge.bin", 512 << 20)
    assert len(bomb) < 64 << 10  # tens of KiB for half a GiB
    ok = layer_tar([Member("etc/ok.yaml", data=b"model: claude-opus-4-1\n")])
    from scanner.targets.container.layers import MIN_FOR_RATIO

    image = oci_layout(tmp_path / "img", [ok, bomb], "zstd-given")
    result = scan_in_child(image)  # asserts the child's peak RSS under 300 MB
    capped = [s for s in result["skipped"] if s["reason"] == "decompression-limit"]
    assert capped and f"inflated past {MIN_FOR_RATIO >> 20} MiB" in capped[-1]["detail"]


def _regular_nodes(node: Node) -> list[Node]:
    out = []
    for child in node.children.values():
        if stat.S_ISDIR(child.mode):
            out += _regular_nodes(child)
        elif stat.S_ISREG(child.mode):
            out.append(child)
    return out


def test_an_unsorted_zstd_layer_is_read_once_in_its_own_order(tmp_path: Path, catalog: Catalog) -> None:
    """Members in reverse path order: each file is copied out as the layer passes (one forward read), so the walk
    reads every file from the spool and the inventory is the directory's."""
    members = list(reversed(tree_members(SAMPLE_VM)))
    image = oci_layout(tmp_path / "img", [layer_tar(members)], "zstd")
    opened = open_container(str(image))
    try:
        fs = opened.target.fs
        assert isinstance(fs, MemoryFilesystem)
        nodes = _regular_nodes(fs.root)
        assert nodes and all(isinstance(n.content, SpoolSlice) for n in nodes)
    finally:
        opened.close()
    doc = scan_image(image, catalog)
    direct = json.loads(dumps(api.scan(Walker(str(SAMPLE_VM)), api.ScanRequest(ScanOptions()), catalog)))
    assert _without(doc, "layer") == _without(direct)


def test_a_layout_blob_reached_through_a_symlink_is_refused(tmp_path: Path, catalog: Catalog) -> None:
    image = oci_layout(tmp_path / "img", _three_layers()[:1], "gzip")
    blob = layer_blobs(image)[0]
    outside = tmp_path / "outside.blob"
    outside.write_bytes(blob.read_bytes())
    blob.unlink()
    os.symlink(outside, blob)
    doc: dict[str, Any] = scan_image(image, catalog)
    (layer,) = doc["target"]["layers"]
    assert layer["status"] == "incomplete" and "symlink" in layer["detail"]

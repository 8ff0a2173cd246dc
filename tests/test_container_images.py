"""Container images read in place: docker save, OCI archives and layouts; layers squashed; the same walker."""

from __future__ import annotations

import gzip
import hashlib
import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from scanner import api
from scanner.catalog import Catalog
from scanner.inventory.document import dumps
from scanner.model import Skip
from scanner.options import ScanOptions
from scanner.targets import FileEntry, Walker, WalkOptions
from scanner.targets.container import ImageError, open_container
from scanner.targets.container.blobs import Range
from scanner.targets.container.layers import DecompressionLimit, Digest, LayerFailure, LayerStream
from scanner.targets.hostfs import HostFilesystem, KnowsOrigins, OpensWalked
from scanner.targets.memfs import MemoryFilesystem
from scanner.targets.registry import TargetKind, detect_kind, open_target
from tests.conftest import SAMPLE_VM, build_link_tree, link_tree_ops, validate_document, write
from tests.imagebuild import (
    Member,
    docker_archive,
    layer_tar,
    mirror,
    oci_layout,
    tar_of,
    tree_members,
    zstd_compress,
)

KEY = "sk-ant-api03-" + "Zq7" * 31 + "AA"  # a fake of the real format (93 characters, then AA)


def scan_image(path: Path, catalog: Catalog, platform: str = "linux/amd64") -> dict[str, Any]:
    inv = api.scan(path, api.ScanRequest(ScanOptions(), platform=platform), catalog)
    doc = json.loads(dumps(inv))
    validate_document(doc)
    return doc


def _without(doc: dict[str, Any], *keys: str) -> Any:
    """The document without target, stats and every location's layer: what must equal a directory scan."""
    def strip(x: Any) -> Any:
        if isinstance(x, dict):
            return {k: strip(v) for k, v in x.items() if k not in keys}
        if isinstance(x, list):
            return [strip(v) for v in x]
        return x
    return strip({k: v for k, v in doc.items() if k not in ("target", "stats")})


def _sample_layers() -> list[bytes]:
    # sample_vm split the way images are built: a base (etc), then the rest.
    return [layer_tar(tree_members(SAMPLE_VM, only="etc")),
            layer_tar([m for m in tree_members(SAMPLE_VM) if m.name.split("/")[0] != "etc"])]


@pytest.fixture(scope="module")
def directory_doc(catalog: Catalog) -> dict[str, Any]:
    return json.loads(dumps(api.scan(Walker(str(SAMPLE_VM)), api.ScanRequest(ScanOptions()), catalog)))


@pytest.mark.parametrize("shape", ["docker-archive", "oci-layout-gzip", "oci-archive-plain", "oci-layout-zstd"])
def test_image_inventory_equals_the_directory_inventory(
    tmp_path: Path, catalog: Catalog, directory_doc: dict[str, Any], shape: str
) -> None:
    layers = _sample_layers()
    if shape == "docker-archive":
        image = docker_archive(tmp_path / "agent.tar", layers)
    elif shape == "oci-layout-gzip":
        image = oci_layout(tmp_path / "layout", layers, "gzip")
    elif shape == "oci-layout-zstd":
        pytest.importorskip("backports.zstd") if sys.version_info < (3, 14) else None
        image = oci_layout(tmp_path / "layout", layers, "zstd")
    else:
        image = tar_of(oci_layout(tmp_path / "layout", layers, "none"), tmp_path / "agent-oci.tar")
    doc = scan_image(image, catalog)
    assert doc["target"]["kind"] == "container-image"
    assert doc["target"]["format"] == shape.rsplit("-", 1)[0] if "layout" in shape else True
    assert len(doc["target"]["layers"]) == 2
    assert _without(doc, "layer") == _without(directory_doc)
    layers_seen = {loc.get("layer") for m in doc["models"] for loc in m["locations"]}
    assert layers_seen <= {x["digest"] for x in doc["target"]["layers"]} and None not in layers_seen


def test_deleted_file_and_opaque_directory_hide_the_lower_layers(tmp_path: Path, catalog: Catalog) -> None:
    base = layer_tar([
        Member("etc", "dir", mode=0o755), Member("etc/agent", "dir", mode=0o755),
        Member("etc/agent/secret.env", data=f"ANTHROPIC_API_KEY={KEY}\n".encode()),
        Member("opt/app/old", "dir"), Member("opt/app/old/models.yaml", data=b"model: claude-opus-4-1\n"),
        Member("srv/data", "dir"), Member("srv/data/inner.yaml", data=b"model: gpt-4o-mini\n"),
    ])
    top = layer_tar([
        Member("etc/agent/.wh.secret.env"),
        Member("opt/app/old/.wh..wh..opq"), Member("opt/app/old/new.yaml", data=b"model: claude-sonnet-4-5\n"),
        Member("srv/data", data=b"a file now hides the directory below\n"),
    ])
    doc = scan_image(oci_layout(tmp_path / "img", [base, top]), catalog)
    models = {m["name"] for m in doc["models"]}
    assert "claude-sonnet-4-5" in models
    assert "claude-opus-4-1" not in models and "gpt-4o-mini" not in models
    assert doc["credentials"] == []
    assert KEY not in json.dumps(doc)


def test_untrusted_member_names_stay_inside_the_image(tmp_path: Path, catalog: Catalog) -> None:
    layer = layer_tar([
        Member("../../../../etc/agent.env", data=b"ANTHROPIC_MODEL=claude-opus-4-1\n"),
        Member("/abs/config.yaml", data=b"model: claude-sonnet-4-5\n"),
        Member("dev/sda", "chr"), Member("run/pipe", "fifo"),
        Member("etc/escape", "symlink", link="../../../../../etc/passwd"),
        Member("etc/pw", "symlink", link="/../../etc/agent.env"),
    ])
    opened = open_target(str(oci_layout(tmp_path / "img", [layer])), None, WalkOptions(include_pseudo=True))
    items = list(opened.target.walk())
    opened.close()
    files = {i.path for i in items if isinstance(i, FileEntry)}
    skips = {i.path: i.reason.value for i in items if isinstance(i, Skip)}
    assert files == {"/etc/agent.env", "/abs/config.yaml"}
    assert skips == {"/dev/sda": "device", "/run/pipe": "fifo", "/etc/escape": "symlink-outside-root"}
    assert any(i.via == "/etc/pw" for i in items if isinstance(i, FileEntry))


def test_hard_link_shares_its_target_and_is_read_once(tmp_path: Path, catalog: Catalog) -> None:
    layer = layer_tar([Member("etc/keys/a.env", data=f"ANTHROPIC_API_KEY={KEY}\n".encode()),
                       Member("etc/keys/b.env", "hardlink", link="etc/keys/a.env")])
    doc = scan_image(docker_archive(tmp_path / "img.tar", [layer]), catalog)
    (cred,) = doc["credentials"]
    assert sorted(loc["path"] for loc in cred["locations"]) == ["/etc/keys/a.env", "/etc/keys/b.env"]


def test_image_config_env_labels_and_command_are_settings(tmp_path: Path, catalog: Catalog) -> None:
    layer = layer_tar([Member("app/main.py", data=b"print('hi')\n")])
    image = oci_layout(tmp_path / "img", [layer],
                       env=["ANTHROPIC_BASE_URL=https://llm-proxy.internal/v1", f"ANTHROPIC_API_KEY={KEY}"],
                       labels={"org.opencontainers.image.title": "agent"},
                       cmd=["agentd", "--model", "claude-sonnet-4-5"])
    doc = scan_image(image, catalog)
    hosts = {e["host"]: e for e in doc["endpoints"]}
    assert hosts["llm-proxy.internal"]["locations"][0]["path"] == "image-config/Env"
    (cred,) = doc["credentials"]
    assert cred["locations"][0]["path"] == "image-config/Env" and KEY not in json.dumps(doc)
    model = next(m for m in doc["models"] if m["name"] == "claude-sonnet-4-5")
    assert model["wired"] and model["locations"][0]["path"] == "image-config/Cmd"


def test_platform_is_chosen_from_the_index(tmp_path: Path, catalog: Catalog) -> None:
    layer = layer_tar([Member("etc/a.env", data=b"ANTHROPIC_MODEL=claude-opus-4-1\n")])
    image = oci_layout(tmp_path / "img", [layer], platforms=("linux/amd64", "linux/arm64"))
    assert scan_image(image, catalog, "linux/arm64")["target"]["platform"] == "linux/arm64"
    with pytest.raises(ImageError, match=r"no manifest for platform linux/s390x \(the index offers: linux/amd64, "
                                         r"linux/arm64\)"):
        open_container(str(image), "linux/s390x")


def test_kinds_are_detected_and_disk_images_are_a_clear_error(tmp_path: Path) -> None:
    layer = layer_tar([Member("a.txt", data=b"x")])
    assert detect_kind(str(tmp_path)) is TargetKind.DIRECTORY
    assert detect_kind(str(oci_layout(tmp_path / "l", [layer]))) is TargetKind.CONTAINER
    assert detect_kind(str(docker_archive(tmp_path / "d.tar", [layer]))) is TargetKind.CONTAINER
    qcow = tmp_path / "vm.qcow2"
    qcow.write_bytes(b"QFI\xfb" + b"\0" * 1000)
    assert detect_kind(str(qcow)) is TargetKind.DISK
    done = subprocess.run([sys.executable, "-m", "scanner", "scan", str(qcow)], capture_output=True, text=True)
    assert done.returncode == 2 and done.stderr.count("\n") == 1
    assert done.stderr.startswith("modelcensus: error: ") and "qcow2" in done.stderr
    junk = tmp_path / "notes.txt"
    junk.write_text("hello")
    done = subprocess.run([sys.executable, "-m", "scanner", "scan", str(junk)], capture_output=True, text=True)
    assert done.returncode == 2 and "not a directory, a container image" in done.stderr


def test_cli_scans_an_image_and_diffs_two_releases(tmp_path: Path) -> None:
    def release(model: str, name: str) -> Path:
        env = Member("etc/a.env", data=f"ANTHROPIC_MODEL={model}\n".encode())
        return docker_archive(tmp_path / name, [layer_tar([env])])

    old, new = release("claude-opus-4-1", "v1.tar"), release("claude-opus-4-5", "v2.tar")
    done = subprocess.run([sys.executable, "-m", "scanner", "scan", str(new), "-f", "json", "-q"],
                          capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["target"]["tags"] == ["agent:1.0"]
    diff = subprocess.run([sys.executable, "-m", "scanner", "diff", str(old), str(new), "-f", "json"],
                          capture_output=True, text=True)
    assert diff.returncode == 0, diff.stderr
    ids = {c["id"] for c in json.loads(diff.stdout)["changes"]}
    assert {"models:claude-opus-4-1", "models:claude-opus-4-5"} <= ids


def _blob(tmp_path: Path, data: bytes) -> Range:
    path = tmp_path / f"blob-{hashlib.sha256(data).hexdigest()[:12]}"
    path.write_bytes(data)
    fd = os.open(path, os.O_RDONLY)
    return Range(fd, 0, len(data))


def _compress(codec: str, pieces: list[bytes]) -> bytes:
    """Pieces as gzip members or zstd frames one after another (as pigz and zstd --long write)."""
    if codec == "gzip":
        return b"".join(gzip.compress(p, compresslevel=1, mtime=0) for p in pieces)
    if codec == "zstd":
        return b"".join(zstd_compress(p) for p in pieces)
    return b"".join(pieces)


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(pieces=st.lists(st.binary(max_size=3000), min_size=1, max_size=4), step=st.integers(1, 5000),
       codec=st.sampled_from(["none", "gzip", "zstd"]))
def test_one_reader_gives_every_layer_stream_whole_in_any_steps(
    tmp_path: Path, pieces: list[bytes], step: int, codec: str
) -> None:
    blob = _compress(codec, pieces)
    raw = _blob(tmp_path, blob)
    stream = LayerStream(raw, Digest("sha256:" + hashlib.sha256(blob).hexdigest()))
    got = bytearray()
    while chunk := stream.read(step):
        got += chunk
    assert bytes(got) == b"".join(pieces) and stream.compression == codec
    stream.finish()  # the digest matches
    os.close(raw.fd)


@pytest.mark.parametrize("codec", ["none", "gzip", "zstd"])
def test_the_reader_checks_digests_cuts_and_its_cap_alike_for_every_codec(tmp_path: Path, codec: str) -> None:
    data = os.urandom(1 << 16) * 40  # 2.5 MiB
    blob = _compress(codec, [data])
    good = "sha256:" + hashlib.sha256(blob).hexdigest()
    flipped = bytearray(blob)
    flipped[len(blob) // 2] ^= 0x55
    with pytest.raises(LayerFailure, match="does not match its digest|bad (gzip|zstd) stream"):
        stream = LayerStream(_blob(tmp_path, bytes(flipped)), Digest(good))
        while stream.read(1 << 20):
            pass
        stream.finish()
    cut = LayerStream(_blob(tmp_path, blob[: len(blob) - 1000]), Digest(good))
    with pytest.raises(LayerFailure, match="ends early|does not match its digest"):
        while cut.read(1 << 20):
            pass
        cut.finish()
    capped = LayerStream(_blob(tmp_path, blob), Digest(good), limit=1 << 20)
    with pytest.raises(DecompressionLimit):
        while capped.read(64 << 10):
            pass
    assert capped.given == 1 << 20  # stopped at the cap, whatever the codec


def test_a_bomb_layer_is_a_recorded_skip(tmp_path: Path, catalog: Catalog) -> None:
    bomb = layer_tar([Member("big.bin", data=b"\0" * (300 << 20))])
    image = oci_layout(tmp_path / "img", [layer_tar([Member("etc/ok.yaml", data=b"model: claude-opus-4-1\n")]), bomb])
    layers = image / "blobs" / "sha256"
    assert max(p.stat().st_size for p in layers.iterdir()) < 2 << 20  # the bomb is small on disk
    doc = scan_image(image, catalog)
    assert "claude-opus-4-1" in {m["name"] for m in doc["models"]}
    assert not [s for s in doc["skipped"] if s["reason"] == "read-error"]


# --- the one walker over another backend -------------------------------------------------------


def _walk(target: Walker) -> list[tuple[str, str, str | None]]:
    out = []
    for item in target.walk():
        if isinstance(item, Skip):
            out.append(("skip", f"{item.path} {item.reason.value}", None))
        else:
            out.append(("file", item.path, item.via))
    return out


@given(ops=link_tree_ops())
@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
def test_memory_backend_walks_exactly_as_the_host_directory(tmp_path_factory: pytest.TempPathFactory,
                                                            ops: list) -> None:
    """Containment, loops, broken and escaping links: the walker gives the same answer over either backend."""
    root = tmp_path_factory.mktemp("tree")
    build_link_tree(root, ops)
    host = _walk(Walker(str(root)))
    memory = _walk(Walker("memory", fs=MemoryFilesystem(mirror(root))))
    assert memory == host


def test_memory_backend_holds_the_fixed_containment_cases(tmp_path: Path) -> None:
    write(tmp_path, "/etc/passwd", "root:x:0:0:root:/root:/bin/sh\n")
    write(tmp_path, "/proc/1/environ", "ANTHROPIC_API_KEY=x\n")
    (tmp_path / "etc/pw").symlink_to("/../../../etc/passwd")
    (tmp_path / "escape").symlink_to("../../../../etc/shadow")
    (tmp_path / "to-proc").symlink_to("/proc/1/environ")
    (tmp_path / "a").symlink_to("b")
    (tmp_path / "b").symlink_to("a")
    os.mkfifo(tmp_path / "fifo")
    target = Walker("memory", fs=MemoryFilesystem(mirror(tmp_path)))
    assert _walk(target) == _walk(Walker(str(tmp_path)))
    skips = {s.split(" ")[0]: s.split(" ")[1] for k, s, _ in _walk(target) if k == "skip"}
    assert skips == {"/a": "symlink-loop", "/b": "symlink-loop", "/escape": "symlink-outside-root",
                     "/fifo": "fifo", "/proc": "pseudo-filesystem", "/to-proc": "pseudo-filesystem"}
    assert target.read_path("/etc/pw", 1 << 10) == b"root:x:0:0:root:/root:/bin/sh\n"
    assert target.read_path("/to-proc", 1 << 10) is None


def test_the_walker_uses_what_a_backend_declares_by_type(tmp_path: Path) -> None:
    """A backend's abilities past the `Filesystem` calls are types the walker checks: memfs knows each file's origin
    and reopens a walked file by its inode, which a worker's walker (it never walked) uses before any path."""
    write(tmp_path, "/etc/agent/config.yaml", "model: claude-opus-4-1\n")
    memory = MemoryFilesystem(mirror(tmp_path))
    assert isinstance(memory, KnowsOrigins) and isinstance(memory, OpensWalked)
    host = HostFilesystem(str(tmp_path))
    assert not isinstance(host, KnowsOrigins) and not isinstance(host, OpensWalked)
    entry = next(e for e in Walker("memory", fs=memory).walk() if isinstance(e, FileEntry))
    del memory.root.children["etc"].children["agent"].children["config.yaml"]  # no longer found by its path
    worker = Walker("memory", fs=memory)
    assert worker.read(entry, 1 << 10).data == b"model: claude-opus-4-1\n"


def test_a_file_read_across_the_layer_cap_is_a_recorded_skip(tmp_path: Path, catalog: Catalog) -> None:
    """The file's header is below the cap, its bytes cross it: the read is a decompression-limit skip, not a crash."""
    pad = Member("pad.bin", data=bytes(240 << 20))
    crossing = Member("etc/models.txt", data=b"model: claude-opus-4-1\n" + bytes(40 << 20))
    image = oci_layout(tmp_path / "img", [layer_tar([Member("etc/ok.yaml", data=b"model: gpt-5.5\n")]),
                                         layer_tar([pad, crossing])])
    doc = scan_image(image, catalog)
    assert "gpt-5.5" in {m["name"] for m in doc["models"]}
    assert ("/etc/models.txt", "decompression-limit") in {(s["path"], s["reason"]) for s in doc["skipped"]}

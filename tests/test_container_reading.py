"""How a container layer is read: its tar headers parsed as tarfile parses them (faster), and a compressed layer
parsed in place in the temporary file its own thread inflates it into, failing where the parse reaches the bytes
the thread could not give, not before."""

from __future__ import annotations

import gzip
import hashlib
import io
import os
import shutil
import subprocess
import tarfile
import threading
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from scanner.targets.container.blobs import Range
from scanner.targets.container.layer_source import LayerSource, Slots
from scanner.targets.container.layers import Digest, LayerFailure
from scanner.targets.container.spool import Spool
from scanner.targets.container.tarheader import FastTarInfo
from tests.imagebuild import Member, layer_tar, oci_layout, zstd_compress

_FORMATS = {"ustar": tarfile.USTAR_FORMAT, "gnu": tarfile.GNU_FORMAT, "pax": tarfile.PAX_FORMAT}
_KINDS = [tarfile.REGTYPE, tarfile.AREGTYPE, tarfile.DIRTYPE, tarfile.SYMTYPE, tarfile.LNKTYPE, tarfile.CHRTYPE,
          tarfile.FIFOTYPE, tarfile.CONTTYPE]
_names = st.text(st.characters(blacklist_categories=["Cs"], blacklist_characters="\0"), max_size=120)


def _parsed(cls: type[tarfile.TarInfo], buf: bytes) -> Any:
    """What `cls.frombuf` makes of a header: its fields, or the class of what it raised."""
    try:
        info = cls.frombuf(buf, "utf-8", "surrogateescape")
    except Exception as exc:  # noqa: BLE001  # the class raised is what must agree
        return type(exc)
    return (info.name, info.mode, info.uid, info.gid, info.size, info.mtime, info.chksum, info.type, info.linkname,
            info.uname, info.gname, info.devmajor, info.devminor, getattr(info, "_sparse_structs", None))


@settings(max_examples=400, deadline=None)
@given(name=_names, link=_names, kind=st.sampled_from(_KINDS), fmt=st.sampled_from(sorted(_FORMATS)),
       numbers=st.tuples(*[st.integers(0, 1 << 40)] * 5), owner=st.tuples(_names, _names),
       flips=st.lists(st.tuples(st.integers(0, 511), st.integers(1, 255)), max_size=3))
def test_a_tar_header_parses_as_tarfile_parses_it(
    name: str, link: str, kind: bytes, fmt: str, numbers: tuple[int, ...], owner: tuple[str, str],
    flips: list[tuple[int, int]],
) -> None:
    info = tarfile.TarInfo(name)
    info.type, info.linkname = kind, link
    info.mode, info.uid, info.gid, info.size, info.mtime = numbers[0] & 0o7777, *numbers[1:]
    info.uname, info.gname = owner
    try:
        data = info.tobuf(_FORMATS[fmt], "utf-8", "surrogateescape")
    except (ValueError, UnicodeError):
        return  # a header that format cannot hold
    for at in range(0, len(data), tarfile.BLOCKSIZE):  # a pax or GNU header is several blocks: each one
        block = bytearray(data[at : at + tarfile.BLOCKSIZE])
        for where, value in flips:
            block[where] ^= value
        assert _parsed(FastTarInfo, bytes(block)) == _parsed(tarfile.TarInfo, bytes(block))


@pytest.mark.parametrize("raw", [b"", b"\0" * 512, b"x" * 100, b"\0" * 300 + b"1" * 212])
def test_an_empty_cut_or_zero_header_fails_as_tarfile_fails(raw: bytes) -> None:
    assert _parsed(FastTarInfo, raw) == _parsed(tarfile.TarInfo, raw)


def _members() -> list[Member]:
    return [Member(f"opt/app/f{i:04}.txt", data=hashlib.sha256(str(i).encode()).hexdigest().encode() * (i % 50))
            for i in range(300)]


def _source(tmp_path: Path, blob: bytes, check: Digest | None, spool: Spool) -> LayerSource:
    path = tmp_path / "blob"
    path.write_bytes(blob)
    fd = os.open(path, os.O_RDONLY)
    return LayerSource(Range(fd, 0, len(blob)), check, spool, Slots())


@pytest.mark.parametrize("codec", ["none", "gzip"])
def test_every_member_is_read_in_place_while_the_layer_is_inflated(tmp_path: Path, codec: str) -> None:
    members = _members()
    tar = layer_tar(members)
    blob = gzip.compress(tar, mtime=0) if codec == "gzip" else tar
    spool = Spool()
    source = _source(tmp_path, blob, Digest("sha256:" + hashlib.sha256(blob).hexdigest()), spool)
    try:
        with tarfile.open(fileobj=source.reader(), mode="r:", tarinfo=FastTarInfo) as parsed:
            got = {m.name: source.content(m.offset_data).read_at(0, m.size) for m in parsed if m.isreg()}
        source.finish()
        assert source.plain == (codec == "none")
        assert got == {m.name: m.data for m in members}
    finally:
        spool.close()


def test_a_cut_layer_fails_where_the_parse_reaches_the_cut(tmp_path: Path) -> None:
    """The bytes before the cut are read; the first read past them raises what the inflating thread met."""
    tar = layer_tar(_members())
    blob = gzip.compress(tar, mtime=0)
    spool = Spool()
    source = _source(tmp_path, blob[: len(blob) // 2], None, spool)
    try:
        reader = source.reader()
        with pytest.raises(LayerFailure, match="ends early"):
            while reader.read(4096):
                pass
        assert 0 < source.written < len(tar)
        reader.seek(0)
        assert reader.read(source.written) == tar[: source.written]
        with pytest.raises(LayerFailure):
            source.finish()
    finally:
        spool.close()


def test_a_plain_layer_that_fails_its_digest_still_gives_its_members(tmp_path: Path) -> None:
    tar = layer_tar(_members())
    spool = Spool()
    source = _source(tmp_path, tar, Digest("sha256:" + "0" * 64), spool)
    try:
        with tarfile.open(fileobj=source.reader(), mode="r:", tarinfo=FastTarInfo) as parsed:
            assert len([m for m in parsed if m.isreg()]) == 300
        with pytest.raises(LayerFailure, match="does not match its digest"):
            source.finish()
    finally:
        spool.close()


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(steps=st.lists(st.integers(1, 70_000), min_size=1, max_size=30))
def test_reads_of_any_size_give_the_tar_as_written(tmp_path: Path, steps: list[int]) -> None:
    tar = layer_tar(_members()[:40])
    spool = Spool()
    source = _source(tmp_path, gzip.compress(tar, mtime=0), None, spool)
    try:
        reader, got = source.reader(), io.BytesIO()
        for step in steps:
            got.write(reader.read(step))
        got.write(reader.read())
        assert got.getvalue() == tar
        source.finish()
    finally:
        spool.close()


@pytest.mark.parametrize("codec", ["gzip", "zstd"])
def test_zstd_layers_inflate_one_at_a_time(tmp_path: Path, codec: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """A zstd decoder may hold a 128 MiB window: two never run at once; gzip layers (32 KiB) do, cores allowing."""
    import time

    from scanner.targets.container import layers

    active, most, lock = [0], [0], threading.Lock()
    codec_class = layers._Zstd if codec == "zstd" else layers._Gzip
    give = codec_class.give

    def watched(self: Any, data: bytes, want: int) -> bytes:
        with lock:
            active[0] += 1
            most[0] = max(most[0], active[0])
        time.sleep(0.01)
        try:
            return give(self, data, want)
        finally:
            with lock:
                active[0] -= 1

    monkeypatch.setattr(codec_class, "give", watched)
    monkeypatch.setattr("scanner.targets.container.layer_source.THREADS", 3)
    tar = layer_tar(_members())
    blob = zstd_compress(tar) if codec == "zstd" else gzip.compress(tar, mtime=0)
    spool, slots, sources = Spool(), Slots(), []
    try:
        for i in range(3):
            path = tmp_path / f"blob{i}"
            path.write_bytes(blob)
            fd = os.open(path, os.O_RDONLY)
            sources.append(LayerSource(Range(fd, 0, len(blob)), None, spool, slots))
        for source in sources:
            source.finish()
            assert source.written == len(tar)
        assert most[0] == 1 if codec == "zstd" else most[0] > 1
    finally:
        spool.close()


@pytest.mark.skipif(shutil.which("tar") is None, reason="GNU tar is not installed")
@pytest.mark.parametrize("form", ["gnu", "posix"])
def test_a_sparse_file_of_a_compressed_layer_keeps_its_holes(tmp_path: Path, form: str) -> None:
    """A file that claims 4 GiB with 8 KiB of data takes 8 KiB of $TMPDIR, not 4 GiB of zeros, and reads as written."""
    from scanner.targets.container import open_container

    root = tmp_path / "root"
    (root / "opt").mkdir(parents=True)
    with open(root / "opt" / "disk.img", "wb") as f:
        f.write(b"model: claude-opus-4-1\n")
        f.seek(3 << 30)
        f.write(b"tail" * 1024)
        f.truncate(4 << 30)
    made = tmp_path / "layer.tar"
    subprocess.run(["tar", f"--format={form}", "--sparse", "-C", str(root), "-cf", str(made), "opt"], check=True)
    image = oci_layout(tmp_path / "img", [made.read_bytes()], "gzip")
    opened = open_container(str(image))
    try:
        node = opened.target.fs.root.children["opt"].children["disk.img"]  # type: ignore[attr-defined]
        assert node.size == 4 << 30
        assert node.content.read_at(0, 22) == b"model: claude-opus-4-1"
        assert node.content.read_at((3 << 30) - 2, 6) == b"\0\0tail"
        assert node.content.read_at((4 << 30) - 4, 8) == b"\0\0\0\0"
        spooled = os.fstat(node.content.fd)
        assert spooled.st_size == 4 << 30 and spooled.st_blocks * 512 < 1 << 20
    finally:
        opened.close()


def test_no_layer_thread_outlives_a_squash_that_could_not_start_them_all(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A thread that cannot start (`can't start new thread`) ends the squash; the ones already started are stopped,
    not left writing to descriptors the image then closes."""
    from scanner.targets.container import layer_source
    from scanner.targets.container.squash import SquashLayer, squash

    blob = gzip.compress(layer_tar([Member("opt/big", data=bytes(64 << 20))]), mtime=0)  # a thread's work: ~1/4 s
    layers = []
    for i in range(3):
        path = tmp_path / f"blob{i}"
        path.write_bytes(blob)
        layers.append(SquashLayer(f"sha256:{i}", Range(os.open(path, os.O_RDONLY), 0, len(blob))))
    started = [0]
    real = layer_source.LayerSource.__init__

    def third_fails(self: Any, *args: Any) -> None:
        started[0] += 1
        if started[0] == 3:
            raise RuntimeError("can't start new thread")
        real(self, *args)

    monkeypatch.setattr(layer_source.LayerSource, "__init__", third_fails)
    spool = Spool()
    try:
        with pytest.raises(RuntimeError):
            squash(layers, spool)
        assert not [t for t in threading.enumerate() if t.name == "modelcensus-layer"]
    finally:
        spool.close()

"""Tar headers that would make tarfile read without bound: a pax header claiming 200 MiB, a chain of thousands of
long-name headers (tarfile follows them by recursion), a sparse map that never ends, a negative size (tarfile moves
back and reads the same header again). Each is the `ReadError` of a damaged tar, so a layer holding one is a
recorded skip, not a traceback; and the headers GNU tar really writes (long names, hard links, xattrs, sparse files
in the GNU and pax forms) still parse as tarfile parses them."""

from __future__ import annotations

import io
import os
import shutil
import subprocess
import tarfile
from pathlib import Path

import pytest

from scanner.catalog import Catalog
from scanner.targets.container.tarheader import MAX_CHAINED, MAX_EXTENDED, FastTarInfo
from tests.imagebuild import Member, layer_tar, oci_layout
from tests.test_container_images import scan_image

_GOOD = layer_tar([Member("etc/agent/ok.yaml", data=b"model: claude-sonnet-4-5\n")])  # a member, then the end


def _header(name: str, kind: bytes, size: int) -> bytes:
    info = tarfile.TarInfo(name)
    info.type, info.size = kind, size
    return info.tobuf(tarfile.USTAR_FORMAT, "utf-8", "surrogateescape")


def _padded(data: bytes) -> bytes:
    return data + bytes(-len(data) % tarfile.BLOCKSIZE)


def _pax_record(key: str, value: str) -> bytes:
    text = f" {key}={value}\n"
    length = len(text) + 1
    while len(str(length)) + len(text) != length:
        length += 1
    return f"{length}{text}".encode()


def _mended(raw: bytearray) -> bytes:
    """A header changed by hand, its checksum made right again."""
    raw[148:156] = b" " * 8
    raw[148:156] = b"%06o\0 " % tarfile.calc_chksums(bytes(raw))[0]  # type: ignore[attr-defined]
    return bytes(raw)


def _huge_pax() -> bytes:
    big = MAX_EXTENDED * 200
    return _header("././@PaxHeader", tarfile.XHDTYPE, big) + bytes(big) + _GOOD


def _long_name_chain() -> bytes:
    one = _header("././@LongLink", tarfile.GNUTYPE_LONGNAME, 5) + _padded(b"abcd\0")
    return one * 5000 + _GOOD


def _endless_sparse_map() -> bytes:
    """GNU sparse 1.0: a pax header names the form, the member's data starts with a map of 10^9 regions."""
    records = b"".join(_pax_record(k, v) for k, v in [("GNU.sparse.major", "1"), ("GNU.sparse.minor", "0"),
                                                     ("GNU.sparse.name", "etc/sparse"),
                                                     ("GNU.sparse.realsize", "100")])
    body = b"1000000000\n" + b"0\n" * (MAX_EXTENDED // 2)
    return (_header("././@PaxHeader", tarfile.XHDTYPE, len(records)) + _padded(records)
            + _header("etc/GNUSparseFile.0/sparse", tarfile.REGTYPE, len(body)) + _padded(body) + _GOOD)


def _unnumbered_sparse_map() -> bytes:
    records = _pax_record("GNU.sparse.major", "1") + _pax_record("GNU.sparse.minor", "0")
    return (_header("././@PaxHeader", tarfile.XHDTYPE, len(records)) + _padded(records)
            + _header("etc/sparse", tarfile.REGTYPE, 512) + _padded(b"99999999") + _GOOD)


def _endless_old_sparse() -> bytes:
    """The old GNU form: every extension block says another follows."""
    head = bytearray(_header("etc/sparse", tarfile.GNUTYPE_SPARSE, 0))
    head[482] = 1  # isextended
    extension = bytearray(tarfile.BLOCKSIZE)
    extension[504] = 1
    return _mended(head) + bytes(extension) * (MAX_EXTENDED // tarfile.BLOCKSIZE + 10) + _GOOD


def _negative_size() -> bytes:
    """A size of -1024 in base-256 (a first byte of 0xff: two's complement): tarfile would go back to this header."""
    head = bytearray(_header("etc/back", tarfile.REGTYPE, 0))
    head[124:136] = b"\xff" + (-1024 & ((1 << 88) - 1)).to_bytes(11, "big")
    return _header("etc/first", tarfile.REGTYPE, 0) + _mended(head)


def _damaged_middle_header() -> bytes:
    """A member, then a header whose checksum is wrong, then a member tarfile would never reach."""
    bad = bytearray(_header("etc/agent/hidden.yaml", tarfile.REGTYPE, 0))
    bad[0] ^= 1
    return _header("etc/first.txt", tarfile.REGTYPE, 1) + _padded(b"x") + bytes(bad) + _GOOD


_HOSTILE = {
    "damaged-middle-header": (_damaged_middle_header, "a damaged header at byte 1024"),
    "huge-pax": (_huge_pax, f"more than {MAX_EXTENDED}"),
    "long-name-chain": (_long_name_chain, f"more than {MAX_CHAINED} extended headers"),
    "endless-sparse-map": (_endless_sparse_map, "sparse map that does not end"),
    "unnumbered-sparse-map": (_unnumbered_sparse_map, "damaged extended header"),
    "endless-old-sparse": (_endless_old_sparse, "sparse map that does not end"),
    "negative-size": (_negative_size, "negative size"),
}


@pytest.mark.parametrize("kind", sorted(_HOSTILE))
def test_a_hostile_header_is_a_damaged_tar(kind: str) -> None:
    build, says = _HOSTILE[kind]
    with pytest.raises(tarfile.ReadError, match=says), \
            tarfile.open(fileobj=io.BytesIO(build()), mode="r:", tarinfo=FastTarInfo) as tar:  # or as it opens
        for _ in tar:
            tar.members = []  # type: ignore[attr-defined]


@pytest.mark.parametrize("kind", ["long-name-chain", "damaged-middle-header"])
def test_a_layer_with_a_hostile_header_is_a_skip(tmp_path: Path, catalog: Catalog, kind: str) -> None:
    build, says = _HOSTILE[kind]
    image = oci_layout(tmp_path / "img", [_GOOD, build()], "gzip")  # the digests are of the layers as they are
    doc = scan_image(image, catalog)
    assert [x["status"] for x in doc["target"]["layers"]] == ["complete", "incomplete"]
    assert any(says in s["detail"] for s in doc["skipped"])
    assert "claude-sonnet-4-5" in {m["name"] for m in doc["models"]}  # the layer below is read


def _members(data: bytes, tarinfo: type[tarfile.TarInfo]) -> list[tuple[object, ...]]:
    with tarfile.open(fileobj=io.BytesIO(data), mode="r:", tarinfo=tarinfo) as tar:
        return [(m.name, m.type, m.size, m.linkname, m.offset_data, m.sparse, m.pax_headers, m.uid, m.mtime)
                for m in tar]


@pytest.mark.skipif(shutil.which("tar") is None, reason="GNU tar is not installed")
@pytest.mark.parametrize("form", ["gnu", "posix", "oldgnu"])
def test_what_gnu_tar_writes_parses_as_tarfile_parses_it(tmp_path: Path, form: str) -> None:
    root = tmp_path / "root"
    deep = root / ("d" * 90) / ("e" * 90)
    deep.mkdir(parents=True)
    (deep / ("f" * 120 + ".txt")).write_text("model: claude-opus-4-1\n")
    os.link(deep / ("f" * 120 + ".txt"), root / "hard")
    (root / "link").symlink_to("x" * 150)
    with open(root / "sparse.img", "wb") as f:
        for at in range(0, 64 << 20, 4 << 20):
            f.seek(at)
            f.write(b"data")
    os.setxattr(root / "hard", "user.note", b"x" * 3000)
    out = tmp_path / "layer.tar"
    subprocess.run(["tar", f"--format={form}", "--sparse", "--xattrs", "-C", str(root), "-cf", str(out), "."],
                   check=True, capture_output=True)
    data = out.read_bytes()
    ours = _members(data, FastTarInfo)
    assert ours == _members(data, tarfile.TarInfo)
    assert any(m[5] for m in ours)  # the sparse file kept its map

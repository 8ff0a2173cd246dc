"""Disk images read unmounted through dissect.target: built with the tools users have (mkfs.ext4 -d, sfdisk,
qemu-img), each scanned inventory equal to the same tree scanned as a directory."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from scanner import api
from scanner.catalog import Catalog
from scanner.inventory.document import dumps
from scanner.inventory.load import from_document
from scanner.options import ScanOptions
from scanner.render import render
from scanner.targets import Walker, WalkOptions
from scanner.targets.images import ImageError
from scanner.targets.registry import TargetKind, detect_kind, open_target
from tests.conftest import SAMPLE_VM, validate_document
from tests.diskbuild import btrfs_with_subvolumes, ext4_of, lvm_disk, xfs_of

pytest.importorskip("dissect.target", reason="the images extra (dissect.target) is not installed")
needs = pytest.mark.skipif(shutil.which("mkfs.ext4") is None, reason="mkfs.ext4 (e2fsprogs) is not installed")
MIB = 1 << 20


def _run(*cmd: str) -> None:
    subprocess.run(cmd, check=True, capture_output=True)


def _without(doc: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in doc.items() if k not in ("target", "stats")}


def scan_path(path: Path, catalog: Catalog, allow_backing: bool = False) -> dict[str, Any]:
    inv = api.scan(path, api.ScanRequest(ScanOptions(), allow_backing=allow_backing), catalog)
    doc = json.loads(dumps(inv))
    validate_document(doc)
    return doc


@pytest.fixture(scope="module")
def ext4(tmp_path_factory: pytest.TempPathFactory) -> Path:
    if shutil.which("mkfs.ext4") is None:
        pytest.skip("mkfs.ext4 (e2fsprogs) is not installed")
    out = tmp_path_factory.mktemp("disk") / "root.ext4"
    _run("mkfs.ext4", "-q", "-F", "-d", str(SAMPLE_VM), str(out), "64M")
    return out


@pytest.fixture(scope="module")
def gpt_raw(ext4: Path) -> Path:
    """A raw disk with a GPT and one Linux partition at 1 MiB holding the ext4 filesystem."""
    if shutil.which("sfdisk") is None:
        pytest.skip("sfdisk (fdisk) is not installed")
    disk = ext4.parent / "disk.raw"
    with open(disk, "wb") as f:
        f.truncate(ext4.stat().st_size + 4 * MIB)
    subprocess.run(["sfdisk", "-q", str(disk)], input="label: gpt\nstart=2048, type=linux\n", text=True,
                   check=True, capture_output=True)
    with open(disk, "r+b") as f, open(ext4, "rb") as src:
        f.seek(MIB)
        shutil.copyfileobj(src, f)
    return disk


@pytest.fixture(scope="module")
def directory_doc(catalog: Catalog) -> dict[str, Any]:
    return json.loads(dumps(api.scan(Walker(str(SAMPLE_VM)), api.ScanRequest(ScanOptions()), catalog)))


def _convert(raw: Path, fmt: str, *opts: str) -> Path:
    if shutil.which("qemu-img") is None:
        pytest.skip("qemu-img (qemu-utils) is not installed")
    out = raw.with_suffix(f".{fmt}{''.join(o.replace('=', '-').replace(',', '') for o in opts if o != '-o')}")
    if not out.exists():
        _run("qemu-img", "convert", "-O", fmt, *opts, str(raw), str(out))
    return out


@needs
@pytest.mark.parametrize(
    ("fmt", "opts"),
    [
        ("bare-ext4", ()),
        ("raw-gpt", ()),
        ("qcow2", ()),
        ("qcow2", ("-c",)),
        ("vmdk", ("-o", "subformat=monolithicSparse")),
        ("vmdk", ("-o", "subformat=streamOptimized")),
        ("vmdk", ("-o", "subformat=twoGbMaxExtentSparse")),
        ("vhdx", ()),
        ("vpc", ()),
    ],
)
def test_disk_image_inventory_equals_the_directory_inventory(
    ext4: Path, gpt_raw: Path, catalog: Catalog, directory_doc: dict[str, Any], fmt: str, opts: tuple[str, ...]
) -> None:
    if fmt == "bare-ext4":
        image = ext4
    elif fmt == "raw-gpt":
        image = gpt_raw
    else:
        image = _convert(gpt_raw, fmt, *opts)
    assert detect_kind(str(image)) is TargetKind.DISK
    doc = scan_path(image, catalog)
    assert doc["target"]["kind"] == "disk-image"
    assert doc["target"]["filesystems"][0]["type"] == "ext"
    assert doc["target"]["filesystems"][0]["mount"] == "/"
    assert _without(doc) == _without(directory_doc)


@needs
def test_backing_file_by_host_path_is_refused_and_beside_only_with_the_flag(gpt_raw: Path, catalog: Catalog) -> None:
    if shutil.which("qemu-img") is None:
        pytest.skip("qemu-img (qemu-utils) is not installed")
    base = _convert(gpt_raw, "qcow2")
    host = gpt_raw.parent / "host-overlay.qcow2"
    _run("qemu-img", "create", "-q", "-f", "qcow2", "-F", "raw", "-b", "/etc/passwd", "-u", str(host), "64M")
    with pytest.raises(ImageError, match=r"refers to '/etc/passwd' outside its directory \(.*host-overlay.qcow2 -> "
                                         r"/etc/passwd\); refused"):
        open_target(str(host), None, WalkOptions(), allow_backing=True)
    beside = gpt_raw.parent / "beside-overlay.qcow2"
    _run("qemu-img", "create", "-q", "-f", "qcow2", "-F", "qcow2", "-b", base.name, str(beside))
    with pytest.raises(ImageError, match="pass --allow-backing-files"):
        open_target(str(beside), None, WalkOptions())
    doc = scan_path(beside, catalog, allow_backing=True)
    assert "claude-opus-4-8" in {m["name"] for m in doc["models"]}
    done = subprocess.run([sys.executable, "-m", "scanner", "scan", str(host)], capture_output=True, text=True)
    assert done.returncode == 2 and done.stderr.count("\n") == 1 and "/etc/passwd" in done.stderr


def test_without_the_extra_a_disk_image_is_a_one_line_error(tmp_path: Path) -> None:
    img = tmp_path / "vm.qcow2"
    img.write_bytes(b"QFI\xfb" + b"\0" * 4092)
    code = ("import sys; sys.modules['dissect.target'] = None; from scanner.cli import main; "
            f"sys.argv = ['modelcensus', 'scan', {str(img)!r}]; main()")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert done.returncode == 2 and done.stderr.count("\n") == 1
    assert "pip install 'modelcensus[images]'" in done.stderr and "AGPL-3.0" in done.stderr


@pytest.mark.skipif(shutil.which("mkfs.btrfs") is None, reason="mkfs.btrfs (btrfs-progs) is not installed")
def test_btrfs_image_with_a_symlink_to_a_symlink(tmp_path: Path, catalog: Catalog) -> None:
    """dissect.btrfs raises on lstat of a symlink to a symlink: the entry's inode still gives its facts."""
    root = tmp_path / "root"
    shutil.copytree(SAMPLE_VM, root, symlinks=True)
    (root / "etc" / "link2").symlink_to("/etc/jarvis/runtime.env")
    (root / "etc" / "link1").symlink_to("link2")
    image = tmp_path / "vm.btrfs"
    with open(image, "wb") as f:
        f.truncate(128 * MIB)
    _run("mkfs.btrfs", "-q", "--rootdir", str(root), str(image))
    doc = scan_path(image, catalog)
    assert doc["target"]["filesystems"][0]["type"] == "btrfs"
    direct = json.loads(dumps(api.scan(Walker(str(root)), api.ScanRequest(ScanOptions()), catalog)))
    assert _without(doc) == _without(direct)


def test_lvm_volumes_inside_a_qcow2_mounted_by_fstab(tmp_path: Path, catalog: Catalog) -> None:
    """An ext4 root and an xfs /home, each a logical volume of the image's one volume group (as cloud and
    server installs lay them out), /home mounted by its /dev/mapper name in the root's fstab."""
    root = tmp_path / "root"
    shutil.copytree(SAMPLE_VM, root, symlinks=True)
    (root / "etc" / "fstab").write_text("/dev/mapper/mc--vg-root / ext4 defaults 0 1\n"
                                         "/dev/mc-vg/home /home xfs defaults 0 2\n")
    home = tmp_path / "home"
    shutil.copytree(root / "home", home, symlinks=True)
    lone_root = tmp_path / "root-only"
    shutil.copytree(root, lone_root, symlinks=True, ignore=lambda d, names: names if d == str(root / "home") else [])
    ext4_of(lone_root, tmp_path / "root.ext4", "72M")
    xfs_of(home, tmp_path / "home.xfs")
    raw = lvm_disk(tmp_path / "lvm.raw", {"root": tmp_path / "root.ext4", "home": tmp_path / "home.xfs"}, "mc-vg")
    image = tmp_path / "lvm.qcow2"
    if shutil.which("qemu-img") is None:
        pytest.skip("qemu-img (qemu-utils) is not installed")
    _run("qemu-img", "convert", "-O", "qcow2", str(raw), str(image))
    doc = scan_path(image, catalog)
    walked = {(f["type"], f["mount"], f["volume"]) for f in doc["target"]["filesystems"]}
    assert walked == {("ext", "/", "mc--vg-root"), ("xfs", "/home", "mc--vg-home")}
    direct = json.loads(dumps(api.scan(Walker(str(root)), api.ScanRequest(ScanOptions()), catalog)))
    assert _without(doc) == _without(direct)


def _tree_with_links(tmp_path: Path) -> Path:
    """sample_vm with what real roots hold: /bin a link to usr/bin, absolute links through it (as systemd's), a
    link to /proc, and a sparse 64 MiB file."""
    root = tmp_path / "root"
    shutil.copytree(SAMPLE_VM, root, symlinks=True)
    (root / "usr" / "bin").mkdir(parents=True, exist_ok=True)
    (root / "usr" / "bin" / "agentctl").write_text("ANTHROPIC_MODEL=claude-sonnet-4-5\n")
    (root / "bin").symlink_to("usr/bin")
    (root / "usr" / "sbin").mkdir(exist_ok=True)
    (root / "usr" / "sbin" / "halt").symlink_to("/bin/agentctl")
    (root / "etc" / "mtab").symlink_to("/proc/self/mounts")
    (root / "var" / "lib").mkdir(parents=True, exist_ok=True)
    with open(root / "var" / "lib" / "sparse.img", "wb") as f:
        f.truncate(64 * MIB)
    return root


@pytest.mark.parametrize("compress", ["zstd", "lzo"])
def test_btrfs_subvolumes_are_mounted_as_its_fstab_says(tmp_path: Path, catalog: Catalog, compress: str) -> None:
    """`@` at / and `@home` at /home (subvol= and subvolid=), compressed: the same inventory as the tree."""
    fs_uuid = "5b0d7c1e-3c1f-4b53-9d7e-2f7f3a1c9e01"
    root = _tree_with_links(tmp_path)
    (root / "etc" / "fstab").write_text(
        f"# <device> <dir> <type> <options>\nUUID={fs_uuid} / btrfs subvol=@,compress={compress} 0 0\n"
        f"UUID={fs_uuid}  /home  btrfs  subvolid=257,compress={compress}  0 0\nproc /proc proc defaults 0 0\n"
    )
    image = btrfs_with_subvolumes(root, tmp_path / "vm.btrfs", fs_uuid, compress)
    doc = scan_path(image, catalog)
    walked = {(f["mount"], f.get("subvolume")) for f in doc["target"]["filesystems"]}
    assert walked == {("/", "@"), ("/home", "@home"), (None, "/")}
    assert {f["status"] for f in doc["target"]["filesystems"]} == {"complete"}
    direct = json.loads(dumps(api.scan(Walker(str(root)), api.ScanRequest(ScanOptions()), catalog)))
    assert _without(doc) == _without(direct)
    assert any(s["path"] == "/var/lib/sparse.img" and s["reason"] == "sparse" for s in doc["skipped"])
    assert any(loc.get("via") == "/usr/sbin/halt" for m in doc["models"] for loc in m["locations"])
    assert any(loc["path"].startswith("/home/agent/") for m in doc["models"] for loc in m["locations"])
    opened = open_target(str(image), None, WalkOptions())
    try:  # each subvolume its own device, as the kernel gives them: / and /home are not one directory twice
        fs = opened.target.fs
        root = fs.open_root()
        assert fs.fstat(root).st_dev != fs.lstat(root, "home").st_dev
        assert fs.fstat(root).st_ino == fs.lstat(root, "home").st_ino  # both subvolume roots are inode 256
    finally:
        opened.close()


@needs
def test_a_truncated_qcow2_says_so_and_skips_what_it_cannot_read(tmp_path: Path, catalog: Catalog) -> None:
    root = tmp_path / "root"
    shutil.copytree(SAMPLE_VM, root, symlinks=True)
    (root / "var" / "blob").write_bytes(os.urandom(3 * MIB))  # written last: its data lies at the image's end
    (root / "var" / "zz.env").write_text("ANTHROPIC_MODEL=claude-opus-4-1\n")
    image = tmp_path / "cut.qcow2"
    _run("mkfs.ext4", "-q", "-F", "-d", str(root), str(tmp_path / "root.ext4"), "64M")
    _convert_to(tmp_path / "root.ext4", image)
    with open(image, "r+b") as f:
        f.truncate(image.stat().st_size - MIB)
    doc = scan_path(image, catalog)
    (fs,) = doc["target"]["filesystems"]
    assert fs["status"] == "incomplete" and "truncated image" in fs["detail"]
    cut = {s["path"]: s["detail"] for s in doc["skipped"] if s["reason"] == "read-error"}
    assert "truncated image" in cut["/var/blob"] and "/var/zz.env" in cut
    done = subprocess.run([sys.executable, "-m", "scanner", "scan", str(image)], capture_output=True, text=True)
    assert done.returncode == 0 and "incomplete: the image was not read whole" in done.stdout
    assert done.stderr.startswith("warning: ") and "truncated image" in done.stderr


def _convert_to(raw: Path, out: Path, fmt: str = "qcow2") -> Path:
    if shutil.which("qemu-img") is None:
        pytest.skip("qemu-img (qemu-utils) is not installed")
    _run("qemu-img", "convert", "-O", fmt, str(raw), str(out))
    return out


def _luks(out: Path, size: int) -> Path:
    if shutil.which("cryptsetup") is None:
        pytest.skip("cryptsetup is not installed")
    with open(out, "wb") as f:
        f.truncate(size)
    key = out.with_suffix(".key")
    key.write_bytes(b"not a real passphrase")
    _run("cryptsetup", "luksFormat", "-q", "--type", "luks2", "--pbkdf", "pbkdf2", "--pbkdf-force-iterations",
         "1000", str(out), "--key-file", str(key))
    return out


@needs
def test_an_encrypted_volume_is_named_encrypted(ext4: Path, catalog: Catalog) -> None:
    if shutil.which("sfdisk") is None:
        pytest.skip("sfdisk (fdisk) is not installed")
    bare = _luks(ext4.parent / "bare.luks", 20 * MIB)
    with pytest.raises(ImageError, match=r"nothing readable in the raw image: its volumes are encrypted \(LUKS\)"):
        open_target(str(bare), None, WalkOptions())
    disk = ext4.parent / "two.raw"
    with open(disk, "wb") as f:
        f.truncate(ext4.stat().st_size + 24 * MIB)
    parts = f"label: gpt\nstart=2048, size={ext4.stat().st_size // 512}, type=linux, name=root\n" \
            "size=40960, type=linux, name=secret\n"
    subprocess.run(["sfdisk", "-q", str(disk)], input=parts, text=True, check=True, capture_output=True)
    table = subprocess.run(["sfdisk", "-J", str(disk)], capture_output=True, text=True, check=True).stdout
    secret_at = json.loads(table)["partitiontable"]["partitions"][1]["start"] * 512
    with open(disk, "r+b") as f, open(ext4, "rb") as src, open(bare, "rb") as luks:
        f.seek(MIB)
        shutil.copyfileobj(src, f)
        f.seek(secret_at)
        f.write(luks.read(20 * MIB))
    doc = scan_path(disk, catalog)
    locked = [{k: v for k, v in f.items() if k != "size"} for f in doc["target"]["filesystems"] if f["type"] == "luks"]
    assert locked == [{"type": "luks", "mount": None, "volume": "secret", "status": "not-read",
                       "detail": "encrypted (LUKS)"}]
    assert "claude-opus-4-8" in {m["name"] for m in doc["models"]}
    # The AI-BOMs say the scan is partial: the locked volume is named in both standards' completeness.
    inv = from_document(doc)
    [composition] = json.loads(render("cyclonedx", inv))["compositions"]
    assert composition["aggregate"] == "incomplete"
    assert "volume secret (luks) not read: encrypted (LUKS)" in render("spdx", inv)

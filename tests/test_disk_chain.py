"""Every file a disk image names is opened by one rule: beside the image only (`./name` too), a regular file, never
through a symlink, and (but a split vmdk's extents) only with --allow-backing-files. Fixtures are made by qemu-img;
a differencing VHDX gets its parent locator as the VHDX specification lays it out (qemu-img cannot write one)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from scanner import api
from scanner.catalog import Catalog
from scanner.inventory.document import dumps
from scanner.options import ScanOptions
from scanner.targets import WalkOptions
from scanner.targets.images import ImageError
from scanner.targets.registry import TargetKind, open_target
from tests.conftest import SAMPLE_VM
from tests.diskbuild import add_vhdx_parent, ext4_of, need, qcow2_of, run, sample_qcow2

pytest.importorskip("dissect.target", reason="the images extra (dissect.target) is not installed")


def _open(path: Path, allow: bool = False) -> Any:
    return open_target(str(path), None, WalkOptions(), allow_backing=allow)


def _models(path: Path, catalog: Catalog, allow: bool = True) -> set[str]:
    opened = _open(path, allow)
    try:
        doc = json.loads(dumps(api.scan(opened.target, api.ScanRequest(ScanOptions()), catalog)))
    finally:
        opened.close()
    return {m["name"] for m in doc["models"]}


@pytest.fixture(scope="module")
def base(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return sample_qcow2(tmp_path_factory.mktemp("chain"))


def _overlay(directory: Path, name: str, backing: str, fmt: str = "qcow2") -> Path:
    out = directory / name
    run("qemu-img", "create", "-q", "-f", "qcow2", "-F", fmt, "-b", backing, "-u", str(out), "64M")
    return out


def test_a_backing_file_named_dot_slash_beside_the_image_is_read_with_the_flag(base: Path, catalog: Catalog) -> None:
    overlay = _overlay(base.parent, "dot.qcow2", "./" + base.name)
    with pytest.raises(ImageError, match=r"its backing file 'base.qcow2' .*pass --allow-backing-files"):
        _open(overlay)
    assert "claude-opus-4-8" in _models(overlay, catalog)


def test_a_backing_file_by_host_path_or_climbing_is_refused_even_with_the_flag(base: Path) -> None:
    for name in ("/etc/passwd", "../" + base.parent.name + "/" + base.name, "..\\x.qcow2", "C:base.qcow2"):
        overlay = _overlay(base.parent, "host.qcow2", name)
        with pytest.raises(ImageError, match=r"refers to .* outside its directory \(host.qcow2 -> .*\); refused"):
            _open(overlay, allow=True)
        overlay.unlink()


def test_a_symlinked_backing_file_is_refused_even_with_the_flag(base: Path) -> None:
    link = base.parent / "linked.qcow2"
    link.symlink_to(base)
    overlay = _overlay(base.parent, "via-link.qcow2", link.name)
    with pytest.raises(ImageError, match=r"its backing file 'linked.qcow2' is a symlink .*; refused"):
        _open(overlay, allow=True)


def test_a_qcow2_external_data_file_that_is_a_symlink_is_refused(tmp_path: Path, catalog: Catalog) -> None:
    need("qemu-img", "mkfs.ext4")
    fs = ext4_of(SAMPLE_VM, tmp_path / "root.ext4")
    image = qcow2_of(fs, tmp_path / "split.qcow2", "-o", "data_file=disk.raw,data_file_raw=on")
    assert (tmp_path / "disk.raw").is_file()
    with pytest.raises(ImageError, match=r"its data file 'disk.raw' .*pass --allow-backing-files"):
        _open(image)
    assert "claude-opus-4-8" in _models(image, catalog)  # the real data file, beside it, with the flag
    (tmp_path / "disk.raw").rename(tmp_path / "elsewhere.raw")
    (tmp_path / "disk.raw").symlink_to(tmp_path / "elsewhere.raw")
    with pytest.raises(ImageError, match=r"its data file 'disk.raw' is a symlink \(split.qcow2 -> disk.raw\); refused"):
        _open(image, allow=True)


@pytest.mark.parametrize(
    ("locator", "shown"),
    [
        ({"relative_path": "..\\..\\a.vhdx", "absolute_win32_path": "C:\\img\\a.vhdx"}, r"'\.\.\\\\\.\.\\\\a\.vhdx'"),
        ({"absolute_win32_path": "\\tmp\\img\\a.vhdx"}, r"'\\\\tmp\\\\img\\\\a\.vhdx'"),
    ],
)
def test_a_vhdx_parent_locator_outside_the_directory_is_refused(
    tmp_path: Path, locator: dict[str, str], shown: str
) -> None:
    need("qemu-img")
    outside = tmp_path / "img"
    outside.mkdir()
    run("qemu-img", "create", "-q", "-f", "vhdx", str(outside / "a.vhdx"), "64M")
    inner = tmp_path / "deep" / "er"
    inner.mkdir(parents=True)
    child = inner / "child.vhdx"
    run("qemu-img", "create", "-q", "-f", "vhdx", str(child), "64M")
    add_vhdx_parent(child, {"parent_linkage": "{00000000-0000-0000-0000-000000000000}", **locator})
    for allow in (False, True):
        with pytest.raises(ImageError, match=rf"refers to {shown} outside its directory .*; refused"):
            _open(child, allow)


def test_a_vhdx_parent_beside_it_needs_the_flag(tmp_path: Path) -> None:
    need("qemu-img")
    run("qemu-img", "create", "-q", "-f", "vhdx", str(tmp_path / "parent.vhdx"), "64M")
    child = tmp_path / "child.vhdx"
    run("qemu-img", "create", "-q", "-f", "vhdx", str(child), "64M")
    add_vhdx_parent(child, {"parent_linkage": "{00000000-0000-0000-0000-000000000000}",
                            "relative_path": ".\\parent.vhdx"})
    with pytest.raises(ImageError, match=r"its backing file 'parent.vhdx' \(child.vhdx -> \.\\parent.vhdx\); pass"):
        _open(child)
    with pytest.raises(ImageError, match="nothing readable"):  # opened, through the rule: empty disks
        _open(child, allow=True)


def test_a_split_vmdk_names_its_missing_extent(tmp_path: Path) -> None:
    need("qemu-img")
    raw = tmp_path / "disk.raw"
    raw.write_bytes(b"\0" * (4 << 20))
    image = tmp_path / "split.vmdk"
    run("qemu-img", "convert", "-O", "vmdk", "-o", "subformat=twoGbMaxExtentSparse", str(raw), str(image))
    (tmp_path / "split-s001.vmdk").unlink()
    with pytest.raises(ImageError, match=r"its extent 'split-s001.vmdk' is missing \(split.vmdk -> split-s001.vmdk\)"):
        _open(image)


def test_a_fifo_scanned_as_a_disk_never_blocks(tmp_path: Path) -> None:
    fifo = tmp_path / "p.raw"
    os.mkfifo(fifo)
    for kind in ("disk", "container", None):
        args = [sys.executable, "-m", "scanner", "scan", str(fifo)] + (["--as", kind] if kind else [])
        done = subprocess.run(args, capture_output=True, text=True, timeout=60)
        assert done.returncode == 2, (kind, done.stderr)
        assert done.stderr.count("\n") == 1
    assert "a named pipe, not a disk image file; refused" in subprocess.run(
        [sys.executable, "-m", "scanner", "scan", str(fifo), "--as", "disk"], capture_output=True, text=True,
        timeout=60).stderr
    with pytest.raises(ImageError, match="a named pipe"):
        open_target(str(fifo), TargetKind.DISK, WalkOptions())


@pytest.mark.parametrize(
    ("backing", "shown"),
    [
        ("https://admin:hunter2-s3cret@images.example.com/base.qcow2?token=abc123", "https://images.example.com/base.qcow2"),
        ('json:{"file.driver":"https","file.url":"https://example.com/b.qcow2","file.password":"hunter2-s3cret"}',
         "json:{…}"),
    ],
)
def test_a_backing_url_is_shown_without_its_credentials(base: Path, backing: str, shown: str) -> None:
    overlay = _overlay(base.parent, "remote.qcow2", backing)
    try:
        with pytest.raises(ImageError, match="outside its directory") as raised:
            _open(overlay, allow=True)
        assert "hunter2" not in str(raised.value) and "abc123" not in str(raised.value)
        assert f"'{shown}'" in str(raised.value)
    finally:
        overlay.unlink()

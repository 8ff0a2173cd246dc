"""The fast readers of disk images agree with dissect's own parsers, field for field, on every inode and directory
of real filesystems made by mkfs.ext4, mkfs.xfs (from a prototype file) and mkfs.btrfs: inodes parsed with one
`struct` call, ext and btrfs directories listed from their blocks and index items, btrfs B-tree keys parsed once
per node. A scan of each image equals the scan of the tree it was made from."""

from __future__ import annotations

import json
import os
import shutil
import stat
import struct
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from scanner import api
from scanner.catalog import Catalog
from scanner.inventory.document import dumps
from scanner.options import ScanOptions
from scanner.targets import Walker, WalkOptions
from scanner.targets.registry import open_target
from tests.conftest import SAMPLE_VM
from tests.diskbuild import MIB, ext4_of, need, run, xfs_of

pytest.importorskip("dissect.target", reason="the images extra (dissect.target) is not installed")


@pytest.fixture(scope="module")
def tree(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """sample_vm, with what the fast readers must get right: an owner past 16 bits, a big and a sparse file,
    a directory of many names (an htree on ext4, a leaf directory on xfs) and links."""
    root = tmp_path_factory.mktemp("fast") / "root"
    shutil.copytree(SAMPLE_VM, root, symlinks=True)
    many = root / "var" / "many"
    many.mkdir(parents=True)
    for i in range(600):
        (many / f"entry-{i:04}-{'x' * (i % 40)}.txt").write_text(f"model: claude-opus-4-{i % 9}\n")
    big = root / "opt" / "big.bin"
    big.write_bytes(os.urandom(3 * MIB))
    with open(root / "var" / "sparse.img", "wb") as f:
        f.truncate(32 * MIB)
    (root / "etc" / "far-owner.conf").write_text("ANTHROPIC_MODEL=claude-sonnet-4-5\n")
    os.chown(root / "etc" / "far-owner.conf", 70000, 70001)
    (root / "etc" / "rel-link").symlink_to("far-owner.conf")
    return root


def _dissect_fs(image: Path) -> Any:
    opened = open_target(str(image), None, WalkOptions())
    return opened, opened.target.fs


def _walk_inodes(fs: Any, mount: Any) -> list[Any]:
    """Every inode of the mounted filesystem, through dissect's own listing."""
    out, pending = [], [mount.fs.get("/").entry]
    while pending:
        node = pending.pop()
        out.append(node)
        children = node.iterdir()
        for child in children:
            item = child[1] if isinstance(child, tuple) else child
            name = child[0] if isinstance(child, tuple) else item.filename
            if name in (".", ".."):
                continue
            mode = item.inode.di_mode if hasattr(item.inode, "di_mode") else getattr(item.inode, "i_mode", None)
            if mode is None:
                mode = item.inode.mode
            (pending if stat.S_ISDIR(mode) else out).append(item)
    return out


def test_ext4_inodes_and_listings_match_dissect(tree: Path) -> None:
    from dissect.extfs.c_ext import c_ext

    from scanner.targets.disk.inodes import Ext4Inode, ext_listing

    image = ext4_of(tree, tree.parent / "fast.ext4", "96M")
    opened, fs = _dissect_fs(image)
    try:
        mount = fs._root
        nodes = _walk_inodes(fs, mount)
        assert len(nodes) > 650
        extfs = mount.fs.extfs
        for node in nodes:
            fresh = extfs.get_inode(node.inum)  # dissect's own parse, from the inode table
            theirs = c_ext.ext4_inode(_raw_ext4(fresh))
            ours = Ext4Inode(_raw_ext4(fresh))
            for name in Ext4Inode._fields:
                assert getattr(ours, name) == getattr(theirs, name), (node.inum, name)
            if stat.S_ISDIR(theirs.i_mode):
                names = {n.filename: n.inum for n in fresh.iterdir() if n.filename not in (".", "..")}
                assert ext_listing(fresh) == names
    finally:
        opened.close()


def _raw_ext4(node: Any) -> bytes:
    extfs = node.extfs
    group, index = divmod(node.inum - 1, extfs.sb.s_inodes_per_group)
    desc = extfs._read_group_desc(group)
    table = desc.bg_inode_table_lo | ((getattr(desc, "bg_inode_table_hi", 0) or 0) << 32)
    extfs.fh.seek(table * extfs.block_size + index * extfs.sb.s_inode_size)
    return bytes(extfs.fh.read(256))


def test_xfs_inodes_match_dissect(tree: Path) -> None:
    from dissect.xfs.c_xfs import c_xfs

    from scanner.targets.disk.inodes import XfsInode

    image = xfs_of(tree, tree.parent / "fast.xfs")
    opened, fs = _dissect_fs(image)
    try:
        mount = fs._root
        xfs = mount.fs.xfs
        nodes = _walk_inodes(fs, mount)
        assert len(nodes) > 650
        for node in nodes:
            fresh = xfs.get_inode(node.inum)
            fresh.ag.fh.seek(fresh.relative_inum * fresh.ag.sb.sb_inodesize)
            raw = bytes(fresh.ag.fh.read(fresh.ag.sb.sb_inodesize))
            theirs, ours = c_xfs.xfs_dinode(raw), XfsInode(raw)
            for name in XfsInode._fields:
                mine, dissects = getattr(ours, name), getattr(theirs, name)
                if isinstance(dissects, list):  # cstruct reads uint8_t[12] as a list of ints
                    dissects = bytes(dissects)
                assert mine == dissects, (node.inum, name)
    finally:
        opened.close()


def test_btrfs_listings_and_inode_items_match_dissect(tree: Path) -> None:
    need("mkfs.btrfs")
    from dissect.btrfs.c_btrfs import c_btrfs

    from scanner.targets.disk.btrfsfast import listing
    from scanner.targets.disk.inodes import BtrfsInodeItem

    image = tree.parent / "fast.btrfs"
    with open(image, "wb") as f:
        f.truncate(160 * MIB)
    run("mkfs.btrfs", "-q", "--rootdir", str(tree), str(image))
    opened, fs = _dissect_fs(image)
    try:
        mount = fs._root
        nodes = _walk_inodes(fs, mount)
        assert len(nodes) > 650
        for node in nodes:
            _, data = node.subvolume.tree.find(node.inum, c_btrfs.BTRFS_INODE_ITEM_KEY)
            theirs, ours = c_btrfs.btrfs_inode_item(data), BtrfsInodeItem(data)
            for name in ("size", "nbytes", "nlink", "uid", "gid", "mode"):
                assert getattr(ours, name) == getattr(theirs, name), (node.inum, name)
            assert (ours.mtime.sec, ours.mtime.nsec) == (theirs.mtime.sec, theirs.mtime.nsec)
            if stat.S_ISDIR(theirs.mode):
                names = {name: (int(n.subvolume.objectid), int(n.inum)) for name, n in node.iterdir()
                         if name not in (".", "..")}
                assert listing(node) == names
    finally:
        opened.close()


@pytest.mark.parametrize("kind", ["ext4", "xfs", "btrfs"])
def test_each_filesystem_scans_as_its_tree(tree: Path, catalog: Catalog, kind: str) -> None:
    image = tree.parent / f"scan.{kind}"
    if kind == "ext4":
        ext4_of(tree, image, "96M")
    elif kind == "xfs":
        xfs_of(tree, image)
    else:
        need("mkfs.btrfs")
        with open(image, "wb") as f:
            f.truncate(160 * MIB)
        run("mkfs.btrfs", "-q", "--rootdir", str(tree), str(image))
    opened = open_target(str(image), None, WalkOptions())
    try:
        doc = json.loads(dumps(api.scan(opened.target, api.ScanRequest(ScanOptions(jobs=2)), catalog)))
    finally:
        opened.close()
    direct = json.loads(dumps(api.scan(Walker(str(tree)), api.ScanRequest(ScanOptions()), catalog)))
    if kind != "ext4":  # mkfs.xfs -p and mkfs.btrfs --rootdir write a sparse file's zeros: read as they are held
        direct["skipped"] = [s for s in direct["skipped"] if s["reason"] != "sparse"]
    else:
        assert any(s["path"] == "/var/sparse.img" and s["reason"] == "sparse" for s in doc["skipped"])
    assert {k: v for k, v in doc.items() if k not in ("target", "stats")} == \
        {k: v for k, v in direct.items() if k not in ("target", "stats")}


@settings(max_examples=300, deadline=None)
@given(st.binary(min_size=16, max_size=16))
def test_an_xfs_extent_record_reads_as_dissect_reads_it(record: bytes) -> None:
    from dissect.xfs import xfs

    from scanner.targets.disk import xfsfast

    theirs = xfsfast.replaced or xfs.parse_fsblock
    assert xfsfast.parse_fsblock(record) == tuple(theirs(record))


def test_ext4_extent_trees_read_as_dissect_reads_them(tmp_path: Path) -> None:
    """On a file of 300 extents (an index node above its leaves) and on every other file; and an index whose
    entries all point at one node, read once for each, is refused (on a real ext4, in a block no file uses)."""
    import io

    from dissect.extfs.c_ext import c_ext
    from dissect.extfs.exceptions import Error

    from scanner.targets.disk import extfast

    root = tmp_path / "root"
    shutil.copytree(SAMPLE_VM, root, symlinks=True)
    with open(root / "fragmented.bin", "wb") as f:
        for i in range(300):  # data every 64 KiB, holes between: an extent each
            f.seek(i * 64 * 1024)
            f.write(os.urandom(4096))
    image = ext4_of(root, tmp_path / "fs.ext4", "64M")
    opened, fs = _dissect_fs(image)
    try:
        extfs = fs._root.fs.extfs
        theirs = extfast.replaced
        assert theirs is not None and theirs is not extfast.parse_extents
        deepest = 0
        for node in _walk_inodes(fs, fs._root):
            raw = extfs.get_inode(node.inum)
            if not raw.inode.i_flags & c_ext.EXT4_EXTENTS_FL:
                continue
            deepest = max(deepest, int.from_bytes(bytes(raw.inode.i_block)[6:8], "little"))
            ours = [tuple(e) for e in extfast.parse_extents(raw, io.BytesIO(raw.inode.i_block))]
            assert ours == [(e.ee_block, e.ee_len, e.ee_start_hi, e.ee_start_lo)
                            for e in theirs(raw, io.BytesIO(raw.inode.i_block))], node.inum
        assert deepest >= 1
        free = extfs.block_count - 1  # the last block: mkfs -d leaves the end of a 64 MiB filesystem free
        fan = bytearray(extfs.block_size)
        fan[:12] = struct.pack("<HHHHI", 0xF30A, 300, 300, 1, 0)  # magic, entries, max, depth 1, generation
        for at in range(12, 12 + 300 * 12, 12):
            fan[at + 4 : at + 8] = free.to_bytes(4, "little")
        with open(image, "r+b") as f:
            f.seek(free * extfs.block_size)
            f.write(fan)
        root_node = bytes(fan[:12]) + bytes(fan[12:60])  # an inode's root: four index entries, all to that block
        with pytest.raises(Error, match="twice"):
            list(extfast.parse_extents(raw, io.BytesIO(root_node)))
    finally:
        opened.close()

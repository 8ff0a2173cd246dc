"""What the disk image readers keep gives what dissect gives without it: each inode's stat is read once a walk and
is what dissect's own `lstat` says; a file read by its runs from the cached volume is what dissect's stream of it
reads; a btrfs item found in a kept leaf is what dissect's search from the root finds; and a block read past the
end of a truncated image is never kept, so every file in it fails, not only the first."""

from __future__ import annotations

import os
import stat
from collections import Counter
from pathlib import Path
from typing import Any

import pytest

from scanner.formats.positional import PositionalFile
from scanner.targets import WalkOptions
from scanner.targets.base import FileEntry
from scanner.targets.registry import open_target
from tests.diskbuild import MIB, ext4_of, need, run, xfs_of
from tests.test_disk_fast import tree  # noqa: F401  # the module's fixture: sample_vm with big, sparse, many

pytest.importorskip("dissect.target", reason="the images extra (dissect.target) is not installed")


def _image(tree: Path, kind: str) -> Path:  # noqa: F811  # `tree` is the fixture's value here
    out = tree.parent / f"caches.{kind}"
    if out.exists():
        return out
    if kind == "ext4":
        return ext4_of(tree, out, "96M")
    if kind == "xfs":
        return xfs_of(tree, out)
    need("mkfs.btrfs")
    with open(out, "wb") as f:
        f.truncate(160 * MIB)
    run("mkfs.btrfs", "-q", "--rootdir", str(tree), str(out))
    return out


@pytest.mark.parametrize("kind", ["ext4", "xfs", "btrfs"])
def test_each_inode_is_read_once_a_walk_and_as_dissect_reads_it(
    tree: Path, kind: str, monkeypatch: pytest.MonkeyPatch  # noqa: F811
) -> None:
    from scanner.targets.disk import dissectfs

    reads: Counter[int] = Counter()  # by inode number: the image holds one filesystem
    real = dissectfs.inode_stat

    def counted(fstype: str, inode: Any, *rest: int) -> os.stat_result:
        reads[int(inode.inum)] += 1
        return real(fstype, inode, *rest)

    monkeypatch.setattr(dissectfs, "inode_stat", counted)
    opened = open_target(str(_image(tree, kind)), None, WalkOptions())
    try:
        target, fs = opened.target, opened.target.fs
        listed = Counter[str]()
        scandir = fs.scandir

        def counting(handle: int) -> Any:
            entries = scandir(handle)
            listed["names"] += len(entries)
            return entries

        monkeypatch.setattr(fs, "scandir", counting)
        reads.clear()  # opening the image read /etc/fstab through a reader of its own
        files = [e for e in target.walk() if isinstance(e, FileEntry)]
        assert len(files) > 650
        # each listed name's inode read once (opening it as a directory, resolving a link through it: kept), and
        # the root's, which is not listed, when the walk opens it
        assert sum(reads.values()) <= listed["names"] + 1
        assert max(reads.values()) == 1
        root = fs._root.fs
        for entry in files:  # the tree's own facts (dissect's ext lstat drops an owner's high 16 bits), its inode
            host = os.lstat(str(tree) + entry.path)
            assert (entry.mode, entry.size, entry.uid, entry.gid, entry.ino) == (
                host.st_mode, host.st_size, host.st_uid, host.st_gid, root.get(entry.path).lstat().st_ino
            ), entry.path
    finally:
        opened.close()


@pytest.mark.parametrize("kind", ["ext4", "xfs"])
def test_a_file_read_by_its_runs_is_what_dissects_stream_reads(tree: Path, kind: str) -> None:  # noqa: F811
    from scanner.targets.disk.blockcache import RunsOnDisk, direct

    opened = open_target(str(_image(tree, kind)), None, WalkOptions())
    try:
        target, fs = opened.target, opened.target.fs
        root, by_runs = fs._root.fs, 0
        for entry in (e for e in target.walk() if isinstance(e, FileEntry)):
            raw = root.get(entry.path).entry
            ours, theirs = direct(raw.open()), raw.open()
            by_runs += isinstance(ours, RunsOnDisk)
            size = entry.size
            for offset, length in ((0, 1 << 20), (0, 7), (size // 3, 5000), (max(0, size - 100), 4096),
                                   (4095, 8193), (size, 10)):
                theirs.seek(offset)
                assert ours.read_at(offset, length) == theirs.read(length), (entry.path, offset, length)
        assert by_runs > 600  # the files with data blocks were read by their runs, not by dissect's stream
    finally:
        opened.close()


def test_a_btrfs_item_from_a_kept_leaf_is_what_dissects_search_finds(tree: Path) -> None:  # noqa: F811
    from dissect.btrfs.btrfs import INode

    from scanner.targets.disk import btrfsfast
    from scanner.targets.disk.blockcache import RunsOnDisk, direct
    from scanner.targets.disk.btrfsfile import BtrfsInode

    opened = open_target(str(_image(tree, "btrfs")), None, WalkOptions())
    try:
        target, fs = opened.target, opened.target.fs
        sub = fs._root.fs.subvolume
        search, cursor_iter = btrfsfast._dissect["find"], btrfsfast._dissect["iter"]
        files = [e for e in target.walk() if isinstance(e, FileEntry)]
        on_disk = 0
        for entry in files:
            ours = sub.tree.find(entry.ino, 1)
            theirs = search(sub.tree, entry.ino, 1)
            assert (tuple(ours[0].key), bytes(ours[1])) == (tuple(theirs[0].key), bytes(theirs[1]))
            run = [(tuple(i.key), bytes(d)) for i, d in btrfsfast.run_of(sub.tree, entry.ino, 108)]
            assert run == [(tuple(i.key), bytes(d)) for i, d in cursor_iter(sub.tree.cursor(), entry.ino, 108, 0, True)]
            mine, dissects = BtrfsInode(sub, entry.ino).open(), INode(sub, entry.ino).open()
            on_disk += isinstance(mine, RunsOnDisk)
            assert mine.read() == dissects.read(), entry.path
            if entry.size > 5000:
                dissects.seek(entry.size // 3)
                assert direct(mine).read_at(entry.size // 3, 4099) == dissects.read(4099), entry.path
        assert btrfsfast._leaves.holding(btrfsfast._tree(sub.tree), (files[-1].ino, 1, 0))  # its leaf is kept
        assert on_disk >= 5  # the files not inline (big.bin, the sparse file, ...) were read from the cached device
    finally:
        opened.close()


def test_a_block_read_past_the_image_end_is_never_kept(tmp_path: Path) -> None:
    from scanner.targets.disk.blockcache import BLOCK, CachedDisk

    image = tmp_path / "cut.img"
    image.write_bytes(os.urandom(BLOCK + 1000))
    fd = os.open(image, os.O_RDONLY)
    past = [0]
    claimed = 4 * BLOCK  # the disk is bigger than the file holds: a truncated image

    def read(offset: int, size: int) -> bytes:
        return os.pread(fd, size, offset)

    def counted() -> None:
        past[0] += 1

    try:
        data = image.read_bytes()
        held = PositionalFile(read, len(data), counted)  # counts a read asked past the file's end, as ImageFile's
        held.size = claimed  # type: ignore[attr-defined]  # the virtual disk's size, as its format gives it
        disk = CachedDisk(held, lambda: past[0])
        assert disk.read_at(10, 100) == data[10:110]
        assert disk.read_at(10, 100) == data[10:110] and past[0] == 0  # kept: no read went down again
        for expected in (1, 2):  # the cut block is read down (and counted) each time it is asked for
            assert disk.read_at(BLOCK + 10, 100) == data[BLOCK + 10 : BLOCK + 110]
            disk.read_at(2 * BLOCK + 10, 100)
            assert past[0] == expected
    finally:
        os.close(fd)


def test_an_image_files_modes_survive_the_cache(tree: Path) -> None:  # noqa: F811
    """Directories, links and files keep their types through the kept stats (a cache keyed on the wrong thing
    would give one inode's type to another)."""
    opened = open_target(str(_image(tree, "ext4")), None, WalkOptions())
    try:
        fs = opened.target.fs
        handle = fs.open_root()
        etc = fs.open_dir(handle, "etc")
        kinds = {name: stat.S_IFMT(st.st_mode) for name, st in fs.scandir(etc)}
        assert kinds["rel-link"] == stat.S_IFLNK and kinds["far-owner.conf"] == stat.S_IFREG
        assert stat.S_ISDIR(fs.lstat(handle, "etc").st_mode) and fs.lstat(etc, "far-owner.conf").st_uid == 70000
        assert fs.readlink(etc, "rel-link") == "far-owner.conf"
    finally:
        opened.close()


def test_the_volumes_of_an_image_share_one_bound(tmp_path: Path) -> None:
    from scanner.targets.disk.blockcache import BLOCK, BLOCKS_KEPT, CachedDisk
    from scanner.targets.disk.recent import Recent

    blocks: Recent[tuple[int, int], bytes] = Recent(BLOCKS_KEPT)
    disks, fds = [], []
    for name in ("a", "b", "c"):
        path = tmp_path / f"{name}.img"
        path.write_bytes(os.urandom(BLOCK * (BLOCKS_KEPT + 8)))
        fds.append(os.open(path, os.O_RDONLY))
        fd = fds[-1]
        disks.append(CachedDisk(PositionalFile(lambda at, n, fd=fd: os.pread(fd, n, at), path.stat().st_size),
                                lambda: 0, blocks))
    try:
        for disk in disks:
            for at in range(0, disk.size, BLOCK):
                disk.read_at(at, 10)
        assert len(blocks) == BLOCKS_KEPT  # three volumes read whole: still one volume's worth kept
        assert disks[2].read_at(disks[2].size - BLOCK, BLOCK) == (tmp_path / "c.img").read_bytes()[-BLOCK:]
    finally:
        for fd in fds:
            os.close(fd)


def test_xfs_runs_from_the_inode_are_dissects(tree: Path) -> None:  # noqa: F811
    from scanner.targets.disk import xfsfast

    opened = open_target(str(_image(tree, "xfs")), None, WalkOptions())
    try:
        target, root = opened.target, opened.target.fs._root.fs
        theirs = xfsfast._dissect["dataruns"]
        files = [e for e in target.walk() if isinstance(e, FileEntry)]
        for entry in files:
            raw = root.get(entry.path).entry
            assert xfsfast.dataruns(raw) == theirs(raw), entry.path
        in_inode = [e for e in files if root.get(e.path).entry.inode.di_format == xfsfast._FORMATS["extents"]]
        assert len(in_inode) > 600  # read from the inode's own bytes, not by dissect
    finally:
        opened.close()

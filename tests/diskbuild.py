"""Disk images built in a test with the tools users have (mkfs.*, sfdisk, qemu-img, btrfs-progs, cryptsetup), and
the one thing qemu-img cannot write: a differencing VHDX, made from a qemu-img VHDX by adding a parent locator as
the VHDX specification (MS-VHDX 2.6.2.6, 2.6.2.3) lays it out."""

from __future__ import annotations

import os
import shutil
import struct
import subprocess
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

from tests.conftest import SAMPLE_VM

MIB = 1 << 20
_ALIGN = 64 << 10
_METADATA_REGION = uuid.UUID("8B7CA206-4790-4B9A-B8FE-575F050F886E")
_FILE_PARAMETERS = uuid.UUID("CAA16737-FA36-4D43-B3B6-33F0AA44E76B")
_PARENT_LOCATOR = uuid.UUID("A8D35F2D-B30B-454D-ABF7-D3D84834AB0C")
_VHDX_LOCATOR_TYPE = uuid.UUID("B04AEFB7-D19E-4A81-B789-25B8E9445913")


def run(*cmd: str, cwd: Path | None = None) -> None:
    subprocess.run(cmd, check=True, capture_output=True, cwd=cwd)


def need(*tools: str) -> None:
    missing = [t for t in tools if shutil.which(t) is None]
    if missing:
        pytest.skip(f"{', '.join(missing)} not installed")


def ext4_of(tree: Path, out: Path, size: str = "64M") -> Path:
    need("mkfs.ext4")
    run("mkfs.ext4", "-q", "-F", "-d", str(tree), str(out), size)
    return out


def qcow2_of(source: Path, out: Path, *opts: str) -> Path:
    need("qemu-img")
    run("qemu-img", "convert", "-O", "qcow2", *opts, str(source), str(out), cwd=out.parent)  # data_file= is relative
    return out


def sample_qcow2(tmp: Path) -> Path:
    """sample_vm as a bare ext4 filesystem in a qcow2 (a few MiB)."""
    return qcow2_of(ext4_of(SAMPLE_VM, tmp / "root.ext4"), tmp / "base.qcow2")


def add_vhdx_parent(path: Path, locator: dict[str, str]) -> None:
    """Make the VHDX at `path` a differencing disk whose parent locator holds `locator` (key -> value)."""
    data = bytearray(path.read_bytes())
    start, length = _metadata_region(data)
    _, _, count = struct.unpack_from("<8s2sH", data, start)
    entries = start + 32
    item_at = max(struct.unpack_from("<I", data, entries + 32 * i + 16)[0] +
                  struct.unpack_from("<I", data, entries + 32 * i + 20)[0] for i in range(count))
    item_at = (item_at + 4095) // 4096 * 4096
    item = _locator_item(locator)
    assert item_at + len(item) <= length, "no room for the locator in the metadata region"
    data[start + item_at : start + item_at + len(item)] = item
    struct.pack_into("<16sIII4x", data, entries + 32 * count, _PARENT_LOCATOR.bytes_le, item_at, len(item), 0b100)
    struct.pack_into("<H", data, start + 10, count + 1)
    for i in range(count):
        guid = uuid.UUID(bytes_le=bytes(data[entries + 32 * i : entries + 32 * i + 16]))
        if guid == _FILE_PARAMETERS:
            offset = struct.unpack_from("<I", data, entries + 32 * i + 16)[0]
            flags = struct.unpack_from("<I", data, start + offset + 4)[0]
            struct.pack_into("<I", data, start + offset + 4, flags | 0b10)  # HasParent
    path.write_bytes(bytes(data))


def _metadata_region(data: bytearray) -> tuple[int, int]:
    table = 3 * _ALIGN
    _, _, count, _ = struct.unpack_from("<4sII4s", data, table)
    for i in range(count):
        guid, offset, length, _ = struct.unpack_from("<16sQII", data, table + 16 + 32 * i)
        if uuid.UUID(bytes_le=guid) == _METADATA_REGION:
            return offset, length
    raise AssertionError("no metadata region")


def _locator_item(locator: dict[str, str]) -> bytes:
    pairs = [(k.encode("utf-16-le"), v.encode("utf-16-le")) for k, v in locator.items()]
    head = struct.pack("<16sHH", _VHDX_LOCATOR_TYPE.bytes_le, 0, len(pairs))
    at = len(head) + 12 * len(pairs)
    table, blob = b"", b""
    for key, value in pairs:
        table += struct.pack("<IIHH", at + len(blob), at + len(blob) + len(key), len(key), len(value))
        blob += key + value
    return head + table + blob


@contextmanager
def loop_mounted(image: Path, options: str = "") -> Iterator[Path]:
    """The image mounted on a loop device (root, a kernel with the filesystem); skips with the reason otherwise."""
    point = image.parent / f"{image.name}.mnt"
    point.mkdir(exist_ok=True)
    done = subprocess.run(["mount", "-o", ",".join(filter(None, ["loop", options])), str(image), str(point)],
                          capture_output=True, text=True)
    if done.returncode != 0:
        point.rmdir()
        pytest.skip(f"cannot mount a loop device here: {done.stderr.strip()[:200]}")
    try:
        yield point
    finally:
        subprocess.run(["umount", str(point)], capture_output=True)
        point.rmdir()


def btrfs_with_subvolumes(tree: Path, out: Path, fs_uuid: str, compress: str = "zstd") -> Path:
    """A btrfs holding subvolumes `@` (the tree but /home) and `@home` (its /home), compressed with `compress`,
    as Fedora and openSUSE install; the tree's own /etc/fstab (naming `fs_uuid`) is what the image's says."""
    need("mkfs.btrfs", "btrfs", "mount")
    with open(out, "wb") as f:
        f.truncate(128 * MIB)
    run("mkfs.btrfs", "-q", "-U", fs_uuid, str(out))
    with loop_mounted(out, f"compress-force={compress}") as mnt:
        run("btrfs", "-q", "subvolume", "create", str(mnt / "@"))
        run("btrfs", "-q", "subvolume", "create", str(mnt / "@home"))
        run("cp", "-a", f"{tree}/.", str(mnt / "@"))
        for child in (mnt / "@" / "home").iterdir():
            run("mv", str(child), str(mnt / "@home"))
    return out



def xfs_of(tree: Path, out: Path, size: int = 300 * MIB) -> Path:
    """An xfs filesystem filled from `tree` without mounting: mkfs.xfs reads a prototype file (xfsprogs' proto
    format: each entry's name, type and mode, owner, and a regular file's source path or a link's target)."""
    need("mkfs.xfs")
    lines = ["/dev/null", "0 0", "d--755 0 0"]

    def entries(directory: Path, depth: int) -> None:
        for child in sorted(directory.iterdir()):
            if any(c.isspace() for c in child.name):
                continue  # the prototype format splits on whitespace
            st = child.lstat()
            perm = f"{st.st_mode & 0o777:03o}"
            pad = " " * depth
            if child.is_symlink():
                lines.append(f"{pad}{child.name} l--{perm} {st.st_uid} {st.st_gid} {os.readlink(child)}")
            elif child.is_dir():
                lines.append(f"{pad}{child.name} d--{perm} {st.st_uid} {st.st_gid}")
                entries(child, depth + 1)
                lines.append(f"{pad}$")
            elif child.is_file():
                lines.append(f"{pad}{child.name} ---{perm} {st.st_uid} {st.st_gid} {child}")

    entries(tree, 1)
    lines.append("$")
    proto = out.with_suffix(".proto")
    proto.write_text("\n".join(lines) + "\n")
    with open(out, "wb") as f:
        f.truncate(size)
    run("mkfs.xfs", "-q", "-f", "-p", str(proto), str(out))
    return out


def lvm_disk(out: Path, volumes: dict[str, Path], vg: str) -> Path:
    """A raw disk whose one LVM physical volume holds a volume group `vg` with a linear logical volume per
    filesystem image in `volumes` (name -> image), each image written where its volume's extents lie. The LVM
    metadata is written by lvm2 itself with the device-mapper driver off (`--driverloaded n`), so no kernel
    device is made; only a loop device for pvcreate."""
    need("losetup", "pvcreate", "vgcreate", "lvcreate", "lvs", "pvs", "vgchange")
    extent = 4 * MIB
    sizes = {name: (image.stat().st_size + extent - 1) // extent * extent for name, image in volumes.items()}
    with open(out, "wb") as f:
        f.truncate(sum(sizes.values()) + 8 * MIB)
    loop = subprocess.run(["losetup", "-f", "--show", str(out)], capture_output=True, text=True)
    if loop.returncode != 0:
        pytest.skip(f"no loop device here: {loop.stderr.strip()[:200]}")
    dev = loop.stdout.strip()
    env = {**os.environ, "LVM_SUPPRESS_FD_WARNINGS": "1"}
    quiet = ["--config", "backup { backup = 0 archive = 0 }"]
    places: dict[str, int] = {}
    try:
        subprocess.run(["pvcreate", "-q", "-y", *quiet, dev], check=True, capture_output=True, env=env)
        subprocess.run(["vgcreate", "-q", *quiet, "-s", "4M", vg, dev], check=True, capture_output=True, env=env)
        for name, size in sizes.items():
            subprocess.run(["lvcreate", "--driverloaded", "n", "-q", "-an", "-Zn", "-y", *quiet, "-n", name, "-L",
                            f"{size}b", vg], check=True, capture_output=True, env=env)
        pe_start = int(_lvm(["pvs", "--noheadings", "--units", "b", "-o", "pe_start", dev], env).rstrip("B"))
        for name in volumes:
            ranges = _lvm(["lvs", "--noheadings", "-o", "seg_pe_ranges", f"{vg}/{name}"], env)
            places[name] = pe_start + int(ranges.rsplit(":", 1)[1].split("-")[0]) * extent
    except subprocess.CalledProcessError as exc:
        pytest.skip(f"LVM cannot be built here: {exc.stderr.decode(errors='replace').strip()[:200]}")
    finally:
        subprocess.run(["vgchange", "-q", "-an", vg], capture_output=True, env=env)
        subprocess.run(["losetup", "-d", dev], capture_output=True)
    with open(out, "r+b") as f:
        for name, image in volumes.items():
            f.seek(places[name])
            with open(image, "rb") as src:
                shutil.copyfileobj(src, f)
    return out


def _lvm(cmd: list[str], env: dict[str, str]) -> str:
    return subprocess.run(cmd, check=True, capture_output=True, text=True, env=env).stdout.strip()

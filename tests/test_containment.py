"""Containment against a live tree: races, indirect pseudo filesystems, atimes. Real files in tmp_path only."""

from __future__ import annotations

import ctypes
import json
import os
import platform
import threading
import time
from pathlib import Path

import pytest

from scanner.model import Skip
from scanner.targets import FileEntry, Walker, WalkOptions
from tests.conftest import write

_RENAMEAT2 = {"x86_64": 316, "aarch64": 276}.get(platform.machine())
_AT_FDCWD = -100
_RENAME_EXCHANGE = 2


def _exchange(a: Path, b: Path) -> int:
    """Swap two names atomically (renameat2 RENAME_EXCHANGE); 0 or an errno."""
    libc = ctypes.CDLL(None, use_errno=True)
    rc = libc.syscall(_RENAMEAT2, _AT_FDCWD, os.fsencode(a), _AT_FDCWD, os.fsencode(b), _RENAME_EXCHANGE)
    return 0 if rc == 0 else ctypes.get_errno()


@pytest.mark.skipif(_RENAMEAT2 is None, reason="renameat2 syscall number known only for x86_64 and aarch64")
def test_directory_swapped_for_a_symlink_mid_scan_never_leads_to_the_host(tmp_path: Path, scan_dir) -> None:
    root, host = tmp_path / "root", tmp_path / "hostside"
    names = [f"f{i:02d}.yaml" for i in range(40)]
    for name in names:  # the same names on both sides: a read through the swapped link would get host bytes
        write(root, f"/srv/s/{name}", "model: claude-opus-4-8\n")
        write(host, f"/{name}", "model: canary-model-zz9\n")
    write(host, "/hostonly-secret.yaml", "model: canary-model-zz9\n")
    write(host, "/hostonly-dir/x.yaml", "model: canary-model-zz9\n")
    os.mkfifo(host / "hostonly-fifo")
    (root / "srv/.l").symlink_to(host)
    if _exchange(root / "srv/s", root / "srv/.l") != 0:
        pytest.skip("renameat2(RENAME_EXCHANGE) refused by this kernel or filesystem")
    _exchange(root / "srv/s", root / "srv/.l")

    stop = threading.Event()
    swaps = 0

    def swapper() -> None:
        nonlocal swaps
        deadline = time.monotonic() + 60  # bounded even if a scan hangs
        while not stop.is_set() and time.monotonic() < deadline:
            if _exchange(root / "srv/s", root / "srv/.l") == 0:
                swaps += 1
            time.sleep(0.001)

    thread = threading.Thread(target=swapper, daemon=True)
    thread.start()
    leaks: list[str] = []
    rounds, give_up = 0, time.monotonic() + 50
    try:
        # At least 8 rounds, and on a loaded machine more, until the swapper has really raced them (bounded).
        while rounds < 8 or (swaps <= 50 and time.monotonic() < give_up):
            rounds += 1
            target = Walker(str(root))
            for item in target.walk():
                text = item.path + (item.detail if isinstance(item, Skip) else str(item.via))
                if "hostonly" in text or str(host) in text:
                    leaks.append(f"walk: {text}")
                if isinstance(item, FileEntry):
                    try:
                        data = target.read(item, 1 << 16).data + target.read_window(item, 0, 64)
                    except Exception:  # noqa: BLE001 - a read refused mid-swap is fine; only host bytes are not
                        continue
                    if b"canary" in data:
                        leaks.append(f"read: {item.path}")
            for named in ("/srv/s/f00.yaml", "/srv/s/hostonly-secret.yaml", "/srv/.l/f01.yaml"):
                if b"canary" in (target.read_path(named, 1 << 16) or b""):
                    leaks.append(f"read_path: {named}")
            _, doc = scan_dir(root)
            shown = json.dumps({k: v for k, v in doc.items() if k != "target"})
            for word in ("canary", "hostonly", str(host)):
                if word in shown:
                    leaks.append(f"inventory: {word}")
    finally:
        stop.set()
        thread.join()
    assert swaps > 50, "the swapper did not run"
    assert not leaks, sorted(set(leaks))[:10]


# --- /proc, /sys and /dev stay skipped however they are reached ---------------------------------


def _models(doc: dict) -> set[str]:
    return {m["name"] for m in doc["models"]}


def test_environment_file_and_links_into_proc_are_not_read(tmp_path: Path, scan_dir) -> None:
    write(tmp_path, "/proc/1/env.txt", "AGENT_MODEL=muse-proc-1\n")
    write(tmp_path, "/sys/kernel/x.env", "AGENT_MODEL=muse-sys-1\n")
    write(tmp_path, "/etc/agent/real.env", "AGENT_MODEL=muse-real-1\n")
    (tmp_path / "etc/agent/proc.env").symlink_to("/proc/1/env.txt")  # a file link into /proc
    (tmp_path / "etc/agent/procdir").symlink_to("../../proc/1")  # a directory link into /proc
    (tmp_path / "etc/agent/sys.yaml").symlink_to("/sys/kernel/x.env")
    unit = "[Service]\n" + "".join(
        f"EnvironmentFile={p}\n"
        for p in ("/proc/1/env.txt", "-/etc/agent/proc.env", "/etc/agent/procdir/env.txt", "/etc/agent/real.env")
    )
    write(tmp_path, "/etc/systemd/system/agent.service", unit)
    _, doc = scan_dir(tmp_path)
    assert "muse-real-1" in _models(doc)  # the control: an EnvironmentFile outside /proc is read
    assert not _models(doc) & {"muse-proc-1", "muse-sys-1"}
    skipped = {s["path"]: s["reason"] for s in doc["skipped"]}
    assert {p: skipped.get(p) for p in ("/etc/agent/proc.env", "/etc/agent/procdir", "/etc/agent/sys.yaml")} == {
        "/etc/agent/proc.env": "pseudo-filesystem",
        "/etc/agent/procdir": "pseudo-filesystem",
        "/etc/agent/sys.yaml": "pseudo-filesystem",
    }
    target = Walker(str(tmp_path))
    for named in ("/proc/1/env.txt", "/etc/agent/proc.env", "/etc/agent/procdir/env.txt", "/x/../proc/1/env.txt"):
        assert target.read_path(named, 1 << 10) is None, named
    assert target.read_path("/etc/agent/real.env", 1 << 10) == b"AGENT_MODEL=muse-real-1\n"
    # Included on request, the same paths are read like any other.
    included = Walker(str(tmp_path), WalkOptions(include_pseudo=True))
    assert included.read_path("/etc/agent/proc.env", 1 << 10) == b"AGENT_MODEL=muse-proc-1\n"
    _, doc = scan_dir(tmp_path, include_pseudo=True)
    assert {"muse-proc-1", "muse-sys-1"} <= _models(doc)


def test_excluded_mount_is_not_read_by_name_either(tmp_path: Path) -> None:
    """A live root's excluded mounts (network, pseudo by fstype) are refused to `read_path` as to the walk."""
    write(tmp_path, "/mnt/nfs/share/agent.env", "AGENT_MODEL=muse-nfs-1\n")
    (tmp_path / "etc").mkdir()
    (tmp_path / "etc/share").symlink_to("/mnt/nfs/share")
    options = WalkOptions(exclude=(("/mnt/nfs", "network filesystem nfs4"),))
    target = Walker(str(tmp_path), options)
    assert target.read_path("/mnt/nfs/share/agent.env", 1 << 10) is None
    assert target.read_path("/etc/share/agent.env", 1 << 10) is None
    walked = list(target.walk())
    assert not [i for i in walked if isinstance(i, FileEntry)]
    assert {(s.path, s.reason.value) for s in walked if isinstance(s, Skip)} == {
        ("/mnt/nfs", "pseudo-filesystem"),
        ("/etc/share", "pseudo-filesystem"),
    }


# --- atimes: a scan leaves directories and files as it found them --------------------------------

_PAST = time.time() - 3 * 86400  # older than a day: relatime would update it on the next access


def _atime_updates_here(probe: Path) -> bool:
    """Whether this filesystem records reads in atime at all (not on a noatime mount)."""
    probe.mkdir()
    (probe / "f").write_text("x")
    os.utime(probe / "f", (_PAST, _PAST))
    with open(probe / "f", "rb") as fh:
        fh.read()
    return os.stat(probe / "f").st_atime > _PAST + 60


def test_scan_keeps_directory_and_file_atimes(tmp_path: Path, scan_dir) -> None:
    if not _atime_updates_here(tmp_path / "probe"):
        pytest.skip("this filesystem does not update atimes (noatime): nothing to keep")
    root = tmp_path / "root"
    write(root, "/etc/agent/config.yaml", "model: claude-opus-4-8\n")
    write(root, "/opt/app/node_modules/openai/package.json", '{"name": "openai", "version": "4.0.0"}\n')
    write(root, "/srv/notes.txt", "nothing here\n")
    write(root, "/etc/passwd", "root:x:0:0:root:/root:/bin/sh\n")
    write(root, "/etc/systemd/system/a.service", "[Service]\nEnvironmentFile=/srv/a.env\n")
    write(root, "/srv/a.env", "AGENT_MODEL=muse-a-1\n")
    (root / "etc/agent/link.yaml").symlink_to("config.yaml")
    (root / "linked").symlink_to("opt/app")
    paths = [root, *(p for p in root.rglob("*") if not p.is_symlink())]  # listed before the atimes are set
    for p in paths:
        os.utime(p, (_PAST, _PAST))
    _, doc = scan_dir(root)
    assert "muse-a-1" in _models(doc) and "claude-opus-4-8" in _models(doc)
    touched = [str(p.relative_to(root)) for p in paths if os.lstat(p).st_atime != _PAST]
    assert not touched  # symlinks are not checked: the kernel updates their atime when they are read (README)


# --- descriptors: at most one per directory level, all closed after ------------------------------


def _open_fds() -> int:
    return len(os.listdir("/proc/self/fd"))


def test_walk_holds_one_descriptor_per_level_and_closes_them(tmp_path: Path) -> None:
    depth = 12
    for branch in range(20):
        chain = "/".join(f"d{level}" for level in range(depth))
        write(tmp_path, f"/b{branch:02d}/{chain}/x.yaml", "a: b\n")
    (tmp_path / "b00/up").symlink_to("/b01/d0")  # a linked directory is walked with its own chain
    before = _open_fds()
    target = Walker(str(tmp_path))
    peak, files = 0, 0
    for item in target.walk():
        peak = max(peak, _open_fds() - before)
        if isinstance(item, FileEntry):
            files += 1
            target.read(item, 64)
    assert files == 20
    assert peak <= depth + 3  # root + b?? + d0..d11, and a transient one while a link is resolved
    assert _open_fds() == before
    walk = target.walk()
    next(walk)
    walk.close()  # a walk abandoned midway closes its chain too
    assert _open_fds() == before


def test_tree_deeper_than_the_descriptor_cap_is_a_recorded_skip(tmp_path: Path) -> None:
    from scanner.targets.contained import MAX_DEPTH

    deep = tmp_path
    for _ in range(MAX_DEPTH + 40):
        deep = deep / "d"
    deep.mkdir(parents=True)
    (deep / "x.yaml").write_text("a: b\n")
    (tmp_path / "shallow.yaml").write_text("a: b\n")
    (tmp_path / "down").symlink_to("/".join(["d"] * (MAX_DEPTH + 20)))  # resolution is capped the same way
    before = _open_fds()
    items = list(Walker(str(tmp_path)).walk())
    assert [i.path for i in items if isinstance(i, FileEntry)] == ["/shallow.yaml"]
    skips = [(s.path.split("/")[1], s.path.count("/"), s.reason.value) for s in items if isinstance(s, Skip)]
    assert skips == [("down", 1, "cap-reached"), ("d", MAX_DEPTH + 1, "cap-reached")]
    assert _open_fds() == before


def test_read_window_opens_from_the_walked_directory_or_again_from_the_root(tmp_path: Path) -> None:
    write(tmp_path, "/a/b/data.bin", bytes(range(256)))
    (tmp_path / "a/link.bin").symlink_to("b/data.bin")
    target = Walker(str(tmp_path))
    entries = [i for i in target.walk() if isinstance(i, FileEntry)]
    assert [(e.path, e.via) for e in entries] == [("/a/b/data.bin", "/a/link.bin"), ("/a/b/data.bin", None)]
    for entry in entries:  # after the walk: each file is opened again one component at a time
        assert target.read_window(entry, 250, 64) == bytes(range(250, 256))
        assert target.read(entry, 4).data == bytes(range(4))


def test_reads_after_the_walk_keep_one_chain_of_directories_and_release_it(tmp_path: Path) -> None:
    # A scan worker reads files the walk listed in another process: from a kept chain of open directories.
    depth = 12
    chain = "/".join(f"d{level}" for level in range(depth))
    for branch in range(20):
        write(tmp_path, f"/b{branch:02d}/{chain}/x.yaml", f"n: {branch}\n")
    before = _open_fds()
    target = Walker(str(tmp_path))
    entries = [i for i in target.walk() if isinstance(i, FileEntry)]
    peak = 0
    for n, entry in enumerate(entries):
        assert target.read(entry, 64).data == f"n: {n}\n".encode()
        peak = max(peak, _open_fds() - before)
    assert peak <= depth + 2  # the root, b??, d0..d11: one chain, whatever the number of files read
    del target, entries
    import gc

    gc.collect()
    assert _open_fds() == before


@pytest.mark.skipif(_RENAMEAT2 is None, reason="renameat2 syscall number known only for x86_64 and aarch64")
def test_a_kept_directory_swapped_for_a_symlink_is_never_followed_to_the_host(tmp_path: Path) -> None:
    root, host = tmp_path / "root", tmp_path / "hostside"
    for name in ("f00.yaml", "f01.yaml"):
        write(root, f"/srv/s/{name}", "model: claude-opus-4-8\n")
        write(host, f"/{name}", "model: canary-model-zz9\n")
    (root / "srv/.l").symlink_to(host)
    target = Walker(str(root))
    entries = {i.path: i for i in target.walk() if isinstance(i, FileEntry)}
    assert b"claude" in target.read(entries["/srv/s/f00.yaml"], 64).data  # /srv/s is now a kept directory
    if _exchange(root / "srv/s", root / "srv/.l") != 0:
        pytest.skip("renameat2(RENAME_EXCHANGE) refused by this kernel or filesystem")
    try:
        data = target.read(entries["/srv/s/f01.yaml"], 64).data  # the directory it kept, never the link's
    except Exception:  # noqa: BLE001 - refused is fine too; only host bytes are not
        data = b""
    assert b"canary" not in data
    # Removed and made again: the kept directory is gone, so the read asks a fresh chain and finds the new file.
    _exchange(root / "srv/s", root / "srv/.l")
    import shutil

    shutil.rmtree(root / "srv/s")
    write(root, "/srv/s/f01.yaml", "model: gpt-5.1\n")
    assert target.read(entries["/srv/s/f01.yaml"], 64).data == b"model: gpt-5.1\n"

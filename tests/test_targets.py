"""The walker: contained, non-blocking, read-only, bounded. Real files in tmp_path only."""

from __future__ import annotations

import hashlib
import json
import os
import socket
import stat
import subprocess
import sys
import tempfile
import threading
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings

from scanner.model import Skip
from scanner.render import render
from scanner.render._view import ReportOptions
from scanner.targets import FileEntry, Walker, WalkOptions
from tests.conftest import REPO, build_link_tree, link_tree_ops, write

MODEL = "claude-opus-4-8"


def walk(root: Path, **opts: bool) -> tuple[list[FileEntry], list[Skip]]:
    files: list[FileEntry] = []
    skips: list[Skip] = []
    for item in Walker(str(root), WalkOptions(**opts)).walk():
        (skips if isinstance(item, Skip) else files).append(item)  # type: ignore[arg-type]
    return files, skips


def reasons(skips: list[Skip]) -> dict[str, str]:
    return {s.path: s.reason.value for s in skips}


def model_locations(doc: dict, name: str = MODEL) -> list[dict]:
    return [loc for m in doc["models"] if m["name"] == name for loc in m["locations"]]


def test_paths_are_inside_paths_never_host_paths(tmp_path: Path, scan_dir) -> None:
    write(tmp_path, "/etc/agent/config.yaml", f"model: {MODEL}\n")
    _, doc = scan_dir(tmp_path)
    assert [loc["path"] for loc in model_locations(doc)] == ["/etc/agent/config.yaml"]
    assert str(tmp_path) not in json.dumps({k: v for k, v in doc.items() if k != "target"})


def test_absolute_symlink_is_reanchored_at_the_root(tmp_path: Path, scan_dir) -> None:
    write(tmp_path, "/etc/real/models.yaml", f"model: {MODEL}\n")
    (tmp_path / "etc/link.yaml").symlink_to("/etc/real/models.yaml")
    # An absolute link to /etc/passwd must read the target's passwd, never the host's.
    write(tmp_path, "/etc/passwd", "root:x:0:0:root:/root:/bin/sh\n")
    (tmp_path / "etc/pw").symlink_to("/../../../etc/passwd")
    files, skips = walk(tmp_path)
    by_via = {f.via: f.path for f in files if f.via}
    assert by_via["/etc/link.yaml"] == "/etc/real/models.yaml"
    assert by_via["/etc/pw"] == "/etc/passwd"  # `..` in an absolute target stops at the root
    assert not skips
    _, doc = scan_dir(tmp_path)
    vias = {loc["via"] for loc in model_locations(doc)}
    assert vias == {None, "/etc/link.yaml"}


def test_relative_symlink_escaping_the_root_is_never_followed(tmp_path: Path, scan_dir) -> None:
    write(tmp_path, "/opt/app/ok.txt", "nothing")
    (tmp_path / "opt/app/escape").symlink_to("../../../../../../etc/passwd")
    (tmp_path / "opt/app/escape_dir").symlink_to("../../..")
    files, skips = walk(tmp_path)
    assert reasons(skips) == {
        "/opt/app/escape": "symlink-outside-root",
        "/opt/app/escape_dir": "symlink-outside-root",
    }
    assert all(not f.path.startswith("/etc") for f in files)


def test_symlink_loops_and_directory_cycles_terminate(tmp_path: Path) -> None:
    write(tmp_path, "/d/file.yaml", f"model: {MODEL}\n")
    (tmp_path / "a").symlink_to("b")
    (tmp_path / "b").symlink_to("a")
    (tmp_path / "self").symlink_to("self")
    (tmp_path / "d/up").symlink_to("..")
    (tmp_path / "d/root").symlink_to("/")
    files, skips = walk(tmp_path)
    assert reasons(skips) == {"/a": "symlink-loop", "/b": "symlink-loop", "/self": "symlink-loop"}
    assert [f.path for f in files] == ["/d/file.yaml"]  # the cycle is not re-walked


def test_long_symlink_chain_over_40_hops_is_a_loop(tmp_path: Path) -> None:
    write(tmp_path, "/target.txt", "x")
    previous = "target.txt"
    for i in range(45):
        (tmp_path / f"l{i}").symlink_to(previous)
        previous = f"l{i}"
    files, skips = walk(tmp_path)
    by_reason = reasons(skips)
    assert by_reason["/l44"] == "symlink-loop"
    assert "/l10" not in by_reason and any(f.via == "/l10" for f in files)


def test_broken_symlink_is_a_recorded_skip(tmp_path: Path) -> None:
    (tmp_path / "dangling").symlink_to("/nowhere/at/all")
    _, skips = walk(tmp_path)
    assert reasons(skips) == {"/dangling": "symlink-broken"}


def _no_hang(fn, seconds: float = 30.0):  # type: ignore[no-untyped-def]
    result: list = []
    worker = threading.Thread(target=lambda: result.append(fn()), daemon=True)
    worker.start()
    worker.join(seconds)
    assert not worker.is_alive(), "scan hung"
    return result[0]


def test_fifo_socket_and_device_are_skipped_without_blocking(tmp_path: Path, scan_dir) -> None:
    write(tmp_path, "/etc/real.yaml", f"model: {MODEL}\n")
    os.mkfifo(tmp_path / "etc/x.yaml")
    sock = socket.socket(socket.AF_UNIX)
    sock.bind(str(tmp_path / "etc/agent.sock"))
    expected = {"/etc/x.yaml": "fifo", "/etc/agent.sock": "socket"}
    if os.geteuid() == 0:
        os.mknod(tmp_path / "etc/null.json", 0o600 | stat.S_IFCHR, os.makedev(1, 3))
        expected["/etc/null.json"] = "device"
    try:
        (tmp_path / "etc/fifo-link.yaml").symlink_to("x.yaml")
        expected["/etc/fifo-link.yaml"] = "fifo"
        _, doc = _no_hang(lambda: scan_dir(tmp_path))
    finally:
        sock.close()
    got = {s["path"]: s["reason"] for s in doc["skipped"]}
    assert {p: got.get(p) for p in expected} == {p: got[p] for p in expected} == expected
    assert model_locations(doc)


def test_pseudo_filesystems_skipped_by_default_and_included_on_request(tmp_path: Path, scan_dir) -> None:
    for top in ("proc", "sys", "dev"):
        write(tmp_path, f"/{top}/1/environ.yaml", f"model: {MODEL}\n")
    _, doc = scan_dir(tmp_path)
    assert {s["path"]: s["reason"] for s in doc["skipped"]} == {
        "/dev": "pseudo-filesystem",
        "/proc": "pseudo-filesystem",
        "/sys": "pseudo-filesystem",
    }
    assert not doc["models"]
    _, doc = scan_dir(tmp_path, include_pseudo=True)
    assert len(model_locations(doc)) == 3


def test_symlink_into_pseudo_filesystem_is_skipped_too(tmp_path: Path) -> None:
    write(tmp_path, "/proc/self/x.yaml", "a: b")
    (tmp_path / "p").symlink_to("/proc")
    files, skips = walk(tmp_path)
    assert reasons(skips) == {"/proc": "pseudo-filesystem", "/p": "pseudo-filesystem"}
    assert not files


def test_oversize_file_parsed_within_the_cap_and_matched_whole(tmp_path: Path, scan_dir) -> None:
    head = f"model: {MODEL}\n".encode()
    body = head + b"x" * (2 << 20) + b"\nmodel: claude-sonnet-4-6\n"
    write(tmp_path, "/var/data/big.yaml", body)
    inv, doc = scan_dir(tmp_path, max_file_size=1 << 20)
    skip = [s for s in doc["skipped"] if s["path"] == "/var/data/big.yaml"]
    assert skip and skip[0]["reason"] == "too-large" and str(1 << 20) in skip[0]["detail"]
    assert MODEL in {m["name"] for m in doc["models"]}
    # Past the cap the file is not parsed, but its patterns are still matched, on the right line.
    [sonnet] = [m for m in doc["models"] if m["name"] == "claude-sonnet-4-6"]
    assert [loc["line"] for loc in sonnet["locations"]] == [3]
    assert doc["stats"]["bytes_read"] == len(body)


def test_sparse_file_is_not_read(tmp_path: Path, scan_dir) -> None:
    path = tmp_path / "var/lib/disk.img"
    path.parent.mkdir(parents=True)
    with path.open("wb") as fh:
        for size in (1 << 44, 1 << 40, 1 << 34):  # 16 TiB where the filesystem allows it
            try:
                fh.truncate(size)
                break
            except OSError:
                continue
    _, doc = scan_dir(tmp_path)
    assert [(s["path"], s["reason"]) for s in doc["skipped"]] == [("/var/lib/disk.img", "sparse")]
    assert doc["stats"]["bytes_read"] == 0


def test_non_utf8_and_control_character_names_are_escaped(tmp_path: Path, scan_dir) -> None:
    raw = os.fsencode(str(tmp_path)) + b"/bad\xff\xfename.yaml"
    with open(raw, "wb") as fh:
        fh.write(f"model: {MODEL}\n".encode())
    write(tmp_path, "/evil\x1b[31m\u202e.yaml", f"model: {MODEL}\n")
    inv, doc = scan_dir(tmp_path)
    paths = {loc["path"] for loc in model_locations(doc)}
    assert "/bad\\xff\\xfename.yaml" in paths
    assert "/evil\x1b[31m\u202e.yaml" in paths  # JSON keeps the name, escaped by the encoder
    table = render("table", inv, ReportOptions(wide=True, all=True))  # whole cells: the escaped name is not cut
    assert "\x1b" not in table and "\u202e" not in table
    assert "\\x1b[31m\\u202e" in table
    json_text = render("json", inv)
    assert "\x1b" not in json_text and "\\u001b" in json_text


def test_depth_300_walks_without_recursion_errors(tmp_path: Path, scan_dir) -> None:
    deep = tmp_path
    for _ in range(300):
        deep = deep / "d"
    deep.mkdir(parents=True)
    (deep / "config.yaml").write_text(f"model: {MODEL}\n")
    _, doc = scan_dir(tmp_path)
    [loc] = model_locations(doc)
    assert loc["path"].count("/d") == 300


def test_scan_changes_nothing_in_the_target(tmp_path: Path, scan_dir) -> None:
    write(tmp_path, "/etc/a.yaml", f"model: {MODEL}\n")
    write(tmp_path, "/opt/bin/daemon", b"\x7fELF" + b"\0" * 64 + MODEL.encode())
    past = 1_000_000_000
    for p in tmp_path.rglob("*"):
        os.utime(p, (past, past), follow_symlinks=False)

    def snapshot() -> list[tuple[str, int, float, float, str]]:
        out = []
        for p in sorted(tmp_path.rglob("*")):
            st = p.lstat()
            digest = _digest_noatime(p) if stat.S_ISREG(st.st_mode) else ""
            out.append((str(p), st.st_mode, st.st_atime, st.st_mtime, digest))
        return out

    before = snapshot()
    scan_dir(tmp_path)
    assert snapshot() == before


def _digest_noatime(path: Path) -> str:
    fd = os.open(path, os.O_RDONLY | getattr(os, "O_NOATIME", 0))  # the check itself must not touch atime
    try:
        return hashlib.sha256(os.read(fd, 1 << 20)).hexdigest()
    finally:
        os.close(fd)


def test_unreadable_file_is_reported_not_fatal(tmp_path: Path) -> None:
    """As an unprivileged user a mode-000 file is `permission-denied`; root reads everything, so drop to nobody."""
    # pytest's tmp_path is private to root; an unprivileged scanner needs a directory it can reach.
    root = Path(tempfile.mkdtemp(prefix="mc-perm-"))
    try:
        root.chmod(0o755)
        write(root, "/etc/secret.yaml", f"model: {MODEL}\n", mode=0o000)
        write(root, "/etc/open.yaml", "model: claude-sonnet-4-6\n", mode=0o644)
        locked = root / "locked"
        locked.mkdir(mode=0o700)
        (locked / "x.yaml").write_text("a: b")
        locked.chmod(0o000)
        python = sys.executable
        kwargs: dict = {"capture_output": True, "text": True, "cwd": REPO, "timeout": 120}
        if os.geteuid() == 0:
            python = _interpreter_for_others()
            if python is None or not _reachable_by_others(root):
                pytest.skip("no interpreter or directory an unprivileged user can reach")
            site = next(p for p in sys.path if p.endswith("site-packages") and p.startswith(sys.prefix))
            kwargs["user"] = kwargs["group"] = 65534
            kwargs["env"] = {"PATH": "/usr/bin:/bin", "HOME": "/tmp", "PYTHONPATH": f"{REPO}:{site}"}
        cmd = [python, "-m", "scanner", "scan", str(root), "-f", "json", "-q"]
        result = subprocess.run(cmd, **kwargs)
        assert result.returncode == 0, result.stderr
        doc = json.loads(result.stdout)
        got = {s["path"]: s["reason"] for s in doc["skipped"]}
        assert got == {"/etc/secret.yaml": "permission-denied", "/locked": "permission-denied"}
        assert "claude-sonnet-4-6" in {m["name"] for m in doc["models"]}
    finally:
        (root / "locked").chmod(0o700)
        subprocess.run(["rm", "-rf", str(root)], check=False)


def _reachable_by_others(path: Path) -> bool:
    return all(p.stat().st_mode & 0o001 for p in [path, *path.parents])


def _interpreter_for_others() -> str | None:
    """This Python's version at a path an unprivileged user may execute (a venv under /root is not)."""
    version = f"{sys.version_info.major}.{sys.version_info.minor}"
    for candidate in (os.path.realpath(sys.executable), f"/usr/bin/python{version}", f"/usr/local/bin/python{version}"):
        path = Path(candidate)
        if path.exists() and path.stat().st_mode & 0o001 and _reachable_by_others(path.parent):
            return candidate
    return None


# --- property: whatever links a tree holds, the walk ends and never leaves the root --------------

@given(ops=link_tree_ops())
@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
def test_walk_is_contained_and_terminates(tmp_path_factory: pytest.TempPathFactory, ops: list) -> None:
    root = tmp_path_factory.mktemp("tree")
    build_link_tree(root, ops)
    target = Walker(str(root))
    real_root = os.path.realpath(root)
    for seen, item in enumerate(target.walk()):
        assert seen < 10_000, "walk does not terminate"
        if isinstance(item, FileEntry):
            host = target.host_path(item.path)
            assert os.path.realpath(host) == host, "a yielded path still holds a symlink"
            assert host.startswith(real_root + "/")
            assert target.read(item, 1 << 16).data.startswith(b"model")


def test_unicode_digits_in_passwd_are_not_ids(tmp_path: Path, scan_dir) -> None:
    """'²' is a digit to str.isdigit but not to int(): a hostile /etc/passwd must not stop the scan."""
    write(tmp_path, "/etc/passwd", "root:x:0:0:root:/root:/bin/sh\nodd:x:²:²:odd:/:/bin/sh\n")
    write(tmp_path, "/etc/agent.env", f"ANTHROPIC_MODEL={MODEL}\n")
    _, doc = scan_dir(tmp_path)
    assert MODEL in {m["name"] for m in doc["models"]}

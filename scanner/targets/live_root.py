"""The running machine's own filesystem: the walker rooted at `/`, with the live root's rules.

There is no second walker: this is `Walker` with kind `live`, one filesystem by default, and
the pseudo and network filesystems that `/proc/self/mounts` names left out (by fstype, wherever they
are mounted), so an audit never reads kernel state as files nor sends a byte over the network.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from scanner.model import Skip
from scanner.targets.base import FileEntry, ReadResult
from scanner.targets.pathglob import PathFilter
from scanner.targets.walker import Walker, WalkOptions

# Kernel and virtual filesystems: their "files" are live state (and reading some has side effects).
PSEUDO_FS = frozenset(
    {
        "proc", "sysfs", "devtmpfs", "devpts", "cgroup", "cgroup2", "securityfs", "debugfs", "tracefs",
        "pstore", "bpf", "configfs", "fusectl", "mqueue", "hugetlbfs", "autofs", "binfmt_misc", "efivarfs",
        "selinuxfs", "rpc_pipefs", "nsfs", "ramfs",
    }
)  # fmt: skip
# Network filesystems: reading them is traffic, which a passive audit never causes.
NETWORK_FS = frozenset(
    {
        "nfs", "nfs4", "cifs", "smb3", "smbfs", "ncpfs", "9p", "ceph", "glusterfs", "afs", "lustre", "gfs2",
        "ocfs2", "fuse.sshfs", "fuse.davfs", "fuse.s3fs", "fuse.rclone", "fuse.gcsfuse", "fuse.glusterfs",
        "fuse.ceph",
    }
)  # fmt: skip
_OCTAL = re.compile(r"\\([0-7]{3})")


def parse_mounts(text: str) -> list[tuple[str, str]]:
    """`/proc/self/mounts` as (mount point, fstype), mount points unescaped (`\\040` is a space)."""
    out = []
    for line in text.splitlines():
        fields = line.split()
        if len(fields) >= 3:
            point = _OCTAL.sub(lambda m: chr(int(m.group(1), 8)), fields[1])
            out.append((point, fields[2]))
    return out


def excluded_mounts(mounts: list[tuple[str, str]], root: str, include_pseudo: bool) -> tuple[tuple[str, str], ...]:
    """Inside paths (relative to `root`) of the mounts a live walk must not enter, with the reason."""
    base = root.rstrip("/")
    found: dict[str, str] = {}
    for point, fstype in mounts:
        network = fstype in NETWORK_FS
        if not network and (include_pseudo or fstype not in PSEUDO_FS):
            continue
        if base and not point.startswith(base + "/"):
            continue
        inside = point[len(base) :] if base else point
        if inside not in ("", "/"):
            found[inside] = f"{'network' if network else 'pseudo'} filesystem {fstype}"
    return tuple(sorted(found.items()))


def read_mounts(path: str = "/proc/self/mounts") -> list[tuple[str, str]]:
    try:
        with open(path, encoding="utf-8", errors="surrogateescape") as f:
            return parse_mounts(f.read())
    except OSError:
        return []  # no /proc: the top-level pseudo dirs are still skipped by the walker


def live_target(
    root: str = "/",
    one_file_system: bool = True,
    include_pseudo: bool = False,
    mounts: list[tuple[str, str]] | None = None,
    paths: PathFilter | None = None,
) -> Walker:
    """The filesystem part of a live audit. `root` is `/` except in tests, which point it at a tree of their own."""
    table = read_mounts() if mounts is None else mounts
    options = WalkOptions(include_pseudo, one_file_system, excluded_mounts(table, root, include_pseudo),
                          paths or PathFilter())
    return Walker(root, options, kind="live")


class Unwalked:
    """A target whose files are read on demand (`/etc/hosts`, `/etc/passwd`) but never walked: `--live-only`."""

    def __init__(self, inner: Walker) -> None:
        self.inner = inner
        self.info = inner.info

    @property
    def shareable(self) -> bool:
        return False  # never walked: nothing to share

    def walk(self) -> Iterator[FileEntry | Skip]:
        return iter(())

    def read(self, entry: FileEntry, limit: int) -> ReadResult:
        return self.inner.read(entry, limit)

    def read_window(self, entry: FileEntry, offset: int, size: int) -> bytes:
        return self.inner.read_window(entry, offset, size)

    def read_path(self, inside_path: str, limit: int) -> bytes | None:
        return self.inner.read_path(inside_path, limit)

    def origin_of(self, inside_path: str) -> str | None:
        return self.inner.origin_of(inside_path)

"""Give sample_vm's files the modes and owners the VM gives them (git stores neither).

Usage: apply_perms.py ROOT PERMS_FILE. Each line of PERMS_FILE is `MODE USER:GROUP /inside/path`.
Owners are looked up in ROOT's own /etc/passwd and /etc/group; chown happens only as root.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path


def ids(db: Path) -> dict[str, int]:
    out = {}
    for line in db.read_text().splitlines():
        fields = line.split(":")
        if len(fields) >= 3 and fields[2].isdigit():
            out[fields[0]] = int(fields[2])
    return out


def main(root: str, perms: str) -> None:
    base = Path(root)
    users, groups = ids(base / "etc/passwd"), ids(base / "etc/group")
    as_root = os.geteuid() == 0
    for line in Path(perms).read_text().splitlines():
        if not line.strip() or line.startswith("#"):
            continue
        mode, owner, inside = line.split(maxsplit=2)
        target = base / inside.lstrip("/")
        if as_root:
            user, _, group = owner.partition(":")
            os.chown(target, users[user], groups[group], follow_symlinks=False)
        os.chmod(target, int(mode, 8))


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])

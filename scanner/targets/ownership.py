"""File owners named by the target's own `/etc/passwd` and `/etc/group`, never the host's."""

from __future__ import annotations

import stat

from scanner.model import FileMeta
from scanner.targets.base import FileEntry, Target
from scanner.textsafe import decode

_MAX_DB = 4 << 20


def _ids(data: bytes | None) -> dict[int, str]:
    names: dict[int, str] = {}
    for line in decode(data or b"").splitlines():
        fields = line.split(":")
        if len(fields) >= 3 and fields[2].isascii() and fields[2].isdigit() and not line.startswith("#"):
            names.setdefault(int(fields[2]), fields[0])
    return names


class Ownership:
    def __init__(self, users: dict[int, str], groups: dict[int, str]) -> None:
        self.users = users
        self.groups = groups

    @classmethod
    def of(cls, target: Target) -> Ownership:
        return cls(_ids(target.read_path("/etc/passwd", _MAX_DB)), _ids(target.read_path("/etc/group", _MAX_DB)))

    def meta(self, entry: FileEntry) -> FileMeta:
        user = self.users.get(entry.uid, str(entry.uid))
        group = self.groups.get(entry.gid, str(entry.gid))
        return FileMeta(mode=f"{stat.S_IMODE(entry.mode):04o}", owner=f"{user}:{group}")

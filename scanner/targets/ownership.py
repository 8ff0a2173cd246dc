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


def _homes(data: bytes | None) -> dict[str, str]:
    """Home directory -> user name, from passwd lines (a home of `/` or none names no one)."""
    homes: dict[str, str] = {}
    for line in decode(data or b"").splitlines():
        fields = line.split(":")
        if len(fields) >= 6 and not line.startswith("#") and fields[5] not in ("", "/"):
            homes.setdefault(fields[5].rstrip("/"), fields[0])
    return homes


def home_of_path(path: str) -> str | None:
    """The user a conventional home names (`/root/...`, `/home/NAME/...`), when no passwd says otherwise."""
    parts = path.split("/")
    if len(parts) > 2 and parts[1] == "root":
        return "root"
    if len(parts) > 3 and parts[1] == "home":
        return parts[2]
    return None


class Ownership:
    def __init__(self, users: dict[int, str], groups: dict[int, str], homes: dict[str, str] | None = None) -> None:
        self.users = users
        self.groups = groups
        self.homes = homes or {}

    @classmethod
    def of(cls, target: Target) -> Ownership:
        passwd = target.read_path("/etc/passwd", _MAX_DB)
        return cls(_ids(passwd), _ids(target.read_path("/etc/group", _MAX_DB)), _homes(passwd))

    def user_of(self, path: str) -> str | None:
        """The user whose home holds `path`: the target's passwd names it, else the home directory's name."""
        best = max((h for h in self.homes if path.startswith(h + "/")), key=len, default=None)
        return self.homes[best] if best is not None else home_of_path(path)

    def meta(self, entry: FileEntry) -> FileMeta:
        user = self.users.get(entry.uid, str(entry.uid))
        group = self.groups.get(entry.gid, str(entry.gid))
        return FileMeta(mode=f"{stat.S_IMODE(entry.mode):04o}", owner=f"{user}:{group}")

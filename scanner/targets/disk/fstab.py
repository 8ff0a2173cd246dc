"""An image's `/etc/fstab` read as the machine would mount it, and its device names matched to what the image
holds. Pure functions: the text in, entries out; an identity and an entry in, whether they name the same thing."""

from __future__ import annotations

import re
from dataclasses import dataclass, field

# Filesystems that are no file data of the image (memory, kernel views, swap) or live elsewhere (network).
_NOT_IN_IMAGE = frozenset({
    "swap", "proc", "sysfs", "tmpfs", "devtmpfs", "devpts", "ramfs", "cgroup", "cgroup2", "securityfs", "debugfs",
    "tracefs", "mqueue", "hugetlbfs", "pstore", "bpf", "efivarfs", "configfs", "fusectl", "binfmt_misc", "autofs",
    "nfs", "nfs4", "cifs", "smb3", "smbfs", "sshfs", "9p", "virtiofs", "overlay", "none",
})
_ESCAPE = re.compile(r"\\([0-7]{3})")
_PARTITION = re.compile(r"^/dev/(?:[shv]d[a-z]+|xvd[a-z]+|nvme\d+n\d+p|mmcblk\d+p)(\d+)$")


@dataclass(frozen=True)
class FstabEntry:
    device: str
    point: str
    fstype: str
    options: dict[str, str] = field(default_factory=dict)


@dataclass(frozen=True)
class VolumeIdentity:
    """What an fstab line can name a filesystem by."""

    fstype: str
    uuid: str | None = None
    label: str | None = None
    part_uuid: str | None = None
    part_label: str | None = None
    volume: str | None = None  # an LVM volume as `vg-lv` (hyphens in either doubled), or a partition's name
    partition: int | None = None
    subvolume: str | None = None  # a btrfs subvolume's path from the top level (`@home`), "" for the top level
    subvolume_id: int | None = None
    default_subvolume: bool = False


def _unescape(text: str) -> str:
    return _ESCAPE.sub(lambda m: chr(int(m.group(1), 8)), text)


def parse_fstab(text: str) -> list[FstabEntry]:
    """Every line that mounts a filesystem the image could hold (not swap, not memory, not network)."""
    out = []
    for line in text.splitlines():
        fields = line.split()
        if len(fields) < 2 or fields[0].startswith("#"):
            continue
        device, point = _unescape(fields[0]), _unescape(fields[1])
        fstype = fields[2] if len(fields) > 2 else "auto"
        if fstype in _NOT_IN_IMAGE or fstype.startswith("fuse") or not point.startswith("/"):
            continue
        options = {}
        for option in (fields[3] if len(fields) > 3 else "defaults").split(","):
            name, _, value = option.partition("=")
            options[name] = value
        if "bind" in options or "rbind" in options:
            continue  # a view of another mount, walked where that one is
        out.append(FstabEntry(device, _clean_point(point), fstype, options))
    return out


def _clean_point(point: str) -> str:
    parts = [p for p in point.split("/") if p not in ("", ".")]
    return "/" + "/".join(parts)


def _norm(value: str) -> str:
    return value.strip().strip('"').lower()


def names(entry: FstabEntry, ident: VolumeIdentity) -> bool:
    """Whether the entry's device (and for btrfs its `subvol=`/`subvolid=`) is this filesystem."""
    if not _device_matches(entry.device, ident):
        return False
    if ident.fstype != "btrfs":
        return True
    if "subvolid" in entry.options:
        try:
            return int(entry.options["subvolid"]) == ident.subvolume_id
        except ValueError:
            return False
    if "subvol" in entry.options:
        return entry.options["subvol"].strip("/") == (ident.subvolume or "")
    return ident.default_subvolume


def _device_matches(device: str, ident: VolumeIdentity) -> bool:
    key, eq, value = device.partition("=")
    if eq and key.upper() in ("UUID", "LABEL", "PARTUUID", "PARTLABEL"):
        kind, wanted = key.upper(), value
    else:
        found = re.match(r"^/dev/disk/by-(uuid|label|partuuid|partlabel)/(.+)$", device)
        if found:
            kind = found.group(1).upper()
            wanted = found.group(2).replace("\\x2f", "/").replace("\\x20", " ")
        else:
            return _dev_path_matches(device, ident)
    have = {"UUID": ident.uuid, "LABEL": ident.label, "PARTUUID": ident.part_uuid, "PARTLABEL": ident.part_label}[kind]
    if have is None:
        return False
    return _norm(have) == _norm(wanted) if kind in ("UUID", "PARTUUID") else have == wanted.strip('"')


def _dev_path_matches(device: str, ident: VolumeIdentity) -> bool:
    if device.startswith("/dev/mapper/"):
        return ident.volume is not None and ident.volume == device[len("/dev/mapper/") :]
    lvm = re.match(r"^/dev/([^/]+)/([^/]+)$", device)
    if lvm:
        vg, lv = lvm.group(1), lvm.group(2)
        return ident.volume == f"{vg.replace('-', '--')}-{lv.replace('-', '--')}"
    part = _PARTITION.match(device)
    return part is not None and ident.partition == int(part.group(1))

"""The kernel value types every kind of fact shares: where something was seen, what was skipped, a finding,
the target and the catalogs a scan read, its counters.

Everything here is a plain frozen dataclass. Each kind of fact's own evidence and entry types live in its module
of `scanner/kinds/`; `Inventory` and the `Evidence` union are in `scanner.kinds`. A credential's secret value
never enters any of these types: only its redacted form and its hash do (see `scanner.secrets`).
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import Enum
from typing import Any

# The vocabularies live in scanner.vocab; the types that use them are here.
from scanner.vocab import WIRING_CONTEXTS as WIRING_CONTEXTS
from scanner.vocab import CatalogStatus as CatalogStatus
from scanner.vocab import Confidence as Confidence
from scanner.vocab import Context as Context
from scanner.vocab import Severity as Severity

#: How many locations an inventory entry keeps (the first, in a stable order); detectors need not make more.
MAX_LOCATIONS = 200


class SkipReason(str, Enum):
    FIFO = "fifo"
    SOCKET = "socket"
    DEVICE = "device"
    OTHER_TYPE = "not-regular"
    PERMISSION_DENIED = "permission-denied"
    SYMLINK_OUTSIDE_ROOT = "symlink-outside-root"
    SYMLINK_LOOP = "symlink-loop"
    SYMLINK_BROKEN = "symlink-broken"
    TOO_LARGE = "too-large"
    SPARSE = "sparse"
    PSEUDO_FILESYSTEM = "pseudo-filesystem"
    READ_ERROR = "read-error"
    CHANGED = "changed-while-reading"
    DETECTOR_ERROR = "detector-error"
    BUDGET_EXCEEDED = "budget-exceeded"  # a parser ran out of its work budget for the file
    DECOMPRESSION_LIMIT = "decompression-limit"  # an archive or gzip member inflated past its cap
    PARSE_ERROR = "parse-error"  # a structured file that did not parse; what could be read line by line was
    CAP_REACHED = "cap-reached"  # a bound on distinct items was reached; the detail says what was cut and how much
    PROCESS_GONE = "process-gone"  # live audit: a process in scope exited or never existed
    EXCLUDED = "excluded"  # left out on purpose by --exclude or --skip-dirs; the detail names the glob


@dataclass(frozen=True, init=False, slots=True)
class Location:
    path: str  # inside-target path, already escaped for display (backslashreplace)
    line: int | None = None
    context: Context = Context.CONFIG
    parse_error: bool = False
    via: str | None = None  # the symlink the file was reached through
    layer: str | None = None  # a container image's layer (digest) the file came from

    # One is made per sighting, and an inventory keeps up to MAX_LOCATIONS of them per entry: a scan of sessions
    # that quote a price list holds ~350,000. Slotted, one takes 120 bytes where one with a __dict__ took 370.
    # The fields are set one by one with the slot's own setter (a frozen dataclass's __init__ looks each up anew).
    def __init__(
        self, path: str, line: int | None = None, context: Context = Context.CONFIG, parse_error: bool = False,
        via: str | None = None, layer: str | None = None,
    ) -> None:
        _set(self, "path", path)
        _set(self, "line", line)
        _set(self, "context", context)
        _set(self, "parse_error", parse_error)
        _set(self, "via", via)
        _set(self, "layer", layer)

    def __reduce__(self) -> tuple[type[Location], tuple[Any, ...]]:
        # By its constructor: a slotted dataclass's own pickling calls a Python function per object and sends the
        # field names; this sends the values alone (18 bytes where that sent 33) and loads faster.
        return (Location, (self.path, self.line, self.context, self.parse_error, self.via, self.layer))


_set = object.__setattr__


def location_key(loc: Location) -> tuple[str, int, str, str]:
    """The one stable order of locations (path, line, symlink, context)."""
    return (loc.path, loc.line or 0, loc.via or "", loc.context.value)


@dataclass(frozen=True)
class FileMeta:
    """Ownership facts of a file, resolved against the target's own passwd/group."""

    mode: str  # "0400"
    owner: str  # "user:group"


@dataclass(frozen=True, order=True)
class Skip:
    path: str
    reason: SkipReason
    detail: str = ""
    # When this skip stands for several of one reason in one file (20,000 unreadable members of a jar): how many,
    # and the details of the first few. The list of skips grows with the files, not with their entries.
    count: int | None = None
    members: tuple[str, ...] = ()


@dataclass(frozen=True)
class Finding:
    id: str
    severity: Severity
    title: str
    locations: tuple[Location, ...] = ()
    locations_cut: int = 0  # locations past the ones a finding keeps: counted, not listed


@dataclass(frozen=True)
class CatalogRef:
    name: str
    version: str
    origin: str  # "builtin" or the path given


@dataclass(frozen=True)
class AuditPart:
    """One part of a live audit and whether it saw everything it was asked to look at."""

    name: str  # filesystem | processes | environment | open-files | connections
    status: str  # complete | partial | skipped
    detail: str = ""


@dataclass(frozen=True)
class LiveHost:
    """The running machine a live audit looked at. Times are ISO 8601 UTC."""

    hostname: str
    kernel: str
    boot_time: str | None
    audit_time: str
    processes_inspected: int
    parts: tuple[AuditPart, ...] = ()


# What became of one part of an image (a container layer, a disk's filesystem): read whole, or not.
PART_COMPLETE = "complete"
PART_INCOMPLETE = "incomplete"  # read part-way: a read or parse failed, or its digest did not match
PART_ON_INCOMPLETE_BASE = "on-incomplete-base"  # a layer read whole above a layer that was not
PART_NOT_READ = "not-read"  # found but unreadable (an encrypted volume)


@dataclass(frozen=True)
class ImageLayer:
    digest: str
    media_type: str | None
    size: int | None
    status: str = PART_COMPLETE
    detail: str = ""  # what failed, for any other status


@dataclass(frozen=True)
class ImageInfo:
    """What a container image scan read: its format, manifest digest, platform and layers (bottom first)."""

    format: str  # docker-archive | oci-archive | oci-layout
    digest: str | None
    platform: str | None
    layers: tuple[ImageLayer, ...] = ()
    tags: tuple[str, ...] = ()


@dataclass(frozen=True)
class DiskFilesystem:
    type: str  # ext | xfs | btrfs | luks | …
    mount: str | None  # where the image's /etc/fstab (or being the root) puts it; None when not walked
    volume: str | None
    size: int | None
    subvolume: str | None = None  # a btrfs subvolume's path ("" for the top level)
    status: str = PART_COMPLETE
    detail: str = ""


@dataclass(frozen=True)
class DiskInfo:
    """What a disk image scan read: its format and every filesystem found in it."""

    format: str  # raw | qcow2 | vmdk | vhd | vhdx
    filesystems: tuple[DiskFilesystem, ...] = ()


@dataclass(frozen=True)
class TargetInfo:
    kind: str  # directory | container-image | disk-image | live
    location: str
    live: LiveHost | None = None  # only for kind "live"
    image: ImageInfo | None = None  # only for kind "container-image"
    disk: DiskInfo | None = None  # only for kind "disk-image"


@dataclass
class Stats:
    files_seen: int = 0
    files_read: int = 0
    bytes_read: int = 0
    seconds: float = 0.0



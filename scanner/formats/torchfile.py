"""PyTorch checkpoints (`.bin`, `.pt`, `.pth`, `.ckpt`) and plain pickles (`.pkl`): which form, which globals.

`torch.save` writes a zip (since 1.6) whose one pickle is `<name>/data.pkl`, beside the raw storages under
`<name>/data/`; the legacy form is a run of pickles (a magic number, the protocol version, system info, the
object, the storage keys) followed by the raw storages. Either way the objects are rebuilt by the globals the
pickles import, so those are what is reported (`scanner.formats.pickles`). The zip is read in place (its
directory, then `data.pkl` alone); a legacy file by its first `MAX_PICKLE` bytes.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import Enum

from scanner.formats import pickles, ziparchive
from scanner.formats.bounded import FailureKind, FormatFailure, ReadAt
from scanner.formats.positional import PositionalFile

MAX_PICKLE = 32 << 20  # bytes of pickle scanned (a 70B model's data.pkl is well under 1 MB)
ZIP_MAGIC = b"PK\x03\x04"
# The legacy form opens with the protocol-2 pickle of torch's magic number 0x1950a86a20f9469cfc6c.
LEGACY_MAGIC = b"\x80\x02\x8a\x0a\x6c\xfc\x9c\x46\xf9\x20\x6a\xa8\x50\x19\x2e"
_LEGACY_PICKLES = 5  # magic, protocol version, sys info, the object, the storage keys


class PickleForm(str, Enum):
    ZIP = "zip-pickle"  # torch.save's zip: one data.pkl and raw storages
    LEGACY = "legacy-pickle"  # torch.save's pre-1.6 run of pickles
    PLAIN = "pickle"  # a bare pickle (.pkl, joblib, a legacy state dict saved with pickle itself)


@dataclass(frozen=True)
class PickleFile:
    form: PickleForm
    protocol: int | None
    globals: tuple[str, ...]  # "module.name" in first-seen order; "?" for a name built at load time
    pickle_member: str | None  # the zip member scanned (`model/data.pkl`)
    problem: str | None  # what of the pickles was not scanned, and why


def looks_like_legacy(head: bytes) -> bool:
    return head.startswith(LEGACY_MAGIC)


def read_pickle_file(read: ReadAt, size: int) -> PickleFile | FormatFailure:
    """The form and imported globals of a checkpoint or pickle of `size` bytes."""
    head = read(0, 16)
    if head.startswith(ZIP_MAGIC):
        return _zip(read, size)
    data = read(0, min(size, MAX_PICKLE))
    if looks_like_legacy(head):
        return _run(data, PickleForm.LEGACY, _LEGACY_PICKLES, size)
    if pickles.looks_like(head) or head[:1] in (b"(", b"]", b"}", b"c", b"\x80"):
        return _run(data, PickleForm.PLAIN, 1, size)
    return FormatFailure("pickle", FailureKind.NOT_THIS_FORMAT, "neither a zip nor a pickle")


def _zip(read: ReadAt, size: int) -> PickleFile | FormatFailure:
    problems: list[ziparchive.ZipProblem] = []
    wanted = [m for m in ziparchive.members(PositionalFile(read, size), _is_data_pkl, problems, MAX_PICKLE)]
    if not wanted:
        why = problems[0].detail if problems else "no data.pkl member: a zip, not a PyTorch checkpoint"
        return FormatFailure("pickle", FailureKind.NOT_THIS_FORMAT if not problems else FailureKind.MALFORMED, why)
    member = wanted[0]
    found = pickles.scan(member.data)
    return PickleFile(PickleForm.ZIP, found.protocol, found.globals, member.name, found.problem)


def _is_data_pkl(name: str) -> bool:
    # torch writes `<archive name>/data.pkl`; a checkpoint repacked by hand may hold it at the top.
    return name == "data.pkl" or (name.endswith("/data.pkl") and name.count("/") == 1)


def _run(data: bytes, form: PickleForm, count: int, size: int) -> PickleFile:
    """The globals of up to `count` pickles one after another from the start of `data`."""
    globals_: dict[str, None] = {}
    protocol: int | None = None
    offset, problem = 0, None
    for _ in range(count):
        found = pickles.scan(data, offset)
        protocol = protocol if protocol is not None else found.protocol
        globals_.update(dict.fromkeys(found.globals))
        if found.end is None:
            problem = f"scanned the first {len(data)} bytes only" if len(data) < size else found.problem
            break
        offset = found.end
    return PickleFile(form, protocol, tuple(globals_), None, problem)

"""What an executable's head looks like: a file-format fact the pipeline and the binaries detector share."""

from __future__ import annotations

EXECUTABLE_MAGICS = (
    b"\x7fELF",
    b"MZ",
    b"\xcf\xfa\xed\xfe",
    b"\xce\xfa\xed\xfe",
    b"\xfe\xed\xfa\xcf",
    b"\xca\xfe\xba\xbe",
)


def is_executable(head: bytes) -> bool:
    """An executable's magic, and the NUL bytes its headers hold: a text file that merely starts with `MZ` is not
    one."""
    return head.startswith(EXECUTABLE_MAGICS) and b"\0" in head[:8192]

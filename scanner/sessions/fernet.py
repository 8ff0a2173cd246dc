"""Reading a Fernet token's creation time without its key.

A Fernet token is urlsafe base64 of: version byte 0x80, 8-byte big-endian Unix seconds, 16-byte IV,
AES-128-CBC ciphertext (whole 16-byte blocks), 32-byte HMAC-SHA256. Only the layout is checked here;
nothing is decrypted, and no key is ever needed.
"""

from __future__ import annotations

import base64
import binascii
import struct

_VERSION = 0x80
_HEADER = 1 + 8 + 16
_HMAC = 32
_MAX_TOKEN = 1 << 20  # a reasoning blob is kilobytes; a megabyte is already absurd


def fernet_time(token: str) -> int | None:
    """The token's embedded Unix time, or None when `token` is not a well-formed Fernet token."""
    if not token.startswith("gAAAAA") or len(token) > _MAX_TOKEN:
        return None
    try:
        raw = base64.urlsafe_b64decode(token + "=" * (-len(token) % 4))
    except (binascii.Error, ValueError):
        return None
    body = len(raw) - _HEADER - _HMAC
    if raw[0] != _VERSION or body < 16 or body % 16:
        return None
    (seconds,) = struct.unpack(">Q", raw[1:9])
    return int(seconds)


def strip_tag(value: str) -> tuple[str | None, str]:
    """`gpt_responses_v1:gAAAA…` -> ("gpt_responses_v1", "gAAAA…"); an untagged value is returned as is."""
    head, sep, rest = value.partition(":")
    if sep and rest.startswith("gAAAAA") and head and len(head) <= 41:
        return head, rest
    return None, value

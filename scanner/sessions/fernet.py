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
    size = _plain_size(token)
    if size is None:  # padding or other characters: decoded whole, as the standard library reads them
        try:
            raw = base64.urlsafe_b64decode(token + "=" * (-len(token) % 4))
        except (binascii.Error, ValueError):
            return None
        size, head = len(raw), raw[:9]
    elif size - _HEADER - _HMAC < 16 or (size - _HEADER - _HMAC) % 16:
        return None
    else:
        head = base64.urlsafe_b64decode(token[:12])  # version and time: the first three 4-character groups
    body = size - _HEADER - _HMAC
    if head[0] != _VERSION or body < 16 or body % 16:
        return None
    (seconds,) = struct.unpack(">Q", head[1:9])
    return int(seconds)


_ALPHABET = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_"


def _plain_size(token: str) -> int | None:
    """The bytes a token of url-safe base64 characters decodes to, counted rather than decoded (a reasoning blob
    is kilobytes, and only its first 9 bytes are read): without padding, or with exactly the padding it needs;
    None for any other token."""
    data = token.rstrip("=")
    padding = len(token) - len(data)
    if len(data) % 4 == 1 or (padding and padding != -len(data) % 4):
        return None
    if not data.isascii() or data.encode("ascii").translate(None, _ALPHABET):
        return None
    return len(data) * 3 // 4


def strip_tag(value: str) -> tuple[str | None, str]:
    """`gpt_responses_v1:gAAAA…` -> ("gpt_responses_v1", "gAAAA…"); an untagged value is returned as is."""
    head, sep, rest = value.partition(":")
    if sep and rest.startswith("gAAAAA") and head and len(head) <= 41:
        return head, rest
    return None, value

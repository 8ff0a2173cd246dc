"""Text that came from the target is hostile: make it safe to show.

File names that are not UTF-8 are shown with `\\xNN` escapes; control characters never reach a terminal raw.
"""

from __future__ import annotations

import re

_CONTROL = re.compile(r"[\x00-\x1f\x7f-\x9f\u2028\u2029\u202a-\u202e\u2066-\u2069]")


def display_path(path: str) -> str:
    """An OS path string (surrogate-escaped bytes included) with undecodable bytes as `\\xNN`. A backslash the
    name itself holds before `xNN` is written `\\x5c`, so that `\\xNN` in a shown path always means a byte and
    the bytes can be had back (`path_bytes`)."""
    if path.isascii() and "\\x" not in path:
        return path  # most paths: nothing to escape (an ASCII string has no surrogate)
    if "\\x" in path:
        path = _LITERAL_ESCAPE.sub(r"\\x5c", path)
    return path.encode("utf-8", "surrogateescape").decode("utf-8", "backslashreplace")


_LITERAL_ESCAPE = re.compile(r"\\(?=x[0-9a-fA-F]{2})")
_BYTE_ESCAPE = re.compile(r"\\x([0-9a-fA-F]{2})")


def path_bytes(shown: str) -> bytes:
    """The bytes of a path as `display_path` showed it: each `\\xNN` is the byte NN, the rest UTF-8."""
    out = bytearray()
    pos = 0
    for m in _BYTE_ESCAPE.finditer(shown):
        out += shown[pos:m.start()].encode("utf-8", "surrogateescape")
        out.append(int(m.group(1), 16))
        pos = m.end()
    return bytes(out + shown[pos:].encode("utf-8", "surrogateescape"))


def decode(data: bytes) -> str:
    """Bytes of the target as text: invalid UTF-8 becomes `\\xNN` escapes, never an error."""
    return data.decode("utf-8", "backslashreplace")


def escape_control(text: str) -> str:
    """Control and bidi-override characters as visible escapes, for terminal output."""
    return _CONTROL.sub(lambda m: _escape_char(m.group()), text)


def _escape_char(ch: str) -> str:
    code = ord(ch)
    if code <= 0xFF:
        return f"\\x{code:02x}"
    return f"\\u{code:04x}"


_SURROGATE = re.compile(r"[\ud800-\udfff]")


def unsurrogate(text: str) -> str:
    """Lone surrogates (undecodable bytes carried by `surrogateescape`) as `\\xNN` text: valid UTF-8 everywhere."""
    if not _SURROGATE.search(text):
        return text
    return _SURROGATE.sub(lambda m: _surrogate_escape(m.group()), text)


def _surrogate_escape(ch: str) -> str:
    code = ord(ch)
    return f"\\x{code - 0xDC00:02x}" if 0xDC80 <= code <= 0xDCFF else f"\\u{code:04x}"


def safe(value: object) -> str:
    """The one step every report format applies to text from the target: valid UTF-8, one line, no raw control or
    bidi character. Undecodable bytes and control characters both become visible `\\xNN` escapes."""
    text = "" if value is None else str(value)
    return escape_control(unsurrogate(text))

"""Literals in bytes: the token a match sits in, the string a length header or a marshalled .pyc bounds, and
whether a token is a word of a sentence. Byte-level and catalog-free; `catalog/packed_ids.py` reads ids in them."""

from __future__ import annotations

import re

from scanner.textsafe import decode

# Characters a model token can be made of (`us.anthropic.claude-opus-4-7`, `azure/muse-special`).
_TOKEN_BYTES = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789._:@/-"
TOKEN = frozenset(_TOKEN_BYTES)
TOKEN_TRIM = "._:/-@"  # what a token loses at its ends
MAX_TOKEN = 160
ALNUM = frozenset(b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789")
# Bytes that join a word to what follows: an id right after one of these is the tail of a longer word.
JOINED = ALNUM | frozenset(b"-_")


# marshal's short string types (ascii, ascii interned, and both with FLAG_REF): a type byte, a length byte,
# then exactly that many bytes. A .pyc holds its strings this way, back to back.
_MARSHAL_SHORT = frozenset({0x7A, 0x5A, 0xFA, 0xDA})


# Running text around a token: a word and a blank before it (an opening bracket or quote may follow), and after
# it, past closing punctuation, a blank and a word. `(e.g. anthropic.claude-sonnet-4-5-v1:0) or an`, `not
# \`claude-opus-4-6-20251101\`). Guessing`, `(for example, `gemini-3-preview`). Defaults`.
_WORD_BEFORE = re.compile(rb"(?:^|[\s(])[A-Za-z][A-Za-z.]+[,;]? [(\[`'\"\\]{0,3}\Z")
_WORD_AFTER = re.compile(rb"[`'\"\\)\].,;:!?]{0,4} [(\[]?[A-Za-z]{2,}")
_SENTENCE_REACH = 64


def in_sentence(data: bytes, lo: int, hi: int) -> bool:
    """Whether the token data[lo:hi] is a word of a sentence (a message, help text, a docs example), which
    names a model in passing: a family grammar matched inside a sentence is not an id.
    A whole quoted literal (`case "gpt-4o": return`) is code, never prose."""
    if 0 < lo and hi < len(data) and data[lo - 1] == data[hi] and data[hi] in b"\"'":
        return False
    return bool(_WORD_BEFORE.search(data, max(0, lo - _SENTENCE_REACH), lo)) and bool(_WORD_AFTER.match(data, hi))


def marshal_string(data: bytes, start: int, end: int) -> tuple[int, int] | None:
    """The bounds of the marshalled short string a hit starts in (a .pyc): a hit may run past its end."""
    for p in range(start, max(1, start - MAX_TOKEN) - 1, -1):
        if p >= 2 and data[p - 2] in _MARSHAL_SHORT and p + data[p - 1] > start:
            return p, p + data[p - 1]
        if p < start and data[p] not in TOKEN:
            return None
    return None


def run_around(data: bytes, start: int, end: int) -> tuple[int, int]:
    """The run of token characters around a hit, at most MAX_TOKEN each side."""
    # Stripped in C: a loop over the bytes costs a model hit of a proxy log more than all its other checks.
    before = data[max(0, start - MAX_TOKEN) : start]
    after = data[end : end + MAX_TOKEN]
    return start - (len(before) - len(before.rstrip(_TOKEN_BYTES))), end + len(after) - len(after.lstrip(_TOKEN_BYTES))


class Runs:
    """`run_around` for one file's hits in order of offset, each found with less work than a fresh look: a hit
    between two bytes no token holds (an id in quotes) is its own run, and a hit inside the last run found whole
    (all token bytes, ended by a byte no token holds or by the data, not cut at MAX_TOKEN) has that run (the
    `grok-4` inside a proxy log's `xai/grok-4`, the hit before it). Either way the run is the one `run_around`
    gives; `around` also gives its bytes."""

    __slots__ = ("data", "size", "lo", "hi", "token")

    def __init__(self, data: bytes) -> None:
        self.data, self.size = data, len(data)
        self.lo, self.hi, self.token = 1, 0, b""  # no run yet: none holds a hit

    def around(self, start: int, end: int, text: bytes) -> tuple[int, int, bytes]:
        """The run around data[start:end] (which is `text`), and its bytes."""
        lo, hi = self.lo, self.hi
        if lo <= start and end <= hi and start - lo <= MAX_TOKEN and hi - end <= MAX_TOKEN:
            return lo, hi, self.token
        data, size = self.data, self.size
        if 0 < start and end < size and data[start - 1] not in TOKEN and data[end] not in TOKEN:
            lo, hi, token = start, end, text
        else:
            lo, hi = run_around(data, start, end)
            token = data[lo:hi]
        # Whole: what it holds past the hit is token bytes (run_around's), and so is the hit; its ends are where
        # token bytes end, not where MAX_TOKEN cut the look (a cut run is a shorter one's for a later hit).
        if (lo == 0 or start - lo < MAX_TOKEN) and (hi == size or hi - end < MAX_TOKEN) and not text.translate(
            None, _TOKEN_BYTES
        ):
            self.lo, self.hi, self.token = lo, hi, token
        else:
            self.lo, self.hi, self.token = 1, 0, b""
        return lo, hi, token


def sized(data: bytes, lo: int, hi: int) -> tuple[int, int]:
    """A run cut to the string it starts when a length header says how long that is: JavaScriptCore's (Bun's)
    string table lays each string out as [u32 length | 1<<31][u32 hash, last byte 0][bytes], so the byte after
    `claude-haiku-3-5` can be the next header's `5`, which is not part of the id.

    x86-64 code compares a literal eight bytes at a time with `movabs r64, imm64` (REX.W 48-4F, opcode B8-BF):
    `48 ba "gpt-5.6-" 31 f6` is the immediate `gpt-5.6-` then `xor esi, esi`, not an id `gpt-5.6-1`. The
    immediate is the whole string there. (In UTF-8 text an ASCII byte is never followed by B8-BF, a
    continuation byte, so this never cuts a literal of a string table.)"""
    if lo >= 8 and data[lo - 5] == 0x80 and data[lo - 1] == 0:
        length = int.from_bytes(data[lo - 8 : lo - 4], "little") & 0x7FFFFFFF
        if 0 < length < hi - lo:
            return lo, lo + length
    if lo >= 2 and 0x48 <= data[lo - 2] <= 0x4F and 0xB8 <= data[lo - 1] <= 0xBF and hi - lo > _IMM64:
        return lo, lo + _IMM64
    return lo, hi


_IMM64 = 8


def token_around(data: bytes, start: int, end: int) -> str:
    lo, hi = run_around(data, start, end)
    return decode(data[lo:hi]).strip(TOKEN_TRIM)

"""The SHA-256 of a weight file, computed from the pieces a scan reads anyway, and a store's digest checked.

A scan reads a big file as a head and then windows that overlap. `StreamingDigest` is fed each piece with
its offset, hashes only the bytes past what it has hashed (so overlaps cost nothing and nothing is read
twice) and holds no piece, so memory stays flat for a 50 GB file. A gap (a piece skipped, a file that
changed size) leaves the digest incomplete rather than wrong. `digest_positional` reads a file through a
positional read when nothing else reads it. A sparse file is not hashed at all: its holes would be hashed
as zeros for nothing (the walker records it; `is_sparse` is its rule, shared here).

Stores name blobs by their digest: Ollama `sha256-<hex>`, Hugging Face `<sha256>` for LFS files and git's
blob SHA-1 (`blob <size>\\0` + bytes) for small ones. `check` compares what a name claims with what the
bytes give.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from enum import Enum

from scanner.formats.bounded import ReadAt

PIECE = 1 << 20
# The walker's rule (scanner/targets/walked_entry.py): a file of 1 MiB or more with under 1/8 of it allocated.
SPARSE_MIN_SIZE = 1 << 20
SPARSE_RATIO = 8


class Algorithm(str, Enum):
    SHA256 = "sha256"
    GIT_SHA1 = "git-sha1"  # git's blob hash: SHA-1 over "blob <size>\0" + the bytes


class Verdict(str, Enum):
    MATCH = "match"
    MISMATCH = "mismatch"
    UNCHECKED = "unchecked"  # no digest was computed (sparse, incomplete, skipped)


@dataclass(frozen=True)
class FileDigest:
    algorithm: Algorithm
    hexdigest: str | None  # None when the file was not hashed whole (see `reason`)
    hashed: int  # bytes hashed
    size: int
    reason: str | None = None  # why there is no digest: sparse, a gap, a short read


@dataclass(frozen=True)
class DigestCheck:
    verdict: Verdict
    claimed: str  # the hex digest the store's name claims
    actual: str | None


def is_sparse(size: int, allocated: int) -> bool:
    return size >= SPARSE_MIN_SIZE and allocated * SPARSE_RATIO < size


class StreamingDigest:
    """Hashes a file of `size` bytes from pieces fed in file order, overlapping or not."""

    def __init__(self, size: int, algorithm: Algorithm = Algorithm.SHA256) -> None:
        self.size, self.algorithm = size, algorithm
        self._hash = hashlib.sha256() if algorithm is Algorithm.SHA256 else hashlib.sha1(usedforsecurity=False)
        if algorithm is Algorithm.GIT_SHA1:
            self._hash.update(b"blob %d\0" % size)
        self.hashed = 0
        self._gap: str | None = None

    def feed(self, offset: int, piece: bytes | memoryview) -> None:
        """Hashes the part of `piece` (the file's bytes from `offset`) not hashed yet."""
        if self._gap is not None:
            return
        if offset > self.hashed:
            self._gap = f"bytes {self.hashed}-{offset} were never read"
            return
        skip = self.hashed - offset
        if skip < len(piece):
            view = memoryview(piece)[skip:]
            room = self.size - self.hashed
            if len(view) > room:
                self._gap = f"the file grew past {self.size} bytes while it was read"
                view = view[:room]
            self._hash.update(view)
            self.hashed += len(view)

    def result(self) -> FileDigest:
        if self._gap is None and self.hashed == self.size:
            return FileDigest(self.algorithm, self._hash.hexdigest(), self.hashed, self.size)
        reason = self._gap or f"read {self.hashed} of {self.size} bytes"
        return FileDigest(self.algorithm, None, self.hashed, self.size, reason)


def skipped_sparse(size: int, allocated: int, algorithm: Algorithm = Algorithm.SHA256) -> FileDigest:
    """The record of a sparse file left unhashed."""
    return FileDigest(algorithm, None, 0, size, f"sparse: {allocated} of {size} bytes allocated, not hashed")


def digest_positional(
    read: ReadAt, size: int, allocated: int | None = None, algorithm: Algorithm = Algorithm.SHA256
) -> FileDigest:
    """The digest of a file read front to back in `PIECE`s through `read` (one read of each byte)."""
    if allocated is not None and is_sparse(size, allocated):
        return skipped_sparse(size, allocated, algorithm)
    stream = StreamingDigest(size, algorithm)
    offset = 0
    while offset < size:
        piece = read(offset, min(PIECE, size - offset))
        if not piece:
            break
        stream.feed(offset, piece)
        offset += len(piece)
    return stream.result()


def check(claimed: str, digest: FileDigest) -> DigestCheck:
    """Whether the bytes give the digest a store's name claims for them."""
    if digest.hexdigest is None:
        return DigestCheck(Verdict.UNCHECKED, claimed.lower(), None)
    same = digest.hexdigest == claimed.lower()
    return DigestCheck(Verdict.MATCH if same else Verdict.MISMATCH, claimed.lower(), digest.hexdigest)

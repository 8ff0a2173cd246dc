"""The streaming digest of a weight file: fed in overlapping windows, flat in memory, sparse files left alone."""

from __future__ import annotations

import hashlib
import os
import tracemalloc
from pathlib import Path

from hypothesis import given
from hypothesis import strategies as st

from scanner.formats import digest
from scanner.formats.bounded import bytes_reader
from scanner.targets import walked_entry


def _windows(size: int, window: int, overlap: int) -> list[tuple[int, int]]:
    """(offset, length) of a head and the windows after it, as the pipeline reads a big file."""
    out, offset = [(0, min(window, size))], window
    while offset < size:
        start = offset - overlap
        out.append((start, min(window + overlap, size - start)))
        offset = start + window + overlap
    return out


@given(st.binary(max_size=5000), st.integers(1, 700), st.integers(0, 300))
def test_overlapping_windows_hash_each_byte_once(data: bytes, window: int, overlap: int) -> None:
    stream = digest.StreamingDigest(len(data))
    for offset, length in _windows(len(data), window, min(overlap, window - 1)):
        stream.feed(offset, data[offset : offset + length])
    found = stream.result()
    assert found.hexdigest == hashlib.sha256(data).hexdigest() and found.hashed == len(data)


def test_a_gap_or_a_grown_file_leaves_no_digest() -> None:
    data = os.urandom(3000)
    gap = digest.StreamingDigest(len(data))
    gap.feed(0, data[:1000])
    gap.feed(1500, data[1500:])
    assert gap.result().hexdigest is None and "never read" in str(gap.result().reason)
    grown = digest.StreamingDigest(1000)
    grown.feed(0, data[:1200])
    assert grown.result().hexdigest is None and "grew" in str(grown.result().reason)
    short = digest.digest_positional(bytes_reader(data[:10]), 20)
    assert short.hexdigest is None and short.reason == "read 10 of 20 bytes"


def test_git_blob_sha1_as_the_hub_names_small_files() -> None:
    data = b'{"model_type": "qwen3"}\n'
    expected = hashlib.sha1(b"blob %d\0" % len(data) + data).hexdigest()
    found = digest.digest_positional(bytes_reader(data), len(data), None, digest.Algorithm.GIT_SHA1)
    assert found.hexdigest == expected
    assert digest.check(expected.upper(), found).verdict is digest.Verdict.MATCH


def test_memory_stays_flat_over_a_large_stream() -> None:
    piece = os.urandom(1 << 20)
    size = 256 * len(piece)
    stream = digest.StreamingDigest(size)
    tracemalloc.start()
    try:
        for i in range(256):
            stream.feed(i * len(piece), piece)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert stream.result().hexdigest is not None
    assert peak < 64 << 10  # no piece is kept or copied: 256 MiB hashed within a few KiB of Python memory


def test_a_sparse_file_is_recorded_not_hashed(tmp_path: Path) -> None:
    path = tmp_path / "holes.gguf"
    with path.open("wb") as fh:
        fh.write(b"GGUF")
        fh.truncate(64 << 20)
    st_ = path.stat()
    allocated = st_.st_blocks * 512
    calls: list[int] = []

    def read(offset: int, size: int) -> bytes:
        calls.append(size)
        return b""

    found = digest.digest_positional(read, st_.st_size, allocated)
    assert found.hexdigest is None and found.reason is not None and found.reason.startswith("sparse")
    assert calls == []
    # The walker records the same file as sparse by the same rule.
    assert (walked_entry.SPARSE_MIN_SIZE, walked_entry.SPARSE_RATIO) == (digest.SPARSE_MIN_SIZE, digest.SPARSE_RATIO)
    assert digest.is_sparse(st_.st_size, allocated)

"""A gzip file's view inflates it once for the compressed detector and the session sniff (`FileView.inflated`);
the sniff reads the same head from it as from its own bounded inflate (`head_of`), a cut or corrupt stream's
included, whose readable part the whole inflate may give shorter than the bounded one."""

from __future__ import annotations

import gzip
import random

from hypothesis import given, settings
from hypothesis import strategies as st

from scanner.catalog import Catalog
from scanner.detectors.compressed import DETECTOR as COMPRESSED
from scanner.detectors.contract import Derived
from scanner.fileview.gzipped import inflate, sniffed_head
from scanner.fileview.view import FileView
from scanner.model import FileMeta, Skip, SkipReason
from scanner.sessions.formats import SNIFF, head_of, sniff
from scanner.targets.base import FileEntry
from tests.conftest import examples


def _view(catalog: Catalog, path: str, data: bytes) -> FileView:
    entry = FileEntry(path, len(data), 0o100644, 0, 0)
    return FileView(entry, data, catalog, lambda _e: FileMeta("0644", "root:root"), lambda _p, _n: None)


def _session_log(lines: int) -> bytes:
    """JSON lines with a session record's keys, of random ids: little compression, so the first SNIFF bytes
    inflated come from the first part of the stream only."""
    rng = random.Random(7)
    return b"".join(
        b'{"type":"session_meta","payload":{"id":"%032x","cwd":"/home/u/%032x"}}\n'
        % (rng.getrandbits(128), rng.getrandbits(128))
        for _ in range(lines)
    )


def test_a_gzip_log_corrupt_past_its_head_is_sniffed_by_its_head(catalog: Catalog) -> None:
    text = _session_log(5000)
    assert len(text) > 4 * SNIFF
    data = bytearray(gzip.compress(text))
    data[-100] ^= 0xFF  # a fault far past what the first SNIFF bytes inflated need
    whole = bytes(data)
    assert head_of(whole) == text[:SNIFF]  # the bounded inflate stops before the fault
    view = _view(catalog, "/home/u/.codex/sessions/rollout.jsonl.gz", whole)
    assert view.session_log is True
    assert view.session_log is sniff(view.name, whole)
    out = list(COMPRESSED.extract(view))
    assert any(isinstance(o, Skip) and o.reason is SkipReason.PARSE_ERROR for o in out)


def test_the_compressed_detector_matches_the_inflate_the_sniff_made(catalog: Catalog) -> None:
    text = _session_log(50)
    view = _view(catalog, "/var/log/agent/session.jsonl.gz", gzip.compress(text))
    assert view.session_log is True
    shared = view.inflated
    derived = [o for o in COMPRESSED.extract(view) if isinstance(o, Derived)]
    assert len(derived) == 1
    assert derived[0].data is shared.data  # one inflate, not one per reader
    assert shared.data == text


_TEXT = st.one_of(
    st.tuples(st.binary(max_size=3000), st.integers(min_value=1, max_value=60)).map(lambda p: p[0] * p[1]),
    # Random bytes, stored rather than compressed: a fault past the head's input is past what the head inflates.
    st.sampled_from([100, SNIFF - 1, SNIFF + 1, 3 * SNIFF]).map(lambda n: random.Random(n).randbytes(n)),
)
_FILES = st.tuples(
    st.lists(_TEXT, min_size=1, max_size=3),  # the members' plain text
    st.sampled_from(["whole", "cut", "flipped", "trailing", "trailing magic"]),
    st.integers(min_value=0),
)


@settings(max_examples=examples(200))
@given(_FILES)
def test_the_sniffed_head_is_the_bounded_inflates(file: tuple[list[bytes], str, int]) -> None:
    texts, damage, where = file
    data = b"".join(gzip.compress(t) for t in texts)
    at = where % max(1, len(data))
    if damage == "cut":
        data = data[:at]
    elif damage == "flipped" and len(data) > 10:
        data = data[:at] + bytes([data[at] ^ 0xFF]) + data[at + 1 :]
    elif damage == "trailing":
        data += b"not gzip"
    elif damage == "trailing magic":
        data += b"\x1f\x8b\x08\x00garbage"
    assert sniffed_head(data, inflate(data)) == head_of(data)

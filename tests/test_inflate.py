"""The compressed detector inflates a gzip file a member at a time; what it gives (bytes, cap, corruption) is what
the piecewise reader (`chunks`) gives for the same file: several members, bytes after the last, a cut or corrupt
stream, and the cap on what is inflated."""

from __future__ import annotations

import gzip

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import scanner.fileview.gzipped as gzipped
from scanner.sessions.reader import ReadNotes, chunks
from tests.conftest import examples


def _piecewise(data: bytes, cap: int) -> tuple[bytes, bool, bool]:
    notes = ReadNotes()
    out = b"".join(chunks(data, cap, notes))
    return out, notes.inflate_capped, notes.inflate_error


def _at_once(data: bytes) -> tuple[bytes, bool, bool]:
    notes = ReadNotes()
    out = gzipped._inflated(data, notes)
    return out, notes.inflate_capped, notes.inflate_error


_FILES = st.tuples(
    st.lists(st.binary(max_size=3000), min_size=1, max_size=3),  # the members' plain text
    st.integers(min_value=1, max_value=40),  # each repeated: a member longer than the cap
    st.sampled_from(["whole", "cut", "flipped", "trailing", "trailing magic"]),
    st.integers(min_value=0),
)


@settings(max_examples=examples(200))
@given(_FILES, st.sampled_from([gzipped.MAX_INFLATED, 700, 20_000]))
def test_inflated_at_once_is_what_the_pieces_give(file: tuple[list[bytes], int, str, int], cap: int) -> None:
    texts, repeat, damage, where = file
    data = b"".join(gzip.compress(t * repeat) for t in texts)
    at = where % max(1, len(data))
    if damage == "cut":
        data = data[:at]
    elif damage == "flipped" and len(data) > 10:
        data = data[:at] + bytes([data[at] ^ 0xFF]) + data[at + 1 :]
    elif damage == "trailing":
        data += b"not gzip"
    elif damage == "trailing magic":
        data += b"\x1f\x8b\x08\x00garbage"
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(gzipped, "MAX_INFLATED", cap)
        assert _at_once(data) == _piecewise(data, cap)

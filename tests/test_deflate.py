"""The module that inflates gzip and zlib streams gives what the standard library's zlib gives: the same bytes up
to the same cap, the same tail and end, and an error of its own class where the stdlib's raises."""

from __future__ import annotations

import gzip
import zlib

from hypothesis import given, settings
from hypothesis import strategies as st

from scanner.formats import deflate
from tests.conftest import examples


def _inflate(module: object, data: bytes, cap: int) -> tuple[bytes, bytes, bytes, bool] | str:
    inflater = module.decompressobj(wbits=31)  # type: ignore[attr-defined]
    try:
        out = inflater.decompress(data, cap)
    except (zlib.error, deflate.error):
        return "error"
    return out, inflater.unconsumed_tail, inflater.unused_data, inflater.eof


@settings(max_examples=examples(200))
@given(
    st.lists(st.binary(max_size=3000), min_size=1, max_size=3),
    st.integers(min_value=0, max_value=4000),
    st.integers(min_value=0, max_value=6000),
    st.binary(max_size=8),
)
def test_deflate_inflates_as_the_standard_library_does(members: list[bytes], cut: int, cap: int, junk: bytes) -> None:
    data = b"".join(gzip.compress(m * 3, mtime=0) for m in members)[: cut or None] + junk
    assert _inflate(deflate, data, cap) == _inflate(zlib, data, cap)


def test_a_corrupt_stream_raises_the_modules_own_error() -> None:
    raised = False
    try:
        deflate.decompressobj(wbits=31).decompress(b"\x1f\x8b\x08\xffnot deflate at all")
    except deflate.error:
        raised = True
    assert raised


def test_each_reader_of_a_deflate_stream_takes_a_corrupt_one_as_nothing_read() -> None:
    """Each caller catches this module's error (zlib-ng's is not the standard library's): a damaged stream is no
    data, never a raise."""
    from scanner.formats.auditable import crates_of
    from scanner.sessions.bodies import decode_body
    from scanner.sessions.budget import WorkBudget

    body = gzip.compress(b'{"model": "gpt-4o"}', mtime=0)
    assert decode_body(body, WorkBudget()) == {"model": "gpt-4o"}
    assert decode_body(body[:10] + b"\xff" * 8 + body[18:], WorkBudget()) is None  # the deflate data damaged
    deps = zlib.compress(b'{"packages": [{"name": "async-openai", "version": "0.29.0"}]}')
    assert crates_of(deps) == [("async-openai", "0.29.0")]
    assert crates_of(deps[:2] + b"\xff" * 8 + deps[10:]) == []

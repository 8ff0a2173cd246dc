"""The run of token characters around a hit: what a byte-by-byte walk out from the hit finds, at most MAX_TOKEN
bytes each side, whatever the bytes."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from scanner.formats.literals import MAX_TOKEN, TOKEN, run_around, token_around


def _walked(data: bytes, start: int, end: int) -> tuple[int, int]:
    lo = start
    while lo > 0 and start - lo < MAX_TOKEN and data[lo - 1] in TOKEN:
        lo -= 1
    hi = end
    while hi < len(data) and hi - end < MAX_TOKEN and data[hi] in TOKEN:
        hi += 1
    return lo, hi


# Mostly token bytes, so runs longer than MAX_TOKEN occur, and any byte now and then.
_BYTES = st.lists(st.sampled_from(b"a-./:@_Z9") | st.integers(0, 255), max_size=600).map(bytes)


@settings(max_examples=500)
@given(_BYTES, st.data())
def test_the_run_is_the_one_a_walk_byte_by_byte_finds(data: bytes, draw: st.DataObject) -> None:
    start = draw.draw(st.integers(0, len(data)))
    end = draw.draw(st.integers(start, len(data)))
    assert run_around(data, start, end) == _walked(data, start, end)


def test_a_hosted_form_is_the_token_around_the_id_it_holds() -> None:
    data = b'{"model": "anthropic/claude-sonnet-4-5-20250929", "x": 1}'
    start = data.index(b"claude")
    end = start + len(b"claude-sonnet-4-5-20250929")
    assert token_around(data, start, end) == "anthropic/claude-sonnet-4-5-20250929"


def test_a_run_is_cut_at_max_token_bytes_each_side() -> None:
    data = b"a" * 1000
    assert run_around(data, 500, 510) == (500 - MAX_TOKEN, 510 + MAX_TOKEN)

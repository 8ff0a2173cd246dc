"""The run of token characters around a hit: what a byte-by-byte walk out from the hit finds, at most MAX_TOKEN
bytes each side, whatever the bytes."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from scanner.formats.literals import MAX_TOKEN, TOKEN, Runs, run_around, token_around


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


@settings(max_examples=500)
@given(_BYTES, st.data())
def test_runs_of_hits_in_order_are_the_runs_each_has_alone(data: bytes, draw: st.DataObject) -> None:
    # Hits in order of offset, overlapping and nested ones too (a hosted form, then the id inside it).
    spans = draw.draw(st.lists(st.tuples(st.integers(0, len(data)), st.integers(0, 40)), max_size=30))
    runs = Runs(data)
    for start, length in sorted(spans):
        end = min(len(data), start + length)
        lo, hi, token = runs.around(start, end, data[start:end])
        assert (lo, hi) == run_around(data, start, end)
        assert token == data[lo:hi]


def test_an_id_inside_the_last_run_has_that_run() -> None:
    data = b'{"model": "xai/grok-4-0709", "x": "' + b"a" * (MAX_TOKEN + 10) + b'"}'
    runs = Runs(data)
    outer = data.index(b"xai/")
    assert runs.around(outer, outer + 15, data[outer : outer + 15])[2] == b"xai/grok-4-0709"
    inner = data.index(b"grok")
    assert runs.around(inner, inner + 11, b"grok-4-0709")[2] == b"xai/grok-4-0709"
    # A run cut at MAX_TOKEN is no whole run: a later hit inside it is looked for afresh.
    long = data.index(b"aaa")
    runs.around(long + 5, long + 6, b"a")
    assert runs.around(long + MAX_TOKEN + 8, long + MAX_TOKEN + 9, b"a")[:2] == run_around(
        data, long + MAX_TOKEN + 8, long + MAX_TOKEN + 9
    )


def test_a_hit_far_into_a_long_run_is_looked_for_afresh() -> None:
    # A whole run of 309 token bytes: a hit 299 bytes into it sees only MAX_TOKEN of them before it.
    data = b" " + b"a" * 309 + b" "
    runs = Runs(data)
    assert runs.around(150, 160, data[150:160])[:2] == (1, 310)
    assert runs.around(300, 301, b"a")[:2] == run_around(data, 300, 301) == (300 - MAX_TOKEN, 310)

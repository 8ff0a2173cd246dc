"""The content pass's shortcuts for a file's many hits give what the long way gives: the URL a host is in starts
where the search from up to 300 bytes before it finds it to start."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from scanner.detectors.content import _URL_BEFORE, url_start

# Pieces of URLs and of what stands around them, so schemes, userinfo and slashes meet in every order.
_PIECES = st.sampled_from([b"https://", b"http://", b"hhttps://", b"/", b"@", b":", b"a", b".", b" ", b'"', b"x-"])
_DATA = st.lists(_PIECES | st.binary(max_size=3), max_size=120).map(b"".join)


@settings(max_examples=500)
@given(_DATA, st.data())
def test_a_urls_start_is_where_the_search_finds_it(data: bytes, draw: st.DataObject) -> None:
    start = draw.draw(st.integers(0, len(data)))
    found = _URL_BEFORE.search(data, max(0, start - 300), start)
    assert url_start(data, start) == (found.start() if found else None)


def test_a_base_url_starts_at_its_scheme() -> None:
    data = b'{"api_base": "https://api.x.ai/v1", "b": "see http://user@api.x.ai"}'
    assert url_start(data, data.index(b"api.x.ai")) == data.index(b"https://")
    assert url_start(data, data.rindex(b"api.x.ai")) == data.index(b"http://")
    assert url_start(b"api.x.ai", 0) is None

"""Past the engine's cap a pattern is searched on by YARA-X alone, its regex confirming each start (issue 29: one
Python regex pass per capped pattern over a proxy log's megabytes cost a fifth of /var's scan). Its matches must be
the very ones its regex's own `finditer` gives from there, so the hits a scan keeps are those it kept before."""

from __future__ import annotations

import dataclasses
import re
from collections import Counter
from collections.abc import Iterator

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from scanner.catalog import load
from scanner.catalog import matcher as matcher_module
from scanner.catalog.matcher import MAX_HITS_PER_PATTERN, Matcher, PatternKind

_CATALOG = load()
# Every example the catalogs give, matching or not, glued by bytes that end a token, join one, or are no text:
# ids back to back, inside one another (`anthropic.claude-…` holds `claude-…`) and cut short.
_SPECS = (
    _CATALOG.families,
    _CATALOG.hosted_forms,
    _CATALOG.hosts,
    _CATALOG.credentials,
    _CATALOG.kill_switches,
    _CATALOG.source_signatures,
    _CATALOG.code_paths,
)
_EXAMPLES = sorted({e.encode() for specs in _SPECS for s in specs for e in (*s.examples.match, *s.examples.no_match)})
_GLUE = [b" ", b"-", b".", b"/", b":", b"_", b"\n", b'"', b"@", b"=", b"\xc3\xa9", b"\x00", b"a", b"7", b"Z"]
_PIECE = st.one_of(st.sampled_from(_EXAMPLES), st.sampled_from(_GLUE), st.binary(max_size=3))
_TEXT = st.lists(_PIECE, max_size=40).map(b"".join)


def _finditer(matcher: Matcher, data: bytes, i: int, pos: int) -> Iterator[re.Match[bytes]]:
    """The search past the cap as it was: the pattern's own regex over the rest of the file."""
    return re.compile(matcher.rules[i].pattern.encode()).finditer(data, pos)


def _spans(matches: Iterator[re.Match[bytes]]) -> list[tuple[int, int, bytes]]:
    return [(m.start(), m.end(), m.group()) for m in matches]


def test_every_pattern_compiles_alone() -> None:
    matcher = _CATALOG.matcher
    data = b" ".join(_EXAMPLES)
    for i in range(len(matcher.rules)):
        assert _spans(matcher.matches_from(data, i, 0)) == _spans(_finditer(matcher, data, i, 0))


@given(_TEXT, st.integers(min_value=0, max_value=600))
def test_the_search_past_the_cap_finds_what_the_regex_finds(data: bytes, pos: int) -> None:
    matcher = _CATALOG.matcher
    pos = min(pos, len(data))
    for i in range(len(matcher.rules)):
        assert _spans(matcher.matches_from(data, i, pos)) == _spans(_finditer(matcher, data, i, pos)), matcher.rules[i]


@settings(max_examples=25)  # each a file of thousands of hits, scanned twice
@given(st.lists(_PIECE, min_size=1, max_size=6).map(b"".join), _TEXT)
def test_a_dense_file_keeps_the_hits_it_kept(block: bytes, rest: bytes) -> None:
    # Every pattern the block matches reaches the cap; what follows is searched on past it.
    data = block * (MAX_HITS_PER_PATTERN + 1) + rest
    hits = _CATALOG.matcher.scan(data)
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(Matcher, "matches_from", _finditer)
        before = _CATALOG.matcher.scan(data)
    assert (hits, hits.cut) == (before, before.cut)


def test_past_its_own_cap_the_regex_searches_alone(monkeypatch: pytest.MonkeyPatch) -> None:
    # A file with more starts than the search past the cap keeps: it may have left some out.
    monkeypatch.setattr(matcher_module, "MAX_TAIL_STARTS", 5)
    rule = next(r for r in _CATALOG.matcher.rules if r.kind is PatternKind.MODEL and "claude-" in r.pattern)
    matcher = Matcher([dataclasses.replace(rule, index=0)])  # its scanners made under the lower cap
    data = b" ".join(b"claude-opus-4-%d" % n for n in range(20))
    found = _spans(matcher.matches_from(data, 0, 3))
    assert len(found) == 19
    assert found == _spans(_finditer(matcher, data, 0, 3))


def _search_on_counting_every_hit(matches: Iterator[re.Match[bytes]], rule: object, hits: list, own: int) -> int:
    """The search past the cap counting the pattern's repeats among every hit of the file, as it did."""
    assert isinstance(rule, matcher_module.Rule)
    seen = Counter(h.text for h in hits if h.kind is rule.kind and h.pattern == rule.index)
    cut = 0
    for m in matches:
        text = m.group()
        if text not in seen and len(seen) >= matcher_module.MAX_DISTINCT_PER_PATTERN:
            cut += 1
            continue
        seen[text] += 1
        if seen[text] <= matcher_module.MAX_REPEATS_KEPT:
            hits.append(matcher_module.PatternHit(m.start(), m.end(), rule.kind, rule.index, text))
    return cut


@settings(max_examples=25)
@given(st.lists(_PIECE, min_size=2, max_size=8).map(b"".join), _TEXT)
@example(b"claude-opus-4-1 gpt-5.1 https://api.openai.com/v1 ", b"gpt-5.1 claude-opus-4-1 ")  # three patterns capped
def test_a_capped_pattern_counts_its_own_repeats_alone(block: bytes, rest: bytes) -> None:
    # Several patterns reach the cap in one file: each counts the repeats among its own hits, which are the ones
    # the scan appended since it began on that pattern, the same as picking them out of every hit of the file.
    data = block * (MAX_HITS_PER_PATTERN + 1) + rest * 3
    hits = _CATALOG.matcher.scan(data)
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(matcher_module, "_search_on", _search_on_counting_every_hit)
        before = _CATALOG.matcher.scan(data)
    assert (hits, hits.cut) == (before, before.cut)

"""The longest match of a pattern, read from its syntax: the same figure as the regex engine's own parser gives
(asked here only as the oracle), for every catalog pattern and for generated ones."""

from __future__ import annotations

import re

from hypothesis import given
from hypothesis import strategies as st

from scanner.catalog import Catalog
from scanner.catalog.regexwidth import longest

# The engine's own figure; a width past this is "any length" (MAXREPEAT).
_ORACLE = getattr(re, "_parser", None) or __import__("sre_parse")
_UNBOUNDED = 1 << 16


def oracle(pattern: str) -> int | None:
    high = int(_ORACLE.parse(pattern).getwidth()[1])
    return None if high >= _UNBOUNDED else high


def test_every_catalog_pattern_measures_as_the_engine_measures(catalog: Catalog) -> None:
    patterns = [f.pattern for f in catalog.families] + [h.pattern for h in catalog.hosts]
    patterns += [c.pattern for c in catalog.credentials] + [f.pattern for f in catalog.fingerprints]
    patterns += [h.form for h in catalog.hosted_forms] + [k.pattern for k in catalog.kill_switches]
    assert [(p, longest(p)) for p in patterns] == [(p, oracle(p)) for p in patterns]


_ATOMS = st.sampled_from(
    ["a", "\\d", "\\b", "\\.", "[a-z]", "[^]x]", "[\\]-]", ".", "^", "$", "\\x41", "\\u00e9", "é", "-", "\\B"]
)
_QUANTIFIERS = st.sampled_from(["", "", "?", "*", "+", "{2}", "{1,3}", "{0,2}", "{2,}", "{,3}", "*?", "+?", "{1,4}?"])


def _patterns() -> st.SearchStrategy[str]:
    def extend(inner: st.SearchStrategy[str]) -> st.SearchStrategy[str]:
        seq = st.lists(st.tuples(inner, _QUANTIFIERS).map("".join), min_size=1, max_size=4).map("".join)
        alts = st.lists(seq, min_size=1, max_size=3).map("|".join)
        opener = st.sampled_from(["(", "(?:", "(?P<g>", "(?=", "(?!", "(?<=", "(?i:"])
        return st.tuples(opener, alts).map(lambda t: f"{t[0]}{t[1]})")

    leaf = st.tuples(_ATOMS, _QUANTIFIERS).map("".join)
    items = st.recursive(leaf, extend, max_leaves=12)
    return st.lists(items, min_size=1, max_size=5).map("".join)


@given(_patterns(), st.booleans())
def test_generated_patterns_measure_as_the_engine_measures(pattern: str, flags: bool) -> None:
    pattern = ("(?i)" if flags else "") + pattern
    try:
        re.compile(pattern)
    except re.error:
        return  # not a pattern (a lookbehind of variable width, a group named twice): nothing to measure
    assert longest(pattern) == oracle(pattern)


def test_syntax_not_read_gives_no_bound() -> None:
    assert longest(r"(a)\1") is None  # a backreference
    assert longest(r"(?P<x>ab)(?P=x)") is None
    assert longest(r"a{3}(?:bc|d){2}\b") == 7

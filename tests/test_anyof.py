"""The first of the catalog's hosted forms to fully match an id (`FirstOf`), found by one match of their union, is
the one the loop over them in order finds, with the same groups: on every example the catalogs give and on made-up
ids; patterns that cannot be joined as written are tried in turn."""

from __future__ import annotations

import re

import pytest
from hypothesis import given
from hypothesis import strategies as st

from scanner.catalog import Catalog
from scanner.catalog.anyof import FirstOf

# Overlapping on purpose (`a/b` is the first's and the last's): the first in order must win.
_MINE = [
    re.compile(p)
    for p in (r"a/(?P<model>b+)", r"(?P<model>c[a-c]*)@(?P<snapshot>\d{2})", r"a(?:b|/)c?", r"\(?P<x>", r"(?i)\bB@c",
              r"(a)[a-c/]*")
]  # fmt: skip
_UNJOINABLE = [*_MINE, re.compile(r"(?P<d>b)(?P=d)")]


def _in_turn(patterns: list[re.Pattern[str]], text: str) -> tuple[int, dict[str, str | None]] | None:
    for at, p in enumerate(patterns):
        m = p.fullmatch(text)
        if m is not None:
            return at, m.groupdict()
    return None


def _first(first: FirstOf, text: str) -> tuple[int, dict[str, str | None]] | None:
    found = first.match(text)
    return None if found is None else (found[0], found[1].groupdict())


@given(st.text(alphabet="abcABC/@(?P<x>)12", max_size=12))
def test_the_first_to_match_is_the_first_in_order(text: str) -> None:
    assert _first(FirstOf(_MINE), text) == _in_turn(_MINE, text)
    unjoined = FirstOf(_UNJOINABLE)
    assert unjoined.union is None
    assert _first(unjoined, text) == _in_turn(_UNJOINABLE, text)


def test_the_first_of_overlapping_patterns_wins() -> None:
    assert _first(FirstOf(_MINE), "a/bb") == (0, {"model": "bb"})
    assert _first(FirstOf(_MINE), "a/c") == (2, {})
    assert _first(FirstOf(_MINE), "aca") == (5, {})
    assert _first(FirstOf(_MINE), "b@C") == (4, {})  # its own `(?i)`, in its alternative alone
    assert _first(FirstOf(_MINE), "C@12") is None  # the others keep their case
    assert FirstOf([re.compile("x", re.MULTILINE), re.compile("y")]).union is None


@pytest.mark.parametrize("which", ["_forms", "_family_rx"])
def test_the_catalogs_first_match_is_the_loops_on_every_example(catalog: Catalog, which: str) -> None:
    forms = [rx for _, rx in getattr(catalog, which)]
    first = FirstOf(forms)
    assert first.union is not None  # the shipped hosted forms and families join: one match spares the loop
    ids = [x for h in catalog.hosted_forms for x in (*h.examples.match, *h.examples.no_match)]
    ids += [x for f in catalog.families for x in (*f.examples.match, *f.examples.no_match)]
    models = sorted(catalog._models)
    ids += models + [f"{h.route}/{m}" for h in catalog.hosted_forms for m in models[:20]]
    assert len(ids) > 500
    for name in ids:
        assert _first(first, name) == _in_turn(forms, name), name

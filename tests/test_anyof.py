"""The union of the catalog's hosted forms (`any_of`), asked before the loop over them, fully matches exactly what
one of them does: on every example the catalogs give and on made-up ids; a pattern it cannot join as written makes
it match everything (the loop then decides alone)."""

from __future__ import annotations

import re

from hypothesis import given
from hypothesis import strategies as st

from scanner.catalog import Catalog
from scanner.catalog.anyof import EVERYTHING, any_of

_MINE = [
    re.compile(p) for p in (r"a/(?P<model>b+)", r"(?P<model>c[a-c]*)@(?P<snapshot>\d{2})", r"a(?:b|/)c?", r"\(?P<x>")
]


@given(st.text(alphabet="abc/@(?P<x>)12", max_size=12))
def test_the_union_matches_what_one_of_them_does(text: str) -> None:
    assert bool(any_of(_MINE).fullmatch(text)) == any(p.fullmatch(text) for p in _MINE)


def test_what_cannot_be_joined_as_written_matches_everything() -> None:
    assert any_of([re.compile(r"(?P<a>x)(?P=a)"), re.compile("y")]) is EVERYTHING
    assert any_of([re.compile(r"(x)\1")]) is EVERYTHING
    assert any_of([re.compile("x", re.IGNORECASE), re.compile("y")]) is EVERYTHING
    assert any_of([]) is EVERYTHING
    assert EVERYTHING.fullmatch("any\nthing")


def test_the_hosted_forms_union_agrees_with_each_on_every_example(catalog: Catalog) -> None:
    forms = [rx for _, rx in catalog._forms]
    union = any_of(forms)
    assert union is not EVERYTHING  # the shipped forms join: the union does spare the loop
    ids = [x for h in catalog.hosted_forms for x in (*h.examples.match, *h.examples.no_match)]
    ids += [x for f in catalog.families for x in (*f.examples.match, *f.examples.no_match)]
    models = sorted(catalog._models)
    ids += models + [f"{h.route}/{m}" for h in catalog.hosted_forms for m in models[:20]]
    assert len(ids) > 500
    for name in ids:
        assert bool(union.fullmatch(name)) == any(rx.fullmatch(name) for rx in forms), name

"""The indented JSON text made in C is the text `json.dumps(indent=2, ensure_ascii=True)` writes, for any value."""

from __future__ import annotations

import json
import math
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from scanner.render._indented import indented_json

_SCALARS = st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False, allow_infinity=False) | st.text()
_VALUES = st.recursive(_SCALARS, lambda inner: st.lists(inner) | st.dictionaries(st.text(), inner), max_leaves=40)


@settings(max_examples=400)
@given(_VALUES)
def test_indented_json_is_the_standard_librarys_text(value: Any) -> None:
    assert indented_json(value) == json.dumps(value, indent=2, ensure_ascii=True)


def test_empty_containers_non_bmp_characters_and_lone_surrogates_are_written_alike() -> None:
    value = {"": [], "a": {}, "b": [[], {}, [{}]], "smile \U0001f600": "\udcff tab\t", "n": [-0.0, 1e100, 5e-324]}
    assert indented_json(value) == json.dumps(value, indent=2, ensure_ascii=True)


def test_nan_and_infinity_are_written_as_the_standard_library_writes_them() -> None:
    value = {"x": [math.nan, math.inf, -math.inf]}
    assert indented_json(value) == json.dumps(value, indent=2, ensure_ascii=True)

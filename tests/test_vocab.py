"""The vocabularies: each an enum with its one ranking, spelled in the JSON as it always was."""

from __future__ import annotations

import json
import re

from scanner.vocab import (
    PSEUDO_VENDORS,
    WIRING_CONTEXTS,
    CatalogStatus,
    Confidence,
    Context,
    PseudoVendor,
    Severity,
    Word,
)
from tests.conftest import REPO

_VOCABULARIES: tuple[type[Word], ...] = (Context, Severity, Confidence, PseudoVendor, CatalogStatus)


def test_a_word_is_its_spelling_in_json_text_and_comparisons() -> None:
    for vocabulary in _VOCABULARIES:
        for word in vocabulary:
            assert json.dumps(word) == json.dumps(word.value)
            assert str(word) == f"{word}" == word.value == word
            assert f"{word:>12}" == f"{word.value:>12}"
            assert {word.value: 1}[word] == 1  # hashes as its spelling: a word finds the plain string's entry


def test_each_vocabulary_has_one_ranking() -> None:
    assert [s.rank for s in Severity] == [0, 1, 2, 3]
    assert max(Severity, key=lambda s: s.rank) is Severity.HIGH
    assert [c.rank for c in Confidence] == [1, 2, 3]
    assert [Confidence.of_rank(r) for r in (-1, 1, 2, 3, 9)] == [
        Confidence.LOW, Confidence.LOW, Confidence.MEDIUM, Confidence.HIGH, Confidence.HIGH
    ]
    assert sorted({c.precedence for c in Context}) == list(range(len(Context)))
    # The more specific context wins a line two detectors place: a comment over the config it sits in.
    assert Context.COMMENT.precedence < Context.CONFIG.precedence < Context.DOCS.precedence
    assert WIRING_CONTEXTS <= set(Context)
    assert set(PSEUDO_VENDORS) == {"self-hosted", "unknown"}


def test_no_module_spells_a_vocabulary_again() -> None:
    """A second list of pseudo-vendors or a second severity or confidence ranking is how two places drift."""
    again = re.compile(
        r"""\(\s*"self-hosted",\s*"unknown"\s*\)|\{\s*"self-hosted",\s*"unknown"\s*\}"""
        r"""|\{\s*Severity\.[A-Z]+:\s*\d|\{\s*"high":\s*\d"""
    )
    found = [
        str(path.relative_to(REPO))
        for path in sorted((REPO / "scanner").rglob("*.py"))
        if path.name != "vocab.py" and again.search(path.read_text(encoding="utf-8"))
    ]
    assert found == []

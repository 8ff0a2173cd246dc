"""Search rules compiled ahead (`scripts/build_rules.py`): a scan that loads them finds what one that compiles
finds, and rules that do not load, or were made from another source, are never used."""

from __future__ import annotations

from pathlib import Path

import pytest

from scanner.catalog import Catalog, prebuilt
from scanner.catalog.matcher import Matcher, compile_set, rule_sets
from tests.conftest import SAMPLE_VM

TEXTS = [
    b'{"model": "claude-sonnet-4-5", "base_url": "https://api.anthropic.com/v1"}\n',
    b"OPENAI_API_KEY=sk-proj-" + b"A" * 74 + b"T3BlbkFJ" + b"B" * 74 + b"\nroute azure/gpt-5.1 via bedrock\n",
]


@pytest.fixture
def rules_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setattr(prebuilt, "RULES_DIR", tmp_path / "_rules")
    monkeypatch.delenv("MODELCENSUS_PURE", raising=False)
    return tmp_path / "_rules"


def _texts() -> list[bytes]:
    return TEXTS + [p.read_bytes() for p in sorted(SAMPLE_VM.rglob("*.json*")) if p.is_file()][:20]


def test_rules_kept_ahead_find_what_compiled_rules_find(catalog: Catalog, rules_dir: Path) -> None:
    rules = catalog.search_rules()
    compiled = Matcher(rules)  # nothing kept yet: every set compiled here
    for numbers in rule_sets(rules):
        prebuilt.save(*compile_set(rules, numbers))
    assert len(list(rules_dir.iterdir())) == len(rule_sets(rules))
    loaded = Matcher(rules)
    for text in _texts():
        assert loaded.scan(text) == compiled.scan(text)
        assert list(m.span() for m in loaded.matches_from(text, 0, 0)) == [
            m.span() for m in compiled.matches_from(text, 0, 0)
        ]
    assert any(compiled.scan(text) for text in TEXTS)


def test_a_cut_or_foreign_file_is_passed_over_and_the_rules_compiled(catalog: Catalog, rules_dir: Path) -> None:
    rules = catalog.search_rules()
    common = rule_sets(rules)[0]
    source, compiled = compile_set(rules, common)
    path = prebuilt.save(source, compiled)
    path.write_bytes(path.read_bytes()[: len(path.read_bytes()) // 2])  # cut
    assert prebuilt.load(source) is None
    path.write_bytes(b"\x00" * 64)  # not rules at all
    assert prebuilt.load(source) is None
    assert Matcher(rules).scan(TEXTS[0])


def test_rules_made_from_another_source_are_never_loaded(catalog: Catalog, rules_dir: Path) -> None:
    rules = catalog.search_rules()
    first, second = rule_sets(rules)[2], rule_sets(rules)[3]  # two patterns alone
    source, compiled = compile_set(rules, first)
    prebuilt.save(source, compiled)
    assert prebuilt.load(source) is not None
    other, _ = compile_set(rules, second)
    assert prebuilt.path_for(other) != prebuilt.path_for(source)
    assert prebuilt.load(other) is None


def test_pure_mode_leaves_rules_kept_ahead_unread(
    catalog: Catalog, rules_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    rules = catalog.search_rules()
    source, compiled = compile_set(rules, rule_sets(rules)[0])
    prebuilt.save(source, compiled)
    monkeypatch.setenv("MODELCENSUS_PURE", "1")
    assert prebuilt.load(source) is None

"""The shipped catalogs parsed and their search rules compiled ahead (`scripts/build_rules.py`): a scan that loads
them has what one that parses and compiles has, and what does not load, or was made from other catalogs, other
code or another rule source, is never used."""

from __future__ import annotations

import pickle
import shutil
from pathlib import Path

import pytest

from scanner.catalog import Catalog, prebuilt
from scanner.catalog import matcher as matcher_module
from scanner.catalog.loader import BUILTIN_ORIGIN, builtin_catalogs, builtin_dir, catalog_paths, load_file, read_builtin
from scanner.catalog.matcher import Matcher, Rule, compile_set, rule_sets, set_source
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


def _keep(rules: list[Rule], numbers: list[int]) -> str:
    """One set compiled and kept, as the build keeps it; its source."""
    source = set_source(rules, numbers)
    prebuilt.keep_rules(source, compile_set(rules, numbers, source))
    return source


def _texts() -> list[bytes]:
    return TEXTS + [p.read_bytes() for p in sorted(SAMPLE_VM.rglob("*.json*")) if p.is_file()][:20]


def test_rules_kept_ahead_find_what_compiled_rules_find(
    catalog: Catalog, rules_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    rules = catalog.search_rules()
    compiled = Matcher(rules)  # nothing kept yet: every set compiled here
    for numbers in rule_sets(rules):
        _keep(rules, numbers)
    assert len(list(rules_dir.iterdir())) == len(rule_sets(rules))

    def no_compiling(*_: object) -> None:
        raise AssertionError("a set was compiled where it was kept ahead")

    monkeypatch.setattr(matcher_module, "compile_set", no_compiling)  # every set, the tail's too, from its file
    loaded = Matcher(rules)
    for text in _texts():
        assert loaded.scan(text) == compiled.scan(text)
        assert list(m.span() for m in loaded.matches_from(text, 0, 0)) == [
            m.span() for m in compiled.matches_from(text, 0, 0)
        ]
    assert any(compiled.scan(text) for text in TEXTS)


def test_a_cut_or_foreign_file_is_passed_over_and_the_rules_compiled(catalog: Catalog, rules_dir: Path) -> None:
    rules = catalog.search_rules()
    source = _keep(rules, rule_sets(rules)[0])
    assert prebuilt.rules_for(source) is not None
    path = prebuilt.path_for(source)
    path.write_bytes(path.read_bytes()[: len(path.read_bytes()) // 2])  # cut
    assert prebuilt.rules_for(source) is None
    path.write_bytes(b"\x00" * 64)  # not rules at all
    assert prebuilt.rules_for(source) is None
    assert Matcher(rules).scan(TEXTS[0])


def test_rules_made_from_another_source_are_never_loaded(catalog: Catalog, rules_dir: Path) -> None:
    rules = catalog.search_rules()
    first, second = rule_sets(rules)[2], rule_sets(rules)[3]  # two patterns alone
    source = _keep(rules, first)
    assert prebuilt.rules_for(source) is not None
    other = set_source(rules, second)
    assert prebuilt.path_for(other) != prebuilt.path_for(source)
    assert prebuilt.rules_for(other) is None


def test_pure_mode_leaves_rules_kept_ahead_unread(
    catalog: Catalog, rules_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    rules = catalog.search_rules()
    source = _keep(rules, rule_sets(rules)[0])
    monkeypatch.setenv("MODELCENSUS_PURE", "1")
    assert prebuilt.rules_for(source) is None


def test_catalogs_parsed_ahead_are_the_catalogs_parsed_now(rules_dir: Path) -> None:
    paths = catalog_paths(builtin_dir())
    fresh = [load_file(p, BUILTIN_ORIGIN) for p in paths]
    assert prebuilt.keep_parsed(paths, lambda: read_builtin(paths)) == fresh
    assert (rules_dir / prebuilt.PARSED).is_file()
    loaded = prebuilt.parsed(catalog_paths(builtin_dir()))
    assert loaded == fresh and loaded is not fresh
    assert builtin_catalogs() == fresh


def test_catalogs_parsed_ahead_are_not_used_once_a_catalog_or_the_code_changed(tmp_path: Path, rules_dir: Path) -> None:
    copies = tmp_path / "catalogs"
    shutil.copytree(builtin_dir(), copies)
    paths = catalog_paths(copies)
    prebuilt.keep_parsed(paths, lambda: [load_file(p, BUILTIN_ORIGIN) for p in paths])
    assert prebuilt.parsed(paths) is not None
    assert prebuilt.parsed(paths[:-1]) is None  # a catalog fewer
    with paths[0].open("a") as f:
        f.write("\n# edited\n")
    assert prebuilt.parsed(paths) is None
    # Kept by other code: the digest of the modules that parsed them no longer matches.
    kept = rules_dir / prebuilt.PARSED
    with kept.open("rb") as f:
        made, value = pickle.load(f), pickle.load(f)
    assert made["modules"] and "catalog/schema.py" in made["modules"]

    def rewrite(**changes: str) -> None:
        with kept.open("wb") as f:
            pickle.dump({**made, **changes}, f)
            pickle.dump(value, f)

    rewrite(catalogs=prebuilt._digest(paths))  # as if kept for the edited catalogs, by this code
    assert prebuilt.parsed(paths) == value
    rewrite(catalogs=prebuilt._digest(paths), code="0" * 64)
    assert prebuilt.parsed(paths) is None
    kept.write_bytes(kept.read_bytes()[:100])  # cut
    assert prebuilt.parsed(paths) is None


def test_the_version_says_what_the_start_up_loads_kept_ahead(catalog: Catalog, rules_dir: Path) -> None:
    from scanner.cli import version_document, version_text

    rules = catalog.search_rules()
    sets = rule_sets(rules)
    nothing = version_document()["ahead"]
    assert nothing == {"catalogs_parsed": False, "rule_sets_compiled": 0, "rule_sets": len(sets)}
    assert f"catalogs parsed at start-up; 0 of {len(sets)} rule sets compiled ahead" in version_text()
    for numbers in sets[:2]:  # the two sets every scan searches with
        _keep(rules, numbers)
    paths = catalog_paths(builtin_dir())
    prebuilt.keep_parsed(paths, lambda: read_builtin(paths))
    assert version_document()["ahead"] == {"catalogs_parsed": True, "rule_sets_compiled": 2, "rule_sets": len(sets)}
    assert f"catalogs parsed ahead; 2 of {len(sets)} rule sets compiled ahead" in version_text()

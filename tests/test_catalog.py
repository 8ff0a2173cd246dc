"""Catalogs are data: every file validates, every example holds, and a user can add knowledge without Python."""

from __future__ import annotations

from pathlib import Path

import pytest
from typer.testing import CliRunner

from scanner.catalog import CatalogError, load
from scanner.catalog.loader import (
    builtin_dir,
    catalog_paths,
    check_examples,
    check_references,
    load_catalogs,
    load_file,
    searchable_patterns,
)
from scanner.catalog.matcher import check_yara_pattern
from scanner.cli import app
from tests.conftest import write

REQUIRED = {
    "anthropic",
    "openai",
    "moonshot",
    "google",
    "meta",
    "mistral",
    "xai",
    "deepseek",
    "alibaba",
    "azure",
    "bedrock",
    "vertex",
    "openrouter",
    "fireworks",
    "together",
    "groq",
    "litellm",
    "core",
}
BUILTIN = sorted(catalog_paths(builtin_dir()))


def test_one_catalog_per_vendor_and_route() -> None:
    assert REQUIRED <= {p.stem for p in BUILTIN}


@pytest.mark.parametrize("path", BUILTIN, ids=lambda p: p.stem)
def test_catalog_file_is_valid_and_its_examples_hold(path: Path) -> None:
    cat = load_file(path, "builtin")
    assert cat.name == path.stem
    assert check_examples(cat) == []
    refused = {label: why for label, pattern in searchable_patterns(cat) if (why := check_yara_pattern(pattern))}
    assert refused == {}


def test_catalogs_agree_with_each_other() -> None:
    assert check_references(load_catalogs()) == []


def test_validate_command_accepts_the_builtin_catalogs() -> None:
    result = CliRunner().invoke(app, ["catalogs", "validate", str(builtin_dir())])
    assert result.exit_code == 0, result.output
    assert "valid" in result.output


@pytest.mark.parametrize(
    ("name", "canonical", "vendor", "via", "base", "known"),
    [
        ("claude-opus-4-8", "claude-opus-4-8", "anthropic", None, None, "known"),
        ("claude-opus-9-1", None, "anthropic", None, None, "family"),
        (
            "us.anthropic.claude-sonnet-4-5-20250929-v1:0",
            "claude-sonnet-4-5-20250929",
            "anthropic",
            "bedrock",
            "claude-sonnet-4-5-20250929",
            "known",
        ),
        (
            "claude-opus-4-5@20251101",
            "claude-opus-4-5-20251101",
            "anthropic",
            "vertex",
            "claude-opus-4-5-20251101",
            "known",
        ),
        ("gpt-5.5", "gpt-5.5", "openai", None, None, "known"),
        ("gpt-7.3-sol", None, "openai", None, None, "family"),
        ("kimi-k3", "kimi-k3", "moonshot", None, None, "known"),
        ("azure/muse-special", None, "openai", "azure", None, "unknown"),
        ("muse-3.2", None, None, None, None, "unknown"),
    ],
)
def test_identify(catalog, name, canonical, vendor, via, base, known) -> None:  # type: ignore[no-untyped-def]
    ident = catalog.identify(name)
    assert (ident.canonical, ident.vendor, ident.served_via, ident.base_model, ident.catalog) == (
        canonical,
        vendor,
        via,
        base,
        known,
    )


def test_lifecycle_comes_from_the_catalog(catalog) -> None:  # type: ignore[no-untyped-def]
    assert catalog.identify("claude-3-opus-20240229").lifecycle == "retired"
    assert catalog.identify("claude-opus-4-8").lifecycle == "active"


def test_unknown_key_is_an_error(tmp_path: Path) -> None:
    bad = write(tmp_path, "/bad.toml", '[catalog]\nname = "x"\nversion = "1"\n[[models]]\nid = "a"\nfamly = "b"\n')
    with pytest.raises(CatalogError, match="missing|unknown key"):
        load_file(bad, str(bad))


def test_bad_regex_is_a_clear_error_not_a_traceback(tmp_path: Path) -> None:
    write(
        tmp_path,
        "/c/bad.toml",
        '[catalog]\nname = "bad"\nversion = "1"\n'
        '[[families]]\nid = "f"\nvendor = "v"\npattern = \'abc((\'\nmatch = []\nno_match = []\n',
    )
    with pytest.raises(CatalogError, match="bad regex"):
        load([tmp_path / "c"])
    result = CliRunner().invoke(app, ["scan", str(tmp_path), "--catalog", str(tmp_path / "c")])
    assert result.exit_code == 2
    assert "bad regex" in result.output and "Traceback" not in result.output


def test_duplicate_catalog_name_is_refused(tmp_path: Path) -> None:
    write(tmp_path, "/anthropic.toml", '[catalog]\nname = "anthropic"\nversion = "1"\n')
    with pytest.raises(CatalogError, match="defined twice"):
        load([tmp_path / "anthropic.toml"])


USER_CATALOG = """
[catalog]
name = "acme"
version = "2026.12.01"
description = "An in-house vendor added by a user"

[[vendors]]
id = "acme"
name = "Acme AI"

[[families]]
id = "roadrunner"
vendor = "acme"
pattern = '\\broadrunner-\\d+(?:\\.\\d+)?(?:-turbo)?\\b'
max_length = 32
match = ["roadrunner-2", "roadrunner-3.1-turbo"]
no_match = ["roadrunners", "road-runner-2"]

[[models]]
id = "roadrunner-2"
family = "roadrunner"
lifecycle = "deprecated"
retires = "2027-01-01"

[[hosts]]
pattern = 'api\\.acme\\.ai'
vendor = "acme"
served_via = "direct"
match = ["api.acme.ai"]
no_match = ["acme.ai"]
"""


def test_user_catalog_adds_knowledge_without_code(tmp_path: Path, scan_dir) -> None:  # type: ignore[no-untyped-def]
    cat_file = write(tmp_path, "/catalogs/acme.toml", USER_CATALOG)
    vm = tmp_path / "vm"
    write(vm, "/etc/app/config.json", '{"model": "roadrunner-2", "base_url": "https://api.acme.ai/v1"}')
    write(vm, "/opt/app/main.py", 'MODEL = "roadrunner-3.1-turbo"\n')
    result = CliRunner().invoke(app, ["catalogs", "validate", str(cat_file)])
    assert result.exit_code == 0, result.output
    runner = CliRunner()
    result = runner.invoke(app, ["scan", str(vm), "-f", "json", "--catalog", str(cat_file)])
    assert result.exit_code == 0, result.output
    import json

    doc = json.loads(result.output)
    models = {m["name"]: m for m in doc["models"]}
    assert models["roadrunner-2"]["vendor"] == "acme" and models["roadrunner-2"]["lifecycle"] == "deprecated"
    assert models["roadrunner-3.1-turbo"]["catalog"] == "family"
    assert {"name": "acme", "version": "2026.12.01", "origin": str(cat_file)} in doc["catalogs"]
    assert any(e["host"] == "api.acme.ai" and e["vendor"] == "acme" for e in doc["endpoints"])


def test_a_family_says_how_long_its_ids_can_be(tmp_path: Path) -> None:
    # A pattern with `\d+` bounds no length: the catalog states one, and validate says so when it does not.
    unbounded = write(tmp_path, "/catalogs/acme.toml", USER_CATALOG.replace("max_length = 32\n", ""))
    result = CliRunner().invoke(app, ["catalogs", "validate", str(unbounded)])
    assert result.exit_code == 1
    assert "family roadrunner: the pattern bounds no id length: state max_length" in result.output
    short = write(tmp_path, "/catalogs/short.toml", USER_CATALOG.replace("max_length = 32", "max_length = 12"))
    result = CliRunner().invoke(app, ["catalogs", "validate", str(short)])
    assert "example 'roadrunner-3.1-turbo' is longer than the family's longest id (12)" in result.output
    bad = write(tmp_path, "/catalogs/bad.toml", USER_CATALOG.replace("max_length = 32", "max_length = 0"))
    result = CliRunner().invoke(app, ["catalogs", "validate", str(bad)])
    assert result.exit_code == 1 and "max_length must be a positive integer" in result.output


def test_catalog_list_and_show() -> None:
    runner = CliRunner()
    listed = runner.invoke(app, ["catalogs", "list"])
    assert listed.exit_code == 0 and "anthropic" in listed.output
    shown = runner.invoke(app, ["catalogs", "show", "anthropic"])
    assert shown.exit_code == 0 and "claude-opus-4-8" in shown.output
    missing = runner.invoke(app, ["catalogs", "show", "nope"])
    assert missing.exit_code == 2 and "no catalog named" in missing.output


def test_kill_switch_value_spellings_are_catalog_data(tmp_path: Path, scan_dir) -> None:  # type: ignore[no-untyped-def]
    write(tmp_path, "/c/words.toml", '[catalog]\nname = "words"\nversion = "1"\n[switch_values]\non = ["engaged"]\n')
    write(tmp_path, "/vm/etc/agent.env", "LLM_KILL_SWITCH=engaged\n")
    _, before = scan_dir(tmp_path / "vm")
    assert [k["state"] for k in before["kill_switches"]] == ["unknown"]
    runner = CliRunner()
    result = runner.invoke(app, ["scan", str(tmp_path / "vm"), "-f", "json", "--catalog", str(tmp_path / "c")])
    import json

    assert [k["state"] for k in json.loads(result.output)["kill_switches"]] == ["on"]
    bad = write(tmp_path, "/d/bad.toml", '[catalog]\nname = "bad"\nversion = "1"\n[switch_values]\nmaybe = ["x"]\n')
    with pytest.raises(CatalogError, match="unknown state"):
        load_file(bad, str(bad))

"""npm and PyPI manifests, read in one place (scanner/formats/package_manifests.py): real package metadata
(tests/data/programs, see its SOURCE.txt), documents of any shape, and bytes that are no manifest at all."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from hypothesis import given
from hypothesis import strategies as st

from scanner.formats import jsonsize
from scanner.formats.package_manifests import (
    npm_pins,
    pyproject_pins,
    read_npm_manifest,
    read_pypi_metadata,
    requirement_pins,
)

DATA = Path(__file__).parent / "data" / "programs"


def test_a_real_npm_manifest_gives_its_name_version_commands_and_dependencies() -> None:
    raw = (DATA / "npm/grok-cli/package.json").read_bytes()
    manifest = read_npm_manifest(raw)
    assert manifest is not None
    assert (manifest.name, manifest.version) == ("@vibe-kit/grok-cli", "0.0.34")
    assert manifest.bins() == {"grok": "dist/index.js"}
    deps = manifest.dependencies()
    assert "openai" in deps and "@modelcontextprotocol/sdk" in deps
    assert set(deps) == set(json.loads(raw)["dependencies"]) | set(json.loads(raw).get("optionalDependencies", {}))
    pins = {name: line for name, _, line in npm_pins(manifest, raw.decode())}
    assert pins["openai"] == next(n for n, line in enumerate(raw.decode().splitlines(), 1) if '"openai"' in line)


def test_an_extension_manifest_gives_its_publisher_and_commands() -> None:
    manifest = read_npm_manifest((DATA / "vscode/cline/package.json").read_bytes())
    assert manifest is not None
    assert (manifest.text("publisher"), manifest.name) == ("saoudrizwan", "claude-dev")
    commands = manifest.commands()
    assert commands and list(commands) == sorted(commands) and all(c.startswith("cline.") for c in commands)


def test_a_real_metadata_gives_what_it_always_requires() -> None:
    meta = read_pypi_metadata((DATA / "pypi/llm-0.36.dist-info/METADATA").read_bytes())
    assert (meta.name, meta.version) == ("llm", "0.36")
    assert {"click", "openai", "PyYAML", "pluggy"} <= set(meta.requires)
    assert list(meta.requires) == sorted(meta.requires)
    sdk = read_pypi_metadata((DATA / "pypi/anthropic-2.12.0.dist-info/METADATA").read_bytes())
    assert (sdk.name, sdk.version) == ("anthropic", "2.12.0")
    assert {"anyio", "httpx2", "pydantic"} <= set(sdk.requires)
    assert not {"aiohttp", "boto3", "mcp"} & set(sdk.requires)  # only under an extra (`extra == 'aws'`)


def test_a_bin_string_is_named_by_the_package_and_a_bomb_is_refused() -> None:
    manifest = read_npm_manifest(b'\xef\xbb\xbf{"name": "@scope/tool", "bin": "cli.js"}')
    assert manifest is not None and manifest.bins() == {"tool": "cli.js"}
    bomb = b"[" * (jsonsize.MAX_CONTAINERS + 1)
    assert read_npm_manifest(bomb) is None


def test_declared_pins_keep_their_lines() -> None:
    assert requirement_pins("# pinned\nopenai[realtime]>=1.0 ; python_version > '3.8'\n-r base.txt\nanthropic\n") == [
        ("openai", ">=1.0", 2),
        ("anthropic", "", 4),
    ]
    text = '[project]\ndependencies = ["litellm==1.60"]\n[tool.poetry.dependencies]\nmistralai = "^1.2"\n'
    assert pyproject_pins(text) == [("litellm", "==1.60", 2), ("mistralai", "^1.2", 4)]


def test_a_pyproject_of_another_shape_gives_no_pins_and_never_raises() -> None:
    for text in ("project = 1", "[project]\ndependencies = 3", "[project]\noptional-dependencies = [1]",
                 '[project.optional-dependencies]\nx = "bcd"', "[tool]\npoetry = 2",
                 "[tool.poetry]\ndependencies = [1]", "[project]\ndependencies = [1, {a = 2}]"):  # fmt: skip
        assert pyproject_pins(text) == [], text
    assert pyproject_pins('[project]\ndependencies = [1, "openai>=1"]\n') == [("openai", ">=1", 2)]


_JSON = st.recursive(
    st.none() | st.booleans() | st.integers() | st.text(max_size=8),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.sampled_from(
        ["name", "version", "bin", "dependencies", "bundleDependencies", "contributes", "commands", "command",
         "publisher", "main", "x"]), inner, max_size=5),  # fmt: skip
    max_leaves=20,
)


@given(doc=_JSON, raw=st.binary(max_size=300))
def test_manifests_of_any_shape_never_raise(doc: Any, raw: bytes) -> None:
    for data in (json.dumps(doc).encode(), raw):
        manifest = read_npm_manifest(data)
        if manifest is not None:
            assert all(isinstance(v, str) for v in manifest.bins().values())
            assert all(isinstance(v, str) for v in manifest.dependencies().values())
            manifest.bundled(), manifest.commands(), list(npm_pins(manifest, data.decode("utf-8", "replace")))
        meta = read_pypi_metadata(data)
        assert meta.name is None or isinstance(meta.name, str)
        requirement_pins(data.decode("utf-8", "replace"))
        pyproject_pins(data.decode("utf-8", "replace"))

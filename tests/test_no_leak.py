"""No key is printed in full anywhere (issue 11): one FAKE key of every catalog format is planted in every
slot a target controls, and every output (each scan format, `sessions`, `diff`, an error) is searched.

Slots: a file name, a symlink's target text, a session's id and model label, an MCP server's positional
argument, a config value (model and base-URL keys), and a usage error's value.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from typer.testing import CliRunner

from scanner.catalog import Catalog
from scanner.cli import app
from scanner.diffrender import DIFF_RENDERERS
from scanner.render import RENDERERS
from tests.conftest import write

runner = CliRunner()


def _keys(catalog: Catalog) -> dict[str, str]:
    """One well-formed FAKE key per catalog credential format (its first `match` example)."""
    return {spec.type: spec.examples.match[0] for spec in catalog.credentials if spec.examples.match}


def _plant(root: Path, n: int, key: str) -> None:
    """Put `key` in every target-controlled slot under `root` (file `n` of many: names stay distinct)."""
    if "/" not in key and len(key) < 200:
        write(root, f"/home/dev/notes/{n}-{key}.txt", "uses claude-opus-4-1\n")  # a file name, in a location
    links = root / "home/dev/links"
    links.mkdir(parents=True, exist_ok=True)
    os.symlink(f"../../../../../../{key}", links / f"out-{n}")  # a target that leaves the root
    os.symlink(f"/nowhere/{key}", links / f"broken-{n}")
    session = [
        {"type": "user", "sessionId": key, "timestamp": "2026-11-20T10:00:00Z", "message": {"role": "user"}},
        {
            "type": "assistant",
            "sessionId": key,
            "timestamp": "2026-11-20T10:00:01Z",
            "message": {"role": "assistant", "model": key, "id": "msg_01", "stop_reason": "end_turn"},
        },
    ]
    write(
        root,
        f"/home/dev/.claude/projects/p{n}/{n}.jsonl",
        "".join(json.dumps(r) + "\n" for r in session),
    )
    config = {"mcpServers": {f"s{n}": {"command": "npx", "args": ["-y", "@example/server", key]}}}
    write(root, f"/home/dev/.cursor-{n}/mcp.json", json.dumps(config))
    write(root, f"/home/dev/.cursor/p{n}/.cursor/mcp.json", json.dumps(config))
    write(root, f"/etc/agent{n}/config.yaml", f"model: {key}\nbase_url: https://gw.example.com/{key}/v1\n")


@pytest.fixture(scope="module")
def planted(tmp_path_factory: pytest.TempPathFactory, catalog: Catalog) -> tuple[Path, dict[str, str]]:
    root = tmp_path_factory.mktemp("leaky") / "vm"
    keys = _keys(catalog)
    for n, key in enumerate(keys.values()):
        _plant(root, n, key)
    return root, keys


def _assert_clean(output: str, keys: dict[str, str], what: str) -> None:
    leaked = [kind for kind, key in keys.items() if key in output]
    assert not leaked, f"{what} prints in full: {leaked}"


def test_the_planted_tree_is_really_read(planted: tuple[Path, dict[str, str]], catalog: Catalog) -> None:
    root, keys = planted
    result = runner.invoke(app, ["scan", str(root), "-f", "json"])
    doc = json.loads(result.stdout)
    needs_words = {spec.type for spec in catalog.credentials if spec.nearby}  # found only beside their vendor's name
    placeholders = {kind for kind, key in keys.items() if catalog.is_placeholder(key)}  # AKIA…EXAMPLE
    assert {c["type"] for c in doc["credentials"]} >= set(keys) - needs_words - placeholders
    assert doc["sessions"] and doc["mcp_servers"] and doc["skipped"]
    assert any(s["reason"] == "symlink-outside-root" for s in doc["skipped"])
    opus = next(m for m in doc["models"] if m["name"] == "claude-opus-4-1")
    assert any(loc["path"].startswith("/home/dev/notes/") for loc in opus["locations"])


@pytest.mark.parametrize("fmt", sorted(RENDERERS))
def test_no_scan_format_prints_a_key(planted: tuple[Path, dict[str, str]], fmt: str) -> None:
    root, keys = planted
    result = runner.invoke(app, ["scan", str(root), "-f", fmt])
    assert result.exit_code in (0, 1), result.output
    _assert_clean(result.output, keys, f"scan -f {fmt}")


@pytest.mark.parametrize("fmt", ["table", "json"])
def test_sessions_prints_no_key(planted: tuple[Path, dict[str, str]], fmt: str) -> None:
    root, keys = planted
    result = runner.invoke(app, ["sessions", str(root), "-f", fmt])
    assert result.exit_code == 0, result.output
    _assert_clean(result.output, keys, f"sessions -f {fmt}")


@pytest.mark.parametrize("fmt", sorted(DIFF_RENDERERS))
def test_diff_prints_no_key(planted: tuple[Path, dict[str, str]], tmp_path: Path, fmt: str) -> None:
    root, keys = planted
    empty = tmp_path / "empty"
    empty.mkdir()
    result = runner.invoke(app, ["diff", str(empty), str(root), "-f", fmt])
    assert result.exit_code in (0, 1), result.output
    _assert_clean(result.output, keys, f"diff -f {fmt}")


def test_an_error_message_prints_no_key(catalog: Catalog) -> None:
    keys = _keys(catalog)
    for key in keys.values():
        result = runner.invoke(app, ["scan", "/", "--max-file-size", key])
        assert result.exit_code == 2 and "not a size" in result.output
        _assert_clean(result.output, keys, "--max-file-size error")
        result = runner.invoke(app, ["scan", f"/no/such/{key}"])
        assert result.exit_code == 2
        _assert_clean(result.output, keys, "bad target error")

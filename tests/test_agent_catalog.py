"""Where agent tools keep MCP server lists is catalog data: globs, checks, and a user catalog teaching a new tool."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from scanner.catalog import CatalogError, load
from scanner.catalog.globs import glob_problem, glob_regex, literal_name
from scanner.catalog.loader import check_examples, load_file
from scanner.cli import app
from tests.conftest import write


@pytest.mark.parametrize(
    ("glob", "path", "hit"),
    [
        ("~/.acme/mcp.json", "/home/u/.acme/mcp.json", True),
        ("~/.acme/mcp.json", "/root/.acme/mcp.json", True),
        ("~/.acme/mcp.json", "/home/u/x/.acme/mcp.json", False),
        ("~/.acme/mcp.json", "/srv/.acme/mcp.json", False),
        ("/etc/acme/*.json", "/etc/acme/servers.json", True),
        ("/etc/acme/*.json", "/etc/acme/sub/servers.json", False),
        ("/etc/acme/*.json", "/x/etc/acme/servers.json", False),
        (".codex/**/config.toml", "/home/u/.codex/config.toml", True),
        (".codex/**/config.toml", "/home/u/.codex/a/b/config.toml", True),
        (".codex/**/config.toml", "/home/u/x.codex/config.toml", False),
        ("mcp?.json", "/a/mcp2.json", True),
        ("a.b+c(d).json", "/a.b+c(d).json", True),  # regex characters are literal
        ("a.b+c(d).json", "/aXb+c(d).json", False),
    ],
)
def test_glob_semantics(glob: str, path: str, hit: bool) -> None:
    assert bool(glob_regex(glob).fullmatch(path)) is hit


def test_glob_literal_name_and_problems() -> None:
    assert literal_name("~/.cursor/mcp.json") == "mcp.json" and literal_name("/etc/x/*.json") is None
    assert glob_problem(".codex/**/config.toml") is None
    assert glob_problem("/etc/x/") and glob_problem("a//b") and glob_problem("~/x/**") and glob_problem("")


def test_builtin_catalog_holds_the_agent_tools() -> None:
    tools = {a.tool for a in load().agent_configs}
    assert {"claude-code", "claude-desktop", "cursor", "gemini-cli", "vscode", "codex"} <= tools
    cat = load()
    assert {a.tool for a in cat.agent_configs_at("/home/u/.cursor/mcp.json")} == {"cursor", "vscode"}
    assert cat.agent_configs_at("/home/u/app/config.toml") == []


def test_catalogs_show_lists_the_agent_tools() -> None:
    shown = CliRunner().invoke(app, ["catalogs", "show", "agents"])
    assert shown.exit_code == 0 and ".codex/**/config.toml" in shown.output and "mcp.servers" in shown.output


def _catalog(body: str) -> str:
    return '[catalog]\nname = "acme"\nversion = "1"\n[[agent_configs]]\ntool = "t"\n' + body


@pytest.mark.parametrize(
    ("body", "why"),
    [
        ('path = "x.json"\nformat = "yaml"\ncontainers = ["s"]\nmatch = []\nno_match = []\n', "format"),
        ('path = "x.json"\nformat = "json"\ncontainers = []\nmatch = []\nno_match = []\n', "containers"),
        ('path = "x.json"\nformat = "json"\ncontainers = ["a..b"]\nmatch = []\nno_match = []\n', "contain"),
        ('path = "/etc/x/"\nformat = "json"\ncontainers = ["s"]\nmatch = []\nno_match = []\n', "segment"),
        ('path = "x.json"\nformat = "json"\ncontainers = ["s"]\nmatch = []\n', "missing"),
        ('path = "x.json"\nformat = "json"\ncontainers = ["s"]\nmatch = []\nno_match = []\nfile = 1\n', "unknown"),
    ],
)
def test_bad_agent_config_entries_are_refused(tmp_path: Path, body: str, why: str) -> None:
    bad = write(tmp_path, "/acme.toml", _catalog(body))
    with pytest.raises(CatalogError, match=why):
        load_file(bad, str(bad))


def test_agent_config_examples_are_checked(tmp_path: Path) -> None:
    body = 'path = "~/.t/mcp.json"\nformat = "json"\ncontainers = ["s"]\n'
    wrong = write(tmp_path, "/acme.toml", _catalog(body + 'match = ["/srv/.t/mcp.json"]\nno_match = [".t/x"]\n'))
    problems = check_examples(load_file(wrong, "user"))
    assert any("does not match example '/srv/.t/mcp.json'" in p for p in problems)
    assert any("not an absolute path" in p for p in problems)


ACME = """
[catalog]
name = "acme"
version = "2026.12.01"

[[agent_configs]]
tool = "acme-agent"
path = "~/.acme/tools.json"
format = "json"
containers = ["acmeTools"]
match = ["/home/u/.acme/tools.json"]
no_match = ["/home/u/src/.acme/tools.json"]

[[agent_configs]]
tool = "acme-agent"
path = "/etc/acme/agent.toml"
format = "toml"
containers = ["tools.servers"]
match = ["/etc/acme/agent.toml"]
no_match = ["/etc/acme/agent.toml.d/x"]
"""


def test_user_catalog_teaches_a_new_tool(tmp_path: Path) -> None:
    cat_file = write(tmp_path, "/catalogs/acme.toml", ACME)
    vm = tmp_path / "vm"
    servers = {"acmeTools": {"tickets": {"command": "acme-tickets", "env": {"ACME_TOKEN": "t0ps3cret-value"}}}}
    write(vm, "/home/u/.acme/tools.json", json.dumps(servers))
    write(vm, "/etc/acme/agent.toml", '[tools.servers.wiki]\nurl = "https://wiki.acme.example/sse"\n')
    runner = CliRunner()
    assert runner.invoke(app, ["catalogs", "validate", str(cat_file)]).exit_code == 0
    plain = json.loads(runner.invoke(app, ["scan", str(vm), "-f", "json"]).output)
    # Container keys of no known spelling (`mcpServers`, `mcp_servers`, … are read anywhere in a home or /etc).
    assert plain["mcp_servers"] == []
    result = runner.invoke(app, ["scan", str(vm), "-f", "json", "--catalog", str(cat_file)])
    assert result.exit_code == 0, result.output
    found = {s["name"]: s for s in json.loads(result.output)["mcp_servers"]}
    assert set(found) == {"tickets", "wiki"}
    tickets = found["tickets"]
    assert (tickets["user"], tickets["transport"], tickets["env"]) == ("u", "stdio", ["ACME_TOKEN"])
    assert tickets["config"] == "/home/u/.acme/tools.json" and "t0ps3cret" not in result.output
    wiki = found["wiki"]
    assert (wiki["transport"], wiki["url"], wiki["locations"][0]["line"]) == ("sse", "https://wiki.acme.example/sse", 1)

"""The `agent_configs` detector on MCP server lists in their documented formats."""

from __future__ import annotations

import json
from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st

from tests.conftest import SAMPLE_VM, ScanFn, entry, write


def test_sample_vm_mcp_servers(scan_dir: ScanFn) -> None:
    _, doc = scan_dir(SAMPLE_VM)
    server = entry(doc, "mcp_servers", name="jarvis-sessions")
    assert server["transport"] == "stdio" and server["command"].startswith("/opt/jarvis/bin/jarvisd mcp")
    assert (server["user"], server["config"], server["env"]) == (
        "agent",
        "/home/agent/.claude.json",
        ["JARVIS_MODELS_FILE"],
    )
    project = entry(doc, "mcp_servers", name="router-admin")  # a per-project list inside .claude.json
    assert (project["transport"], project["url"]) == ("http", "http://jarvis-router.internal:7070/mcp")
    assert entry(doc, "mcp_servers", name="filesystem")["config"] == "/home/agent/.cursor/mcp.json"


def test_every_format_and_no_secret_leaks(tmp_path: Path, scan_dir: ScanFn) -> None:
    secret = "ghp_" + "A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q7r8"
    write(
        tmp_path,
        "/root/Library/Application Support/Claude/claude_desktop_config.json",
        json.dumps(
            {
                "mcpServers": {
                    "github": {
                        "command": "docker",
                        "args": ["run", "--token", secret, "ghcr.io/x"],
                        "env": {"GITHUB_PERSONAL_ACCESS_TOKEN": secret},
                    }
                }
            }
        ),
    )
    write(
        tmp_path,
        "/home/dev/.vscode/mcp.json",
        '// VS Code\n{"servers": {"docs": {"type": "sse", "url": "https://u:p@mcp.example.com/sse?k=1"}}}',
    )
    write(
        tmp_path,
        "/home/dev/.gemini/settings.json",
        json.dumps({"mcpServers": {"search": {"httpUrl": "https://search.example.com/mcp"}}}),
    )
    write(
        tmp_path,
        "/home/dev/.codex/config.toml",
        'model = "gpt-5.5"\n\n[mcp_servers.tracker]\ncommand = "uvx"\nargs = ["tracker-mcp", "--api-key='
        + secret
        + '"]\n',
    )
    write(
        tmp_path,
        "/etc/claude-code/managed-mcp.json",
        json.dumps({"mcpServers": {"corp": {"url": "https://mcp.corp.example/"}}}),
    )
    _, doc = scan_dir(tmp_path)
    assert secret not in json.dumps(doc["mcp_servers"])
    github = entry(doc, "mcp_servers", name="github")
    assert (github["user"], github["transport"], github["env"]) == ("root", "stdio", ["GITHUB_PERSONAL_ACCESS_TOKEN"])
    assert github["command"] == "docker run --token *** ghcr.io/x"
    docs = entry(doc, "mcp_servers", name="docs")
    assert (docs["transport"], docs["url"], docs["user"]) == ("sse", "https://mcp.example.com/sse", "dev")
    assert entry(doc, "mcp_servers", name="search")["transport"] == "http"
    tracker = entry(doc, "mcp_servers", name="tracker")
    assert tracker["command"] == "uvx tracker-mcp --api-key=***" and tracker["locations"][0]["line"] == 3
    assert entry(doc, "mcp_servers", name="corp")["user"] is None


def test_broken_and_foreign_files_give_nothing(tmp_path: Path, scan_dir: ScanFn) -> None:
    write(tmp_path, "/home/dev/.cursor/mcp.json", '{"mcpServers": {"x": ')
    write(tmp_path, "/srv/app/config.toml", "[mcp_servers.y]\ncommand = \"z\"\n")  # neither a home nor /etc
    write(tmp_path, "/home/dev/.claude.json", json.dumps({"mcpServers": ["not", "a", "map"]}))
    _, doc = scan_dir(tmp_path)
    assert doc["mcp_servers"] == []


def test_a_server_belongs_to_the_user_the_targets_passwd_gives_that_home(tmp_path: Path, scan_dir: ScanFn) -> None:
    """A service account's home outside /home (`/srv/halyard`, as the debian-agent corpus has) is named by the
    target's own passwd, the same way agents[].configs names it; a conventional home without a passwd line keeps
    its directory's name."""
    passwd = "root:x:0:0:root:/root:/bin/bash\nhalyard:x:998:998::/srv/halyard:/usr/sbin/nologin\n"
    write(tmp_path, "/etc/passwd", passwd)
    servers = {"mcpServers": {"fs": {"command": "npx", "args": ["-y", "@modelcontextprotocol/server-filesystem"]}}}
    write(tmp_path, "/srv/halyard/.claude.json", json.dumps(servers))
    write(tmp_path, "/home/dana/.cursor/mcp.json", json.dumps(servers))
    _, doc = scan_dir(tmp_path)
    users = sorted((s["config"], s["user"]) for s in doc["mcp_servers"])
    assert users == [("/home/dana/.cursor/mcp.json", "dana"), ("/srv/halyard/.claude.json", "halyard")]


DATA = Path(__file__).parent / "data" / "configs"


def test_servers_read_by_shape_in_any_home_config(tmp_path: Path, scan_dir: ScanFn) -> None:
    """Products no [[agent_configs]] entry names: their lists are found by container key and record shape."""
    token = "ghp_" + "Z9y8X7w6V5u4T3s2R1q0P9o8N7m6L5k4J3i2"
    # Grok CLI: a nested `transport: {type, url | command}`.
    write(tmp_path, "/home/ann/.grok/settings.json", json.dumps({"mcpServers": {
        "linear": {"name": "linear", "transport": {"type": "sse", "url": "https://mcp.linear.app/sse"}},
        "fs": {"name": "fs", "transport": {"type": "stdio", "command": "npx", "args": ["-y", "server-fs"]}},
    }}))  # fmt: skip
    # Continue: a list of named records; gptme: `[[mcp.servers]]`; Mistral Vibe: `[[mcp_servers]]` with `transport`.
    write(tmp_path, "/home/ann/.continue/config.yaml",
          "mcpServers:\n  - name: sqlite\n    command: uvx\n    args: [mcp-server-sqlite]\n"
          "  - name: docs\n    type: streamable-http\n    url: https://docs.example.com/mcp\n")  # fmt: skip
    write(tmp_path, "/home/ann/.config/gptme/config.toml",
          '[mcp]\nenabled = true\n\n[[mcp.servers]]\nname = "memory"\ncommand = "npx"\nargs = ["-y", "server-memory"]\n'
          '[mcp.servers.env]\nGITHUB_TOKEN = "' + token + '"\n')  # fmt: skip
    write(tmp_path, "/home/ann/.vibe/config.toml",
          '[[mcp_servers]]\nname = "fetch"\ntransport = "http"\nurl = "https://fetch.example.com/mcp"\n'
          '[mcp_servers.headers]\nAuthorization = "Bearer ' + token + '"\n')  # fmt: skip
    # Amp: VS Code-style settings, namespaces flattened into dotted keys (`amp.mcpServers`).
    write(tmp_path, "/home/ann/.config/amp/settings.json", json.dumps({"amp.url": "https://ampcode.com/",
        "amp.mcpServers": {"postgres": {"command": "npx", "args": ["-y", "@modelcontextprotocol/server-postgres"]},
                           "acme-docs": {"url": "https://mcp.acme-corp.net/docs/mcp"}},
        "chat.mcp.enabled": True}))  # fmt: skip
    # Zed: `context_servers` with `command: {path, args}`.
    write(tmp_path, "/etc/zed/settings.json", json.dumps(
        {"context_servers": {"pg": {"command": {"path": "/usr/bin/pg-mcp", "args": ["--ro"]}}}}))
    # Goose: extensions with `cmd`/`uri`; its builtin extensions are no MCP servers.
    write(tmp_path, "/home/ann/.config/goose/config.yaml", (DATA / "goose-config" / "config.yaml").read_text())
    _, doc = scan_dir(tmp_path)
    got = {(s["name"], s["transport"], s["command"] or s["url"], s["user"]) for s in doc["mcp_servers"]}
    assert {
        ("linear", "sse", "https://mcp.linear.app/sse", "ann"),
        ("fs", "stdio", "npx -y server-fs", "ann"),
        ("sqlite", "stdio", "uvx mcp-server-sqlite", "ann"),
        ("docs", "http", "https://docs.example.com/mcp", "ann"),
        ("memory", "stdio", "npx -y server-memory", "ann"),
        ("fetch", "http", "https://fetch.example.com/mcp", "ann"),
        ("pg", "stdio", "/usr/bin/pg-mcp --ro", None),
        ("context7", "stdio", "npx -y @upstash/context7-mcp", "ann"),
        ("postgres", "stdio", "npx -y @modelcontextprotocol/server-postgres", "ann"),
        ("acme-docs", "http", "https://mcp.acme-corp.net/docs/mcp", "ann"),
    } <= got
    goose = {s["name"] for s in doc["mcp_servers"] if s["config"].endswith("goose/config.yaml")}
    assert "developer" not in goose and "computercontroller" not in goose  # builtin: no command, no URL
    assert entry(doc, "mcp_servers", name="memory")["env"] == ["GITHUB_TOKEN"]
    assert entry(doc, "mcp_servers", name="fetch", user="ann", transport="http")["env"] == ["Authorization"]
    assert token not in json.dumps(doc["mcp_servers"])


def test_generic_reader_leaves_other_files_alone(tmp_path: Path, scan_dir: ScanFn) -> None:
    write(tmp_path, "/home/ann/.config/tool/settings.json", json.dumps({"extensions.autoUpdate": True,
          "mcp": {"enabled": True}, "extensions": {"python": {"version": "1.2"}}}))  # fmt: skip
    write(tmp_path, "/srv/app/mcp.yaml", "mcpServers:\n  x:\n    command: y\n")  # neither a home nor /etc
    _, doc = scan_dir(tmp_path)
    assert doc["mcp_servers"] == []


@settings(max_examples=200, deadline=None)
@given(st.recursive(
    st.none() | st.booleans() | st.integers() | st.text(max_size=12),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(
        st.sampled_from(["mcpServers", "mcp", "servers", "command", "args", "url", "type", "transport", "env",
                         "name", "extensions", "cmd", "uri", "x"]), inner, max_size=5),
    max_leaves=30))  # fmt: skip
def test_server_shapes_never_fail_on_any_document(doc: object) -> None:
    from scanner.configs.mcp_shapes import GENERIC_CONTAINERS, read_server, server_records
    from scanner.formats.config import parse_json

    for key, record in server_records(parse_json(json.dumps(doc)), frozenset(GENERIC_CONTAINERS)):
        server = read_server(key, record)
        if server is not None:
            assert server.name and server.transport in ("stdio", "http", "sse", "unknown")
            assert server.command or server.url


def test_secrets_in_a_command_string_or_an_argument_url_never_show(tmp_path: Path, scan_dir: ScanFn) -> None:
    # The MCP docs' Postgres server takes its connection URL (password included) as an argument; a command
    # written as one string carries its flags in it.
    password = "Vq8" + "rT2mLx9Kp4Zw"
    key = "sk-proj-" + "Qm4Tz8" * 8
    servers = {
        "pg": {"command": "npx", "args": ["-y", "@modelcontextprotocol/server-postgres",
                                          f"postgresql://admin:{password}@db.internal:5432/app?sslpassword={password}"]},
        "one": {"command": f"npx -y search-mcp --api-key {key}"},
    }  # fmt: skip
    write(tmp_path, "/home/dev/.cursor/mcp.json", json.dumps({"mcpServers": servers}))
    inv, doc = scan_dir(tmp_path)
    assert entry(doc, "mcp_servers", name="pg")["command"] == (
        "npx -y @modelcontextprotocol/server-postgres postgresql://db.internal:5432/app"
    )
    assert entry(doc, "mcp_servers", name="one")["command"] == "npx -y search-mcp --api-key ***"
    from scanner.render import render

    for fmt in ("json", "table", "markdown", "html", "sarif", "cyclonedx"):
        out = render(fmt, inv)
        assert password not in out and key not in out and key[-12:] not in out, fmt


def test_a_server_list_past_the_item_budget_in_a_file_no_config_parse_reads(tmp_path: Path, scan_dir: ScanFn) -> None:
    # A catalogued list in a test tree: the config detector leaves it, so the MCP reader parses it itself.
    doc = {"mcpServers": {"gh": {"command": "npx", "args": ["-y", "gh-mcp"]}},
           "history": [{"display": "fix it"}] * 120_000}  # fmt: skip
    write(tmp_path, "/srv/app/tests/.mcp.json", json.dumps(doc))
    _, out = scan_dir(tmp_path)
    assert [s["name"] for s in out["mcp_servers"]] == ["gh"]
    skips = [(s["reason"], s["detail"]) for s in out["skipped"] if s["path"] == "/srv/app/tests/.mcp.json"]
    assert [reason for reason, _ in skips] == ["budget-exceeded"] and skips[0][1].startswith("mcp servers: ")


def test_an_opaque_token_among_a_servers_arguments_never_leaves(tmp_path: Path, scan_dir: ScanFn) -> None:
    # Prefix-less keys no catalog format knows: after a short flag, after `Bearer`; ids, paths and versions stay.
    servers = {"a": {"command": "srv", "args": ["-k", "0a1b2c3d4e5f60718293a4b5c6d7e8f9"]},
               "b": {"command": "srv", "args": ["Bearer", "Zq3xW8vB2nM5kL7pR9tY4uI6oA1sD0fG"]},
               "c": {"command": "npx", "args": ["-y", "@modelcontextprotocol/server-github@2025.4.8", "--model",
                                                "claude-opus-4-7", "/srv/data/shared_reports_2025"]}}  # fmt: skip
    write(tmp_path, "/home/dev/.claude.json", json.dumps({"mcpServers": servers}))
    _, doc = scan_dir(tmp_path)
    commands = {s["name"]: s["command"] for s in doc["mcp_servers"]}
    assert commands == {"a": "srv -k ***", "b": "srv Bearer ***", "c": "npx -y @modelcontextprotocol/server-github"
                        "@2025.4.8 --model claude-opus-4-7 /srv/data/shared_reports_2025"}  # fmt: skip
    assert "0a1b2c3d4e5f" not in json.dumps(doc) and "Zq3xW8vB2n" not in json.dumps(doc)

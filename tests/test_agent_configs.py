"""The `agent_configs` detector on MCP server lists in their documented formats."""

from __future__ import annotations

import json
from pathlib import Path

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
    write(tmp_path, "/home/dev/app/config.toml", '[mcp_servers.y]\ncommand = "z"\n')  # not a Codex config
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

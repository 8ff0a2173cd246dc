"""Agent tool configs in every user home: the MCP servers each agent is given.

Claude Code (`~/.claude.json`, `.mcp.json`, `managed-mcp.json`), Claude Desktop
(`claude_desktop_config.json`), Cursor (`~/.cursor/mcp.json`), Gemini CLI (`~/.gemini/settings.json`),
VS Code (`.vscode/mcp.json` `servers`, or `mcp.servers` in settings) and Codex (`[mcp_servers.*]` in
`~/.codex/config.toml`) all list servers as a name mapped to a command or a URL. Models, base URLs and
credentials in the same files are the config detector's; this one reads only the server lists. Env
values and secret-looking arguments are never reported: only the variable names.

Which files and which container keys is catalog data (`[[agent_configs]]`, catalogs/agents.toml): a
user catalog teaches this detector a new tool without code. A file several entries name is read once,
with the union of their containers.
"""

from __future__ import annotations

import json
import re
import sys
from collections.abc import Iterator
from typing import Any

from scanner.detectors.base import FileView
from scanner.detectors.config_formats import clean_json
from scanner.model import Context, Evidence, McpServerEvidence
from scanner.secrets import safe_url

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover
    import tomli as tomllib

_MAX_DEPTH = 6
_MAX_SERVERS = 500
_SECRET_WORD = re.compile(r"(?i)(?:key|token|secret|password|passwd|auth|bearer)")
_SECRET_ASSIGN = re.compile(r"(?i)^(-{0,2}[a-z0-9_.-]*(?:key|token|secret|password|auth)[a-z0-9_.-]*[=:]).+$")


class AgentConfigDetector:
    name = "agent_configs"
    description = "MCP server lists of agent tools (Claude Code/Desktop, Cursor, Gemini CLI, VS Code, Codex)"

    def wants(self, view: FileView) -> bool:
        if view.entry.size > 4 << 20 or not view.catalog.agent_configs_at(view.entry.path):
            return False
        return view.context not in (Context.PACKAGE, Context.BINARY)

    def extract(self, view: FileView) -> Iterator[Evidence]:
        specs = view.catalog.agent_configs_at(view.entry.path)
        if not specs:
            return
        containers = tuple(dict.fromkeys(c for spec in specs for c in spec.containers))
        try:
            if specs[0].format == "toml":
                doc: Any = tomllib.loads(view.text)
            else:
                doc = json.loads(clean_json(view.text))
        except (ValueError, RecursionError):
            return  # the config detector records the file as parse_error
        servers = list(_server_maps(doc, containers, 0))[:_MAX_SERVERS]
        user = view.user_of(view.entry.path)
        for name, spec in servers:
            line = _line_of(view.text, name, containers)
            yield _server(name, spec, user, view.location(line, Context.CONFIG))


def _server_maps(doc: Any, containers: tuple[str, ...], depth: int) -> Iterator[tuple[str, dict[str, Any]]]:
    """(name, spec) of every server under a container key, at any depth (per-project lists too)."""
    if depth > _MAX_DEPTH or not isinstance(doc, dict):
        return
    for key, value in doc.items():
        if not isinstance(value, dict):
            continue
        servers = _container_map(str(key), value, containers)
        if servers is not None:
            for name, spec in sorted(servers.items()):
                if isinstance(spec, dict):
                    yield str(name), spec
        else:
            yield from _server_maps(value, containers, depth + 1)


def _container_map(key: str, value: dict[str, Any], containers: tuple[str, ...]) -> dict[str, Any] | None:
    """The server map `key: value` holds when `key` starts a container (`mcp.servers`: key `mcp.servers`,
    or `servers` under `mcp`, as VS Code settings write either); None otherwise."""
    for container in containers:
        if key == container:
            return value
        head, _, rest = container.partition(".")
        if rest and key == head:
            inner = _dig(value, rest)
            if inner is not None:
                return inner
    return None


def _dig(doc: dict[str, Any], path: str) -> dict[str, Any] | None:
    found = doc.get(path)
    if isinstance(found, dict):
        return found
    head, _, rest = path.partition(".")
    below = doc.get(head)
    return _dig(below, rest) if rest and isinstance(below, dict) else None


def _server(name: str, spec: dict[str, Any], user: str | None, location: Any) -> McpServerEvidence:
    raw_command = spec.get("command")
    command = raw_command if isinstance(raw_command, str) else None
    args = [str(a) for a in spec.get("args", []) if isinstance(a, str | int | float)] if command else []
    if command and isinstance(spec.get("args"), list):
        command = " ".join([command, *_redact_args(args)])
    elif isinstance(raw_command, list) and raw_command and all(isinstance(a, str) for a in raw_command):
        # opencode writes the command line as one list: `"command": ["npx", "-y", "server"]`.
        command = " ".join([raw_command[0], *_redact_args(raw_command[1:])])
    raw_url = spec.get("url") or spec.get("serverUrl") or spec.get("httpUrl")
    url = safe_url(raw_url) if isinstance(raw_url, str) else None
    kind = str(spec.get("type") or spec.get("transport") or "").lower()
    if kind in ("stdio", "sse"):
        transport = kind
    elif kind == "local":  # opencode: local = a command, remote = a URL
        transport = "stdio"
    elif kind == "remote":
        transport = "sse" if url and url.rstrip("/").endswith("/sse") else "http"
    elif kind in ("http", "streamable-http", "streamablehttp", "streamable_http"):
        transport = "http"
    elif command:
        transport = "stdio"
    elif url:
        transport = "sse" if url.rstrip("/").endswith("/sse") else "http"
    else:
        transport = "unknown"
    env = spec.get("env")
    env_names = tuple(sorted(str(k) for k in env)) if isinstance(env, dict) else ()
    return McpServerEvidence(name, transport, command, url, env_names, user, location)


def _redact_args(args: list[str]) -> list[str]:
    out: list[str] = []
    for i, arg in enumerate(args):
        assign = _SECRET_ASSIGN.match(arg)
        if assign:
            out.append(assign.group(1) + "***")
        elif i > 0 and args[i - 1].startswith("-") and _SECRET_WORD.search(args[i - 1]):
            out.append("***")
        else:
            out.append(arg)
    return out




def _line_of(text: str, name: str, containers: tuple[str, ...]) -> int | None:
    # JSON writes the name quoted; TOML as a table header `[container.name]` or `[container."name"]`.
    needles = [f'"{name}"', *(n for c in containers for n in (f"{c}.{name}]", f'{c}."{name}"]'))]
    for needle in needles:
        pos = text.find(needle)
        if pos != -1:
            return text.count("\n", 0, pos) + 1
    return None

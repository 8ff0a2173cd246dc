"""MCP servers in every user home and under /etc: the servers each agent is given, whatever tool wrote the list.

The catalogued files (`[[agent_configs]]`, catalogs/agents.toml: Claude Code's `.claude.json`, VS Code's
`mcp.json` `servers`, Codex's `[mcp_servers.*]`, …) are read with the containers the catalog names; any other
JSON, YAML or TOML config in a home or /etc is read with the generic containers (`mcpServers`, `mcp_servers`,
`mcp`, `context_servers`, `extensions`). Either way a server is a record of an MCP shape (`mcp_shapes`), so a
product no catalog knows still has its servers found. Models, base URLs and credentials in the same files are
the config detector's; env and header values are never reported, only their names.
"""

from __future__ import annotations

from collections.abc import Iterator

from scanner.configs.mcp_shapes import GENERIC_CONTAINERS, read_server, server_records
from scanner.detectors.contract import CatalogFiles, Files, Needs
from scanner.fileview.config_parse import norm_key
from scanner.fileview.view import FileView
from scanner.formats.config import ConfigItem, ParseFailure, first_line, parse_json, parse_toml, parse_yaml
from scanner.kinds import Evidence
from scanner.kinds.mcp_servers import McpServerEvidence
from scanner.model import Context, Skip, SkipReason

_MAX_BYTES = 4 << 20
_GENERIC_EXT = (".json", ".jsonc", ".yaml", ".yml", ".toml")
_GENERIC_NAMES = tuple(f"*{ext}" for ext in _GENERIC_EXT)
_PARSERS = {"json": parse_json, "toml": parse_toml, "yaml": parse_yaml}
# Bytes one of the generic containers contains, looked for before a file is read by key.
_NEEDLES = (b"mcp", b"MCP", b"context_servers", b"extensions")
_NOT_HERE = frozenset({Context.PACKAGE, Context.BINARY, Context.TEST, Context.DOCS})
_NOT_LISTS = frozenset({Context.PACKAGE, Context.BINARY})


class AgentConfigDetector:
    name = "agent_configs"
    description = "MCP server lists of agent tools, catalogued or read by their shape in any home or /etc config"
    # The files the catalog names, and any JSON, YAML or TOML config in a home or /etc that may hold a server list.
    needs = Needs((
        Files(catalog=CatalogFiles.AGENT_CONFIGS, max_size=_MAX_BYTES, not_in=_NOT_LISTS),
        Files(names=_GENERIC_NAMES, fold_case=True, max_size=_MAX_BYTES, not_in=_NOT_HERE,
              accept=lambda view: _generic_place(view)),
    ))  # fmt: skip

    def extract(self, view: FileView) -> Iterator[Evidence | Skip]:
        specs = view.catalog.agent_configs_at(view.entry.path)
        containers = {norm_key(c) for spec in specs for c in spec.containers}
        if not specs or _generic(view):
            containers.update(GENERIC_CONTAINERS)
        items, cut = _items(view, specs[0].format if specs else None)
        if cut is not None:
            yield Skip(view.path, SkipReason.BUDGET_EXCEEDED, f"mcp servers: {cut}")
        user = view.user_of(view.entry.path)
        for key, record in server_records(items, frozenset(containers)):
            server = read_server(key, record)
            if server is not None:
                loc = view.location(_line_of(view.text, server.name, server.line), Context.CONFIG)
                yield McpServerEvidence(
                    server.name, server.transport, server.command, server.url, server.env, user, loc
                )


def _generic(view: FileView) -> bool:
    """A config file in a home or /etc that may hold a server list by one of the generic container keys."""
    return view.name.lower().endswith(_GENERIC_EXT) and view.context not in _NOT_HERE and _generic_place(view)


def _generic_place(view: FileView) -> bool:
    """In a home or /etc, with one of the generic container keys in its bytes."""
    path = view.entry.path
    if not (path.startswith("/etc/") or view.user_of(path) is not None):
        return False
    return any(n in view.data for n in _NEEDLES)


def _items(view: FileView, fmt: str | None) -> tuple[tuple[ConfigItem, ...], str | None]:
    """The file's items (the shared config parse's, else its own: a file the config detector does not read), and
    what cut its own parse (an item budget)."""
    if view.config is not None and not view.config.broken:
        return view.config.items, None
    parser = _PARSERS.get(fmt or "") or _PARSERS.get(
        view.name.rsplit(".", 1)[-1].replace("jsonc", "json").replace("yml", "yaml")
    )
    if parser is None:
        return (), None
    try:
        return view.items_as(parser)
    except (ParseFailure, ValueError):
        return (), None


def _line_of(text: str, name: str, first_value: int | None) -> int | None:
    """The line that names the server (JSON's `"name"`, a TOML header `[mcp_servers.name]`, YAML's `name:`)
    at or before its first value; else that value's line."""
    best = None
    for needle in (f'"{name}"', f".{name}]", f'."{name}"]', f"{name}:"):
        line = first_line(text, needle)
        if line is not None and (first_value is None or line <= first_value) and (best is None or line < best):
            best = line
    return best or first_value


DETECTOR = AgentConfigDetector()

"""MCP server records, read by their shape from a parsed config's items, whatever tool wrote the file.

Every agent product lists its MCP servers as a map or a list under one of a few container keys
(`mcpServers`, `mcp_servers`, `mcp.servers`, `context_servers`, goose's `extensions`, opencode's `mcp`),
each server a record with a command line (`command` + `args`, `cmd`, `command: [..]`, Zed's
`command: {path, args}`) or a URL (`url`, `uri`, `serverUrl`, `httpUrl`, or a nested `transport: {type,
url | command}`). A record of neither shape (goose's `builtin` extensions, a setting such as
`mcp.enabled`) is no server. Env and header values are never kept: only their names.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass

from scanner.fileview.config_parse import norm_key
from scanner.formats.config import ConfigItem
from scanner.secrets import safe_url

# Keys whose map or list holds MCP servers (compared case-insensitively, `-` as `_`).
GENERIC_CONTAINERS = ("mcpservers", "mcp_servers", "context_servers", "extensions", "mcp")
_GENERIC = frozenset(GENERIC_CONTAINERS)
# Under `mcp`, a further key may hold the list (`mcp.servers` of VS Code and gptme).
_INNER = ("servers", "mcpservers")
# Container names unambiguous enough to be the last part of a dotted settings key (`amp.mcpServers`); `mcp` and
# `extensions` are not (`chat.mcp.enabled`, `git.extensions`).
_DOTTED_LAST = ("mcpservers", "mcp_servers", "context_servers")
_MAX_SERVERS = 500
_SECRET_WORD = re.compile(r"(?i)(?:key|token|secret|password|passwd|auth|bearer)")
_SECRET_ASSIGN = re.compile(r"(?i)^(-{0,2}[a-z0-9_.-]*(?:key|token|secret|password|auth)[a-z0-9_.-]*[=:]).+$")
# An argument that is one opaque token (a prefix-less key after `-k`, after `Bearer`): letters and digits mixed, no
# separator an id, a path or a version has (`-`, `.`, `/`, `:`, `@`).
_OPAQUE = re.compile(r"^(?=[A-Za-z0-9_+=]*[0-9])(?=[A-Za-z0-9_+=]*[A-Za-z])[A-Za-z0-9_+=]{24,}$")
_URL_KEYS = ("url", "uri", "serverurl", "httpurl", "endpoint")
_ENV_KEYS = ("env", "envs", "environment", "headers", "http_headers", "env_vars")
# A URL inside an argument (`postgresql://user:pass@db/app`, `--db=https://…?key=…`): its user info and query go.
_ARG_URL = re.compile(r"[A-Za-z][A-Za-z0-9+.\-]*://\S+")
_HTTP_KINDS = ("http", "streamable-http", "streamablehttp", "streamable_http", "remote-http")


@dataclass(frozen=True)
class Server:
    name: str
    transport: str  # stdio | http | sse | unknown
    command: str | None
    url: str | None
    env: tuple[str, ...]  # variable and header names, never values
    line: int | None


def _is_index(segment: str) -> bool:
    return segment.startswith("[") and segment.endswith("]")


def _container_at(path: tuple[str, ...], containers: frozenset[str]) -> int | None:
    """Where the server map or list starts in `path`: the index of its first entry's segment, or None.

    The first container key wins (a server named `mcp` inside `mcpServers` is a server); `mcp` followed by
    `servers` is one container; `a.b` names the key `a.b` or `b` under `a` (VS Code's `mcp.servers`). A settings
    file that flattens its namespaces into dotted keys names a server map `<namespace>.mcpServers` (Amp's
    `amp.mcpServers`): its last part is the container."""
    for i, seg in enumerate(path[:-1]):
        key = norm_key(seg)
        if "." in key and key.rsplit(".", 1)[-1] in _DOTTED_LAST and key.rsplit(".", 1)[-1] in containers:
            return i + 1
        if key in containers:
            if key == "mcp" and i + 2 < len(path) and norm_key(path[i + 1]) in _INNER:
                return i + 2
            return i + 1
        if i + 1 < len(path) - 1 and f"{key}.{norm_key(path[i + 1])}" in containers:
            return i + 2
    return None


def server_records(
    items: Iterable[ConfigItem], containers: frozenset[str]
) -> Iterator[tuple[str, dict[tuple[str, ...], list[ConfigItem]]]]:
    """(entry key, record) of each entry of a container: the record maps a path inside the entry (list
    positions dropped: `args[0]` is `args`) to its items, in file order."""
    records: dict[tuple[str, ...], dict[tuple[str, ...], list[ConfigItem]]] = {}
    for item in items:
        at = _container_at(item.path, containers)
        if at is None or at >= len(item.path):
            continue
        entry = item.path[: at + 1]
        if entry not in records:
            if len(records) >= _MAX_SERVERS:
                continue
            records[entry] = {}
        rel = tuple(norm_key(p) for p in item.path[at + 1 :] if not _is_index(p))
        records[entry].setdefault(rel, []).append(item)
    for entry, record in records.items():
        yield entry[-1], record


def server_fields(items: Iterable[ConfigItem], containers: frozenset[str] = frozenset()) -> frozenset[tuple[str, ...]]:
    """The paths of the items inside a record of MCP shape under one of the generic containers, or one the catalog
    names for this file (VS Code's `servers`): a URL there is the server's (a tool the agent calls), not an API a
    model is reached through."""
    fields: set[tuple[str, ...]] = set()
    for key, record in server_records(items, _GENERIC | containers):
        if read_server(key, record) is not None:
            fields.update(item.path for its in record.values() for item in its)
    return frozenset(fields)


def read_server(key: str, record: dict[tuple[str, ...], list[ConfigItem]]) -> Server | None:
    """The server a record describes, or None when it has no MCP shape (no command line, no URL)."""
    if () in record:
        return None  # a scalar setting beside the servers (`mcp.enabled = true`), not a record
    name = _first(record, ("name",)) if _is_index(key) else key
    if not name:
        return None
    base: tuple[str, ...] = ()
    if ("transport", "type") in record or ("transport", "url") in record or ("transport", "command") in record:
        base = ("transport",)  # `transport: {type, url | command, args}` (Grok CLI)
    command = _command(record, base) or _command(record, ())
    raw_url = next((u for k in _URL_KEYS if (u := _first(record, (*base, k)) or _first(record, (k,)))), None)
    url = safe_url(raw_url) if raw_url and "://" in raw_url else None
    if command is None and url is None:
        return None
    kind = (_first(record, (*base, "type")) or _first(record, ("type",)) or "").lower()
    if not kind and base == ():
        kind = (_first(record, ("transport",)) or "").lower()
    env = {_raw_key(its[0]) for p, its in record.items() if len(p) == 2 and p[0] in _ENV_KEYS} | _env_keys(record)
    lines = [it.line for items in record.values() for it in items if it.line is not None]
    return Server(name, _transport(kind, command, url), command, url, tuple(sorted(env)), min(lines) if lines else None)


def _first(record: dict[tuple[str, ...], list[ConfigItem]], rel: tuple[str, ...]) -> str | None:
    items = record.get(rel)
    return items[0].value.strip() if items else None


def _command(record: dict[tuple[str, ...], list[ConfigItem]], base: tuple[str, ...]) -> str | None:
    """The command line: `command` + `args`, goose's `cmd`, opencode's `command: [..]`, Zed's `command.path`."""
    for key in ("command", "cmd"):
        parts = [it.value for it in record.get((*base, key), [])]
        if not parts:
            parts = [it.value for it in record.get((*base, key, "path"), [])]
            args = [it.value for it in record.get((*base, key, "args"), [])]
        else:
            args = [it.value for it in record.get((*base, "args"), [])]
        if parts and parts[0].strip():
            # A command written as one string carries its arguments in it (`"command": "srv --api-key …"`).
            return " ".join(redact_args([*parts[0].split(" "), *parts[1:], *args]))
    return None


def _raw_key(item: ConfigItem) -> str:
    """The key as the file spells it (`GITHUB_TOKEN`, not its normalised form)."""
    return next(p for p in reversed(item.path) if not _is_index(p))


def _env_keys(record: dict[tuple[str, ...], list[ConfigItem]]) -> set[str]:
    # goose lists the names of the variables it passes: `env_keys: [GITHUB_TOKEN]`.
    return {it.value for it in record.get(("env_keys",), []) if it.value.strip()}


def _transport(kind: str, command: str | None, url: str | None) -> str:
    if kind in ("stdio", "sse"):
        return kind
    if kind in ("local", "command"):  # opencode: local = a command, remote = a URL
        return "stdio"
    if kind in _HTTP_KINDS:
        return "http"
    if url and (kind == "remote" or not command):
        return "sse" if url.rstrip("/").endswith("/sse") else "http"
    if command:
        return "stdio"
    return "unknown"


def redact_args(args: list[str]) -> list[str]:
    out: list[str] = []
    for i, arg in enumerate(args):
        assign = _SECRET_ASSIGN.match(arg)
        if assign:
            out.append(assign.group(1) + "***")
        elif (i > 0 and args[i - 1].startswith("-") and _SECRET_WORD.search(args[i - 1])) or _OPAQUE.match(arg):
            out.append("***")
        else:
            out.append(_ARG_URL.sub(lambda m: safe_url(m.group()), arg) if "://" in arg else arg)
    return out

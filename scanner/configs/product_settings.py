"""An agent product's settings files: what each user's file selects, read under the key paths the catalog names.

The model(s) it selects, the route (the product's route rules), the base URL, the MCP servers (read by their
shape) and the credentials, which leave as hashes. Formats: JSON, TOML, YAML, env files, a one-value text file
(`llm`'s `default_model.txt`) and an editor's global-state SQLite (`state.vscdb`: an extension's row, by its id).
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from scanner.catalog.specs import AgentAlias, AgentProduct, AgentRoute, AgentSettingsFile
from scanner.configs.mcp_shapes import read_server, server_records
from scanner.fileview.config_parse import norm_key
from scanner.fileview.view import FileView
from scanner.formats.config import ConfigItem, ParseFailure, parse_env, parse_json, parse_toml, parse_yaml
from scanner.formats.vscdb import parse_vscdb
from scanner.kinds import Evidence
from scanner.kinds.agents import AgentConfigEvidence
from scanner.kinds.credentials import CredentialEvidence, credential_evidence
from scanner.kinds.models import ModelEvidence
from scanner.model import Context, Skip, SkipReason
from scanner.secrets import safe_url

_MAX_NAMES = 500  # MCP servers / models per settings file
_PARSERS = {"json": parse_json, "toml": parse_toml, "yaml": parse_yaml, "env": parse_env}
# `{env:OPENAI_API_KEY}` (opencode), `${VAR}`, `$VAR`, `env:VAR`: a reference to a secret, not one.
_REFERENCE = re.compile(r"^\s*(?:\{env:[^}]*\}|\$\{[^}]*\}|\$[A-Za-z_][A-Za-z0-9_]*|env:[A-Za-z_]\w*|\{\{.*\}\})\s*$")
_MODELISH = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._:@/+\-]{0,159}$")
_TEMPLATE = re.compile(r"\{([^{}]+)\}")


def parse_settings(view: FileView, fmt: str) -> tuple[list[ConfigItem], str | None]:
    """The file's items in the settings format the catalog gives, and what cut them (an item budget) if anything
    did that the shared config parse did not record; raises ParseFailure."""
    if fmt == "vscdb":
        return parse_vscdb(view.data), None
    if fmt == "text":  # the whole file is one value (`default_model.txt`)
        value = view.text.strip()
        return ([ConfigItem(("text",), value, 1)] if value and "\n" not in value else []), None
    items, cut = view.items_as(_PARSERS[fmt])
    return list(items), cut


def read_settings(view: FileView, product: AgentProduct, settings: AgentSettingsFile) -> Iterator[Evidence | Skip]:
    try:
        items, cut = parse_settings(view, settings.format)
    except ParseFailure as exc:
        yield Skip(view.path, SkipReason.PARSE_ERROR, f"agents: {product.id} {settings.format}: {exc}")
        return
    if cut is not None:
        yield Skip(view.path, SkipReason.BUDGET_EXCEEDED, f"agents: {product.id} {settings.format}: {cut}")
    keys = Keys(items)
    user = view.user_of(view.entry.path)
    vendor = product.vendor
    route, record_routes = _routes(keys, product, _model_records(keys, settings))
    models: dict[str, None] = {}
    model_evidence: list[ModelEvidence] = []
    overridden = _overridden(keys, settings.selection)
    aliases = {a.name: a for a in product.aliases}
    for pattern in settings.model:
        for item in keys.at(pattern):
            value = item.value.strip()
            if not _MODELISH.match(value) or value.isdigit() or _REFERENCE.match(value) or value in models:
                continue
            if (value, item.line) in overridden:
                continue
            if len(models) < _MAX_NAMES:
                models[value] = None
                loc = view.location(item.line, Context.CONFIG)
                alias = aliases.get(value)
                base = _alias_base(keys, alias) if alias else None
                served_via = _record_route(item, route, record_routes)
                model_evidence.append(ModelEvidence(value, loc, base_model=base, served_via=served_via))
    base_url = None
    for pattern in settings.base_url:
        for item in keys.at(pattern):
            if "://" in item.value and base_url is None:
                base_url = view.catalog.scrub(safe_url(item.value.strip()))
    servers: dict[str, None] = {}
    containers = frozenset(norm_key(c) for c in settings.mcp)
    for key, record in server_records(items, containers) if containers else ():
        server = read_server(key, record)  # a map or a list of servers, read by their shape
        if server is not None and len(servers) < _MAX_NAMES:
            servers[server.name] = None
    creds = _credentials(view, keys, settings, vendor)
    if not (models or route or base_url or servers or creds):
        return
    route = _one_route(model_evidence, route)
    yield from model_evidence
    yield from creds
    yield AgentConfigEvidence(
        product.id,
        user,
        tuple(models),
        route,
        base_url,
        tuple(sorted(servers)),
        tuple(sorted({c.sha256 for c in creds})),
        view.location(None, Context.CONFIG),
        tuple(sorted(overridden, key=lambda o: (o[1] or 0, o[0]))),
    )


def _fires(rule: AgentRoute, value: str) -> bool:
    value = value.strip()
    return bool(rule.equals and value.lower() in {v.lower() for v in rule.equals}) or (
        rule.prefix is not None and value.startswith(rule.prefix)
    )


def _routes(
    keys: Keys, product: AgentProduct, model_records: set[tuple[str, ...]]
) -> tuple[str | None, dict[tuple[str, ...], str | None]]:
    """The route the product's own route keys state for the file (the first rule that fires: `"provider":
    "bedrock"`, a `bedrock/` prefix), and for each record that holds a route key, the first rule that fires there
    (none when none does), read in one pass. A route key of a record (`models.provider`) names a field of a model
    record: any other model record with that field (Continue's `tabAutocompleteModel.provider`) is routed by it."""
    route: str | None = None
    records: dict[tuple[str, ...], str | None] = {}
    by_full_path = {it.path: it for _, it in keys.items} if model_records else {}
    for rule in product.routes:
        found = keys.at(rule.key)
        if "." in rule.key and "{" not in rule.key:
            field = rule.key.rsplit(".", 1)[1]
            found = found + [it for r in sorted(model_records) if (it := by_full_path.get((*r, field))) is not None]
        for item in found:
            record = item.path[:-1]
            fires = _fires(rule, item.value)
            if fires and records.get(record) is None:
                records[record] = rule.route
            records.setdefault(record, None)
            if item.path[:-1] in model_records and not _in_rule_container(item, rule):
                continue  # a record outside the rule's own container routes its model, not the file
            route = route or (rule.route if fires else None)
    return route, records


def _in_rule_container(item: ConfigItem, rule: AgentRoute) -> bool:
    return tuple(p for p in item.path if not _is_index(p)) == tuple(rule.key.split("."))


def _model_records(keys: Keys, settings: AgentSettingsFile) -> set[tuple[str, ...]]:
    """The records (full paths, list positions kept) that hold a model setting, the top level excepted."""
    return {item.path[:-1] for pattern in settings.model for item in keys.at(pattern) if len(item.path) > 1}


def _one_route(models: list[ModelEvidence], file_route: str | None) -> str | None:
    """The route of the whole file: its models' one route; none when they take different ones (Continue's chat on
    Vertex, autocomplete on Ollama: each model carries its own)."""
    if not models:
        return file_route
    routes = {ev.served_via for ev in models}
    return routes.pop() if len(routes) == 1 else None


def _record_route(
    item: ConfigItem, file_route: str | None, records: dict[tuple[str, ...], str | None]
) -> str | None:
    """The route a model of a model record takes: its own record's (Continue's `models[1].provider: ollama` beside
    `models[0].provider: vertexai`, its `tabAutocompleteModel.provider`), none when its record holds the key and no
    rule fires there (the product's default then). A model whose record holds no route key takes the file's."""
    record = item.path[:-1]
    if not record or record not in records:
        return file_route
    return records[record]


def _credentials(
    view: FileView, keys: Keys, settings: AgentSettingsFile, vendor: str | None
) -> list[CredentialEvidence]:
    """Keys in the product's credential settings: a literal value, not a reference or a placeholder."""
    creds: list[CredentialEvidence] = []
    for pattern in settings.credentials:
        for item in keys.at(pattern):
            value = item.value.strip()
            if len(value) < 8 or _REFERENCE.match(value) or view.catalog.is_placeholder(value):
                continue
            kind = f"{vendor}-api-key" if vendor else "api-key"
            loc = view.location(item.line, Context.CONFIG)
            if loc.context is Context.CONFIG:
                creds.append(credential_evidence(value, kind, vendor, "", loc, view.meta))
    return creds


def _overridden(keys: Keys, selection: tuple[str, ...]) -> set[tuple[str, int | None]]:
    """The model settings a key the product reads first shadows: all but the first one set, in `selection`."""
    found = [it for pattern in selection for it in keys.at(pattern) if _MODELISH.match(it.value.strip())]
    return {(it.value.strip(), it.line) for it in found[1:]}


def _alias_base(keys: Keys, alias: AgentAlias) -> str | None:
    """What a product alias resolves to here: the first of its base keys set in the file, else its default."""
    for pattern in alias.base_keys:
        for item in keys.at(pattern):
            value = item.value.strip()
            if _MODELISH.match(value) and not _REFERENCE.match(value):
                return value
    return alias.default


class Keys:
    """A parsed settings file's scalar values, looked up by dotted key path (`*` = any one key)."""

    def __init__(self, items: list[ConfigItem]) -> None:
        # List positions under a key (`args[0]`) belong to that key: a path ends at its last named key.
        self.items = [(tuple(p for p in it.path if not _is_index(p)), it) for it in items]
        self.by_path: dict[tuple[str, ...], list[ConfigItem]] = {}
        for path, it in self.items:
            self.by_path.setdefault(path, []).append(it)

    def _expand(self, pattern: str) -> str:
        # `{model_provider}` is that key's value in the same file.
        def value_of(m: re.Match[str]) -> str:
            found = self.by_path.get(tuple(m.group(1).split(".")))
            return found[0].value if found else "\0"

        for _ in range(3):  # innermost first: `{profiles.{profile}.model_provider}`
            expanded = _TEMPLATE.sub(value_of, pattern)
            if expanded == pattern:
                break
            pattern = expanded
        return pattern

    def at(self, pattern: str) -> list[ConfigItem]:
        segs = tuple(self._expand(pattern).split("."))
        if "*" not in segs:
            exact = self.by_path.get(segs)
            if exact is not None:
                return exact
            # A key with dots in it (`"mcp.servers"`, TOML `[projects."a.b"]`): compare the joined path.
            joined = ".".join(segs)
            return [it for path, it in self.items if ".".join(path) == joined]
        return [it for path, it in self.items if len(path) == len(segs) and _match(path, segs)]

    def children(self, container: str) -> list[str]:
        """The keys right under `container` (the names of the map it holds)."""
        segs = tuple(self._expand(container).split("."))
        names: dict[str, None] = {}
        for path, _ in self.items:
            if len(path) > len(segs) and _match(path[: len(segs)], segs):
                names[path[len(segs)]] = None
        return list(names)


def _match(path: tuple[str, ...], segs: tuple[str, ...]) -> bool:
    return all(s == "*" or s == p for p, s in zip(path, segs, strict=True))


def _is_index(segment: str) -> bool:
    return segment.startswith("[") and segment.endswith("]") and segment[1:-1].isdigit()


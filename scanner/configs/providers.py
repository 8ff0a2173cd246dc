"""Provider blocks and model records of agent configs: the route each model takes, and the alias a record names.

Agent products write the same two things in many spellings:
- a provider block, in a map or a list (`providers.<id>`, `model_providers.<id>`, `provider.<id>.options`,
  `[[providers]] name = …`), with a base URL (`base_url`, `baseURL`, `apiBase`, `api_base`) and often a type
  or backend (`type = "vertexai"`);
- a model record that names its model and the provider it takes (`models[]` with `provider`, Continue's
  `{name, provider, model, apiBase}`, Mistral Vibe's `[[models]] name/provider/alias`).

The route is the README's vocabulary, never the product's own provider id: the record's or its block's base
URL decides first (a catalogued host gives its route, `direct` for a vendor's own API; an uncatalogued one is a
gateway, named by its host), then the block's type, then the provider's name as the catalogs spell routes
(`vertexai` -> vertex, `gemini` -> direct). A name no catalog knows without a base URL leaves the route unset.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from urllib.parse import urlsplit

from scanner.catalog import Catalog
from scanner.fileview.config_parse import norm_key
from scanner.formats.config import ConfigItem
from scanner.hosts import filled_slots, is_self_hosted

# The key names of blocks and records are the catalog's (`[config_keys]`: provider_container, block_field,
# record_base_url, record_endpoint, block_url, block_type, model_map, alias_key).
_DOMAIN = re.compile(r"^(?:[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?\.)+[a-z]{2,24}$")
_MODELISH = re.compile(r"^(?=.*[A-Za-z])[A-Za-z0-9][A-Za-z0-9._:@/\-]{0,118}$")

Record = tuple[str, ...]


@dataclass(frozen=True)
class RecordAlias:
    """A record's alias (`gw-mini`) for the model it names (`gpt-4.1-mini`)."""

    name: str
    model: str
    line: int | None
    path: tuple[str, ...]  # the alias item's path (consumed: not a model of its own)
    record: Record


def record_of(path: tuple[str, ...]) -> Record:
    """The enclosing record: up to the last list element, else the parent mapping."""
    for i in range(len(path) - 1, -1, -1):
        if path[i].startswith("["):
            return path[: i + 1]
    return path[:-1]


def _fields(items: Sequence[ConfigItem]) -> dict[Record, dict[str, ConfigItem]]:
    """Each record's own scalar fields, by normalised key (the first item of a key wins)."""
    out: dict[Record, dict[str, ConfigItem]] = {}
    for item in items:
        if not item.path or item.path[-1].startswith("["):
            continue
        out.setdefault(record_of(item.path), {}).setdefault(norm_key(item.path[-1]), item)
    return out


def url_route(url: str, catalog: Catalog) -> str | None:
    """A base URL's route: a catalogued host's (its vendor's own API is `direct`), else the host itself."""
    try:
        host = urlsplit(url.strip() if "://" in url else f"https://{url.strip()}").hostname
    except ValueError:
        return None
    if not host:
        return None
    spec = catalog.host_info(host)
    if spec is None:
        if filled_slots(host) is not None:
            return None  # a template's unfilled slot (`http://<YOUR_PROXY_HOST>:4000`) names no gateway
        # A server on this machine (Ollama, a local LiteLLM) serves what it runs itself; another is a gateway.
        return "self-hosted" if is_self_hosted(host) else host.lower()
    return spec.served_via or ("direct" if spec.vendor else None)


def _block_route(fields: dict[str, ConfigItem], name: str, catalog: Catalog) -> str | None:
    for key in (*catalog.ordered_keys("record_base_url"), *catalog.ordered_keys("block_url")):
        item = fields.get(key)
        if item is not None and "://" in item.value:
            return url_route(item.value, catalog)
    for key, item in fields.items():
        spec = catalog.env_var(item.value.strip()) if key.endswith(("_env", "_env_var")) else None
        if spec is not None and spec.role == "base_url" and spec.vendor:
            return "direct"  # `base_url_env: OPENAI_BASE_URL`: the vendor's own API unless that variable moves it
    for key in catalog.ordered_keys("block_type"):
        item = fields.get(key)
        if item is not None and (route := catalog.route_named(item.value.rsplit("/", 1)[-1])):
            return route
    return catalog.route_named(name)


def _block_records(items: Sequence[ConfigItem], fields: dict[Record, dict[str, ConfigItem]], catalog: Catalog
                   ) -> dict[Record, str]:
    """Each provider block's record -> its name. A block is a record right under a providers container
    (`providers.<id>`, `[[providers]] name = …`), or one of any container that holds a models map or list (mods'
    `apis.<id>.models`, aichat's `clients[] {type, api_base, models}`), or a list element whose type names a route
    (aichat's `clients: [{type: openai}]`). Its name: a list element's `name`, else its `type`; a map's key."""
    containers, model_maps = catalog.keys("provider_container"), catalog.keys("model_map")
    holders: dict[Record, None] = {}
    for item in items:
        path = item.path
        for i in range(len(path) - 1):
            if norm_key(path[i]) in containers and i + 2 < len(path):
                holders[path[: i + 2]] = None  # a providers container's record, fields of its own or not
                break
            if i >= 2 and norm_key(path[i]) in model_maps:
                holders[path[:i]] = None
                break
    for rec, own in fields.items():
        if len(rec) >= 2 and rec[-1].startswith("[") and "type" in own and catalog.route_named(own["type"].value):
            holders[rec] = None
    out: dict[Record, str] = {}
    for rec in [*fields, *holders]:
        at = next((i for i, seg in enumerate(rec) if norm_key(seg) in containers), None)
        if not ((at is not None and len(rec) == at + 2) or rec in holders) or rec in out:
            continue
        own = fields.get(rec, {})
        if rec[-1].startswith("["):
            named = own.get("name") or own.get("type")
            name = named.value.strip() if named is not None else ""
        else:
            name = rec[-1]
        if name and not name.startswith("[") and "\n" not in name:
            out[rec] = name
    return out


@dataclass(frozen=True)
class ProviderBlocks:
    """A config's provider blocks, and every record's own scalar fields (read once, for blocks and routes)."""

    routes: dict[str, str | None]  # each block's name -> its route (None when nothing says it)
    names: dict[Record, str]  # each block's record -> its name
    fields: dict[Record, dict[str, ConfigItem]]


def provider_blocks(items: Sequence[ConfigItem], catalog: Catalog) -> ProviderBlocks:
    """The file's provider blocks: their records, names and routes."""
    fields = _fields(items)
    block_fields = catalog.keys("block_field")
    nested: dict[Record, dict[str, ConfigItem]] = {}
    for rec, own in fields.items():
        if len(rec) >= 2 and norm_key(rec[-1]) in block_fields:
            nested.setdefault(rec[:-1], {}).update(own)
    records = _block_records(items, {**{r: {} for r in nested}, **fields}, catalog)
    blocks: dict[str, str | None] = {}
    for rec, name in sorted(records.items()):
        own = {**nested.get(rec, {}), **fields.get(rec, {})}
        blocks.setdefault(name, _block_route(own, name, catalog))
    return ProviderBlocks(blocks, records, fields)


def record_routes(catalog: Catalog, provider_keys: frozenset[str], provided: ProviderBlocks) -> dict[Record, str]:
    """The route of each record that states one: its own base URL, else the provider it names (`provided`: the
    file's provider blocks)."""
    routes: dict[Record, str] = {}
    blocks, block_records, fields = provided.routes, provided.names, provided.fields
    block_fields = catalog.keys("block_field")
    url_keys = (*catalog.ordered_keys("record_base_url"), *catalog.ordered_keys("record_endpoint"))
    for rec, name in block_records.items():
        if rec not in fields and (route := blocks.get(name)):
            routes[rec] = route  # a block with no scalar of its own (mods' `apis.google: {models: …}`)
    for rec, own in fields.items():
        block = next((rec[:i] for i in range(len(rec), 1, -1) if rec[:i] in block_records), None)
        inside = None
        if block is not None:
            if block == rec:
                # A provider block itself: the route of the models it lists (claude-code-router's
                # `Providers: [{name, api_base_url, models: [ids]}]`) and of a `model` it names.
                if route := blocks.get(block_records[rec]):
                    routes[rec] = route
                continue
            if norm_key(rec[len(block)]) in block_fields and len(rec) == len(block) + 1:
                continue  # a block's options: its base URL is the block's
            inside = block_records[block]  # a model record inside a provider block (opencode `provider.<id>.models`)
        url = next((it.value for k in url_keys if (it := own.get(k)) is not None and "://" in it.value), None)
        named = [it.value.strip() for k, it in own.items() if k in provider_keys] + ([inside] if inside else [])
        candidates = [url_route(url, catalog) if url else None]
        # A block the record names says most (`route: jarvis-router` -> its base URL), then a route's spelling
        # (`provider: openai` -> direct); a bare name nothing explains (`provider: jarvis`) says nothing.
        candidates += [blocks.get(n) for n in named] + [catalog.route_named(n) for n in named]
        # Last, a provider named by its domain (Zed's `default_model: {provider: "zed.dev", model}`) is that host.
        candidates += [url_route(n, catalog) for n in named if _DOMAIN.match(n)]
        route = next((c for c in candidates if c), None)
        if route:
            routes[rec] = route
    return routes


def ancestor_route(routes: dict[Record, str], path: tuple[str, ...]) -> str | None:
    """The route of the nearest record around `path` that states one (the file's top level excepted): a model a
    provider block lists under any key (mods' `apis.ollama.models.<id>`) runs where that block points."""
    for i in range(len(path) - 1, 0, -1):
        if (route := routes.get(path[:i])) is not None:
            return route
    return None


def block_reference(value: str, blocks: dict[str, str | None], sep: str = ",") -> tuple[str, str | None] | None:
    """A value naming one of the file's provider blocks and a model it serves, `<block>,<model>` (claude-code-router's
    `Router.default = "deepseek,deepseek-chat"`) or `<block>:<model>` (aichat's `model: local:llama3.1:8b`): the
    model and the block's route."""
    block, sep, model = value.partition(sep)
    model = model.strip()
    if not sep or "," in model or block.strip() not in blocks or not _MODELISH.match(model):
        return None
    return model, blocks[block.strip()]


def record_aliases(fields: dict[Record, dict[str, ConfigItem]], catalog: Catalog) -> list[RecordAlias]:
    """Records that name an alias and the model it runs: `alias` + `model`/`name` (Mistral Vibe), a models
    map's key + `model` (Kimi CLI `[models.<alias>]`), `model_id`/`name`/`id` + `model` (Continue, llm's
    `model_id` + `model_name`), a display name + `model` (Factory's `custom_models`)."""
    alias_keys, model_maps = catalog.ordered_keys("alias_key"), catalog.keys("model_map")
    found = []
    for rec, own in fields.items():
        model_item = own.get("model") or own.get("model_name")
        alias_item = own.get("alias")
        if alias_item is not None:
            model_item = model_item or own.get("name")
        elif model_item is not None:
            alias_item = next((own[k] for k in alias_keys if k in own and own[k] is not model_item), None)
        if model_item is None:
            continue
        model = model_item.value.strip()
        if alias_item is not None:
            name, line, path = alias_item.value.strip(), alias_item.line, alias_item.path
        elif rec and not rec[-1].startswith("[") and len(rec) >= 2 and norm_key(rec[-2]) in model_maps:
            name, line, path = rec[-1], model_item.line, rec
        else:
            continue
        if name != model and _MODELISH.match(name) and _MODELISH.match(model):
            found.append(RecordAlias(name, model, line, path, rec))
    return found


def moved_vendors(items: Sequence[ConfigItem], catalog: Catalog) -> dict[str, str]:
    """Vendor -> route, for each vendor whose SDK's base-URL variable this file sets (`ANTHROPIC_BASE_URL` in an
    env block or env file): the models of that vendor the same file selects go where that URL says (a gateway
    by its host). The first setting of a vendor wins, as an env file's first assignment does."""
    moved: dict[str, str] = {}
    for item in items:
        raw_key = next((p for p in reversed(item.path) if not p.startswith("[")), "")
        spec = catalog.env_var(raw_key) if raw_key.isupper() or item.env else None
        if spec is None or spec.role != "base_url" or not spec.vendor or "://" not in item.value:
            continue
        route = url_route(item.value, catalog)
        if route and spec.vendor not in moved:
            moved[spec.vendor] = route
    return moved

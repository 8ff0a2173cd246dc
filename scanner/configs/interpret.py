"""What a config's flattened items mean: models by key (in-house ones too), base URLs, credentials, kill switches.

Formats are parsed by `scanner/formats/config/`; this module decides what the items mean, using the key names the
catalogs list (`[config_keys]`), the env vars they know, and their kill-switch spellings. The config detector and
the live audit's environments read their items through it.
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Iterator, Sequence
from urllib.parse import urlsplit

from scanner.catalog import Catalog
from scanner.catalog.specs import EnvVarSpec
from scanner.configs.mcp_shapes import server_fields
from scanner.configs.providers import (
    ancestor_route,
    block_reference,
    moved_vendors,
    provider_blocks,
    record_of,
    record_routes,
)
from scanner.configs.records import (
    MODELISH,
    Locate,
    flag_switches,
    flipped,
    record_models,
    switch_tables,
)
from scanner.fileview.config_parse import key_parts, norm_path
from scanner.fileview.config_parse import norm_key as _norm
from scanner.formats import config as fmt
from scanner.hosts import is_tool_server_url
from scanner.kinds import Evidence
from scanner.kinds.credentials import CredentialEvidence, credential_evidence
from scanner.kinds.endpoints import EndpointEvidence
from scanner.kinds.kill_switches import KillSwitchEvidence
from scanner.kinds.models import ModelEvidence
from scanner.model import FileMeta, Location
from scanner.secrets import safe_url
from scanner.vocab import SwitchState

_REFERENCE = re.compile(r"^(?:\$\{?|os\.environ/|env:|%\(|\{\{)")
_SECRETISH = re.compile(r"^[A-Za-z0-9_\-.+/=:]{16,512}$")
# Keys that hold an endpoint when their value is a URL (`completion_server = "http://…"`).
_URL_SUFFIXES = ("url", "_base", "endpoint", "_server", "_uri", "_host")
_SECRET_SUFFIXES = ("_api_key", "_apikey", "_token", "_secret", "_password")
# The schemes a model's API is spoken over; `postgresql://`, `redis://`, `amqps://`, `mongodb+srv://` reach no model.
_API_SCHEMES = frozenset({"http", "https", "ws", "wss", "grpc", "grpcs"})
_WORDS = re.compile(r"[._\-]")


def interpret(
    items: Sequence[fmt.ConfigItem], catalog: Catalog, locate: Locate, meta: FileMeta | None,
    mcp_containers: frozenset[str] = frozenset(),
) -> Iterator[Evidence]:
    """The evidence a config's items give: the models its records name first (aliases, deployments, model maps),
    then each item by its key: a kill switch, a model, an endpoint or a credential. `mcp_containers`: the keys the
    catalog says hold this file's MCP servers, beyond the generic ones."""
    provided = provider_blocks(items, catalog)
    routes = record_routes(catalog, catalog.keys("provider"), provided)
    base_keys = catalog.keys("base_model")
    bases: dict[tuple[str, ...], str] = {}
    for item in items:
        key = _norm(item.path[-1]) if item.path else ""
        if key in base_keys and MODELISH.match(item.value):
            bases.setdefault(record_of(item.path), item.value)
    consumed = yield from record_models(items, catalog, locate, routes, bases, provided.fields)
    flags, flag_fields = flag_switches(items, catalog)
    file = _FileRecords(
        catalog, locate, meta, routes, moved_vendors(items, catalog), bases, consumed, switch_tables(items, catalog),
        flags, flag_fields, server_fields(items, mcp_containers), provided.routes,
    )  # fmt: skip
    for item in items:
        keys = key_parts(item.path)
        if keys:
            yield from _item_evidence(item, keys, file)


@dataclasses.dataclass(frozen=True)
class _FileRecords:
    """What a config's records say, read once before its items are: routes, base models, the items its records
    and switch tables already read."""

    catalog: Catalog
    locate: Locate
    meta: FileMeta | None
    routes: dict[tuple[str, ...], str]
    moved: dict[str, str]  # vendor -> route, where the file sets the vendor's base-URL variable
    bases: dict[tuple[str, ...], str]  # record -> its base model
    consumed: set[tuple[str, ...]]  # item paths a record's model already read
    switch_fields: dict[tuple[str, ...], tuple[str, bool]]
    flags: dict[tuple[str, ...], KillSwitchEvidence]
    flag_fields: set[tuple[str, ...]]
    mcp_fields: frozenset[tuple[str, ...]]  # items of an MCP server's record: its URL is a tool's, not a model's
    blocks: dict[str, str | None]  # the file's provider blocks by name -> route


def _item_evidence(item: fmt.ConfigItem, keys: tuple[str, ...], file: _FileRecords) -> Iterator[Evidence]:
    """One item's evidence: a switch, else a model, else an endpoint, else a credential (the first that fits)."""
    catalog, locate = file.catalog, file.locate
    raw_key = keys[-1]
    key = _norm(raw_key)
    value = item.value.strip()
    env_spec = catalog.env_var(raw_key) if item.env or raw_key.isupper() else None
    role = env_spec.role if env_spec else None
    secret_key = role == "credential" or key in catalog.keys("credential") or key.endswith(_SECRET_SUFFIXES)
    if item.path in file.flag_fields and item.path not in file.flags:
        return
    switch = _switch(item, keys, value, role, secret_key, file)
    if switch is not None:
        yield switch
        return
    # Carried so a live audit can compare a process's running value with this file's, by name.
    variable = raw_key if item.env or raw_key.isupper() else None
    reference = block_reference(value, file.blocks) if file.blocks and "," in value else None
    if reference is not None:
        yield ModelEvidence(reference[0], locate(item.line, item.env), None, reference[1], variable)
        return
    models = list(_models(item, keys, key, value, role, variable, file))
    if models:
        yield from models
        return
    url_key = (
        key not in catalog.keys("not_endpoint")
        and (key in catalog.keys("base_url") or role == "base_url" or (key.endswith(_URL_SUFFIXES) and "://" in value))
        and item.path not in file.mcp_fields
        and not _names_no_model_api(keys, catalog)
    )
    if url_key and (endpoint := _endpoint(value, locate(item.line, item.env))):
        yield _overriding(endpoint, env_spec if role == "base_url" else None, raw_key, variable, catalog)
        return
    credential = _credential(item, value, secret_key, env_spec, catalog, locate, file.meta)
    if credential is not None:
        yield credential


def _switch(
    item: fmt.ConfigItem, keys: tuple[str, ...], value: str, role: str | None, secret_key: bool, file: _FileRecords
) -> KillSwitchEvidence | None:
    """The kill switch an item sets: a flag definition's, a switch table's state field, or one by its name."""
    if item.path in file.flags:
        return dataclasses.replace(file.flags[item.path], location=file.locate(item.line, item.env))
    if item.path in file.switch_fields:
        name, inverted = file.switch_fields[item.path]
        state = file.catalog.switch_state(value)
        return KillSwitchEvidence(name, value, flipped(state) if inverted else state, file.locate(item.line, item.env))
    return _named_switch(item, keys, value, role, secret_key, file.catalog, file.locate)


def _models(
    item: fmt.ConfigItem, keys: tuple[str, ...], key: str, value: str, role: str | None, variable: str | None,
    file: _FileRecords,
) -> Iterator[ModelEvidence]:
    """The model an item selects: by its key (a model key, `*_model`, a model variable, a model record's `id`), or
    as a deployment map's value; none when its record's model was already read."""
    catalog, locate = file.catalog, file.locate
    model_keys, base_keys = catalog.keys("model"), catalog.keys("base_model")
    in_record = norm_path(item.path) in file.consumed
    is_model_key = not in_record and (
        key in model_keys
        or key.endswith("_model")
        or role == "model"
        or (key in catalog.keys("names_its_model") and any(_norm(k) in model_keys for k in keys[:-1]))
    )
    map_keys = catalog.keys("deployment_map")
    at = next((i for i, k in enumerate(item.path[:-1]) if _norm(k) in map_keys), None)
    if at is not None and not in_record and MODELISH.match(value):
        deployment = item.path[at + 1]
        # A map `{deployment: model}` or `{deployment: {model: …}}`; a list of records is handled above.
        if not deployment.startswith("[") and (is_model_key or len(item.path) == at + 2):
            loc = locate(item.line, item.env)
            yield ModelEvidence(f"azure/{deployment}", loc, base_model=value, served_via="azure")
            yield ModelEvidence(value, loc)
            return
        if deployment.startswith("["):
            is_model_key = False
    if is_model_key and MODELISH.match(value) and not value.isdigit() and "://" not in value:
        # A list of ids (`models: [a, b]`) takes the route of the record that holds the list.
        # The route of the record that names the model, else of the nearest record around it that states one: a
        # list's holder (Zed's `available_models`), a provider block (`apis.<id>.models`).
        record = record_of(item.path)
        route = file.routes.get(record) or ancestor_route(file.routes, record)
        if route is None and record[-2:-1] and record[-1].startswith("["):
            route = file.routes.get(record[:-2])  # a top-level list's holder: the file's own route
        route = None if key in base_keys else route  # the model behind an alias: the alias has the route
        if ":" in value and key not in base_keys and (named := _routed_name(value, file)) is not None:
            value, route = named  # `openai:gpt-4o`, `local:llama3.1:8b`: a block or a route, and its model
        if route is None and key not in base_keys and file.moved:
            route = file.moved.get(catalog.identify(value).vendor or "")
        yield ModelEvidence(value, locate(item.line, item.env), file.bases.get(record), route, variable)


def _routed_name(value: str, file: _FileRecords) -> tuple[str, str | None] | None:
    """A model setting spelled `<provider>:<model>` (aichat's `model: local:llama3.1:8b`, pydantic-ai's
    `anthropic:claude-sonnet-4-0`): the model and its route, when the prefix is one of the file's provider blocks,
    or a route or vendor the catalogs name and the rest is a model they know (`mistral:latest` is an Ollama tag)."""
    if (reference := block_reference(value, file.blocks, ":")) is not None:
        return reference
    prefix, _, model = value.partition(":")
    route = file.catalog.route_named(prefix)
    if route is None or not MODELISH.match(model) or file.catalog.identify(model).catalog == "unknown":
        return None
    return model, route


def _named_switch(
    item: fmt.ConfigItem, keys: Sequence[str], value: str, role: str | None, secret_key: bool, catalog: Catalog,
    locate: Locate,
) -> KillSwitchEvidence | None:
    """A kill switch by its name, its variable's role, or a comment that calls the setting one."""
    raw_key = keys[-1]
    # A comment can make an override a kill switch: only a setting whose value is an on/off spelling, and
    # never a secret (its value would be shown) or a variable a catalog knows as something else.
    named_in_comment = bool(
        item.comment
        and not secret_key
        and role in (None, "kill_switch")
        and catalog.switch_state(value) is not SwitchState.UNKNOWN
        and catalog.mentions_kill_switch(item.comment)
    )
    if catalog.is_kill_switch_key(raw_key) or role == "kill_switch" or named_in_comment:
        name = raw_key if item.env else ".".join(keys)
        note = item.comment if named_in_comment else None
        return KillSwitchEvidence(name, value, catalog.switch_state(value), locate(item.line, item.env), note)
    return None


def _overriding(
    endpoint: EndpointEvidence, env_spec: EnvVarSpec | None, raw_key: str, variable: str | None, catalog: Catalog
) -> EndpointEvidence:
    """An endpoint a vendor's base-URL variable sets: it overrides that vendor's hosts when it is not one."""
    vendor = env_spec.vendor if env_spec else None
    host_spec = catalog.host_info(endpoint.host)
    owners = {host_spec.vendor, catalog.route_vendor.get(host_spec.served_via or "")} if host_spec else set()
    if vendor and vendor not in owners:
        # The vendor's SDK reads this variable: its traffic now goes to another host (a proxy).
        endpoint = dataclasses.replace(endpoint, overrides=(vendor, raw_key))
    return dataclasses.replace(endpoint, variable=variable) if variable else endpoint


def _credential(
    item: fmt.ConfigItem, value: str, secret_key: bool, env_spec: EnvVarSpec | None, catalog: Catalog,
    locate: Locate, meta: FileMeta | None,
) -> CredentialEvidence | None:
    """A secret under a secret's name, or a key of a catalogued format under any name."""
    if secret_key and (
        _SECRETISH.match(value) and not _REFERENCE.match(value) and not catalog.is_placeholder(value)
    ):
        vendor = env_spec.vendor if env_spec else None
        kind = f"{vendor}-api-key" if vendor else "api-key"
        return credential_evidence(value, kind, vendor, "", locate(item.line, item.env), meta)
    if (spec := catalog.key_format(value)) is not None and not catalog.is_placeholder(value):
        # A key of a catalogued format under any name (`CORP_GW_KEY=sk-…`). A format that needs words nearby
        # to name its vendor (Moonshot's `sk-` + 48) says only that it is a key here.
        vendor = None if spec.nearby else spec.vendor
        kind = spec.type if vendor or not spec.nearby else "api-key"
        return credential_evidence(value, kind, vendor, spec.prefix, locate(item.line, item.env), meta, spec.route)
    return None


def _names_no_model_api(keys: Sequence[str], catalog: Catalog) -> bool:
    """Whether a word of the key or of a record around it names a data store, a queue or an identity provider
    (`DATABASE_URL`, `REDIS_URL`, `db.endpoint`, `sso_session.…`): its URL reaches no model."""
    records = catalog.keys("not_endpoint_records")
    return any(word in records for k in keys for word in _WORDS.split(_norm(k)))


def _endpoint(value: str, loc: Location) -> EndpointEvidence | None:
    text = value if "://" in value else f"https://{value}"
    try:
        parts = urlsplit(text)
        host = parts.hostname
    except ValueError:
        return None
    if not host or "." not in host and host != "localhost" or parts.scheme.lower() not in _API_SCHEMES:
        return None  # no host, or a data store's or a queue's URL (`postgresql://`, `redis://`)
    if parts.path.endswith(".git") or is_tool_server_url(value):
        return None  # a git remote (`repo_url = "https://github.com/BerriAI/litellm.git"`) or an MCP server: no API
    return EndpointEvidence(host.lower(), safe_url(value) if "://" in value else None, loc)

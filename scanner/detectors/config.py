"""Structured configs: models by key (in-house ones too), base URLs, credentials, kill switches.

Formats are parsed by `scanner/formats/config/`; this module decides what the flattened items mean, using the
key names the catalogs list (`[config_keys]`), the env vars they know, and their kill-switch spellings.
"""

from __future__ import annotations

import dataclasses
import functools
import re
from collections.abc import Callable, Iterator, Sequence
from urllib.parse import urlsplit

from scanner.catalog import Catalog
from scanner.detectors.base import FileView, Reading
from scanner.detectors.config_parse import MAX_CONFIG_BYTES, key_parts, norm_path
from scanner.detectors.config_parse import norm_key as _norm
from scanner.detectors.contexts import is_comment_line
from scanner.detectors.providers import record_aliases, record_routes
from scanner.formats import config as fmt
from scanner.kinds import Evidence
from scanner.kinds.credentials import CredentialEvidence, credential_evidence
from scanner.kinds.endpoints import EndpointEvidence
from scanner.kinds.kill_switches import KillSwitchEvidence
from scanner.kinds.models import ModelEvidence
from scanner.model import Context, FileMeta, Location, Skip, SkipReason
from scanner.secrets import safe_url
from scanner.textsafe import display_path
from scanner.vocab import SwitchState

_MODELISH = re.compile(r"^(?=.*[A-Za-z])[A-Za-z0-9][A-Za-z0-9._:@/\-]{0,118}[A-Za-z0-9)\]]?$")
_REFERENCE = re.compile(r"^(?:\$\{?|os\.environ/|env:|%\(|\{\{)")
_SECRETISH = re.compile(r"^[A-Za-z0-9_\-.+/=:]{16,512}$")
# Keys that hold an endpoint when their value is a URL (`completion_server = "http://…"`).
_URL_SUFFIXES = ("url", "_base", "endpoint", "_server", "_uri", "_host")
_SECRET_SUFFIXES = ("_api_key", "_apikey", "_token", "_secret", "_password")

Locate = Callable[[int | None, bool], Location]


class ConfigDetector:
    name = "config"
    description = "JSON, YAML, TOML, INI, .env and systemd units: model keys, base URLs, secrets, kill switches"
    reading = Reading.WHOLE

    def wants(self, view: FileView) -> bool:
        return view.config is not None

    def extract(self, view: FileView) -> Iterator[Evidence | Skip]:
        parsed = view.config
        assert parsed is not None
        if parsed.skip is not None:
            yield parsed.skip
        items = parsed.items  # none when the file was too big to parse by key

        def locate(line: int | None, env: bool) -> Location:
            ctx = Context.ENV if env else view.context
            return view.location(line, ctx)

        evidence = interpret(items, view.catalog, locate, view.meta)
        if view.context is Context.SOURCE:
            # A shell script's models and keys are the source detector's; its kill switches are settings.
            evidence = (ev for ev in evidence if isinstance(ev, KillSwitchEvidence))
        elif view.session_read:
            # A session log or a capture is no settings file: the session reader says which of its models served
            # and which were only mentioned. A secret under a key name in it is still a credential.
            evidence = (ev for ev in evidence if isinstance(ev, CredentialEvidence))
        yield from evidence
        if parsed.parser is fmt.parse_systemd:
            yield from self._environment_files(view, items)

    def _environment_files(self, view: FileView, items: Sequence[fmt.ConfigItem]) -> Iterator[Evidence | Skip]:
        """`EnvironmentFile=` is resolved inside the target root and read as an env file."""
        for item in items:
            if item.path[-1:] != ("EnvironmentFile",):
                continue
            inside = item.value.lstrip("-").strip()
            data = view.read_path(inside, MAX_CONFIG_BYTES) if inside.startswith("/") else None
            if data is None:
                continue
            text = data.decode("utf-8", "backslashreplace")
            lines = text.splitlines()

            def locate(line: int | None, env: bool, _p: str = inside, _l: list[str] = lines) -> Location:
                commented = line is not None and 0 < line <= len(_l) and is_comment_line(_l[line - 1])
                return Location(display_path(_p), line, Context.COMMENT if commented else Context.ENV)

            try:
                env_items = fmt.parse_env(text)
            except fmt.BudgetExceeded as cut:
                env_items = cut.items
                yield Skip(display_path(inside), SkipReason.BUDGET_EXCEEDED, f"ENV: {cut.detail}")
            yield from interpret(env_items, view.catalog, locate, None)


@functools.lru_cache(maxsize=1 << 16)
def _record(path: tuple[str, ...]) -> tuple[str, ...]:
    """The enclosing record: up to the last list element, else the parent mapping."""
    for i in range(len(path) - 1, -1, -1):
        if path[i].startswith("["):
            return path[: i + 1]
    return path[:-1]


@dataclasses.dataclass(frozen=True)
class _Deployment:
    """An Azure deployment record: its name is an alias of `model`."""

    name: str
    model: str
    line: int | None
    fields: frozenset[tuple[str, ...]]  # the item paths it consumes (never models themselves)


# Where a deployment record keeps the model it serves, relative to the record.
_DEPLOYMENT_MODEL = (("model", "name"), ("properties", "model", "name"), ("model",), ("base_model",))
_DEPLOYMENT_NAME = (("name",), ("deployment_name",), ("deployment",))


def _deployments(items: Sequence[fmt.ConfigItem], catalog: Catalog) -> list[_Deployment]:
    """Records `{name, model | model.name | properties.model.name}` that say they are Azure deployments: by a
    marker key or type (`sku`, `azurerm_cognitive_deployment`, the ARM type), or by sitting in a deployment map."""
    markers = catalog.keys("deployment_record")
    map_keys = catalog.keys("deployment_map")
    values: dict[tuple[str, ...], fmt.ConfigItem] = {}
    for item in items:
        values.setdefault(norm_path(item.path), item)
    records = {path[: -len(rel)] for path in values for rel in _DEPLOYMENT_NAME if path[-len(rel) :] == rel}
    # Each record's fields, by one pass over every path's prefixes (never a record x path product).
    fields: dict[tuple[str, ...], set[tuple[str, ...]]] = {}
    for path in values:
        for cut in range(len(path)):
            if path[:cut] in records:
                fields.setdefault(path[:cut], set()).add(path)
    found = []
    for rec in sorted(records):
        name_item = next((values[rec + r] for r in _DEPLOYMENT_NAME if rec + r in values), None)
        model_rel = next((r for r in _DEPLOYMENT_MODEL if rec + r in values), None)
        if name_item is None or model_rel is None:
            continue
        own = fields.get(rec, set())
        marked = (
            any(p in markers for p in rec)
            or any(k[len(rec)] in markers for k in own)
            or _norm(values.get(rec + ("type",), name_item).value).split("@")[0] in markers
            or any(p in map_keys for p in rec)
        )
        model = values[rec + model_rel].value.strip()
        name = name_item.value.strip()
        if marked and _MODELISH.match(model) and _MODELISH.match(name) and "/" not in name:
            found.append(_Deployment(name, model, name_item.line, frozenset(own)))
    return found


@dataclasses.dataclass(frozen=True)
class _Alias:
    """A gateway's alias record (LiteLLM `model_name`): `name` serves `model`."""

    name: str
    model: str
    line: int | None
    fields: frozenset[tuple[str, ...]]  # the normalised item paths it consumes (the alias's own item)
    record: tuple[str, ...]  # the record, as `_record` names it


def _aliases(items: Sequence[fmt.ConfigItem], catalog: Catalog) -> list[_Alias]:
    """Records `{model_name: alias, litellm_params: {model: id}}` (the catalogs' alias_name / alias_model keys):
    the alias serves that model. Only the alias's own item is consumed; the model id is reported as itself."""
    names, targets = catalog.keys("alias_name"), catalog.keys("alias_model")
    if not names or not targets:
        return []
    values = {norm_path(item.path): item for item in items}
    found = []
    for path, item in values.items():
        if not path or path[-1] not in names:
            continue
        rec = path[:-1]
        target = next(
            (values[rec + tuple(t.split("."))] for t in sorted(targets) if rec + tuple(t.split(".")) in values), None
        )
        alias, model = item.value.strip(), target.value.strip() if target else ""
        if target is not None and alias != model and _MODELISH.match(alias) and _MODELISH.match(model):
            found.append(_Alias(alias, model, item.line, frozenset({path}), _record(item.path)))
    return found


def _switch_tables(items: Sequence[fmt.ConfigItem], catalog: Catalog) -> dict[tuple[str, ...], tuple[str, bool]]:
    """Items that hold the state of a kill-switch table or object (`[runtime.kill_switch]` + `engaged = false`,
    `"killSwitch": {"enabled": true}`): item path -> (switch name, inverted)."""
    direct, inverted = catalog.keys("switch_state"), catalog.keys("switch_state_inverted")
    out = {}
    for item in items:
        keys = key_parts(item.path)
        if len(keys) < 2 or not catalog.is_kill_switch_key(keys[-2]):
            continue
        field = _norm(keys[-1])
        if field in direct or field in inverted:
            out[item.path] = (".".join(keys[:-1]), field in inverted)
    return out


def _flag_switches(
    items: Sequence[fmt.ConfigItem], catalog: Catalog
) -> tuple[dict[tuple[str, ...], KillSwitchEvidence], set[tuple[str, ...]]]:
    """flagd / OpenFeature flag definitions (`flags.NAME.{state, defaultVariant, variants}`) whose flag is
    named as a kill switch: its value is the default variant's while the flag is ENABLED."""
    flags: dict[tuple[str, ...], dict[str, fmt.ConfigItem]] = {}
    for item in items:
        p = item.path
        at = -1
        if len(p) >= 3 and p[-3] == "flags":
            at = len(p) - 3
        elif len(p) >= 4 and p[-4] == "flags" and p[-2] == "variants":
            at = len(p) - 4
        if at >= 0:
            flags.setdefault(p[: at + 2], {})["/".join(p[at + 2 :])] = item
    out = {}
    consumed: set[tuple[str, ...]] = set()  # the other fields of a kill-switch flag are read through it
    for flag, fields in flags.items():
        default = fields.get("defaultVariant")
        if default is None or not catalog.is_kill_switch_key(flag[-1]):
            continue
        consumed |= {f.path for f in fields.values()}
        state = fields.get("state")
        chosen = fields.get(f"variants/{default.value}")
        value = chosen.value if chosen else default.value
        if state is not None and state.value.upper() == "DISABLED":
            value, switch = "DISABLED", SwitchState.OFF  # a disabled flag is not evaluated: never engaged
        else:
            switch = catalog.switch_state(value)
        out[default.path] = KillSwitchEvidence(flag[-1], value, switch, Location("", default.line))
    return out, consumed


def _model_map_keys(items: Sequence[fmt.ConfigItem], locate: Locate) -> Iterator[ModelEvidence]:
    """`"models": {"qwen3.5:4b": {"name": "Qwen 3.5 4B"}}` (opencode, Crush): the keys of a models map are the
    ids; the `name` beside them is a label. A key is taken when it looks like an id (a digit, `:` or `/`)."""
    seen: set[tuple[str, ...]] = set()
    for item in items:
        p = item.path
        for i in range(len(p) - 2):
            if _norm(p[i]) != "models" or p[i + 1].startswith("["):
                continue
            key = p[i + 1]
            if p[: i + 2] not in seen and _MODELISH.match(key) and any(c.isdigit() or c in ":/" for c in key):
                seen.add(p[: i + 2])
                yield ModelEvidence(key, locate(item.line, False))


def _flip(state: SwitchState) -> SwitchState:
    return {SwitchState.ON: SwitchState.OFF, SwitchState.OFF: SwitchState.ON}.get(state, state)


def interpret(
    items: Sequence[fmt.ConfigItem], catalog: Catalog, locate: Locate, meta: FileMeta | None
) -> Iterator[Evidence]:
    model_keys = catalog.keys("model")
    url_keys = catalog.keys("base_url")
    not_endpoint_keys = catalog.keys("not_endpoint")
    map_keys = catalog.keys("deployment_map")
    base_keys = catalog.keys("base_model")
    provider_keys = catalog.keys("provider")
    secret_keys = catalog.keys("credential")

    # What each record (list element or mapping) says about route and base model.
    routes = record_routes(items, catalog, provider_keys)
    bases: dict[tuple[str, ...], str] = {}
    for item in items:
        key = _norm(item.path[-1]) if item.path else ""
        if key in base_keys and _MODELISH.match(item.value):
            bases.setdefault(_record(item.path), item.value)

    consumed: set[tuple[str, ...]] = set()
    for named in record_aliases(items):
        # Vibe's `alias`, Kimi's `[models.<alias>]`, Continue's `name`: the alias runs the record's model.
        if named.record in bases or catalog.identify(named.name).catalog != "unknown":
            continue
        loc = locate(named.line, False)
        yield ModelEvidence(named.name, loc, base_model=named.model, served_via=routes.get(named.record))
        consumed.add(tuple(_norm(p) for p in named.path))
    for alias in _aliases(items, catalog):
        # A record's own `base_model` says more than the id it routes to; a catalogued name is a model itself.
        if alias.record in bases or catalog.identify(alias.name).catalog != "unknown":
            continue
        yield ModelEvidence(alias.name, locate(alias.line, False), base_model=alias.model)
        consumed |= alias.fields
    for dep in _deployments(items, catalog):
        loc = locate(dep.line, False)
        yield ModelEvidence(f"azure/{dep.name}", loc, base_model=dep.model, served_via="azure")
        yield ModelEvidence(dep.model, loc)
        consumed |= dep.fields
    yield from _model_map_keys(items, locate)
    switch_fields = _switch_tables(items, catalog)
    flag_switches, flag_fields = _flag_switches(items, catalog)

    for item in items:
        keys = key_parts(item.path)
        if not keys:
            continue
        raw_key = keys[-1]
        key = _norm(raw_key)
        value = item.value.strip()
        env_spec = catalog.env_var(raw_key) if item.env or raw_key.isupper() else None
        role = env_spec.role if env_spec else None
        record = _record(item.path)
        # Carried so a live audit can compare a process's running value with this file's, by name.
        variable = raw_key if item.env or raw_key.isupper() else None

        if item.path in flag_switches:
            flag = flag_switches[item.path]
            yield dataclasses.replace(flag, location=locate(item.line, item.env))
            continue
        if item.path in flag_fields:
            continue
        if item.path in switch_fields:
            name, inverted = switch_fields[item.path]
            state = catalog.switch_state(value)
            yield KillSwitchEvidence(name, value, _flip(state) if inverted else state, locate(item.line, item.env))
            continue

        secret_key = role == "credential" or key in secret_keys or key.endswith(_SECRET_SUFFIXES)
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
            yield KillSwitchEvidence(name, value, catalog.switch_state(value), locate(item.line, item.env), note)
            continue

        in_record = norm_path(item.path) in consumed
        is_model_key = not in_record and (
            key in model_keys
            or key.endswith("_model")
            or role == "model"
            or (key in {"id", "name"} and any(_norm(k) in model_keys for k in keys[:-1]))
        )
        at = next((i for i, k in enumerate(item.path[:-1]) if _norm(k) in map_keys), None)
        if at is not None and not in_record and _MODELISH.match(value):
            deployment = item.path[at + 1]
            # A map `{deployment: model}` or `{deployment: {model: …}}`; a list of records is handled above.
            if not deployment.startswith("[") and (is_model_key or len(item.path) == at + 2):
                loc = locate(item.line, item.env)
                yield ModelEvidence(f"azure/{deployment}", loc, base_model=value, served_via="azure")
                yield ModelEvidence(value, loc)
                continue
            if deployment.startswith("["):
                is_model_key = False
        if is_model_key and _MODELISH.match(value) and not value.isdigit() and "://" not in value:
            # A list of ids (`models: [a, b]`) takes the route of the record that holds the list.
            route = routes.get(record) or (routes.get(_record(record)) if record[-1:] == item.path[-1:] else None)
            route = None if key in base_keys else route  # the model behind an alias: the alias has the route
            yield ModelEvidence(value, locate(item.line, item.env), bases.get(record), route, variable)
            continue

        url_key = key not in not_endpoint_keys and (
            key in url_keys or role == "base_url" or (key.endswith(_URL_SUFFIXES) and "://" in value)
        )
        if url_key and (endpoint := _endpoint(value, locate(item.line, item.env))):
            vendor = env_spec.vendor if env_spec and role == "base_url" else None
            host_spec = catalog.host_info(endpoint.host)
            owners = {host_spec.vendor, catalog.route_vendor.get(host_spec.served_via or "")} if host_spec else set()
            if vendor and vendor not in owners:
                # The vendor's SDK reads this variable: its traffic now goes to another host (a proxy).
                endpoint = dataclasses.replace(endpoint, overrides=(vendor, raw_key))
            yield dataclasses.replace(endpoint, variable=variable) if variable else endpoint
            continue

        if secret_key and (
            _SECRETISH.match(value) and not _REFERENCE.match(value) and not catalog.is_placeholder(value)
        ):
            vendor = env_spec.vendor if env_spec else None
            kind = f"{vendor}-api-key" if vendor else "api-key"
            yield credential_evidence(value, kind, vendor, "", locate(item.line, item.env), meta)
        elif (spec := catalog.key_format(value)) is not None and not catalog.is_placeholder(value):
            # A key of a catalogued format under any name (`CORP_GW_KEY=sk-…`). A format that needs words nearby
            # to name its vendor (Moonshot's `sk-` + 48) says only that it is a key here.
            vendor = None if spec.nearby else spec.vendor
            kind = spec.type if vendor or not spec.nearby else "api-key"
            yield credential_evidence(value, kind, vendor, spec.prefix, locate(item.line, item.env), meta, spec.route)


def _endpoint(value: str, loc: Location) -> EndpointEvidence | None:
    text = value if "://" in value else f"https://{value}"
    try:
        host = urlsplit(text).hostname
    except ValueError:
        return None
    if not host or "." not in host and host != "localhost":
        return None
    return EndpointEvidence(host.lower(), safe_url(value) if "://" in value else None, loc)

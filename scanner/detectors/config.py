"""Structured configs: models by key (in-house ones too), base URLs, credentials, kill switches.

Formats are parsed by `scanner/formats/config/`; this module decides what the flattened items mean, using the
key names the catalogs list (`[config_keys]`), the env vars they know, and their kill-switch spellings.
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Iterator, Sequence
from urllib.parse import urlsplit

from scanner.catalog import Catalog
from scanner.catalog.specs import EnvVarSpec
from scanner.detectors.base import FileView, Reading
from scanner.detectors.config_parse import MAX_CONFIG_BYTES, key_parts, norm_path
from scanner.detectors.config_parse import norm_key as _norm
from scanner.detectors.config_records import (
    MODELISH,
    Locate,
    flag_switches,
    flipped,
    record_models,
    record_of,
    switch_tables,
)
from scanner.detectors.contexts import is_comment_line
from scanner.detectors.providers import record_routes
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

_REFERENCE = re.compile(r"^(?:\$\{?|os\.environ/|env:|%\(|\{\{)")
_SECRETISH = re.compile(r"^[A-Za-z0-9_\-.+/=:]{16,512}$")
# Keys that hold an endpoint when their value is a URL (`completion_server = "http://…"`).
_URL_SUFFIXES = ("url", "_base", "endpoint", "_server", "_uri", "_host")
_SECRET_SUFFIXES = ("_api_key", "_apikey", "_token", "_secret", "_password")



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


def interpret(
    items: Sequence[fmt.ConfigItem], catalog: Catalog, locate: Locate, meta: FileMeta | None
) -> Iterator[Evidence]:
    model_keys = catalog.keys("model")
    url_keys = catalog.keys("base_url")
    not_endpoint_keys = catalog.keys("not_endpoint")
    map_keys = catalog.keys("deployment_map")
    base_keys = catalog.keys("base_model")
    secret_keys = catalog.keys("credential")

    # What each record (list element or mapping) says about route and base model.
    routes = record_routes(items, catalog, catalog.keys("provider"))
    bases: dict[tuple[str, ...], str] = {}
    for item in items:
        key = _norm(item.path[-1]) if item.path else ""
        if key in base_keys and MODELISH.match(item.value):
            bases.setdefault(record_of(item.path), item.value)
    consumed = yield from record_models(items, catalog, locate, routes, bases)
    switch_fields = switch_tables(items, catalog)
    flags, flag_fields = flag_switches(items, catalog)

    for item in items:
        keys = key_parts(item.path)
        if not keys:
            continue
        raw_key = keys[-1]
        key = _norm(raw_key)
        value = item.value.strip()
        env_spec = catalog.env_var(raw_key) if item.env or raw_key.isupper() else None
        role = env_spec.role if env_spec else None
        record = record_of(item.path)
        # Carried so a live audit can compare a process's running value with this file's, by name.
        variable = raw_key if item.env or raw_key.isupper() else None

        if item.path in flags:
            flag = flags[item.path]
            yield dataclasses.replace(flag, location=locate(item.line, item.env))
            continue
        if item.path in flag_fields:
            continue
        if item.path in switch_fields:
            name, inverted = switch_fields[item.path]
            state = catalog.switch_state(value)
            yield KillSwitchEvidence(name, value, flipped(state) if inverted else state, locate(item.line, item.env))
            continue

        secret_key = role == "credential" or key in secret_keys or key.endswith(_SECRET_SUFFIXES)
        switch = _named_switch(item, keys, value, role, secret_key, catalog, locate)
        if switch is not None:
            yield switch
            continue

        in_record = norm_path(item.path) in consumed
        is_model_key = not in_record and (
            key in model_keys
            or key.endswith("_model")
            or role == "model"
            or (key in {"id", "name"} and any(_norm(k) in model_keys for k in keys[:-1]))
        )
        at = next((i for i, k in enumerate(item.path[:-1]) if _norm(k) in map_keys), None)
        if at is not None and not in_record and MODELISH.match(value):
            deployment = item.path[at + 1]
            # A map `{deployment: model}` or `{deployment: {model: …}}`; a list of records is handled above.
            if not deployment.startswith("[") and (is_model_key or len(item.path) == at + 2):
                loc = locate(item.line, item.env)
                yield ModelEvidence(f"azure/{deployment}", loc, base_model=value, served_via="azure")
                yield ModelEvidence(value, loc)
                continue
            if deployment.startswith("["):
                is_model_key = False
        if is_model_key and MODELISH.match(value) and not value.isdigit() and "://" not in value:
            # A list of ids (`models: [a, b]`) takes the route of the record that holds the list.
            route = routes.get(record) or (routes.get(record_of(record)) if record[-1:] == item.path[-1:] else None)
            route = None if key in base_keys else route  # the model behind an alias: the alias has the route
            yield ModelEvidence(value, locate(item.line, item.env), bases.get(record), route, variable)
            continue

        url_key = key not in not_endpoint_keys and (
            key in url_keys or role == "base_url" or (key.endswith(_URL_SUFFIXES) and "://" in value)
        )
        if url_key and (endpoint := _endpoint(value, locate(item.line, item.env))):
            yield _overriding(endpoint, env_spec if role == "base_url" else None, raw_key, variable, catalog)
            continue
        credential = _credential(item, value, secret_key, env_spec, catalog, locate, meta)
        if credential is not None:
            yield credential


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


def _endpoint(value: str, loc: Location) -> EndpointEvidence | None:
    text = value if "://" in value else f"https://{value}"
    try:
        host = urlsplit(text).hostname
    except ValueError:
        return None
    if not host or "." not in host and host != "localhost":
        return None
    return EndpointEvidence(host.lower(), safe_url(value) if "://" in value else None, loc)

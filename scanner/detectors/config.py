"""Structured configs: models by key (in-house ones too), base URLs, credentials, kill switches.

Formats are parsed by `config_formats`; this module decides what the flattened items mean, using the
key names the catalogs list (`[config_keys]`), the env vars they know, and their kill-switch spellings.
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Callable, Iterator
from urllib.parse import urlsplit

from scanner.catalog import Catalog
from scanner.detectors import config_formats as fmt
from scanner.detectors.base import FileView
from scanner.detectors.contexts import is_comment_line
from scanner.model import (
    Context,
    EndpointEvidence,
    Evidence,
    FileMeta,
    KillSwitchEvidence,
    Location,
    ModelEvidence,
    Skip,
    SkipReason,
)
from scanner.secrets import credential_evidence, safe_url
from scanner.textsafe import display_path

MAX_CONFIG_BYTES = 4 << 20
_MODELISH = re.compile(r"^(?=.*[A-Za-z])[A-Za-z0-9][A-Za-z0-9._:@/\-]{0,118}[A-Za-z0-9)\]]?$")
_REFERENCE = re.compile(r"^(?:\$\{?|os\.environ/|env:|%\(|\{\{)")
_SECRETISH = re.compile(r"^[A-Za-z0-9_\-.+/=:]{16,512}$")
_SYSTEMD_EXT = (".service", ".socket", ".timer", ".path", ".mount", ".target")
# Keys that hold an endpoint when their value is a URL (`completion_server = "http://…"`).
_URL_SUFFIXES = ("url", "_base", "endpoint", "_server", "_uri", "_host")
_SECRET_SUFFIXES = ("_api_key", "_apikey", "_token", "_secret", "_password")
_SKIP_NAMES = {"package.json", "package-lock.json", "tsconfig.json", "composer.json", "pnpm-lock.yaml"}

Locate = Callable[[int | None, bool], Location]


_BY_EXT: dict[str, Callable[[str], list[fmt.ConfigItem]]] = {
    ".json": fmt.parse_json,
    ".jsonc": fmt.parse_json,
    ".json5": fmt.parse_json,
    ".yaml": fmt.parse_yaml,
    ".yml": fmt.parse_yaml,
    ".toml": fmt.parse_toml,
    ".ini": fmt.parse_ini,
    ".cfg": fmt.parse_ini,
    ".conf": fmt.parse_ini,
    ".properties": fmt.parse_ini,
}


def pick_parser(view: FileView) -> Callable[[str], list[fmt.ConfigItem]] | None:
    name = view.name.lower()
    if name in _SKIP_NAMES:
        return None
    if name.endswith(_SYSTEMD_EXT) or (view.entry.path.startswith("/etc/systemd/") and name.endswith(".conf")):
        return fmt.parse_systemd
    if view.context is Context.ENV:
        return fmt.parse_env
    ext = name[name.rfind(".") :] if "." in name else ""
    if ext in _BY_EXT:
        return _BY_EXT[ext]
    # Only the head is looked at: stripping the whole file would copy up to the read cap for every config file.
    if view.context is Context.CONFIG and view.data[:4096].lstrip(b"\xef\xbb\xbf \t\r\n")[:1] in (b"{", b"["):
        return fmt.parse_json
    return None


class ConfigDetector:
    name = "config"
    description = "JSON, YAML, TOML, INI, .env and systemd units: model keys, base URLs, secrets, kill switches"

    def wants(self, view: FileView) -> bool:
        return view.context in (Context.CONFIG, Context.ENV) and pick_parser(view) is not None

    def extract(self, view: FileView) -> Iterator[Evidence | Skip]:
        parser = pick_parser(view)
        assert parser is not None
        if view.entry.size > MAX_CONFIG_BYTES:
            # Not parsed by key; the content detector still matches its bytes. Recorded, never a silent gap.
            detail = f"config keys not parsed: {view.entry.size} bytes, over {MAX_CONFIG_BYTES >> 20} MiB"
            yield Skip(view.path, SkipReason.CAP_REACHED, detail)
            return
        try:
            items = parser(view.text)
            broken = False
        except fmt.ParseFailure:
            items, broken = fmt.parse_loose(view.text), True
            view.parse_error = True

        def locate(line: int | None, env: bool) -> Location:
            ctx = Context.ENV if env else view.context
            return view.location(line, ctx, parse_error=broken)

        yield from interpret(items, view.catalog, locate, view.meta)
        if parser is fmt.parse_systemd:
            yield from self._environment_files(view, items)

    def _environment_files(self, view: FileView, items: list[fmt.ConfigItem]) -> Iterator[Evidence]:
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

            yield from interpret(fmt.parse_env(text), view.catalog, locate, None)


def _norm(key: str) -> str:
    return key.lower().replace("-", "_")


def _record(path: tuple[str, ...]) -> tuple[str, ...]:
    """The enclosing record: up to the last list element, else the parent mapping."""
    for i in range(len(path) - 1, -1, -1):
        if path[i].startswith("["):
            return path[: i + 1]
    return path[:-1]




def _route_of(value: str, catalog: Catalog) -> str:
    v = value.strip().lower()
    routes = {f.route for f in catalog.hosted_forms}
    if v in routes:
        return v
    return "direct" if v in catalog.vendor_names else v


def interpret(
    items: list[fmt.ConfigItem], catalog: Catalog, locate: Locate, meta: FileMeta | None
) -> Iterator[Evidence]:
    model_keys = catalog.keys("model")
    url_keys = catalog.keys("base_url")
    map_keys = catalog.keys("deployment_map")
    base_keys = catalog.keys("base_model")
    provider_keys = catalog.keys("provider")
    secret_keys = catalog.keys("credential")

    # What each record (list element or mapping) says about route and base model.
    routes: dict[tuple[str, ...], str] = {}
    bases: dict[tuple[str, ...], str] = {}
    for item in items:
        key = _norm(item.path[-1]) if item.path else ""
        if key in provider_keys:
            routes.setdefault(_record(item.path), _route_of(item.value, catalog))
        elif key in base_keys and _MODELISH.match(item.value):
            bases.setdefault(_record(item.path), item.value)

    for item in items:
        keys = [p for p in item.path if not p.startswith("[")]
        if not keys:
            continue
        raw_key = keys[-1]
        key = _norm(raw_key)
        value = item.value.strip()
        env_spec = catalog.env_var(raw_key) if item.env or raw_key.isupper() else None
        role = env_spec.role if env_spec else None
        loc = locate(item.line, item.env)
        record = _record(item.path)
        # Carried so a live audit can compare a process's running value with this file's, by name.
        variable = raw_key if item.env or raw_key.isupper() else None

        secret_key = role == "credential" or key in secret_keys or key.endswith(_SECRET_SUFFIXES)
        # A comment can make an override a kill switch; never a secret (its value would be shown).
        named_in_comment = bool(item.comment and not secret_key and catalog.mentions_kill_switch(item.comment))
        if catalog.is_kill_switch_key(raw_key) or role == "kill_switch" or named_in_comment:
            name = raw_key if item.env else ".".join(keys)
            note = item.comment if named_in_comment else None
            yield KillSwitchEvidence(name, value, catalog.switch_state(value), loc, note)
            continue

        is_model_key = (
            key in model_keys
            or key.endswith("_model")
            or role == "model"
            or (key in {"id", "name"} and any(_norm(k) in model_keys for k in keys[:-1]))
        )
        in_map = next((i for i, k in enumerate(keys[:-1]) if _norm(k) in map_keys), None)
        if in_map is not None and _MODELISH.match(value):
            deployment = keys[in_map + 1]
            if is_model_key or len(keys) == in_map + 2:
                yield ModelEvidence(f"azure/{deployment}", loc, base_model=value, served_via="azure")
                yield ModelEvidence(value, loc)
                continue
        if is_model_key and _MODELISH.match(value) and not value.isdigit() and "://" not in value:
            yield ModelEvidence(value, loc, bases.get(record), routes.get(record), variable)
            continue

        url_key = key in url_keys or role == "base_url" or (key.endswith(_URL_SUFFIXES) and "://" in value)
        if url_key and (endpoint := _endpoint(value, loc)):
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
            yield credential_evidence(value, kind, vendor, "", loc, meta)


def _endpoint(value: str, loc: Location) -> EndpointEvidence | None:
    text = value if "://" in value else f"https://{value}"
    try:
        host = urlsplit(text).hostname
    except ValueError:
        return None
    if not host or "." not in host and host != "localhost":
        return None
    return EndpointEvidence(host.lower(), safe_url(value) if "://" in value else None, loc)

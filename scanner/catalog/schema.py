"""The catalog file format (schema 1) as typed records, and its validation.

`catalogs/SCHEMA.md` is the human description of the same format. Parsing is strict: an unknown table
or key is an error, so a typo in a user's catalog never silently drops knowledge.
"""

from __future__ import annotations

from typing import Any

from scanner.catalog.checks import check_values
from scanner.catalog.sections import declared
from scanner.catalog.specs import (
    AGENT_ECOSYSTEMS,
    CONFIDENCES,
    AgentAlias,
    AgentConfigSpec,
    AgentProduct,
    AgentRoute,
    AgentSettingsFile,
    CatalogError,
    CatalogFile,
    ClientName,
    CodePath,
    CredentialSpec,
    EnvVarSpec,
    Examples,
    Family,
    FingerprintSpec,
    HostedForm,
    HostSpec,
    KillSwitchSpec,
    ModelSpec,
    Placeholders,
    ProcessSpec,
    SdkSpec,
    SourceSignature,
    TaskSpec,
)
from scanner.vocab import Confidence

# Parsing is here; the records' home is specs.py (modules that import them from here still may).
__all__ = [
    "AgentConfigSpec",
    "AgentProduct",
    "AgentSettingsFile",
    "CatalogError",
    "CatalogFile",
    "ClientName",
    "CodePath",
    "CredentialSpec",
    "EnvVarSpec",
    "Examples",
    "Family",
    "FingerprintSpec",
    "HostSpec",
    "HostedForm",
    "KillSwitchSpec",
    "ModelSpec",
    "ProcessSpec",
    "SdkSpec",
    "SourceSignature",
    "parse_catalog",
]

# section name -> (required keys, optional keys)
_ARRAY_SECTIONS: dict[str, tuple[set[str], set[str]]] = {
    "vendors": ({"id", "name"}, set()),
    "families": ({"id", "vendor", "pattern", "match", "no_match"}, {"task", "architecture", "max_length"}),
    "models": ({"id", "family"}, {"aliases", "lifecycle", "released", "deprecated", "retires"}),
    "hosted_forms": ({"route", "form", "match", "no_match"}, {"vendor", "find", "priority"}),
    "hosts": ({"pattern", "match", "no_match"}, {"vendor", "served_via"}),
    "sdks": ({"ecosystem", "name"}, {"vendor", "served_via", "imports"}),
    "env_vars": ({"name", "role"}, {"vendor"}),
    "credentials": (
        {"type", "pattern", "prefix", "match", "no_match"},
        {"vendor", "nearby", "route", "pairs_with", "in_packages"},
    ),
    "kill_switches": ({"pattern", "match", "no_match"}, {"note"}),
    "fingerprints": (
        {"id", "vendor", "pattern", "confidence", "match", "no_match"},
        {"fields", "roles", "on", "api", "served_via", "decode", "max_skew_seconds", "note", "candidates"},
    ),
    "processes": ({"role", "pattern", "match", "no_match"}, {"vendor", "note"}),
    "tasks": ({"task", "pattern", "match", "no_match"}, set()),
    "code_paths": ({"kind", "pattern", "match", "no_match"}, {"ecosystem"}),
    "client_names": ({"name"}, {"vendor", "served_via"}),
    "source_signatures": ({"kind", "name", "pattern", "match", "no_match"}, {"vendor", "served_via"}),
    "agent_configs": ({"tool", "path", "format", "containers", "match", "no_match"}, {"note"}),
    "agents": (
        {"id", "name"},
        {"vendor", "npm", "pypi", "vscode", "platform_packages", "libraries", "binaries", "ships", "ship_keys",
         "native", "default_route", "settings", "routes", "note", "aliases"},
    ),
}
_AGENT_SETTINGS_KEYS = ({"path", "format"}, {"model", "base_url", "mcp", "credentials", "route_keys", "selection"})
_AGENT_ALIAS_KEYS = ({"name"}, {"base_keys", "default", "note"})
_AGENT_ROUTE_KEYS = ({"key", "route"}, {"equals", "prefix"})
_CONFIG_KEY_KINDS = {
    "model",
    "base_url",
    "deployment_map",
    "base_model",
    "provider",
    "credential",
    "switch_state",
    "switch_state_inverted",
    "deployment_record",
    "label",
    "not_model",
    "not_endpoint",
    "not_endpoint_records",
    "alias_name",
    "alias_model",
    "provider_container",
    "block_field",
    "record_base_url",
    "record_endpoint",
    "block_url",
    "block_type",
    "model_map",
    "alias_key",
    "names_its_model",
}


def parse_catalog(data: dict[str, Any], origin: str) -> CatalogFile:
    """Typed records from a parsed TOML document; raises CatalogError on any schema violation."""
    head = _header(data, origin)
    rows = {name: _rows(origin, name, data.get(name, [])) for name in _ARRAY_SECTIONS}
    config_keys = _config_keys(origin, data.get("config_keys") or {})
    switch_values = _switch_values(origin, data.get("switch_values") or {})
    route_names = {str(route): tuple(v.lower() for v in _strs(names)) for route, names in
                   (data.get("route_names") or {}).items()}  # fmt: skip
    placeholders = _placeholders(origin, data["placeholders"]) if "placeholders" in data else None
    catalog = CatalogFile(
        name=str(head["name"]),
        version=str(head["version"]),
        origin=origin,
        description=str(head.get("description", "")),
        sources=tuple(_strs(head.get("sources", []))),
        vendors=tuple((r["id"], r["name"]) for r in rows["vendors"]),
        families=tuple(_family(origin, r) for r in rows["families"]),
        models=tuple(_model(r) for r in rows["models"]),
        hosted_forms=tuple(
            HostedForm(r["route"], r["form"], _examples(r), r.get("vendor"), r.get("find"), int(r.get("priority", 0)))
            for r in rows["hosted_forms"]
        ),
        hosts=tuple(HostSpec(r["pattern"], _examples(r), r.get("vendor"), r.get("served_via")) for r in rows["hosts"]),
        sdks=tuple(
            SdkSpec(r["ecosystem"], r["name"], r.get("vendor"), r.get("served_via"), tuple(r.get("imports", [])))
            for r in rows["sdks"]
        ),
        env_vars=tuple(EnvVarSpec(r["name"], r["role"], r.get("vendor")) for r in rows["env_vars"]),
        credentials=tuple(_credential(origin, r) for r in rows["credentials"]),
        kill_switches=tuple(KillSwitchSpec(r["pattern"], _examples(r), r.get("note")) for r in rows["kill_switches"]),
        fingerprints=tuple(_fingerprint(r, _examples(r)) for r in rows["fingerprints"]),
        processes=tuple(
            ProcessSpec(r["role"], r["pattern"], _examples(r), r.get("vendor"), r.get("note"))
            for r in rows["processes"]
        ),
        tasks=tuple(TaskSpec(r["task"], r["pattern"], _examples(r)) for r in rows["tasks"]),
        config_keys=config_keys,
        switch_values=switch_values,
        route_names=route_names,
        placeholders=placeholders,
        code_paths=tuple(
            CodePath(r["kind"], r["pattern"], _examples(r), r.get("ecosystem")) for r in rows["code_paths"]
        ),
        client_names=tuple(ClientName(r["name"], r.get("vendor"), r.get("served_via")) for r in rows["client_names"]),
        source_signatures=tuple(
            SourceSignature(r["kind"], r["name"], r["pattern"], _examples(r), r.get("vendor"), r.get("served_via"))
            for r in rows["source_signatures"]
        ),
        module_names=_str_table(origin, data.get("module_names") or {}),
        agent_configs=tuple(_agent_config(r) for r in rows["agent_configs"]),
        agents=tuple(_agent(origin, r) for r in rows["agents"]),
        sections=_sections(data, origin),
    )
    check_values(catalog)
    return catalog


def _header(data: dict[str, Any], origin: str) -> dict[str, Any]:
    """The `[catalog]` table, once no table of the document is unknown."""
    tables = {"catalog", "config_keys", "switch_values", "route_names", "placeholders", "module_names",
              *_ARRAY_SECTIONS}
    tables |= {name for section in declared() for name in section.tables}
    unknown = set(data) - tables
    if unknown:
        raise CatalogError(f"{origin}: unknown table(s) {sorted(unknown)}")
    head = data.get("catalog")
    if not isinstance(head, dict):
        raise CatalogError(f"{origin}: missing [catalog] table")
    _check_keys(origin, "[catalog]", head, {"name", "version"}, {"description", "sources"})
    return head


def _examples(row: dict[str, Any]) -> Examples:
    return Examples(tuple(_strs(row["match"])), tuple(_strs(row["no_match"])))


def _config_keys(origin: str, table: dict[str, Any]) -> dict[str, tuple[str, ...]]:
    config_keys: dict[str, tuple[str, ...]] = {}
    for kind, names in table.items():
        if kind not in _CONFIG_KEY_KINDS:
            raise CatalogError(f"{origin}: [config_keys] unknown kind {kind!r}")
        config_keys[kind] = tuple(n.lower() for n in _strs(names))
    return config_keys


def _switch_values(origin: str, table: dict[str, Any]) -> dict[str, tuple[str, ...]]:
    switch_values: dict[str, tuple[str, ...]] = {}
    for state, spellings in table.items():
        if state not in ("on", "off"):
            raise CatalogError(f"{origin}: [switch_values] unknown state {state!r} (on or off)")
        switch_values[state] = tuple(v.lower() for v in _strs(spellings))
    return switch_values


def _placeholders(origin: str, row: dict[str, Any]) -> Placeholders:
    _check_keys(origin, "[placeholders]", row, {"pattern", "match", "no_match"}, set())
    return Placeholders(row["pattern"], _examples(row))


def _family(origin: str, r: dict[str, Any]) -> Family:
    return Family(r["id"], r["vendor"], r["pattern"], _examples(r), r.get("task"), r.get("architecture"),
                  _length(origin, r))


def _model(r: dict[str, Any]) -> ModelSpec:
    return ModelSpec(
        id=r["id"],
        family=r["family"],
        aliases=tuple(_strs(r.get("aliases", []))),
        lifecycle=r.get("lifecycle", "active"),
        released=_date(r.get("released")),
        deprecated=_date(r.get("deprecated")),
        retires=_date(r.get("retires")),
    )


def _credential(origin: str, r: dict[str, Any]) -> CredentialSpec:
    return CredentialSpec(
        r["type"],
        r["pattern"],
        r["prefix"],
        _examples(r),
        r.get("vendor"),
        tuple(_strs(r.get("nearby", []))),
        r.get("route"),
        tuple(_strs(r.get("pairs_with", []))),
        _bool(origin, "credentials", r, "in_packages", True),
    )


def _agent_config(r: dict[str, Any]) -> AgentConfigSpec:
    return AgentConfigSpec(
        str(r["tool"]), str(r["path"]), str(r["format"]), tuple(_strs(r["containers"])), _examples(r), r.get("note")
    )


def _sections(data: dict[str, Any], origin: str) -> dict[str, Any]:
    """Each kind's own part of this file (`scanner.catalog.sections`), by the section's name."""
    try:
        return {section.name: section.parse(data, origin) for section in declared()}
    except ValueError as exc:
        raise CatalogError(str(exc)) from None


def _agent(origin: str, r: dict[str, Any]) -> AgentProduct:
    label = f"[[agents]] {r['id']}"
    settings = []
    for i, f in enumerate(_rows_of(origin, f"{label} settings", r.get("settings", []))):
        _check_keys(origin, f"{label} settings #{i + 1}", f, *_AGENT_SETTINGS_KEYS)
        settings.append(
            AgentSettingsFile(
                str(f["path"]),
                str(f["format"]),
                model=tuple(_strs(f.get("model", []))),
                base_url=tuple(_strs(f.get("base_url", []))),
                mcp=tuple(_strs(f.get("mcp", []))),
                credentials=tuple(_strs(f.get("credentials", []))),
                route_keys=tuple(_strs(f.get("route_keys", []))),
                selection=tuple(_strs(f.get("selection", []))),
            )
        )
    routes = []
    for i, x in enumerate(_rows_of(origin, f"{label} routes", r.get("routes", []))):
        _check_keys(origin, f"{label} routes #{i + 1}", x, *_AGENT_ROUTE_KEYS)
        routes.append(AgentRoute(str(x["key"]), str(x["route"]), tuple(_strs(x.get("equals", []))), x.get("prefix")))
    aliases = []
    for i, x in enumerate(_rows_of(origin, f"{label} aliases", r.get("aliases", []))):
        _check_keys(origin, f"{label} aliases #{i + 1}", x, *_AGENT_ALIAS_KEYS)
        aliases.append(AgentAlias(str(x["name"]), tuple(_strs(x.get("base_keys", []))), x.get("default")))
    packages = tuple((eco, name) for eco in AGENT_ECOSYSTEMS for name in _strs(r.get(eco, [])))
    return AgentProduct(
        id=str(r["id"]),
        name=str(r["name"]),
        vendor=r.get("vendor"),
        packages=packages,
        platform_packages=tuple(_strs(r.get("platform_packages", []))),
        libraries=tuple(_strs(r.get("libraries", []))),
        binaries=tuple(_strs(r.get("binaries", []))),
        ships=tuple(_strs(r.get("ships", []))),
        ship_keys=tuple(_strs(r.get("ship_keys", []))),
        native=tuple(_strs(r.get("native", []))),
        default_route=r.get("default_route"),
        settings=tuple(settings),
        routes=tuple(routes),
        note=r.get("note"),
        aliases=tuple(aliases),
    )


def _rows_of(origin: str, label: str, value: Any) -> list[dict[str, Any]]:
    if not isinstance(value, list) or not all(isinstance(v, dict) for v in value):
        raise CatalogError(f"{origin}: {label} must be an array of tables")
    return value


def _confidence(r: dict[str, Any]) -> Confidence:
    try:
        return Confidence(r["confidence"])
    except ValueError:
        raise CatalogError(f"fingerprint {r['id']}: confidence {r['confidence']!r} not in {CONFIDENCES}") from None


def _fingerprint(r: dict[str, Any], examples: Examples) -> FingerprintSpec:
    skew = r.get("max_skew_seconds")
    return FingerprintSpec(
        id=str(r["id"]),
        vendor=str(r["vendor"]),
        pattern=str(r["pattern"]),
        examples=examples,
        fields=tuple(_strs(r.get("fields", [] if "roles" in r else ["*"]))),
        roles=tuple(_strs(r.get("roles", []))),
        on=str(r.get("on", "value")),
        api=r.get("api"),
        served_via=r.get("served_via"),
        decode=r.get("decode"),
        confidence=_confidence(r),
        max_skew_seconds=int(skew) if skew is not None else None,
        note=r.get("note"),
        candidates=tuple(_strs(r.get("candidates", []))),
    )


def _rows(origin: str, section: str, value: Any) -> list[dict[str, Any]]:
    if not isinstance(value, list) or not all(isinstance(v, dict) for v in value):
        raise CatalogError(f"{origin}: [[{section}]] must be an array of tables")
    required, optional = _ARRAY_SECTIONS[section]
    for i, row in enumerate(value):
        name = row.get("id") or row.get("name") or row.get("type") or row.get("tool") or ""
        label = f"[[{section}]] #{i + 1} ({name})"
        _check_keys(origin, label, row, required, optional)
    return value


def _check_keys(origin: str, label: str, row: dict[str, Any], required: set[str], optional: set[str]) -> None:
    missing = required - set(row)
    extra = set(row) - required - optional
    if missing:
        raise CatalogError(f"{origin}: {label} is missing {sorted(missing)}")
    if extra:
        raise CatalogError(f"{origin}: {label} has unknown key(s) {sorted(extra)}")


def _length(origin: str, row: dict[str, Any]) -> int | None:
    value = row.get("max_length")
    if value is None:
        return None
    if type(value) is not int or value < 1:
        raise CatalogError(f"{origin}: family {row['id']}: max_length must be a positive integer, not {value!r}")
    return value


def _date(value: Any) -> str | None:
    # TOML may hold a real date (released = 2026-05-28) or a string; both become "YYYY-MM-DD".
    return None if value is None else str(value)


def _str_table(origin: str, value: Any) -> dict[str, str]:
    if not isinstance(value, dict) or not all(isinstance(v, str) for v in value.values()):
        raise CatalogError(f"{origin}: [module_names] must map names to strings")
    return {str(k).lower(): v for k, v in value.items()}


def _bool(origin: str, label: str, row: dict[str, Any], key: str, default: bool) -> bool:
    value = row.get(key, default)
    if not isinstance(value, bool):
        raise CatalogError(f"{origin}: {label} {key} must be true or false, got {value!r}")
    return value


def _strs(value: Any) -> list[str]:
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise CatalogError(f"expected a list of strings, got {value!r}")
    return value

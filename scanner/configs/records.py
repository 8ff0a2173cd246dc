"""What a config file's records mean beyond one key: the models they name (aliases that run a record's model,
deployment maps, model-map keys) and the kill switches their shape sets (a table of state fields, a flag with a
default). Shared by the config detector and, through `interpret`, the live audit's environments."""

from __future__ import annotations

import dataclasses
import functools
import re
from collections.abc import Callable, Generator, Iterator, Sequence

from scanner.catalog import Catalog
from scanner.configs.providers import ancestor_route, record_aliases, record_of
from scanner.fileview.config_parse import key_parts, norm_path
from scanner.fileview.config_parse import norm_key as _norm
from scanner.formats import config as fmt
from scanner.kinds import Evidence
from scanner.kinds.kill_switches import KillSwitchEvidence
from scanner.kinds.models import ModelEvidence
from scanner.model import Location
from scanner.vocab import SwitchState

# What a model id can look like as a config value (a letter somewhere, no blanks, at most 120 characters).
MODELISH = re.compile(r"^(?=.*[A-Za-z])[A-Za-z0-9][A-Za-z0-9._:@/\-]{0,118}[A-Za-z0-9)\]]?$")

Locate = Callable[[int | None, bool], Location]


@functools.lru_cache(maxsize=1 << 16)
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
        if marked and MODELISH.match(model) and MODELISH.match(name) and "/" not in name:
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
        if target is not None and alias != model and MODELISH.match(alias) and MODELISH.match(model):
            found.append(_Alias(alias, model, item.line, frozenset({path}), record_of(item.path)))
    return found


def _model_map_keys(
    items: Sequence[fmt.ConfigItem], catalog: Catalog, locate: Locate, routes: dict[tuple[str, ...], str]
) -> Iterator[ModelEvidence]:
    """`"models": {"qwen3.5:4b": {"name": "Qwen 3.5 4B"}}` (opencode, Crush): the keys of a models map are the
    ids; the `name` beside them is a label. A key is taken when it looks like an id (a digit, `:` or `/`), or when
    the record that holds the map routes it (a provider block: mods' `apis.cohere.models.command-r`) and the
    catalogs know it. It runs where that record points (mods' `apis.<id>.base-url`); an alias of it the catalogs
    know (mods' `aliases: ["claude-3-5-sonnet"]`) names it on the same route."""
    seen: set[tuple[str, ...]] = set()
    for item in items:
        p = item.path
        for i in range(len(p) - 2):
            if _norm(p[i]) != "models" or p[i + 1].startswith("["):
                continue
            key = p[i + 1]
            route = ancestor_route(routes, p[: i + 1])
            if p[: i + 2] not in seen and MODELISH.match(key) and (
                any(c.isdigit() or c in ":/" for c in key) or (route and catalog.identify(key).catalog != "unknown")
            ):
                seen.add(p[: i + 2])
                yield ModelEvidence(key, locate(item.line, False), served_via=route)
            if p[: i + 2] in seen and _norm(p[i + 2]) == "aliases" and MODELISH.match(item.value) and (
                catalog.identify(item.value).catalog != "unknown"
            ):
                yield ModelEvidence(item.value, locate(item.line, False), base_model=key, served_via=route)


def record_models(
    items: Sequence[fmt.ConfigItem], catalog: Catalog, locate: Locate, routes: dict[tuple[str, ...], str],
    bases: dict[tuple[str, ...], str], fields: dict[tuple[str, ...], dict[str, fmt.ConfigItem]],
) -> Generator[Evidence, None, set[tuple[str, ...]]]:
    """The models records name (aliases, deployments, model-map keys); returns the fields they consumed. `fields`:
    each record's own scalar fields (`ProviderBlocks.fields`)."""
    consumed: set[tuple[str, ...]] = set()
    for named in record_aliases(fields, catalog):
        # Vibe's `alias`, Kimi's `[models.<alias>]`, Continue's `name`: the alias runs the record's model. A listed
        # id is a model itself; one of a family's shape only (`kimi-k2-turbo` -> `…-turbo-preview`) is an alias.
        if named.record in bases or catalog.identify(named.name).catalog == "known":
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
    yield from _model_map_keys(items, catalog, locate, routes)
    return consumed


def switch_tables(items: Sequence[fmt.ConfigItem], catalog: Catalog) -> dict[tuple[str, ...], tuple[str, bool]]:
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


def flag_switches(
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


def flipped(state: SwitchState) -> SwitchState:
    return {SwitchState.ON: SwitchState.OFF, SwitchState.OFF: SwitchState.ON}.get(state, state)


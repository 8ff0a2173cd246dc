"""Inventory sections are declared once: the schema matches the declarations, and every section survives JSON
written, read back and diffed with itself; a section not inspected is absent, and diff leaves it alone."""

from __future__ import annotations

import dataclasses
import json
import types
import typing
from enum import Enum
from typing import Any

import jsonschema
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from scanner.diff.compare import diff_inventories
from scanner.diff.identity import COMPARED
from scanner.inventory.codec import json_keys
from scanner.inventory.document import dumps, load_schema, to_document
from scanner.inventory.json_schema import schema_text
from scanner.inventory.load import from_document
from scanner.inventory.validate import compile_schema
from scanner.kinds import KINDS as SECTIONS
from scanner.kinds import WALKED, Inventory
from scanner.model import AuditPart, CatalogRef, LiveHost, Stats, TargetInfo
from tests.conftest import REPO, validate_document

# Keys the JSON renderer adds to what the sections write (an ignored finding's reason).
RENDERER_KEYS = {"findings": {"ignored"}}
HEADER = ("schema", "tool", "catalogs", "target", "stats")


def _resolve(schema: dict[str, Any], root: dict[str, Any]) -> dict[str, Any]:
    while "$ref" in schema:
        node: Any = root
        for part in schema["$ref"][2:].split("/"):
            node = node[part]
        schema = node
    if "oneOf" in schema:  # `null` or the value's own schema
        schema = next(s for s in schema["oneOf"] if s.get("type") != "null")
    return schema


def _dataclass_of(tp: Any) -> type | None:
    for arg in (tp, *typing.get_args(tp), *(a for x in typing.get_args(tp) for a in typing.get_args(x))):
        if isinstance(arg, type) and dataclasses.is_dataclass(arg):
            return arg
    return None


def _check_object(cls: type, schema: dict[str, Any], root: dict[str, Any], where: str, extra: set[str]) -> None:
    every, always = json_keys(cls)
    props = set(schema["properties"])
    assert props - extra == set(every), f"{where}: schema properties vs {cls.__name__}'s keys"
    required = set(schema.get("required", ()))
    assert required <= set(always), f"{where}: the schema requires keys {cls.__name__} may omit"
    # A key the schema lets a document omit must be readable without it: a field with a default.
    for f in dataclasses.fields(cls):
        if f.name in every and f.name not in required:
            assert f.default is not dataclasses.MISSING or f.default_factory is not dataclasses.MISSING, \
                f"{where}: {cls.__name__}.{f.name} is optional in the schema but has no default"
    hints = typing.get_type_hints(cls)
    for f in dataclasses.fields(cls):
        inner = _dataclass_of(hints[f.name])
        if inner is None or f.name not in schema["properties"]:
            continue
        sub = _resolve(schema["properties"][f.name], root)
        if sub.get("type") == "array":
            sub = _resolve(sub["items"], root)
        _check_object(inner, sub, root, f"{where}.{f.name}", set())


def test_schema_matches_the_declarations() -> None:
    root = load_schema()
    assert set(root["properties"]) == {*HEADER, *(s.key for s in SECTIONS)}
    assert set(root["required"]) == {*HEADER, *(s.key for s in SECTIONS if not s.optional and not s.walked)}
    for section in SECTIONS:
        items = _resolve(root["properties"][section.key]["items"], root)
        _check_object(section.entry, items, root, section.key, RENDERER_KEYS.get(section.key, set()))


# --- an inventory with every section filled, built from the declarations themselves -----------------------


_PATTERNS = {"^[0-9a-f]{64}$": ("a" * 64, "b" * 64), "^[0-7]{4}$": ("0600", "0644"),
             "^\\d{4}-\\d{2}-\\d{2}$": ("2026-01-01", "2026-02-01")}
_ROOT = load_schema()


def _node(schema: dict[str, Any] | None, name: str) -> dict[str, Any] | None:
    if schema is None:
        return None
    schema = _resolve(schema, _ROOT)
    props = schema.get("properties", {})
    if name in props:
        return _resolve(props[name], _ROOT)
    for group in props.values():  # a field written in a group (`observed`)
        group = _resolve(group, _ROOT)
        for sub, value in group.get("properties", {}).items():
            if name.endswith(sub) or name.replace("observed_via", "served_via").endswith(sub):
                return _resolve(value, _ROOT)
    return schema  # a field written in place (a credential's location, a target's image): its parent's keys


def _example(tp: Any, text: str, full: bool, schema: dict[str, Any] | None) -> Any:
    """A value of type `tp` the schema accepts: `text` for free strings, one item per tuple; `full=False` leaves
    optionals None and tuples empty where the schema allows."""
    origin, args = typing.get_origin(tp), typing.get_args(tp)
    first = text == "a"
    if origin in (typing.Union, types.UnionType):
        inner = [a for a in args if a is not type(None)]
        return _example(inner[0], text, full, schema) if full else None
    if origin is tuple:
        items = schema.get("items") if schema else None
        if len(args) == 2 and args[1] is Ellipsis:
            keep = full or (schema or {}).get("minItems", 0) > 0
            return (_example(args[0], text, full, _resolve(items, _ROOT) if items else None),) if keep else ()
        return tuple(_example(a, text, full, _resolve(items, _ROOT) if items else None) for a in args)
    if isinstance(tp, type) and issubclass(tp, Enum):
        members = list(tp)
        return members[0] if first else members[-1]
    if isinstance(tp, type) and dataclasses.is_dataclass(tp):
        hints = typing.get_type_hints(tp)
        fields = dataclasses.fields(tp)
        return tp(**{f.name: _example(hints[f.name], text, full, _node(schema, f.name)) for f in fields})
    if tp is bool:
        return first
    if tp in (int, float):
        return tp(1 if first else 2)
    if tp is str:
        options = [o for o in (schema or {}).get("enum", ()) if isinstance(o, str)]
        if options:
            return options[0] if first else options[-1]
        pattern = (schema or {}).get("pattern")
        return _PATTERNS[pattern][0 if first else 1] if pattern else text
    raise TypeError(f"no example for {tp!r}")


def _inventory(text: str, full: bool = True) -> Inventory:
    sections = {
        s.key: (_example(s.entry, text, full, _resolve(_ROOT["properties"][s.key]["items"], _ROOT)),)
        for s in SECTIONS
    }
    target = TargetInfo("directory", "/vm")
    return Inventory("0", (CatalogRef("builtin", "1", "builtin"),), target, Stats(), **sections)


@pytest.mark.parametrize("full", [True, False], ids=["every-field-set", "optionals-empty"])
def test_every_section_round_trips_and_diffs_empty_with_itself(full: bool) -> None:
    inv = _inventory("a", full)
    doc = json.loads(dumps(inv))
    back = from_document(doc)  # decoded through the same checks a file is
    for section in SECTIONS:
        assert getattr(back, section.key) == getattr(inv, section.key), section.key
        assert doc[section.key], f"{section.key}: written empty"
    assert to_document(back) == doc
    assert diff_inventories(back, inv).changes == ()


def test_every_compared_section_reports_a_change() -> None:
    # processes and clients included: their diffs were empty whatever changed before the declarations.
    old, new = _inventory("a"), _inventory("b")
    changed = {c.section for c in diff_inventories(old, new).changes}
    assert set(COMPARED) <= changed
    assert {"processes", "clients"} <= changed


def test_a_section_not_inspected_is_absent_and_not_compared() -> None:
    full = _inventory("a")
    skipped = AuditPart("filesystem", "skipped", "--live-only")
    host = LiveHost("host", "6.1", None, "2026-12-01T00:00:00Z", 1, (skipped,))
    live_only = dataclasses.replace(_inventory("b"), target=TargetInfo("live", "/", host))
    doc = json.loads(dumps(live_only))
    assert not WALKED & set(doc) and "models" in doc and "processes" in doc
    validate_document(doc)
    back = from_document(doc)
    assert back.absent == WALKED
    changed = {c.section for c in diff_inventories(full, back).changes}
    assert changed and not changed & {*WALKED, "session_vendors"}


def test_the_fast_schema_check_agrees_with_jsonschema_on_broken_documents() -> None:
    import jsonschema

    schema = load_schema()
    check, reference = compile_schema(schema), jsonschema.Draft202012Validator(schema)
    doc = json.loads(dumps(_inventory("a")))
    assert check(doc) and reference.is_valid(doc)
    breakages = [
        ("models", 0, "wired", "yes"), ("credentials", 0, "sha256", "XYZ"), ("models", 0, "retires", "soon"),
        ("processes", 0, "pid", 1.5), ("processes", 0, "pid", True), ("sessions", 0, "providers", []),
        ("skipped", 0, "surprise", 1), ("routes", 0, "confidence", "sure"), ("models", 0, "line", None),
    ]
    for key, i, field, value in breakages:
        broken = json.loads(json.dumps(doc))
        broken[key][i][field] = value
        assert check(broken) == reference.is_valid(broken), (key, field, value)
    for key in ("models", "stats", "target"):
        broken = json.loads(json.dumps(doc))
        del broken[key]
        assert check(broken) == reference.is_valid(broken) is False, key


_JSON = st.recursive(
    st.none() | st.booleans() | st.integers(-3, 3) | st.floats(-2, 2, allow_nan=False) | st.sampled_from(
        ["", "x", "a" * 64, "0600", "2026-01-01", "high", "known", "config", "tcp", "1.5"]
    ),
    lambda inner: st.lists(inner, max_size=3)
    | st.dictionaries(st.sampled_from(["path", "line", "x"]), inner, max_size=2),
    max_leaves=6,
)


def _paths_of(value: Any, prefix: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    out = [prefix]
    if isinstance(value, dict):
        for k, v in value.items():
            out += _paths_of(v, (*prefix, k))
    elif isinstance(value, list):
        for i, v in enumerate(value):
            out += _paths_of(v, (*prefix, i))
    return out


_CHECK = compile_schema(_ROOT)
_JSONSCHEMA = jsonschema.Draft202012Validator(_ROOT)
_REFERENCE_DOC = json.loads(dumps(_inventory("a")))


@settings(max_examples=300, deadline=None)
@given(data=st.data(), replacement=_JSON, delete=st.booleans())
def test_the_fast_check_says_what_jsonschema_says_of_any_one_change(
    data: st.DataObject, replacement: Any, delete: bool
) -> None:
    doc = json.loads(json.dumps(_REFERENCE_DOC))
    paths = _paths_of(doc)[1:]
    path = data.draw(st.sampled_from(paths))
    parent = doc
    for step in path[:-1]:
        parent = parent[step]
    if delete and isinstance(parent, dict):
        del parent[path[-1]]
    else:
        parent[path[-1]] = replacement
    assert _CHECK(doc) == _JSONSCHEMA.is_valid(doc), path


@pytest.mark.parametrize("kind", ["live", "image", "disk"])
def test_every_kind_of_target_round_trips(kind: str) -> None:
    schema = _resolve(_ROOT["properties"]["target"], _ROOT)
    full = _example(TargetInfo, "a", True, schema)
    target = TargetInfo(
        kind, "/x",
        live=full.live if kind == "live" else None,
        image=full.image if kind == "image" else None,
        disk=full.disk if kind == "disk" else None,
    )
    inv = dataclasses.replace(_inventory("a"), target=target)
    doc = json.loads(dumps(inv))
    validate_document(doc)
    assert from_document(doc).target == target


@pytest.mark.parametrize("show_all", [False, True], ids=["wired", "all"])
def test_every_kind_but_findings_declares_a_table_of_its_columns(show_all: bool) -> None:
    inv = _inventory("example")
    ranks = [k.report_rank for k in SECTIONS if k.table is not None]
    assert len(set(ranks)) == len(ranks), "two kinds share a report_rank"
    for kind in SECTIONS:
        if kind.key == "findings":
            assert kind.table is None  # every format lays findings out first, in its own way
            continue
        assert kind.table is not None, f"{kind.key} has no detail table"
        table = kind.table(getattr(inv, kind.key) or (), show_all)
        extra = ("wired",) if kind.key == "models" and show_all else ()
        assert sorted(table.headers) == sorted(kind.columns + extra), f"{kind.key}: headers are not its columns"
        # An example model is not wired: shown only with --all.
        assert table.rows or (kind.key == "models" and not show_all), f"{kind.key}: an example entry makes no row"
        assert all(len(row) == len(table.headers) for row in table.rows), f"{kind.key}: a row not as wide"


def test_schema_json_is_the_schema_the_kinds_assemble(update_golden: bool) -> None:
    # Each kind's block is scanner/kinds/schema/<key>.json; schema.json is the whole, written out for other tools.
    shipped = REPO / "scanner" / "inventory" / "schema.json"
    if update_golden:
        shipped.write_text(schema_text(), encoding="utf-8")
    assert shipped.read_text(encoding="utf-8") == schema_text(), "schema.json is stale: run pytest --update-golden"
    blocks = {p.stem for p in (REPO / "scanner" / "kinds" / "schema").glob("*.json")}
    assert blocks == {k.key for k in SECTIONS}, "a kind without its schema block, or a block without its kind"

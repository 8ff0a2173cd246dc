"""The one redaction step: every string field of every kind passes through `redact_all` as the inventory leaves the
builder, however the kind nests it (dataclasses, tuples, dicts, optional values). A credential's own redacted form
and its hash are the only strings kept as they are.

Each kind's entry type is filled from its type hints with a key in every string slot, so a field a kind adds later
is covered without this test naming it.
"""

from __future__ import annotations

import dataclasses
import itertools
import types
import typing
from enum import Enum
from typing import Any

import pytest

from scanner.catalog import Catalog
from scanner.inventory.builder import InventoryBuilder
from scanner.inventory.redact import _collect, _walk, redact_all
from scanner.kinds import KINDS, Inventory
from scanner.model import Stats, TargetInfo

# A fake of the real Anthropic format (93 characters, then AA); the built-in catalog knows its shape.
KEY = "sk-ant-api03-" + "Zq7" * 31 + "AA"
KEPT = {"redacted", "sha256"}  # the safe forms of a secret: left as they are
_MAX_DEPTH = 6
_SERIAL = itertools.count()
# String fields the finding rules read as a format of their own (a file mode in octal): the builder is handed these
# well formed, the rest with the key (redaction of them is checked kind by kind below).
PARSED = {"mode": "0644"}


def _sample(tp: Any, depth: int = 0, fixed: dict[str, str] | None = None) -> Any:
    """A value of type `tp` with KEY in every string it holds, but the string fields `fixed` names. Each string is
    a different one, so that a pass that misses one field is not covered by another field's equal string."""
    origin, args = typing.get_origin(tp), typing.get_args(tp)
    if tp is str or tp is Any or tp is object:
        return f"token={KEY} #{next(_SERIAL)}"
    if tp in (int, float):
        return tp(1)
    if tp is bool:
        return False
    if origin in (typing.Union, types.UnionType):
        present = [a for a in args if a is not type(None)]
        return None if depth > _MAX_DEPTH and len(present) < len(args) else _sample(present[0], depth, fixed)
    if origin is typing.Literal:
        return args[0]
    if origin is tuple:
        if depth > _MAX_DEPTH or not args:
            return ()
        if len(args) == 2 and args[1] is Ellipsis:
            return (_sample(args[0], depth + 1, fixed),)
        return tuple(_sample(a, depth + 1, fixed) for a in args)
    if origin is list:
        return [_sample(args[0], depth + 1, fixed)] if depth <= _MAX_DEPTH else []
    if origin in (frozenset, set):
        return origin({_sample(args[0], depth + 1, fixed)}) if depth <= _MAX_DEPTH else origin()
    if origin is dict:
        return {_sample(args[0], depth + 1, fixed): _sample(args[1], depth + 1, fixed)} if depth <= _MAX_DEPTH else {}
    if isinstance(tp, type) and issubclass(tp, Enum):
        return next(iter(tp))
    if isinstance(tp, type) and dataclasses.is_dataclass(tp):
        hints = typing.get_type_hints(tp)
        return tp(**{f.name: (fixed[f.name] if fixed and f.name in fixed else _sample(hints[f.name], depth + 1, fixed))
                     for f in dataclasses.fields(tp) if f.init})
    raise AssertionError(f"no sample for the type {tp!r}: teach _sample it")


def _strings(value: Any, where: str) -> list[tuple[str, str]]:
    """(where, string) for every string in `value`, but a secret's kept forms and enum values."""
    if isinstance(value, Enum):
        return []
    if isinstance(value, str):
        return [(where, value)]
    if isinstance(value, (tuple, list, frozenset, set)):
        return [s for i, v in enumerate(value) for s in _strings(v, f"{where}[{i}]")]
    if isinstance(value, dict):
        return [s for k, v in value.items() for s in (*_strings(k, f"{where} key"), *_strings(v, f"{where}[{k!r}]"))]
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return [s for f in dataclasses.fields(value) if f.name not in KEPT
                for s in _strings(getattr(value, f.name), f"{where}.{f.name}")]
    return []


def _every_kind_filled(fixed: dict[str, str] | None = None) -> dict[str, Any]:
    return {kind.key: (_sample(kind.entry, 0, fixed),) for kind in KINDS}


def test_every_kind_has_string_fields_the_samples_fill() -> None:
    for key, entries in _every_kind_filled().items():
        found = _strings(entries, key)
        assert found and all(KEY in s for _, s in found), f"{key}: no string field holds the key"


@pytest.mark.parametrize("kind", [k.key for k in KINDS])
def test_every_string_field_of_a_kind_is_redacted(kind: str, catalog: Catalog) -> None:
    entries = (_sample(next(k for k in KINDS if k.key == kind).entry),)
    leaked = [where for where, s in _strings(redact_all(entries, catalog), kind) if KEY in s]
    assert not leaked, f"the key passes redaction in {leaked}"


def test_entries_leave_the_builder_redacted(catalog: Catalog) -> None:
    """Whatever the entries hold when the folds and joins are done (here: a key in every string of every kind,
    put in by `extend`, the last step before it), the inventory that leaves the builder holds none in full."""
    target = TargetInfo(kind="directory", location=f"/srv/{KEY}")
    built = InventoryBuilder(catalog).build(
        "0", target, Stats(), extend=lambda inv: dataclasses.replace(inv, **_every_kind_filled(PARSED))
    )
    assert isinstance(built, Inventory)
    strings = _strings(built, "inventory")
    assert sum(1 for _, s in strings if s.startswith("token=")) > len(KINDS)  # the filled entries are all there
    leaked = [where for where, s in strings if KEY in s]
    assert not leaked, f"the key leaves the builder in {leaked}"


def test_the_first_pass_finds_every_string_the_scrubbing_walk_visits() -> None:
    values: list[Any] = [entries for entries in _every_kind_filled().values()]
    values.append({"k": [1, None, True, 2.5, ("a", {("b", 3): "c"})], 4: Stats(), "e": TargetInfo("x", "y")})
    for value in values:
        visited: set[str] = set()
        _walk(value, lambda s, seen=visited: seen.add(s) or s)  # type: ignore[misc]
        found: set[str] = set()
        _collect(value, found)
        assert found == visited

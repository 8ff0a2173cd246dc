"""A fast yes/no check of a document against the inventory schema, compiled once from `schema.json`.

jsonschema walks a 10 MB inventory in seconds (every keyword of every location is a dispatch, every `$ref` a
resolution). This compiles the keywords the schema uses into one closure per subschema, `$ref`s resolved once,
and answers only "valid or not"; when the answer is no, jsonschema itself is asked for the error to report, so
the contract and its messages stay jsonschema's. A keyword it does not know is a compile error, never a silent
pass: the schema cannot grow a rule this check skips.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from typing import Any

Check = Callable[[Any], bool]

# Keywords that say nothing about validity.
_ANNOTATIONS = frozenset({"$schema", "$id", "$defs", "title", "description"})
_KNOWN = _ANNOTATIONS | {
    "$ref", "type", "enum", "const", "properties", "required", "additionalProperties", "items", "pattern",
    "minimum", "minLength", "maxLength", "minItems", "maxItems", "oneOf",
}


class UnsupportedSchema(ValueError):
    """The schema uses a keyword this check does not implement."""


def _is_integer(v: Any) -> bool:
    # JSON Schema: 1.0 is an integer; a boolean is not a number.
    return (type(v) is int) or (type(v) is float and v.is_integer())


_TYPES: dict[str, Check] = {
    "string": lambda v: type(v) is str,
    "integer": _is_integer,
    "number": lambda v: type(v) in (int, float),
    "boolean": lambda v: type(v) is bool,
    "null": lambda v: v is None,
    "array": lambda v: type(v) is list,
    "object": lambda v: type(v) is dict,
}


def _same(a: Any, b: Any) -> bool:
    """JSON equality: true is not 1, 1.0 is 1."""
    if type(a) is bool or type(b) is bool:
        return type(a) is type(b) and a == b
    if isinstance(a, list) and isinstance(b, list):
        return len(a) == len(b) and all(_same(x, y) for x, y in zip(a, b, strict=True))
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(_same(a[k], b[k]) for k in a)
    return bool(a == b)


def _type_check(declared: str | list[str]) -> Check:
    types = [_TYPES[n] for n in (declared if isinstance(declared, list) else [declared])]
    return types[0] if len(types) == 1 else (lambda v: any(t(v) for t in types))


def _enum_check(options: list[Any]) -> Check:
    plain = {o for o in options if type(o) is str} if all(type(o) in (str, type(None)) for o in options) else None
    nullable = None in options
    if plain is not None:
        return lambda v: (type(v) is str and v in plain) or (v is None and nullable)
    return lambda v: any(_same(v, o) for o in options)


def compile_schema(root: Mapping[str, Any]) -> Check:
    """A check that is true exactly when jsonschema finds no error in the document (for the keywords above)."""
    refs: dict[str, Check] = {}

    def ref(pointer: str) -> Check:
        if not pointer.startswith("#/"):
            raise UnsupportedSchema(f"$ref {pointer!r}: only local references")
        if pointer not in refs:
            target: Any = root
            for part in pointer[2:].split("/"):
                target = target[part.replace("~1", "/").replace("~0", "~")]
            holder: list[Check] = []
            refs[pointer] = lambda v: holder[0](v)  # recursive schemas: bound once compiled
            holder.append(build(target))
            refs[pointer] = holder[0]
        return refs[pointer]

    def build(schema: Any) -> Check:
        if schema is True:
            return lambda v: True
        if schema is False:
            return lambda v: False
        unknown = set(schema) - _KNOWN
        if unknown:
            raise UnsupportedSchema(f"keyword(s) {sorted(unknown)} not supported")
        checks: list[Check] = []
        if "$ref" in schema:
            checks.append(ref(schema["$ref"]))
        if "type" in schema:
            checks.append(_type_check(schema["type"]))
        if "const" in schema:
            const = schema["const"]
            checks.append(lambda v: _same(v, const))
        if "enum" in schema:
            checks.append(_enum_check(schema["enum"]))
        if "pattern" in schema:
            search = re.compile(schema["pattern"]).search
            checks.append(lambda v: type(v) is not str or search(v) is not None)
        checks += [_bound(word, schema[word]) for word in _BOUNDS if word in schema]
        if "items" in schema:
            item = build(schema["items"])
            checks.append(lambda v: type(v) is not list or all(map(item, v)))
        checks += _object_checks(schema, build)
        if "oneOf" in schema:
            branches = [build(s) for s in schema["oneOf"]]
            checks.append(lambda v: sum(1 for b in branches if b(v)) == 1)
        if not checks:
            return lambda v: True
        if len(checks) == 1:
            return checks[0]
        return lambda v: all(c(v) for c in checks)

    return build(root)


# A bound keyword: the JSON types it applies to (others pass), what it measures, and whether it is a floor.
_BOUNDS: dict[str, tuple[tuple[type, ...], Callable[[Any], Any], bool]] = {
    "minLength": ((str,), len, True),
    "maxLength": ((str,), len, False),
    "minItems": ((list,), len, True),
    "maxItems": ((list,), len, False),
    "minimum": ((int, float), lambda v: v, True),
}


def _bound(word: str, limit: Any) -> Check:
    kinds, measure, floor = _BOUNDS[word]
    if floor:
        return lambda v: type(v) not in kinds or measure(v) >= limit
    return lambda v: type(v) not in kinds or measure(v) <= limit


def _object_checks(schema: Mapping[str, Any], build: Callable[[Any], Check]) -> list[Check]:
    checks: list[Check] = []
    props = {k: build(s) for k, s in schema.get("properties", {}).items()}
    required = tuple(schema.get("required", ()))
    extra = schema.get("additionalProperties", True)
    other = None if extra is True else build(extra)
    if not props and not required and other is None:
        return checks
    allowed = frozenset(props)

    def check(v: Any) -> bool:
        if type(v) is not dict:
            return True
        for k in required:
            if k not in v:
                return False
        for k, x in v.items():
            p = props.get(k)
            if p is not None:
                if not p(x):
                    return False
            elif other is not None and k not in allowed and not other(x):
                return False
        return True

    checks.append(check)
    return checks

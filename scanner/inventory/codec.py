"""One JSON encoder and one decoder for the inventory's dataclasses, driven by their fields and type hints.

A dataclass is written as an object of its fields, in field order, each value by its type: an enum as its value,
a tuple as a list, a nested dataclass as an object, `X | None` as null or X. Where the contract's shape differs
from the fields (an older key order, a derived key, keys grouped or written in place), the class's `Shape` says
so; nothing else is written by hand. Encoders and decoders are compiled once per class.
"""

from __future__ import annotations

import dataclasses
import types
import typing
from collections.abc import Callable
from enum import Enum
from functools import cache
from typing import Any, Union

from scanner.kinds import SHAPES
from scanner.kinds.base import JsonShape

Encode = Callable[[Any], Any]
Decode = Callable[[Any], Any]


def encode(value: Any) -> Any:
    """Any inventory value (a dataclass, a tuple of them, an enum) as JSON-compatible data."""
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return _encoder(type(value))(value)
    if isinstance(value, Enum):
        return value.value
    if isinstance(value, (tuple, list)):
        return [encode(x) for x in value]
    return value


def decode(tp: Any, data: Any) -> Any:
    """JSON data (already validated against the schema) as a value of type `tp`."""
    return decoder_of(tp)(data)


def encoder_of(tp: Any) -> Encode:
    """The writer of values of type `tp` (a dataclass, `tuple[X, ...]`, `X | None`, …), compiled once."""
    return _compiled("encode", tp)


def decoder_of(tp: Any) -> Decode:
    """The reader of values of type `tp`, compiled once."""
    return _compiled("decode", tp)


@cache
def _compiled(direction: str, tp: Any) -> Callable[[Any], Any]:
    src = _Source()
    expr = (_encode_expr if direction == "encode" else _decode_expr)(src, tp, "o", 0)
    return src.compile(direction, expr)


def _optional_inner(tp: Any) -> Any | None:
    """X for `X | None`, else None."""
    if typing.get_origin(tp) in (Union, types.UnionType):
        args = [a for a in typing.get_args(tp) if a is not type(None)]
        if len(args) == 1 and len(typing.get_args(tp)) == 2:
            return args[0]
    return None


# Encoders and decoders are generated as one Python function per class (as `dataclasses` builds `__init__`):
# an inventory of 100k locations is read in a fraction of a second, where a loop of steps per field costs seconds.


class _Source:
    """A generated function's body and the names it uses."""

    def __init__(self) -> None:
        self.names: dict[str, Any] = {}

    def bind(self, value: Any) -> str:
        name = f"_n{len(self.names)}"
        self.names[name] = value
        return name

    def compile(self, name: str, body: str) -> Callable[[Any], Any]:
        namespace: dict[str, Any] = {}
        exec(f"def {name}(o):\n    return {body}\n", dict(self.names), namespace)  # noqa: S102 - our own source
        fn: Callable[[Any], Any] = namespace[name]
        return fn


Expr = Callable[["_Source", Any, str, int], str]


def _or_none(expr_of: Expr, src: _Source, tp: Any, value: str, depth: int) -> str | None:
    """For `X | None`: null stays null, anything else is X's; None when `tp` is not optional."""
    inner = _optional_inner(tp)
    if inner is None:
        return None
    v = f"_v{depth}"
    expr = expr_of(src, inner, v, depth + 1)
    return value if expr == v else f"(None if ({v} := {value}) is None else {expr})"


def _encode_expr(src: _Source, tp: Any, value: str, depth: int) -> str:
    """An expression that writes `value` (an expression of type `tp`) as JSON data."""
    nullable = _or_none(_encode_expr, src, tp, value, depth)
    if nullable is not None:
        return nullable
    v = f"_v{depth}"
    origin, args = typing.get_origin(tp), typing.get_args(tp)
    if origin is tuple and len(args) == 2 and args[1] is Ellipsis:
        item = _encode_expr(src, args[0], v, depth + 1)
        return f"list({value})" if item == v else f"[{item} for {v} in {value}]"
    if isinstance(tp, type) and issubclass(tp, Enum):  # a producer may hand a str-valued enum's plain string
        return f"({v}.value if isinstance({v} := {value}, {src.bind(Enum)}) else {v})"
    if isinstance(tp, type) and dataclasses.is_dataclass(tp):
        return f"{src.bind(_encoder(tp))}({value})"
    if origin is tuple and args and all(a in _SCALARS for a in args):  # (first, last) of a range: written as it is
        return f"list({value})"
    if origin is not None:  # a fixed tuple of other types, a union: by each value's own type
        return f"{src.bind(encode)}({value})"
    return value


_SCALARS = (int, str, float, bool)


def _decode_expr(src: _Source, tp: Any, value: str, depth: int) -> str:
    """An expression that reads `value` (JSON data) as a value of type `tp`."""
    nullable = _or_none(_decode_expr, src, tp, value, depth)
    if nullable is not None:
        return nullable
    v = f"_v{depth}"
    origin, args = typing.get_origin(tp), typing.get_args(tp)
    if origin is tuple:
        if len(args) == 2 and args[1] is Ellipsis:
            item = _decode_expr(src, args[0], v, depth + 1)
            return f"tuple({value})" if item == v else f"tuple([{item} for {v} in {value}])"
        items = "".join(_decode_expr(src, a, f"{v}[{i}]", depth + 1) + ", " for i, a in enumerate(args))
        return f"(({v} := {value}), ({items}))[1]"
    if isinstance(tp, type) and issubclass(tp, Enum):
        members, enum = src.bind(tp._value2member_map_), src.bind(tp)
        return f"({members}[{v}] if ({v} := {value}) in {members} else {enum}({v}))"
    if isinstance(tp, type) and dataclasses.is_dataclass(tp):
        return f"{src.bind(_decoder(tp))}({value})"
    if tp is float:
        return f"float({value})"
    return value


def _key_order(cls: type, shape: JsonShape) -> tuple[str, ...]:
    """The JSON keys of a class in order: its shape's order, or its fields' (less those hidden or grouped)."""
    names = [f.name for f in dataclasses.fields(cls) if f.name not in shape.hidden]
    grouped = {f for sub in shape.groups.values() for f in sub.values()}
    order = shape.order or tuple(n for n in names if n not in grouped)
    missing = set(names) - grouped - set(order)
    if missing:
        raise TypeError(f"{cls.__name__}: shape order leaves out {sorted(missing)}")
    return order


@cache
def _encoder(cls: type) -> Encode:
    shape = SHAPES.get(cls, JsonShape())
    hints = typing.get_type_hints(cls)
    src = _Source()
    parts = []
    for key in _key_order(cls, shape):
        if key in shape.computed:
            parts.append(f"{key!r}: {src.bind(shape.computed[key])}(o)")
        elif key in shape.groups:
            members = ", ".join(
                f"{sub!r}: {_encode_expr(src, hints[name], f'o.{name}', 0)}" for sub, name in shape.groups[key].items()
            )
            parts.append(f"{key!r}: {{{members}}}")
        else:
            expr = f"{src.bind(shape.codecs[key][0])}(o.{key})" if key in shape.codecs \
                else _encode_expr(src, hints[key], f"o.{key}", 0)
            if key in shape.inline:  # its keys in place, when it is set
                parts.append(f"**({{}} if o.{key} is None else {expr})")
            elif key in shape.omit_empty:
                parts.append(f"**({{{key!r}: {expr}}} if o.{key} not in (None, '', ()) "
                             f"and not (type(o.{key}) is int and o.{key} == 0) else {{}})")
            else:
                parts.append(f"{key!r}: {expr}")
    return src.compile(f"encode_{cls.__name__}", "{" + ", ".join(parts) + "}")


_MISSING = object()


@cache
def _decoder(cls: type) -> Decode:
    shape = SHAPES.get(cls, JsonShape())
    if shape.decode is not None:
        return shape.decode
    hints = typing.get_type_hints(cls)
    src = _Source()
    group_of = {name: (key, sub) for key, members in shape.groups.items() for sub, name in members.items()}
    args = []
    for f in dataclasses.fields(cls):
        name = f.name
        if name in shape.hidden:
            args.append(src.bind(shape.hidden[name]))
            continue
        if name in shape.codecs:
            expr = f"{src.bind(shape.codecs[name][1])}(_f)"
        else:
            expr = _decode_expr(src, hints[name], "_f", 0)
        if name in shape.inline:
            marker = shape.inline[name]
            whole = expr.replace("_f", "o")
            args.append(whole if marker is None else f"({whole} if {marker!r} in o else None)")
        elif name in group_of:
            key, sub = group_of[name]
            args.append(f"(_f := o[{key!r}][{sub!r}], {expr})[1]")
        elif _default(f) is not _MISSING:
            # Written by an older scanner without the field, or omitted when empty: the field's default.
            args.append(f"((_f := o[{name!r}], {expr})[1] if {name!r} in o else {src.bind(_default(f))})")
        else:
            args.append(f"(_f := o[{name!r}], {expr})[1]")
    body = f"{src.bind(cls)}({', '.join(args)})"
    if shape.finish is not None:
        body = f"{src.bind(shape.finish)}({body})"
    return src.compile(f"decode_{cls.__name__}", body)


def _default(f: dataclasses.Field[Any]) -> Any:
    if f.default is not dataclasses.MISSING:
        return f.default
    if f.default_factory is not dataclasses.MISSING:
        return f.default_factory()
    return _MISSING


def json_keys(cls: type) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """(every key the class writes, the keys it always writes): what its schema's properties and required say."""
    shape = SHAPES.get(cls, JsonShape())
    every: list[str] = []
    always: list[str] = []
    for key in _key_order(cls, shape):
        if key in shape.inline:
            inner = typing.get_type_hints(cls)[key]
            sub_every, sub_always = json_keys(_optional_inner(inner) or inner)
            every += sub_every
            if shape.inline[key] is None:
                always += sub_always
            continue
        every.append(key)
        if key not in shape.omit_empty:
            always.append(key)
    return tuple(every), tuple(always)

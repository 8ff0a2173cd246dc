"""Applying the catalogs' `[[fingerprints]]` to one record: which rules fire on which values.

The record is read once by `shape.read_shape`, which collects its token values with the key (and parent
key) each sits under. A rule names the fields it applies to: a key (`call_id`), a key under a parent
(`tool_calls/id`), `@id` (any key that names an id: `id`, `*_id`, `*Id`, `ref`, …) or `*` (any key). For each
distinct (parent, key) the rules that apply are compiled once into one alternation, so a value that fits
no rule costs one regex call whatever the number of rules; only a value the alternation matches is tried
rule by rule. A rule with `decode` fires only when the value also decodes (a Fernet token's layout,
LiteLLM's base64 id), and the decoded facts ride along on the hit.
"""

from __future__ import annotations

import base64
import binascii
import functools
import importlib
import re
import sys
from dataclasses import dataclass
from typing import Any

from scanner.catalog.schema import FingerprintSpec
from scanner.sessions.fernet import fernet_time, strip_tag
from scanner.sessions.shape import MARK, WANT, Shape, is_id_key, read_shape

# The stdlib's regex parser, for a pattern's match width: re._parser from 3.11, sre_parse before.
_regex_parser: Any = getattr(re, "_parser", None) or importlib.import_module("sre_parse")

MAX_HITS = 2_000
_CACHE = 20_000
_LITELLM_FIELDS = re.compile(r"([a-z_]+):([^;]*)")

_Rules = tuple[tuple[FingerprintSpec, "re.Pattern[str]"], ...]


@dataclass(slots=True)
class Hit:
    """One rule firing on one value. Built for every matching value of every record: a plain slotted
    dataclass, which builds 3x faster than a frozen one; nothing changes a hit once made."""

    rule: FingerprintSpec
    value: str
    fernet_time: int | None = None  # the token's embedded Unix time
    served_via: str | None = None  # decoded from the value (LiteLLM's upstream provider)


class _FieldRules:
    """The value rules of one (parent, key), and their alternations compiled on demand: `after(i)` is rules
    i.. joined with one named group per rule, so the group that matched names the rule."""

    def __init__(self, rules: _Rules) -> None:
        self.rules = rules
        self._after: dict[int, re.Pattern[str]] = {}
        self.first = self.after(0) if rules else None  # the one call most values need
        # The lengths a whole match can have, over the field's rules: most values under an id-like key (a
        # uuid, a message id where the rules want 24 or 32 characters) are told apart by length alone, before
        # the alternation runs (70% of the calls on real session records).
        widths = [_width(spec.pattern) for spec, _ in rules]
        self.shortest = min((w[0] for w in widths), default=0)
        self.longest = max((w[1] for w in widths), default=0)
        # A pattern with groups of its own could shadow ours: then each rule is confirmed alone.
        self._plain = not any("(?P" in spec.pattern or "\\" + "1" in spec.pattern for spec, _ in rules)

    def after(self, start: int) -> re.Pattern[str]:
        rx = self._after.get(start)
        if rx is None:
            parts = (f"(?P<r{i}>{spec.pattern})" for i, (spec, _) in enumerate(self.rules) if i >= start)
            rx = self._after[start] = re.compile("|".join(parts))
        return rx

    def index(self, m: re.Match[str], start: int, value: str) -> int:
        if self._plain and m.lastgroup:
            return int(m.lastgroup[1:])
        return next(i for i in range(start, len(self.rules)) if self.rules[i][1].fullmatch(value))


@functools.lru_cache(maxsize=1024)
def _width(pattern: str) -> tuple[int, int]:
    """The least and most characters a match of `pattern` spans (the regex parser's own figure); any length
    when the parser cannot say. Kept per pattern: a log whose keys are ids (a map of thousands of models)
    asks it for every rule of every new key."""
    try:
        low, high = _regex_parser.parse(pattern).getwidth()
        return int(low), int(high)
    except Exception:  # noqa: BLE001 - a private parser: never worse than no bound
        return 0, sys.maxsize


def _applies(fields: tuple[str, ...], parent: str, key: str) -> bool:
    for name in fields:
        if name == "*" or name == key or (name == "@id" and is_id_key(key)):
            return True
        if "/" in name and name == f"{parent}/{key}":
            return True
    return False


class Fingerprinter:
    def __init__(self, specs: list[FingerprintSpec]) -> None:
        self._values = [(spec, re.compile(spec.pattern)) for spec in specs if spec.on != "key"]
        self._keys = [(spec, re.compile(spec.pattern)) for spec in specs if spec.on == "key"]
        self._field_cache: dict[tuple[str, str], _FieldRules] = {}
        self._key_cache: dict[str, tuple[FingerprintSpec, ...]] = {}
        fields = {name for spec, _ in self._values for name in spec.fields}
        self._any_field = "*" in fields
        self._id_fields = "@id" in fields
        self._named = {name.rsplit("/", 1)[-1] for name in fields}
        self.key_info: dict[str, int] = {}  # the shape walk's cache of key classes for `key_class`

    def wants(self, key: str) -> bool:
        """Whether any value rule could apply to a value under `key` (the walk keeps only those)."""
        return self._any_field or key in self._named or (self._id_fields and is_id_key(key))

    def key_class(self, key: str) -> int:
        """The shape walk's bits for `key`: WANT its token values, MARK its name (a key rule fires on it)."""
        return (WANT if self.wants(key) else 0) | (MARK if self._key_rules(key) else 0)

    def scan(self, record: dict[str, Any]) -> list[Hit]:
        return self.match(read_shape(record, self.key_class, self.key_info))

    def match(self, shape: Shape) -> list[Hit]:
        hits: list[Hit] = []
        # Key rules: the walk marked the keys they fire on. Sorted: a set's order changes with the hash seed,
        # and the first hit of a rule is its example.
        for key in sorted(shape.marked):
            hits.extend(Hit(spec, key) for spec in self._key_rules(key))
        cache = self._field_cache
        for parent, key, value in shape.leaves:
            found = cache.get((parent, key))
            if found is None:
                found = self._compile(parent, key)
            first = found.first
            if first is None or not found.shortest <= len(value) <= found.longest:
                continue
            m = first.fullmatch(value)
            if m is not None:
                hits.extend(self._matches(found, value, m))
                if len(hits) >= MAX_HITS:
                    break
        return hits

    def _compile(self, parent: str, key: str) -> _FieldRules:
        found = _FieldRules(tuple((spec, rx) for spec, rx in self._values if _applies(spec.fields, parent, key)))
        if len(self._field_cache) < _CACHE:
            self._field_cache[(parent, key)] = found
        return found

    def _matches(self, found: _FieldRules, value: str, m: re.Match[str] | None = None) -> list[Hit]:
        """Every rule of the field that matches the value whole, in catalog order: one alternation finds the
        first, the alternation of the rules after it finds the next, and so on (most values need one call).
        `m` is the first alternation's match when the caller already made it."""
        out: list[Hit] = []
        start = 0
        while start < len(found.rules):
            if m is None:
                m = found.after(start).fullmatch(value)
                if m is None:
                    break
            index = found.index(m, start, value)
            m = None
            out.extend(self._decoded(found.rules[index][0], value))
            start = index + 1
        return out

    def _key_rules(self, key: str) -> tuple[FingerprintSpec, ...]:
        cached = self._key_cache.get(key)
        if cached is None:
            cached = tuple(spec for spec, rx in self._keys if rx.fullmatch(key))
            if len(self._key_cache) < _CACHE:
                self._key_cache[key] = cached
        return cached

    def _value_hits(self, parent: str, key: str, value: str) -> list[Hit]:
        found = self._field_cache.get((parent, key)) or self._compile(parent, key)
        return self._matches(found, value) if found.rules else []

    def _decoded(self, spec: FingerprintSpec, value: str) -> list[Hit]:
        if spec.decode == "fernet":
            seconds = fernet_time(strip_tag(value)[1])
            return [Hit(spec, value, fernet_time=seconds)] if seconds is not None else []
        if spec.decode == "litellm-id":
            fields = decode_litellm_id(value)
            if not fields or not fields.get("custom_llm_provider"):
                return []
            hit = Hit(spec, value, served_via=fields["custom_llm_provider"])
            inner = fields.get("response_id", "")
            inner_hits = self._value_hits("", "id", inner) if inner and not inner.startswith(value[:12]) else []
            return [hit, *inner_hits]
        return [Hit(spec, value)]


def decode_litellm_id(value: str) -> dict[str, str]:
    """`resp_<base64 of "litellm:custom_llm_provider:azure;model_id:…;response_id:resp_…">` -> its fields."""
    body = value.split("_", 1)[-1]
    try:
        text = base64.b64decode(body + "=" * (-len(body) % 4), altchars=b"-_" if "-" in body or "_" in body else None)
        decoded = text.decode("utf-8")
    except (binascii.Error, ValueError):
        return {}
    if not decoded.startswith("litellm:"):
        return {}
    return {k: v for k, v in _LITELLM_FIELDS.findall(decoded[len("litellm:") :])}

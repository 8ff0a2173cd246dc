"""Applying the catalogs' `[[fingerprints]]` to one record: which rules fire on which values.

The record is read once by `shape.read_shape`, which collects its token values with the key each sits under
and the roles it plays there: any id, a tool call's id, a response's or message's own id, a signature, a model
field. A rule names the roles it applies to (`roles = ["tool-call"]`), and where the field itself is the marker
(`system_fingerprint`), the keys (`fields`); `@id` in `fields` is the role `id`, `*` the role `any`. For each
distinct (roles, key) the rules that apply are found once (keys with the same rules share them) and, by the
first character of a value, narrowed to those that can begin with it, joined into one alternation: a value
that fits no rule costs at most one regex call whatever the number of rules, most (a uuid where the rules want
`msg_`) none; only a value the alternation matches is tried rule by rule. A rule with `decode` fires only when
the value also decodes (a Fernet token's layout, LiteLLM's base64 id), and the decoded facts ride along on the
hit.
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
from scanner.sessions.keys import (
    ID,
    MARK,
    MAX_CACHED_KEY,
    MODEL,
    ROLE_ANY,
    ROLE_ID,
    ROLE_MODEL,
    ROLE_RESPONSE,
    ROLE_SIGNATURE,
    ROLE_TOOL_CALL,
    ROLES,
    SECRET,
    STRONG_SECRET,
    WANT,
    key_flags,
)
from scanner.sessions.shape import Shape, read_shape

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


class _FieldIndex:
    """The value rules of one (roles, key), by the first character of a value: the rules that can begin with it
    (and those that can begin with anything), joined once per distinct set, on demand."""

    def __init__(self, rules: _Rules) -> None:
        self.rules = rules  # every rule of the field, in catalog order
        self._firsts = [_first_chars(spec.pattern) for spec, _ in rules]
        self._joined: dict[tuple[int, ...], _FieldRules] = {}
        self.by_char: dict[str, _FieldRules] = {}

    def of(self, char: str) -> _FieldRules:
        chosen = tuple(i for i, first in enumerate(self._firsts) if first is None or char in first)
        found = self._joined.get(chosen)
        if found is None:
            found = self._joined[chosen] = _FieldRules(tuple(self.rules[i] for i in chosen))
        if len(self.by_char) < 1024:
            self.by_char[char] = found
        return found


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


_MAX_CLASS = 512  # a class wider than this (any letter) is taken as "any character"


@functools.lru_cache(maxsize=1024)
def _first_chars(pattern: str) -> frozenset[str] | None:
    """The characters a whole match of `pattern` can begin with (the regex parser's reading); None when it may
    begin with any, or the parser cannot say. A value whose first character is in no rule's set is tried by
    none: most ids under an id-like key (a uuid, a message id where the rules want `msg_`) need no regex call."""
    try:
        parsed = _regex_parser.parse(pattern)
        if parsed.state.flags & re.IGNORECASE:
            return None
        chars, _ = _starts(list(parsed))
    except Exception:  # noqa: BLE001 - a private parser: never worse than no bound
        return None
    return frozenset(chars) if chars is not None else None


def _starts(items: list[tuple[Any, Any]]) -> tuple[set[str] | None, bool]:
    """(first characters, whether it can match empty) of a parsed sequence; None: any character."""
    out: set[str] = set()
    for op, av in items:
        chars, empty = _start(op, av)
        if chars is None:
            return None, False
        out |= chars
        if not empty:
            return out, False
    return out, True


def _start(op: Any, av: Any) -> tuple[set[str] | None, bool]:
    """(first characters, can match empty) of one parsed item; lookarounds and anchors are empty, and syntax not
    read here (a negated class, a category, a backreference) may begin with anything."""
    p = _regex_parser
    if op is p.LITERAL:
        return {chr(av)}, False
    if op is p.IN:
        chars: set[str] = set()
        for kind, value in av:
            if kind is p.LITERAL:
                chars.add(chr(value))
            elif kind is p.RANGE and value[1] - value[0] < _MAX_CLASS:
                chars.update(map(chr, range(value[0], value[1] + 1)))
            else:
                return None, False
        return chars, False
    if op is p.BRANCH:
        found = [_starts(list(branch)) for branch in av[1]]
        if any(chars is None for chars, _ in found):
            return None, False
        return set().union(*(chars or () for chars, _ in found)), any(empty for _, empty in found)
    if op is p.SUBPATTERN and not av[1] & re.IGNORECASE:
        return _starts(list(av[3]))
    if op in (p.MAX_REPEAT, p.MIN_REPEAT):
        repeated, empty = _starts(list(av[2]))
        return repeated, empty or av[0] == 0
    if op in (p.AT, p.ASSERT, p.ASSERT_NOT):
        return set(), True
    return None, False


def role_mask(spec: FingerprintSpec) -> int:
    """The ROLE_* bits a rule applies to: its `roles`, and `@id` / `*` among its `fields`."""
    mask = 0
    for role in spec.roles:
        mask |= ROLES.get(role, 0)
    if "@id" in spec.fields:
        mask |= ROLE_ID
    if "*" in spec.fields:
        mask |= ROLE_ANY
    return mask


def _applies(spec: FingerprintSpec, mask: int, roles: int, key: str) -> bool:
    return bool(mask & roles) or key in spec.fields


class Fingerprinter:
    def __init__(self, specs: list[FingerprintSpec]) -> None:
        self._values = [(spec, re.compile(spec.pattern)) for spec in specs if spec.on != "key"]
        self._masks = {spec.id: role_mask(spec) for spec, _ in self._values}
        self._keys = [(spec, re.compile(spec.pattern)) for spec in specs if spec.on == "key"]
        self._fields: dict[str, dict[int, _FieldIndex]] = {}  # key -> its rules by roles (ROLE_* bits)
        self._indexes: dict[tuple[int, ...], _FieldIndex] = {}  # one index a distinct set of rules
        self._key_cache: dict[str, tuple[FingerprintSpec, ...]] = {}
        masks = 0
        for mask in self._masks.values():
            masks |= mask
        self._any_field = bool(masks & ROLE_ANY)
        # Key classes whose values some role rule may apply to (a tool call's or a response's id is an id first).
        self._wanted_classes = (
            ID * bool(masks & (ROLE_ID | ROLE_TOOL_CALL | ROLE_RESPONSE))
            | (SECRET | STRONG_SECRET) * bool(masks & ROLE_SIGNATURE)
            | MODEL * bool(masks & ROLE_MODEL)
        )
        self._named = {name for spec, _ in self._values for name in spec.fields if name not in ("@id", "*")}
        self.key_info: dict[str, int] = {}  # the shape walk's cache of key classes for `key_class`

    def wants(self, key: str) -> bool:
        """Whether any value rule could apply to a value under `key` (the walk keeps only those)."""
        return self._any_field or key in self._named or bool(self._wanted_classes & key_flags(key))

    def key_class(self, key: str) -> int:
        """The shape walk's bits for `key`: WANT its token values, MARK its name (a key rule fires on it)."""
        return (WANT if self.wants(key) else 0) | (MARK if self._key_rules(key) else 0)

    def scan(self, record: dict[str, Any]) -> list[Hit]:
        return self.match(read_shape(record, self.key_class, self.key_info))

    def match(self, shape: Shape) -> list[Hit]:
        hits: list[Hit] = []
        if shape.marked:
            # Key rules: the walk marked the keys they fire on. Sorted: a set's order changes with the hash seed,
            # and the first hit of a rule is its example.
            for key in sorted(shape.marked):
                hits.extend(Hit(spec, key) for spec in self._key_rules(key))
        fields = self._fields
        for roles, key, value in shape.leaves:
            by_roles = fields.get(key)
            field = by_roles.get(roles) if by_roles is not None else None
            if field is None:
                field = self._field(roles, key)
            found = field.by_char.get(value[0]) or field.of(value[0])
            first = found.first
            if first is None or not found.shortest <= len(value) <= found.longest:
                continue
            m = first.fullmatch(value)
            if m is not None:
                hits.extend(self._matches(found, value, m))
                if len(hits) >= MAX_HITS:
                    break
        return hits

    def _field(self, roles: int, key: str) -> _FieldIndex:
        """The rules of a (roles, key), kept by key and then by roles (no tuple built a leaf to look them up). Keys
        with the same rules share one index: the regexes it joins are compiled once, whatever keys a log uses."""
        by_roles = self._fields.get(key)
        if by_roles is None:
            by_roles = {}
            if len(self._fields) < _CACHE and len(key) <= MAX_CACHED_KEY:
                self._fields[key] = by_roles
        found = by_roles.get(roles)
        if found is None:
            found = by_roles[roles] = self._compile(roles, key)
        return found

    def _compile(self, roles: int, key: str) -> _FieldIndex:
        masks = self._masks
        chosen = tuple(i for i, (spec, _) in enumerate(self._values) if _applies(spec, masks[spec.id], roles, key))
        found = self._indexes.get(chosen)
        if found is None:
            found = self._indexes[chosen] = _FieldIndex(tuple(self._values[i] for i in chosen))
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
            if len(self._key_cache) < _CACHE and len(key) <= MAX_CACHED_KEY:
                self._key_cache[key] = cached
        return cached

    def _value_hits(self, roles: int, key: str, value: str) -> list[Hit]:
        field = self._field(roles, key)
        found = field.of(value[0]) if value else _FieldRules(field.rules)
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
            roles = ROLE_ANY | ROLE_ID | ROLE_RESPONSE
            inner_hits = self._value_hits(roles, "id", inner) if inner and not inner.startswith(value[:12]) else []
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

"""Applying the catalogs' `[[fingerprints]]` to one record: which rules fire on which values.

A record is walked breadth-first with a bounded number of nodes and depth; every string value is tested
only by the rules that name its key (`call_id`, or `tool_calls/id` for a key under a parent), and every key
name by the key rules. A rule with `decode` fires only when the value also decodes (a Fernet token's layout,
LiteLLM's base64 id), and the decoded facts ride along on the hit.
"""

from __future__ import annotations

import base64
import binascii
import re
from collections import deque
from dataclasses import dataclass
from typing import Any

from scanner.catalog.schema import FingerprintSpec
from scanner.sessions.fernet import fernet_time, strip_tag

MAX_NODES = 20_000
MAX_DEPTH = 40
MAX_VALUE = 1 << 20
MAX_HITS = 2_000
_LITELLM_FIELDS = re.compile(r"([a-z_]+):([^;]*)")


@dataclass(frozen=True)
class Hit:
    rule: FingerprintSpec
    value: str
    fernet_time: int | None = None  # the token's embedded Unix time
    served_via: str | None = None  # decoded from the value (LiteLLM's upstream provider)


class Fingerprinter:
    def __init__(self, specs: list[FingerprintSpec]) -> None:
        self._by_field: dict[str, list[tuple[FingerprintSpec, re.Pattern[str]]]] = {}
        self._any: list[tuple[FingerprintSpec, re.Pattern[str]]] = []
        self._keys: list[tuple[FingerprintSpec, re.Pattern[str]]] = []
        for spec in specs:
            rx = re.compile(spec.pattern)
            if spec.on == "key":
                self._keys.append((spec, rx))
            elif "*" in spec.fields:
                self._any.append((spec, rx))
            else:
                for name in spec.fields:
                    self._by_field.setdefault(name, []).append((spec, rx))
        self._key_cache: dict[str, tuple[FingerprintSpec, ...]] = {}

    def scan(self, record: dict[str, Any]) -> list[Hit]:
        hits: list[Hit] = []
        queue: deque[tuple[Any, str, int]] = deque([(record, "", 0)])
        nodes = 0
        while queue and nodes < MAX_NODES and len(hits) < MAX_HITS:
            node, parent, depth = queue.popleft()
            nodes += 1
            if isinstance(node, list):
                if depth < MAX_DEPTH:
                    queue.extend((item, parent, depth + 1) for item in node[:MAX_NODES])
                continue
            if not isinstance(node, dict):
                continue
            for key, value in node.items():
                if not isinstance(key, str):
                    continue
                for spec in self._key_rules(key):
                    hits.append(Hit(spec, key))
                if isinstance(value, str):
                    if value and len(value) <= MAX_VALUE:
                        hits.extend(self._value_hits(parent, key, value))
                elif isinstance(value, dict | list) and depth < MAX_DEPTH:
                    queue.append((value, key, depth + 1))
        return hits

    def _key_rules(self, key: str) -> tuple[FingerprintSpec, ...]:
        cached = self._key_cache.get(key)
        if cached is None:
            cached = tuple(spec for spec, rx in self._keys if rx.fullmatch(key))
            if len(self._key_cache) < 10_000:
                self._key_cache[key] = cached
        return cached

    def _value_hits(self, parent: str, key: str, value: str) -> list[Hit]:
        out: list[Hit] = []
        candidates = self._by_field.get(key, []) + self._by_field.get(f"{parent}/{key}", []) + self._any
        for spec, rx in candidates:
            if rx.fullmatch(value):
                out.extend(self._decoded(spec, value))
        return out

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

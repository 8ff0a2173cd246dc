"""One provider's tally within a session: its records, their time span, the rules that named it (one example
each), the runs of records it served and of those with visible or encrypted reasoning, at most MAX_RANGES runs
each. The session's accumulator (`attribution`) keeps one per provider and merges them."""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field

from scanner.sessions.fingerprints import Hit
from scanner.sessions.pick import LABEL_RULE
from scanner.sessions.reasoning import ENCRYPTED, VISIBLE
from scanner.vocab import Confidence

MAX_RANGES = 50


def shorten(value: str, keep: int = 24) -> str:
    """An example value cut to its head and tail: enough to recognise a format, never a whole blob."""
    return value if len(value) <= keep + 12 else f"{value[:keep]}…{value[-8:]}"


@dataclass
class ProviderTally:
    """What one session's records served by one provider add up to: counts, time span, rules, record runs."""

    records: int = 0
    first: float | None = None
    last: float | None = None
    rules: Counter[str] = field(default_factory=Counter)
    examples: dict[str, str] = field(default_factory=dict)
    confidence: dict[str, Confidence] = field(default_factory=dict)
    candidates: dict[str, None] = field(default_factory=dict)
    ranges: list[list[int]] = field(default_factory=list)
    vendor_weight: int = 0  # the weightiest hit that named this vendor (not only its route)
    visible: list[list[int]] = field(default_factory=list)  # runs of records with readable reasoning
    encrypted: list[list[int]] = field(default_factory=list)  # runs of records with encrypted reasoning

    def states(self) -> set[str]:
        return {state for state, runs in ((VISIBLE, self.visible), (ENCRYPTED, self.encrypted)) if runs}

    def reasoned(self, number: int, states: set[str]) -> None:
        """Record `number` carries these reasoning states. A run of one state spans the records between that carry
        no reasoning (a tool result, a user turn), never one that carries the other state."""
        for state, runs, other in ((VISIBLE, self.visible, self.encrypted), (ENCRYPTED, self.encrypted, self.visible)):
            if state in states:
                joined = bool(runs) and not (other and runs[-1][1] < other[-1][1] < number)
                _extend(runs, number, joined)

    def add(
        self, number: int, when: float | None, hits: list[Hit], candidates: tuple[str, ...], extend: bool,
        vendor: str,
    ) -> None:
        self.records += 1
        if when is not None:
            if self.first is None or when < self.first:
                self.first = when
            if self.last is None or when > self.last:
                self.last = when
        for hit in hits:
            spec = hit.rule
            if (spec.vendor == vendor or spec is LABEL_RULE) and spec.rank > self.vendor_weight:
                self.vendor_weight = spec.rank
            rule = spec.id
            self.rules[rule] += 1
            if rule not in self.examples:
                self.examples[rule] = shorten(hit.value)
                self.confidence[rule] = spec.confidence
        for named in candidates:
            self.candidates.setdefault(named)
        if self.ranges and (extend or len(self.ranges) >= MAX_RANGES):
            self.ranges[-1][1] = number
        else:
            self.ranges.append([number, number])

    def merge(self, other: ProviderTally) -> None:
        self.records += other.records
        for when in (other.first, other.last):
            if when is not None:
                self.first = when if self.first is None else min(self.first, when)
                self.last = when if self.last is None else max(self.last, when)
        self.rules.update(other.rules)
        for rule, example in other.examples.items():
            self.examples.setdefault(rule, example)
        self.confidence.update(other.confidence)
        self.vendor_weight = max(self.vendor_weight, other.vendor_weight)
        for vendor in other.candidates:
            self.candidates.setdefault(vendor)
        self.ranges = _coalesce(self.ranges + other.ranges)
        self.visible = _coalesce(self.visible + other.visible)
        self.encrypted = _coalesce(self.encrypted + other.encrypted)


def _extend(runs: list[list[int]], number: int, joined: bool = False) -> None:
    """Add record `number` to runs of records: the last run grows when `number` follows it or `joined` says the
    gap belongs to it (bounded: past MAX_RANGES the last run grows)."""
    if runs and (joined or runs[-1][1] + 1 >= number or len(runs) >= MAX_RANGES):
        runs[-1][1] = max(runs[-1][1], number)
    else:
        runs.append([number, number])


def _coalesce(ranges: list[list[int]]) -> list[list[int]]:
    out: list[list[int]] = []
    for first, last in sorted(ranges):
        if out and first <= out[-1][1] + 1:
            out[-1][1] = max(out[-1][1], last)
        else:
            out.append([first, last])
    return out[:MAX_RANGES]

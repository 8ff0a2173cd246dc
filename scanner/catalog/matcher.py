"""One compiled multi-pattern engine over every searchable catalog pattern.

YARA-X finds candidate spans in a single pass over a file's bytes (measured: stdlib `re` with one big
alternation is 30-40x slower over whole files). Python's `re` then confirms each candidate at its
offset, so the catalog pattern stays the single source of truth for what a match is.
"""

from __future__ import annotations

import re
import threading
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass
from enum import Enum
from typing import NamedTuple

import yara_x

from scanner.catalog import prebuilt
from scanner.catalog.specs import CatalogError

# A hostile file must not turn one scan into millions of Python confirmations: the engine stops a pattern
# after MAX_HITS_PER_PATTERN matches. A pattern that reached it is searched on from there (by YARA-X for it
# alone, its regex confirming each start: a regex pass over a proxy log's megabytes costs 20-50x more; by its
# regex alone past MAX_TAIL_STARTS starts), so a new value after thousands of repeats is still found; repeats
# of one text past MAX_REPEATS_KEPT are counted, not kept, and distinct texts past MAX_DISTINCT_PER_PATTERN
# are cut and counted in `Hits.cut` (the scan records that as a skip).
MAX_HITS_PER_PATTERN = 2000
MAX_REPEATS_KEPT = 200  # = model.MAX_LOCATIONS: an entry keeps no more locations than this
MAX_DISTINCT_PER_PATTERN = 100_000
MAX_TAIL_STARTS = 100_000
SCAN_TIMEOUT_SECONDS = 120
# The longest match there can be: a catalog grammar may repeat without bound (`(?:-[a-z0-9]+)*`), but a
# hit is confirmed within this many bytes of its start, so a file matched in overlapping windows (which
# overlap by more) gives the same hits as one matched whole.
MAX_MATCH_BYTES = 32 << 10


class PatternKind(str, Enum):
    MODEL = "model"  # a family grammar
    HOSTED = "hosted"  # a hosted-form `find` pattern
    HOST = "host"
    CREDENTIAL = "credential"
    KILL_SWITCH = "kill_switch"
    SIGNATURE = "signature"  # an SDK import, client construction or call in source code
    CODE_PATH = "code_path"  # a provider module or registry path compiled into a binary


@dataclass(frozen=True)
class Rule:
    kind: PatternKind
    index: int  # position in the Catalog's list for that kind
    pattern: str


class PatternHit(NamedTuple):
    """One confirmed match. A tuple, in the order hits are sorted (a file can have hundreds of thousands: a tuple is
    made and compared in C); a kind compares as its value."""

    start: int
    end: int
    kind: PatternKind
    pattern: int  # the pattern's position in the Catalog's list for its kind
    text: bytes


class MatchTimeout(Exception):
    pass


class Hits(list[PatternHit]):
    """Hits of one scan; `cut` counts the matches of distinct texts left out past MAX_DISTINCT_PER_PATTERN."""

    cut: int = 0


def searchable(pattern: str) -> str:
    """The pattern as the search engine takes it: lazy quantifiers (`{1,64}?`) made greedy, which YARA-X
    refuses to mix. A match starts at the same offsets either way; Python's `re` then confirms each start
    with the catalog pattern itself, so the lazy reading still decides what the match is."""
    out: list[str] = []
    escaped = in_class = quantified = False
    for i, ch in enumerate(pattern):
        if escaped:
            escaped = quantified = False
        elif ch == "\\":
            escaped = True
        elif in_class:
            in_class = ch != "]" or pattern[i - 1] == "["
        elif ch == "[":
            in_class, quantified = True, False
        elif ch == "?" and quantified:
            quantified = False
            continue  # the lazy mark of the quantifier before it
        else:
            quantified = ch in "*+}" or (ch == "?" and i > 0 and pattern[i - 1] != "(")
        out.append(ch)
    return "".join(out)


def _yara_source(rules: list[Rule], numbers: list[int] | None = None) -> str:
    """YARA-X rules, one per pattern, each named by its position in the matcher's list (`numbers`)."""
    parts = []
    for i, rule in zip(numbers or range(len(rules)), rules, strict=True):
        body = searchable(rule.pattern).replace("/", r"\/")
        parts.append(f"rule r{i} {{ strings: $a = /{body}/ condition: $a }}")
    return "\n".join(parts)


def check_yara_pattern(pattern: str) -> str | None:
    """Why YARA-X refuses a pattern, or None when it compiles."""
    try:
        compiler = yara_x.Compiler()
        compiler.add_source(_yara_source([Rule(PatternKind.MODEL, 0, pattern)]))
        compiler.build()
    except yara_x.CompileError as exc:
        return str(exc).splitlines()[0] if str(exc) else "does not compile"
    return None


class Matcher:
    def __init__(self, rules: list[Rule]) -> None:
        self.rules = rules
        try:
            self._confirm = [re.compile(r.pattern.encode()) for r in rules]
        except re.error as exc:
            raise CatalogError(f"bad regex in a catalog: {exc}") from None
        # Source-code signatures are searched apart, in the files that are read as source code (the source
        # detector's, the only reader of them): over other text their atoms (`.create(`, `from `) cost a fifth of
        # the search. Each pattern keeps its own hits either way, so both sets' hits are those of one search.
        common, apart = _sets(rules)
        self._compiled = (_compiled(rules, common), _compiled(rules, apart))
        self._apart = bool(apart)
        self._alone: dict[int, yara_x.Rules] = {}  # a pattern by itself, compiled the first time it reaches the cap
        self._local = threading.local()

    def _scanners(self) -> tuple[yara_x.Scanner, yara_x.Scanner]:
        # A YARA-X scanner may only be used by the thread that made it; compiled rules are shared.
        scanners: tuple[yara_x.Scanner, yara_x.Scanner] | None = getattr(self._local, "scanners", None)
        if scanners is None:
            scanners = (_scanner_of(self._compiled[0]), _scanner_of(self._compiled[1]))
            self._local.scanners = scanners
        return scanners

    def _alone_scanner(self, i: int) -> yara_x.Scanner:
        scanners: dict[int, yara_x.Scanner] | None = getattr(self._local, "alone", None)
        if scanners is None:
            scanners = self._local.alone = {}
        scanner = scanners.get(i)
        if scanner is None:
            rules = self._alone.get(i) or self._alone.setdefault(i, _compiled(self.rules, [i]))
            scanner = scanners[i] = _scanner_of(rules, MAX_TAIL_STARTS)
        return scanner

    def matches_from(self, data: bytes, i: int, pos: int) -> Iterator[re.Match[bytes]]:
        """The matches of pattern `i`'s regex from `pos` on, the very ones its `finditer(data, pos)` gives.

        YARA-X gives every offset a match may start at (overlapping ones too); the regex confirms them in order,
        the next one at or past the end of the last, as `finditer` moves on. No pattern YARA-X takes can match
        empty, so `finditer`'s rule for empty matches never applies."""
        confirm = self._confirm[i]
        base = max(pos - 1, 0)  # from the byte before `pos`: a `\b` at `pos` looks at it
        try:
            found = self._alone_scanner(i).scan(data[base:]).matching_rules
        except yara_x.TimeoutError:
            found = None
        offsets = [m.offset for r in found for p in r.patterns for m in p.matches] if found is not None else []
        if found is None or len(offsets) >= MAX_TAIL_STARTS:
            yield from confirm.finditer(data, pos)  # some starts may be left out: the regex searches alone
            return
        covered = pos
        for start in sorted({base + offset for offset in offsets}):
            if start < covered:
                continue
            m = confirm.match(data, start)
            if m is not None and m.end() > start:
                covered = m.end()
                yield m

    def scan(self, data: bytes, signatures: bool = True) -> Hits:
        """Confirmed, non-overlapping (per pattern) hits, ordered by offset; without the source-code signatures'
        when `signatures` is false."""
        hits = Hits()
        if not data:
            return hits
        common, apart = self._scanners()
        try:
            found = common.scan(data).matching_rules
            if signatures and self._apart:
                found += apart.scan(data).matching_rules
        except yara_x.TimeoutError:
            raise MatchTimeout(f"pattern search exceeded {SCAN_TIMEOUT_SECONDS}s") from None
        if not found:
            return hits  # most files
        for matched in found:
            i = int(matched.identifier[1:])
            rule, confirm = self.rules[i], self._confirm[i]
            covered, own = -1, len(hits)  # this pattern's hits are those appended from here
            starts = sorted({m.offset for p in matched.patterns for m in p.matches})
            for start in starts:
                if start < covered:
                    continue
                m = confirm.match(data, start, start + MAX_MATCH_BYTES)
                if m is None or m.end() == start:
                    continue
                covered = m.end()
                hits.append(PatternHit(start, m.end(), rule.kind, rule.index, m.group()))
            if len(starts) >= MAX_HITS_PER_PATTERN:
                hits.cut += _search_on(self.matches_from(data, i, max(covered, starts[-1] + 1)), rule, hits, own)
        hits.sort()  # by start, end, kind and pattern: the text follows from them
        return hits


def _sets(rules: list[Rule]) -> tuple[list[int], list[int]]:
    """The patterns searched in every file, and the source-code signatures searched apart."""
    apart = [i for i, r in enumerate(rules) if r.kind is PatternKind.SIGNATURE]
    common = [i for i, r in enumerate(rules) if r.kind is not PatternKind.SIGNATURE]
    return common, apart


def rule_sets(rules: list[Rule]) -> list[list[int]]:
    """Every set of patterns a scan may compile: the two it searches with, and each pattern alone (searched on
    past its cap)."""
    return [*_sets(rules), *([i] for i in range(len(rules)))]


def set_source(rules: list[Rule], numbers: list[int]) -> str:
    """The YARA-X source of a set of patterns (what names its compiled form kept ahead)."""
    return _yara_source([rules[i] for i in numbers], numbers)


def compile_set(rules: list[Rule], numbers: list[int], source: str) -> yara_x.Rules:
    """A set of patterns compiled from its source (never the compiled form kept ahead)."""
    compiler = yara_x.Compiler()
    try:
        compiler.add_source(source)
    except yara_x.CompileError:
        bad = [rules[i].pattern for i in numbers if check_yara_pattern(rules[i].pattern)]
        raise CatalogError(f"patterns the search engine cannot compile: {bad}") from None
    return compiler.build()


def sets_kept_ahead(rules: list[Rule]) -> tuple[int, int]:
    """How many of the sets a scan may compile load from the rules the install kept, of how many."""
    sets = rule_sets(rules)
    return sum(prebuilt.rules_for(set_source(rules, numbers)) is not None for numbers in sets), len(sets)


def _compiled(rules: list[Rule], numbers: list[int]) -> yara_x.Rules:
    source = set_source(rules, numbers)
    ahead = prebuilt.rules_for(source)
    return ahead if ahead is not None else compile_set(rules, numbers, source)


def _scanner_of(compiled: yara_x.Rules, cap: int = MAX_HITS_PER_PATTERN) -> yara_x.Scanner:
    scanner = yara_x.Scanner(compiled)
    scanner.set_timeout(SCAN_TIMEOUT_SECONDS)
    scanner.max_matches_per_pattern(cap)
    return scanner


def _search_on(matches: Iterator[re.Match[bytes]], rule: Rule, hits: Hits, own: int) -> int:
    """Hits of one capped pattern from its matches past the cap (its hits so far are `hits[own:]`); returns how
    many were cut."""
    seen = Counter(h.text for h in hits[own:])  # not the other patterns' (a proxy log caps ten: ten passes of all)
    cut = 0
    for m in matches:
        text = m.group()
        if not text:
            continue
        if text not in seen and len(seen) >= MAX_DISTINCT_PER_PATTERN:
            cut += 1
            continue
        seen[text] += 1
        if seen[text] <= MAX_REPEATS_KEPT:
            hits.append(PatternHit(m.start(), m.end(), rule.kind, rule.index, text))
    return cut

"""The contract of a kind of fact: what one module of `scanner/kinds/` declares, and what it is given.

A kind is one section of the inventory (`models`, `sdks`, …): its evidence and entry dataclasses, the `EvidenceFold`
that turns its evidence into entries as the evidence arrives, its JSON key and order, the shape of its JSON where
that is not its plain fields, its identity for `diff`, its title and columns for the human formats, and what it
may add beyond its section (finding rules, a join run on the built inventory, its parts of a bill of materials,
its line of the headline). `scanner/kinds/__init__.py`
registers every kind in `KINDS`; the builder, codec, loader, diff and the human formats read that registry.
"""

from __future__ import annotations

from bisect import bisect_left, insort
from collections import Counter
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from enum import Enum
from typing import TYPE_CHECKING, Any, Generic, Protocol, TypeVar

from scanner.model import MAX_LOCATIONS, WIRING_CONTEXTS, Location, Skip, SkipReason, location_key

if TYPE_CHECKING:
    from scanner.catalog import Catalog
    from scanner.catalog.sections import CatalogSection
    from scanner.findings.rule import FindingRule
    from scanner.kinds import Inventory

E = TypeVar("E")
E_co = TypeVar("E_co", covariant=True)

#: Distinct values one entry keeps of a list that grows with the files (a host's URLs, a client's components).
MAX_URLS = 20
#: Environment-style base URL / model assignments kept for the live findings.
MAX_SETTINGS = 10_000
_MAX_OVERFLOW = 100_000  # distinct locations past the candidates counted exactly; past this, each sighting counts


@dataclass(frozen=True)
class EnvSetting:
    """One environment-style assignment of a base URL or a model, in a file or a process's environ.

    Not part of the JSON contract: the live findings compare a process's running value with a file's.
    """

    name: str  # the variable
    role: str  # base_url | model
    value: str  # a safe URL (no credentials) or a model id
    location: Location
    foreign: bool = False  # a base URL pointing away from the hosts of the variable's own vendor


@dataclass(frozen=True)
class JsonShape:
    """How a dataclass's JSON differs from its plain fields (read by `inventory/codec.py`)."""

    # JSON keys in order, when not the fields' order: field names, `computed` keys and `groups` keys.
    order: tuple[str, ...] = ()
    omit_empty: frozenset[str] = frozenset()  # fields written only when set (not None, not empty, not a 0 count)
    # A nested dataclass field written in place, its keys among its parent's: field -> the key whose presence
    # says it is set (None: always set).
    inline: Mapping[str, str | None] = field(default_factory=dict)
    computed: Mapping[str, Callable[[Any], Any]] = field(default_factory=dict)  # derived keys: never read back
    groups: Mapping[str, Mapping[str, str]] = field(default_factory=dict)  # JSON key -> {its key: field}
    # A field's own (encode, decode).
    codecs: Mapping[str, tuple[Callable[[Any], Any], Callable[[Any], Any]]] = field(default_factory=dict)
    hidden: Mapping[str, Any] = field(default_factory=dict)  # fields never written -> the value read back
    finish: Callable[[Any], Any] | None = None  # applied to each decoded object (restores what is hidden)
    decode: Callable[[Mapping[str, Any]], Any] | None = None  # replaces the generic decoder of the class


@dataclass(frozen=True)
class DiffItem:
    """One thing `diff` compares: a stable key, how a title names it, its facts, and where it was (context)."""

    key: str
    label: str
    facets: Mapping[str, Any]  # field -> JSON-compatible value; one changed field is one change
    paths: tuple[str, ...] = ()  # context only: never compared


@dataclass(frozen=True)
class DiffIdentity(Generic[E]):
    """What `diff` compares of a kind: one item per entry, keyed by a stable identity (never a location)."""

    key: Callable[[E], str | None] | None = None  # returns None: the entry has no identity and is not compared
    label: Callable[[E], str] | None = None  # how a title names it; the key by default
    # The facts compared (field -> JSON-compatible value). None: every field but the key's, `ignore` and the
    # volatile ones (locations, pids, times, counts).
    facets: Callable[[E], Mapping[str, Any]] | None = None
    key_fields: frozenset[str] = frozenset()  # fields the key is made of: not facets
    ignore: frozenset[str] = frozenset()  # fields another kind reports
    paths: Callable[[E], Iterable[str]] | None = None  # context; the entry's locations' paths by default
    # Several items per entry instead of one (a kill switch per file it is set in, a session per vendor that
    # served it): replaces key, label and facets. `section` names them in a diff when not the kind's key.
    items: Callable[[E], Iterable[DiffItem]] | None = None
    section: str | None = None


class Cell(Enum):
    """How the HTML page lays out a column's cells (the text formats show the text as it is): declared by the kind,
    so that the page needs no code of its own for any kind's table."""

    TEXT = "text"
    CODE = "code"  # an identifier, a path, a hash: monospace
    HOST = "host"  # a host name: monospace, broken only after a dot
    PLACES = "places"  # what `where` writes: one place a line, monospace, how many more as a note
    FLAG = "flag"  # "yes", or something less (no, declared): dimmed unless yes
    STATUS = "status"  # a state shown as a badge coloured by its value (a lifecycle)


@dataclass(frozen=True)
class ReportTable:
    """A kind's detail table for the human formats: plain text the table, Markdown and HTML formats each lay out
    their own way."""

    key: str  # html id (the kind's key with dashes), and what a cut report names
    title: str
    headers: tuple[str, ...]
    rows: tuple[tuple[str, ...], ...]
    empty: str = "none"
    note: str = ""  # said under the table (e.g. what was collapsed)
    wrap: str | None = None  # the column whose cells wrap in a terminal rather than being cut
    main: str | None = None  # the column that says what a row is: the last a narrow terminal cuts
    cells: Mapping[str, Cell] = field(default_factory=dict)  # column -> how HTML shows it; TEXT when not named


@dataclass(frozen=True)
class BomPart:
    """One entry as a bill of materials lists it, in neutral words: the CycloneDX and SPDX formats write every
    kind's parts alike (a `machine-learning-model` component, an SPDX `ai_AIPackage`)."""

    ref: str  # "<what>:<identity>", unique across kinds; `what` also names its SPDX id
    type: str  # the CycloneDX component type ("machine-learning-model")
    name: str
    version: str | None
    supplier: str | None  # a vendor: the supplying organisation
    purl: str
    hashes: tuple[tuple[str, str], ...]  # (algorithm as CycloneDX names it, "SHA-256"; hex digest)
    properties: tuple[tuple[str, str], ...]
    locations: tuple[Location, ...]
    description: str | None
    architecture: str | None = None  # what kind of model it is (SPDX `ai_typeOfModel`)
    about: str | None = None  # its facts in one sentence (SPDX `ai_informationAboutApplication`)
    present: bool = True  # here on the machine: the machine contains it
    used_by: tuple[str, ...] = ()  # the agents whose configs select it: a product, or "product (its user)"

    def used_by_agent(self, name: str) -> bool:
        """Whether the agent named `name` uses it (an agent depends on it)."""
        return any(u == name or u.startswith(f"{name} (") for u in self.used_by)


MAX_WHERE = 3


def where(locs: Sequence[Location], most: int = MAX_WHERE, cut: int = 0) -> str:
    """The first places, and how many more there are: those listed past `most`, and `cut` more that the
    inventory counted but did not keep."""
    unique = list(dict.fromkeys(f"{loc.path}:{loc.line}" if loc.line else loc.path for loc in locs))
    left = max(0, len(unique) - most) + cut
    return ", ".join(unique[:most]) + (f" (+{left})" if left else "")


def contexts(locs: Sequence[Location]) -> str:
    return ",".join(sorted({loc.context.value for loc in locs}))


def text(value: object) -> str:
    """A cell: empty for None."""
    return "" if value is None else str(value)


def first_of(items: Sequence[str], most: int) -> str:
    """A cell listing at most `most` items, saying how many it left out."""
    return ", ".join(items[:most]) + (f" (+{len(items) - most})" if len(items) > most else "")


_CANDIDATES = MAX_LOCATIONS * 4  # the places an entry holds before it counts the rest instead of keeping them

_Key = tuple[str, int | None, str | None]  # one place: (path, line, symlink)


def _rank(loc: Location) -> tuple[bool, str, int, str, str, bool, bool]:
    """The order in which places are kept: wired ones first, then the stable order (one rank per place)."""
    return (loc.context not in WIRING_CONTEXTS, *location_key(loc), loc.line is None, loc.via is None)


class Locations:
    """An entry's locations as sightings arrive: bounded, the best context of one place kept, cuts counted.

    What it keeps is the first places in the stable order, wired ones first, whatever order the sightings come
    in: past its candidates, a place enters only in the stead of the last one kept (which is then cut)."""

    __slots__ = ("by_key", "overflow", "overflow_sightings", "ranked")

    def __init__(self) -> None:
        self.by_key: dict[_Key, Location] = {}
        self.overflow: set[int] = set()  # hashes of the distinct locations past the candidates
        self.overflow_sightings = 0  # sightings past _MAX_OVERFLOW distinct ones
        # Once the candidates are full: each kept place's rank, in order (the last one is the first to go).
        self.ranked: list[tuple[tuple[bool, str, int, str, str, bool, bool], _Key]] | None = None

    def add(self, loc: Location) -> None:
        key = (loc.path, loc.line, loc.via)
        old = self.by_key.get(key)
        if old is None:
            if len(self.by_key) < _CANDIDATES:
                self.by_key[key] = loc
            else:
                self._past_candidates(key, loc)
            return
        better = loc if loc.context.precedence < old.context.precedence else old
        if loc.parse_error != better.parse_error or old.parse_error != better.parse_error:
            better = replace(better, parse_error=True)
        self.by_key[key] = better
        if self.ranked is not None and better.context is not old.context:
            ranked = self.ranked
            del ranked[bisect_left(ranked, (_rank(old), key))]
            insort(ranked, (_rank(better), key))

    def add_each(self, first: Location, more: Iterable[Location]) -> None:
        """A sighting's place and the places of its file's other sightings of the same (`scanner/sightings.py`)."""
        self.add(first)
        for loc in more:
            self.add(loc)

    def _past_candidates(self, key: _Key, loc: Location) -> None:
        if self.ranked is None:
            self.ranked = sorted((_rank(kept), k) for k, kept in self.by_key.items())
        ranked = self.ranked
        last = ranked[-1][0]
        # Most places past the candidates are mentions in a later file than the last one kept: cut at a glance.
        later = loc.context not in WIRING_CONTEXTS and (not last[0] or loc.path > last[1])
        if not later and (rank := _rank(loc)) < last:
            # It comes before the last place kept (a place where the id is wired, when mentions were kept): it
            # takes that place's stead, and that one is cut. Cut before as a mention, it is no longer counted.
            _, out = ranked.pop()
            del self.by_key[out]
            self.by_key[key] = loc
            insort(ranked, (rank, key))
            self.overflow.discard(hash(key))
            key = out
        if len(self.overflow) < _MAX_OVERFLOW:
            self.overflow.add(hash(key))
        else:
            self.overflow_sightings += 1

    def sorted(self) -> tuple[Location, ...]:
        locs = sorted(self.by_key.values(), key=location_key)
        if len(locs) <= MAX_LOCATIONS:
            return tuple(locs)
        # The first MAX_LOCATIONS, the wiring ones kept first: a model wired once and mentioned a thousand times
        # stays wired.
        wiring = [loc for loc in locs if loc.context in WIRING_CONTEXTS][:MAX_LOCATIONS]
        rest = [loc for loc in locs if loc.context not in WIRING_CONTEXTS][: MAX_LOCATIONS - len(wiring)]
        return tuple(sorted(wiring + rest, key=location_key))

    def cut(self) -> int:
        """How many locations `sorted` leaves out: every cut is counted where it happens."""
        return max(0, len(self.by_key) - MAX_LOCATIONS) + len(self.overflow) + self.overflow_sightings


def wired(locs: Iterable[Location]) -> bool:
    return any(loc.context in WIRING_CONTEXTS for loc in locs)


class FoldContext:
    """What every fold shares, and nothing else: the catalogs, the count of what caps cut (reported in
    `skipped`), and the environment-style settings the live findings compare."""

    def __init__(self, catalog: Catalog) -> None:
        self.catalog = catalog
        # The catalog's hosting routes, less the two that name no host: what a session's route can be.
        self.known_routes = frozenset(f.route for f in catalog.hosted_forms) - {"direct", "self-hosted"}
        self._cut: Counter[str] = Counter()
        self._settings: set[EnvSetting] = set()

    def is_secret(self, text: str) -> bool:
        """A secret where a name was expected (a key in a model slot): a credential, reported as one elsewhere."""
        return self.catalog.scrub(text) != text

    def as_shown(self, text: str) -> str:
        """A value that is part of an entry's identity, as it will be shown: two sightings that differ only in
        a secret are one entry. Key normalisation at intake; the redaction of the output is `redact_all`."""
        return self.catalog.scrub(text)

    def count_cut(self, what: str, sightings: int = 1) -> None:
        """Sightings a cap left out, by what they were."""
        self._cut[what] += sightings

    def setting(self, setting: EnvSetting) -> None:
        if len(self._settings) < MAX_SETTINGS:
            self._settings.add(setting)
        elif setting not in self._settings:
            self._cut[f"environment setting sighting(s) past {MAX_SETTINGS} distinct"] += 1

    def cut_skips(self) -> list[Skip]:
        """One skip per cap that left something out, with how many; the path names the scan itself."""
        return [Skip("(inventory)", SkipReason.CAP_REACHED, f"{n} {what} not kept") for what, n in self._cut.items()]

    def settings(self) -> tuple[EnvSetting, ...]:
        return tuple(sorted(self._settings, key=lambda e: (e.name, location_key(e.location), e.role, e.value)))


class EvidenceFold(Protocol[E_co]):
    """Evidence of one kind folded as it arrives: memory bounded by what is distinct."""

    def add(self, evidence: Any) -> None: ...  # one of its kind's evidence types, in arrival order

    def build(self) -> tuple[E_co, ...]: ...  # every entry; the builder puts them in the kind's order


@dataclass(frozen=True)
class Join:
    """A named step run on the built inventory: it reads any kind and replaces its own kind's entries only."""

    name: str
    run: Callable[[Inventory, FoldContext], Inventory]


@dataclass(frozen=True, kw_only=True)
class Kind(Generic[E]):
    """One kind of fact: one section of the inventory, declared once."""

    key: str  # the JSON key and the `Inventory` field
    entry: type[E]
    evidence: tuple[type, ...] = ()  # what its fold takes; () for a derived kind (routes, findings, processes)
    fold: Callable[[FoldContext], EvidenceFold[E]] | None = None
    # Its fold takes one file's repeated sightings of one evidence as one (`scanner/sightings.py`): its `add` is
    # `add(evidence, more)`, `more` the locations of the other sightings, and every evidence type has a `location`.
    sightings: bool = False
    # The sort key of its entries (the builder applies it); None: the order its producer gives.
    order: Callable[[E], Any] | None
    title: str
    columns: tuple[str, ...]  # the human formats' table headers
    cells: Mapping[str, Cell] = field(default_factory=dict)  # column -> how HTML shows its cells; TEXT when not named
    identity: DiffIdentity[E] | None = None  # None: not compared by diff (compared some other way, or never)
    optional: bool = False  # may be absent from a document: absent means not inspected
    walked: bool = False  # filled only by walking files: absent from an audit that walked none (--live-only)
    shapes: Mapping[type, JsonShape] = field(default_factory=dict)  # its dataclasses whose JSON is not plain
    # Its detail table, from its entries and whether every entry is asked for (--all); None: no detail table
    # (findings: every format lays them out first). `report_rank` orders the tables.
    table: Callable[[Sequence[E], bool], ReportTable] | None = None
    report_rank: int = 0
    rules: tuple[FindingRule, ...] = ()  # finding rules of its own, derived with every other rule
    joins: tuple[Join, ...] = ()  # run on the built inventory after the core joins, in KINDS order
    bom: Callable[[E], BomPart] | None = None  # each entry as the bills of materials list it; None: not listed
    # Its line of the headline from its entries, after the wiring (None from it: nothing to say), in KINDS order.
    headline: Callable[[Sequence[E]], str | None] | None = None
    catalog: CatalogSection[Any, Any] | None = None  # tables of the catalog only this kind reads (catalog/sections.py)

    def entries(self, inv: Inventory) -> tuple[E, ...] | None:
        """The kind's entries, None when it was not inspected."""
        if self.key in inv.absent or (self.walked and not walked_files(inv)):
            return None
        value: tuple[E, ...] | None = getattr(inv, self.key)
        return value


def table_of(kind: Kind[E], rows: tuple[tuple[str, ...], ...], **extra: Any) -> ReportTable:
    """A detail table with the kind's declared title, columns and cell layouts (`extra` may name another title, or
    columns the kind adds to its own); its html id is the key with dashes."""
    declared: dict[str, Any] = {"title": kind.title, "headers": kind.columns, "cells": kind.cells}
    return ReportTable(key=kind.key.replace("_", "-"), rows=rows, **(declared | extra))


def walked_files(inv: Inventory) -> bool:
    """Whether the scan walked files: not a live audit whose filesystem part was skipped (--live-only)."""
    live = inv.target.live
    return live is None or not any(p.name == "filesystem" and p.status == "skipped" for p in live.parts)

"""Credentials: keys and tokens found, by hash; only a redacted form and the hash ever leave the scan."""

from __future__ import annotations

import dataclasses
from collections import Counter, defaultdict
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from scanner.kinds.base import Cell, DiffIdentity, FoldContext, Join, JsonShape, Kind, ReportTable, table_of, where
from scanner.model import MAX_LOCATIONS, FileMeta, Location, location_key
from scanner.secrets import shown_and_hash

if TYPE_CHECKING:
    from scanner.kinds import Inventory


@dataclass(frozen=True)
class CredentialEvidence:
    type: str
    vendor: str | None
    redacted: str
    sha256: str
    location: Location
    meta: FileMeta | None = None
    route: str | None = None  # the cloud route the key opens (bedrock, vertex, azure)
    pair: str | None = None  # sha256 of the id it is paired with (an AWS secret's access key id)


@dataclass(frozen=True)
class CredentialLocation:
    location: Location
    mode: str | None
    owner: str | None


@dataclass(frozen=True)
class CredentialEntry:
    type: str
    vendor: str | None
    redacted: str
    sha256: str
    locations: tuple[CredentialLocation, ...]
    route: str | None = None
    paired_with: str | None = None  # sha256 of the paired id (an AWS secret access key's AKIA/ASIA id)
    locations_cut: int = 0  # locations found past the kept ones (MAX_LOCATIONS): counted, not kept


def credential_evidence(
    secret: str,
    type_: str,
    vendor: str | None,
    prefix: str,
    location: Location,
    meta: FileMeta | None,
    route: str | None = None,
    pair: str | None = None,
) -> CredentialEvidence:
    """The sighting of a secret as evidence: its redacted form and hash, never the secret."""
    shown, sha256 = shown_and_hash(secret, prefix)
    return CredentialEvidence(type_, vendor, shown, sha256, location, meta, route, pair)


def _place(known: CredentialLocation | None, loc: Location, meta: FileMeta | None) -> CredentialLocation:
    """One place seen again, whichever detector saw it first: the more specific context (as `Locations` keeps
    it), and the file facts of a sighting that has them (an EnvironmentFile read from its unit has none)."""
    mode, owner = (meta.mode, meta.owner) if meta else (None, None)
    if known is None:
        return CredentialLocation(loc, mode, owner)
    best = loc if loc.context.precedence < known.location.context.precedence else known.location
    if known.mode is not None:
        mode, owner = known.mode, known.owner
    return CredentialLocation(best, mode, owner)


class CredentialFold:
    """Each credential's places (with the file's mode and owner) and the sighting that names it best."""

    def __init__(self, ctx: FoldContext) -> None:
        self.ctx = ctx
        self.places: dict[str, dict[tuple[str, int | None, str | None], CredentialLocation]] = defaultdict(dict)
        self.kind: dict[str, CredentialEvidence] = {}
        self.cut: Counter[str] = Counter()

    def add(self, ev: CredentialEvidence) -> None:
        loc = ev.location
        slot = self.places[ev.sha256]
        at = (loc.path, loc.line, loc.via)
        known_loc = slot.get(at)
        if known_loc is None and len(slot) >= MAX_LOCATIONS:
            self.cut[ev.sha256] += 1  # a sighting past the bound: counted (it may repeat one)
        else:
            slot[at] = _place(known_loc, loc, ev.meta)
        known = self.kind.get(ev.sha256)
        # A recognised format (with its public prefix, or its route and pair) names the kind better than a key
        # name does.
        if known is None or _rank(ev) > _rank(known):
            self.kind[ev.sha256] = ev

    def build(self) -> tuple[CredentialEntry, ...]:
        return tuple(self._entry(sha) for sha in self.places)

    def _entry(self, sha: str) -> CredentialEntry:
        kind = self.kind[sha]
        locs = sorted(self.places[sha].values(), key=lambda c: location_key(c.location))
        return CredentialEntry(kind.type, kind.vendor, kind.redacted, sha, tuple(locs), kind.route, kind.pair,
                               self.cut[sha])


def _rank(ev: CredentialEvidence) -> tuple[int, int, str, str]:
    """How well a sighting names its credential: a longer public prefix, then a known route and pair; then its
    type and vendor, so that which detector saw it first never decides."""
    return len(ev.redacted), (ev.route is not None) + (ev.pair is not None), ev.type, ev.vendor or ""


def _credential_facets(c: CredentialEntry) -> Mapping[str, Any]:
    return {
        "type": c.type,
        "vendor": c.vendor,
        "mode": sorted({cl.mode or "?" for cl in c.locations}),
        "owner": sorted({cl.owner or "?" for cl in c.locations}),
    }


def _table(credentials: Sequence[CredentialEntry], show_all: bool) -> ReportTable:
    rows = tuple(
        (c.type, c.vendor or "?", c.redacted, c.sha256[:16], ",".join(sorted({x.mode or "?" for x in c.locations})),
         ",".join(sorted({x.owner or "?" for x in c.locations})),
         where([x.location for x in c.locations], cut=c.locations_cut))
        for c in credentials
    )
    return table_of(KIND, rows)


def _order(c: CredentialEntry) -> tuple[str, str, str]:
    return (c.vendor or "", c.type, c.sha256)


def _moved_vendor(inv: Inventory, ctx: FoldContext) -> Inventory:
    """A key under a vendor's variable, in a file whose base-URL variable of that vendor points at another
    vendor's catalogued host (`ANTHROPIC_AUTH_TOKEN` beside `ANTHROPIC_BASE_URL=https://api.z.ai/api/anthropic`),
    is that host's vendor's key: only that host ever receives it."""
    moved: dict[tuple[str, str], str] = {}  # (file, vendor whose variable moved) -> the vendor of the host
    for e in inv.endpoints:
        for vendor, _variable in e.overrides:
            if e.vendor and e.vendor != vendor:
                for loc in e.locations:
                    moved.setdefault((loc.path, vendor), e.vendor)
    if not moved:
        return inv
    types: dict[str, set[str]] = defaultdict(set)
    for spec in ctx.catalog.credentials:
        if spec.vendor:
            types[spec.vendor].add(spec.type)
    out = []
    for c in inv.credentials:
        # A key whose own public prefix names its vendor (`sk-ant-…`) stays that vendor's, wherever it is sent.
        if c.vendor is None or not c.redacted.startswith("…"):
            out.append(c)
            continue
        owners = {moved[at] for at in ((cl.location.path, c.vendor) for cl in c.locations) if at in moved}
        if len(owners) != 1:
            out.append(c)
            continue
        (owner,) = owners
        named = sorted(types[owner])
        type_ = named[0] if len(named) == 1 else f"{owner}-api-key" if f"{owner}-api-key" in named else "api-key"
        out.append(dataclasses.replace(c, type=type_, vendor=owner))
    return dataclasses.replace(inv, credentials=tuple(sorted(out, key=_order)))


KIND: Kind[CredentialEntry] = Kind(
    key="credentials",
    entry=CredentialEntry,
    evidence=(CredentialEvidence,),
    fold=CredentialFold,
    order=_order,
    title="Credentials",
    columns=("type", "vendor", "redacted", "sha256", "mode", "owner", "where"),
    cells={"redacted": Cell.CODE, "sha256": Cell.CODE, "where": Cell.PLACES},
    # The hash is the identity; the secret is never needed and never here.
    identity=DiffIdentity(
        lambda c: c.sha256, label=lambda c: f"{c.type} {c.redacted}", facets=_credential_facets,
        paths=lambda c: (cl.location.path for cl in c.locations),
    ),
    shapes={
        CredentialLocation: JsonShape(inline={"location": None}),
        CredentialEntry: JsonShape(omit_empty=frozenset({"route", "paired_with", "locations_cut"})),
    },
    table=_table,
    report_rank=50,
    joins=(Join("a key under a vendor's variable whose base URL points at another vendor's host is that vendor's",
                _moved_vendor),),
)

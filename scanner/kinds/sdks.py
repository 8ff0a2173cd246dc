"""SDKs: provider client libraries installed or declared, by ecosystem, name, version and environment."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass

from scanner.kinds.base import Cell, DiffIdentity, FoldContext, JsonShape, Kind, Locations, ReportTable, table_of, text
from scanner.model import Location

#: (ecosystem, name, version, installed, environment): one SDK install or declaration.
SdkKey = tuple[str, str, str | None, bool, str | None]

@dataclass(frozen=True)
class SdkEvidence:
    ecosystem: str
    name: str
    version: str | None
    installed: bool
    environment: str | None  # the site-packages / node_modules dir (inside path), or the manifest declaring it
    location: Location


@dataclass(frozen=True)
class SdkEntry:
    ecosystem: str
    name: str
    version: str | None
    vendor: str | None
    served_via: str | None
    installed: bool
    environment: str | None
    locations: tuple[Location, ...]
    locations_cut: int = 0  # locations found past the kept ones (MAX_LOCATIONS): counted, not kept


class SdkFold:
    def __init__(self, ctx: FoldContext) -> None:
        self.ctx = ctx
        self.installs: dict[SdkKey, Locations] = defaultdict(Locations)

    def add(self, ev: SdkEvidence) -> None:
        self.installs[(ev.ecosystem, ev.name, ev.version, ev.installed, ev.environment)].add(ev.location)

    def build(self) -> tuple[SdkEntry, ...]:
        return tuple(self._entry(key, locs) for key, locs in self.installs.items())

    def _entry(self, key: SdkKey, locs: Locations) -> SdkEntry:
        ecosystem, name, version, installed, env = key
        catalog = self.ctx.catalog
        spec = catalog.sdk(ecosystem, name)
        product = None if spec else catalog.product_package(ecosystem, name)  # an agent's platform package
        return SdkEntry(
            ecosystem,
            name,
            version,
            spec.vendor if spec else product[0].vendor if product else None,
            spec.served_via if spec else None,
            installed,
            env,
            locs.sorted(),
            locs.cut(),
        )


def _sdk_key(s: SdkEntry) -> str:
    return f"{s.ecosystem}/{s.name}@{s.environment or '-'}" + ("" if s.installed else " (declared)")


def _table(sdks: Sequence[SdkEntry], show_all: bool) -> ReportTable:
    rows = tuple((s.ecosystem, s.name, text(s.version), text(s.vendor), "yes" if s.installed else "declared",
                  text(s.environment)) for s in sdks)
    return table_of(KIND, rows, main="name")


KIND: Kind[SdkEntry] = Kind(
    key="sdks",
    entry=SdkEntry,
    evidence=(SdkEvidence,),
    fold=SdkFold,
    order=lambda s: (s.ecosystem, s.name, not s.installed, s.environment or "", s.version or ""),
    title="SDKs",
    columns=("ecosystem", "name", "version", "vendor", "installed", "environment"),
    cells={"name": Cell.CODE, "installed": Cell.FLAG, "environment": Cell.CODE},
    identity=DiffIdentity(
        _sdk_key,
        label=lambda s: f"{s.ecosystem} {s.name}" + (f" in {s.environment}" if s.environment else ""),
        facets=lambda s: {"version": s.version, "vendor": s.vendor, "served_via": s.served_via},
    ),
    walked=True,
    shapes={SdkEntry: JsonShape(omit_empty=frozenset({"locations_cut"}))},
    table=_table,
    report_rank=30,
)

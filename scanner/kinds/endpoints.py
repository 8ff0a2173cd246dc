"""Endpoints: the API hosts a machine is configured to reach, with the URLs and overrides seen for each."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass

from scanner.kinds.base import (
    MAX_URLS,
    Cell,
    DiffIdentity,
    EnvSetting,
    FoldContext,
    JsonShape,
    Kind,
    Locations,
    ReportTable,
    contexts,
    table_of,
    text,
    where,
    wired,
)
from scanner.model import Location


@dataclass(frozen=True)
class EndpointEvidence:
    host: str
    url: str | None
    location: Location
    # A vendor's base-URL variable pointing elsewhere: (vendor, the variable), e.g. ("anthropic", "ANTHROPIC_BASE_URL").
    overrides: tuple[str, str] | None = None
    variable: str | None = None  # the environment-style variable that set it (`OPENAI_BASE_URL`)


@dataclass(frozen=True)
class EndpointEntry:
    host: str
    vendor: str | None
    served_via: str | None
    urls: tuple[str, ...]
    wired: bool
    locations: tuple[Location, ...]
    overrides: tuple[tuple[str, str], ...] = ()  # (vendor, variable) whose default host this replaces
    locations_cut: int = 0  # locations found past the kept ones (MAX_LOCATIONS): counted, not kept


class EndpointFold:
    def __init__(self, ctx: FoldContext) -> None:
        self.ctx = ctx
        self.hosts: dict[str, Locations] = defaultdict(Locations)
        self.urls: dict[str, set[str]] = defaultdict(set)
        self.overrides: dict[str, set[tuple[str, str]]] = defaultdict(set)

    def add(self, ev: EndpointEvidence, more: tuple[Location, ...] = ()) -> None:
        """One sighting, and `more` of the same at other places of its file."""
        self.hosts[ev.host].add_each(ev.location, more)
        if ev.overrides:
            self.overrides[ev.host].add(ev.overrides)
        if ev.url:
            self._url(ev.host, self.ctx.as_shown(ev.url), 1 + len(more))
        if ev.variable:
            shown = self.ctx.as_shown(ev.url or ev.host)
            for loc in (ev.location, *more):
                self.ctx.setting(EnvSetting(ev.variable, "base_url", shown, loc, ev.overrides is not None))

    def _url(self, host: str, url: str, sightings: int) -> None:
        urls = self.urls[host]
        if len(urls) < MAX_URLS:
            urls.add(url)
        elif url not in urls:
            self.ctx.count_cut(f"URL sighting(s) past {MAX_URLS} distinct per host", sightings)

    def build(self) -> tuple[EndpointEntry, ...]:
        return tuple(self._entry(host, locs) for host, locs in sorted(self.hosts.items()))

    def _entry(self, host: str, locs: Locations) -> EndpointEntry:
        spec = self.ctx.catalog.host_info(host)
        located = locs.sorted()
        return EndpointEntry(
            host,
            spec.vendor if spec else None,
            spec.served_via if spec else None,
            tuple(sorted(self.urls.get(host, ()))),
            wired(located),
            located,
            tuple(sorted(self.overrides.get(host, ()))),
            locs.cut(),
        )


def _table(endpoints: Sequence[EndpointEntry], show_all: bool) -> ReportTable:
    rows = tuple((e.host, e.vendor or "?", text(e.served_via), "yes" if e.wired else "no", contexts(e.locations),
                  where(e.locations, cut=e.locations_cut)) for e in endpoints)
    return table_of(KIND, rows, main="host")


KIND: Kind[EndpointEntry] = Kind(
    key="endpoints",
    entry=EndpointEntry,
    evidence=(EndpointEvidence,),
    fold=EndpointFold,
    order=lambda e: e.host,
    title="Endpoints",
    columns=("host", "vendor", "via", "wired", "seen in", "where"),
    cells={"host": Cell.HOST, "wired": Cell.FLAG, "where": Cell.PLACES},
    identity=DiffIdentity(
        lambda e: e.host,
        facets=lambda e: {"vendor": e.vendor, "served_via": e.served_via, "wired": e.wired, "urls": sorted(e.urls)},
    ),
    shapes={
        EndpointEntry: JsonShape(
            order=("host", "vendor", "served_via", "urls", "wired", "overrides", "locations", "locations_cut"),
            omit_empty=frozenset({"locations_cut"}),
            codecs={"overrides": (
                lambda v: [{"vendor": vendor, "set_by": var} for vendor, var in v],
                lambda v: tuple((o["vendor"], o["set_by"]) for o in v),
            )},
        ),
    },
    table=_table,
    report_rank=40,
    sightings=True,
)

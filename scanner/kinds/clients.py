"""Clients: provider client code shipped in files (modules compiled into a binary, constructions in source)."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass

from scanner.kinds.base import (
    MAX_URLS,
    Cell,
    DiffIdentity,
    FoldContext,
    JsonShape,
    Kind,
    Locations,
    ReportTable,
    table_of,
    text,
    where,
)
from scanner.model import Location


@dataclass(frozen=True)
class ClientEvidence:
    """Provider client code shipped in a file: modules compiled into a binary, or constructions in source."""

    provider: str  # the provider as the code names it (`anthropic`, `AnthropicBedrock`, `muse`)
    vendor: str | None  # the catalog vendor, None for an in-house or unknown provider
    served_via: str | None
    kind: str  # compiled | source
    components: tuple[str, ...]  # what the code does (`request flow`, `messages.create`)
    location: Location


@dataclass(frozen=True)
class ClientEntry:
    provider: str
    vendor: str | None
    served_via: str | None
    kind: str
    components: tuple[str, ...]
    locations: tuple[Location, ...]
    locations_cut: int = 0  # locations found past the kept ones (MAX_LOCATIONS): counted, not kept


class ClientFold:
    def __init__(self, ctx: FoldContext) -> None:
        self.ctx = ctx
        self.clients: dict[tuple[str, str | None, str | None, str], Locations] = defaultdict(Locations)
        self.parts: dict[tuple[str, str | None, str | None, str], set[str]] = defaultdict(set)

    def add(self, ev: ClientEvidence) -> None:
        key = (ev.provider, ev.vendor, ev.served_via, ev.kind)
        self.clients[key].add(ev.location)
        parts = self.parts[key]
        for part in ev.components:
            if len(parts) < MAX_URLS:
                parts.add(part)
            elif part not in parts:
                self.ctx.count_cut(f"client component sighting(s) past {MAX_URLS} distinct per client")

    def build(self) -> tuple[ClientEntry, ...]:
        return tuple(
            ClientEntry(p, v, via, kind, tuple(sorted(self.parts[(p, v, via, kind)])), locs.sorted(), locs.cut())
            for (p, v, via, kind), locs in self.clients.items()
        )


def _table(clients: Sequence[ClientEntry], show_all: bool) -> ReportTable:
    rows = tuple((c.vendor or "?", c.provider, text(c.served_via), c.kind, ", ".join(c.components),
                  where(c.locations, cut=c.locations_cut))
                 for c in clients)
    return table_of(KIND, rows, main="client")


KIND: Kind[ClientEntry] = Kind(
    key="clients",
    entry=ClientEntry,
    evidence=(ClientEvidence,),
    fold=ClientFold,
    order=lambda c: (c.vendor or "~", c.provider, c.served_via or "", c.kind),
    title="Clients",
    columns=("vendor", "client", "via", "kind", "what it does", "where"),
    cells={"client": Cell.CODE, "where": Cell.PLACES},
    identity=DiffIdentity(lambda c: f"{c.provider} ({c.kind})", key_fields=frozenset({"provider", "kind"})),
    walked=True,
    shapes={ClientEntry: JsonShape(omit_empty=frozenset({"locations_cut"}))},
    table=_table,
    report_rank=90,
)

"""Kill switches: settings that turn a product's model traffic, telemetry or updates off (or say they are on)."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from scanner.kinds.base import (
    Cell,
    DiffIdentity,
    DiffItem,
    FoldContext,
    JsonShape,
    Kind,
    Locations,
    ReportTable,
    contexts,
    table_of,
    text,
    where,
)
from scanner.model import Location
from scanner.vocab import SwitchState


@dataclass(frozen=True)
class KillSwitchEvidence:
    name: str
    value: str | None
    state: SwitchState
    location: Location
    note: str | None = None  # e.g. the comment that calls an override a kill switch


@dataclass(frozen=True)
class KillSwitchEntry:
    name: str
    value: str | None
    state: SwitchState
    locations: tuple[Location, ...]
    note: str | None = None
    locations_cut: int = 0  # locations found past the kept ones (MAX_LOCATIONS): counted, not kept


class KillSwitchFold:
    def __init__(self, ctx: FoldContext) -> None:
        self.ctx = ctx
        self.switches: dict[tuple[str, str | None, str], Locations] = defaultdict(Locations)
        self.notes: dict[tuple[str, str | None, str], str] = {}

    def add(self, ev: KillSwitchEvidence) -> None:
        value = self.ctx.as_shown(ev.value) if ev.value else ev.value
        key = (ev.name, value, ev.state.value)
        self.switches[key].add(ev.location)
        if ev.note:
            self.notes.setdefault(key, ev.note)

    def build(self) -> tuple[KillSwitchEntry, ...]:
        return tuple(
            KillSwitchEntry(name, value, SwitchState(state), locs.sorted(), self.notes.get((name, value, state)),
                            locs.cut())
            for (name, value, state), locs in sorted(
                self.switches.items(), key=lambda kv: (kv[0][0], kv[0][1] or "", kv[0][2])
            )
        )


def _table(switches: Sequence[KillSwitchEntry], show_all: bool) -> ReportTable:
    rows = tuple((k.name, text(k.value), k.state.value, text(k.note), contexts(k.locations),
                  where(k.locations, cut=k.locations_cut)) for k in switches)
    return table_of(KIND, rows)


def _diff_items(k: KillSwitchEntry) -> Iterable[DiffItem]:
    # One entry per (name, value, state) in the inventory; compared one item per (name, file) it was seen in.
    for path in sorted({loc.path for loc in k.locations}):
        setting = {"value": k.value, "state": k.state.value}
        yield DiffItem(f"{k.name}@{path}", k.name, {"name": k.name, "setting": setting}, (path,))


KIND: Kind[KillSwitchEntry] = Kind(
    key="kill_switches",
    entry=KillSwitchEntry,
    evidence=(KillSwitchEvidence,),
    fold=KillSwitchFold,
    order=lambda k: (k.name, k.value or "", k.state.value),
    title="Kill switches",
    columns=("name", "value", "state", "note", "seen in", "where"),
    cells={"name": Cell.CODE, "where": Cell.PLACES},
    identity=DiffIdentity(items=_diff_items),
    shapes={
        KillSwitchEntry: JsonShape(order=("name", "value", "state", "note", "locations", "locations_cut"),
                                   omit_empty=frozenset({"locations_cut"})),
    },
    table=_table,
    report_rank=60,
)

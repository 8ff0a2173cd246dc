"""Skipped: what a scan could not read or understand, and what a cap left out, each with its reason."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from scanner.kinds.base import Cell, FoldContext, JsonShape, Kind, ReportTable, table_of
from scanner.model import Skip, SkipReason

MAX_SKIPS = 100_000


class SkipFold:
    def __init__(self, ctx: FoldContext) -> None:
        self.ctx = ctx
        self.skips: set[Skip] = set()

    def add(self, skip: Skip) -> None:
        if len(self.skips) < MAX_SKIPS:
            self.skips.add(skip)
        elif skip not in self.skips:
            self.ctx.count_cut(f"skip record sighting(s) past {MAX_SKIPS} distinct")

    def build(self) -> tuple[Skip, ...]:
        # Built last (inventory/builder.py): every cap's cut is counted by then.
        return tuple(sorted({*self.skips, *self.ctx.cut_skips()}, key=_order))


def _order(s: Skip) -> tuple[str, str, str]:
    return (s.path, s.reason.value, s.detail)


def _skip(d: Mapping[str, Any]) -> Skip:
    count, members = d.get("count"), tuple(d.get("members", ()))
    try:
        return Skip(d["path"], SkipReason(d["reason"]), d["detail"], count, members)
    except ValueError:
        # The schema leaves reasons open so newer scanners can add some; an unknown one keeps its name in detail.
        detail = f"{d['reason']}: {d['detail']}".rstrip(": ")
        return Skip(d["path"], SkipReason.OTHER_TYPE, detail, count, members)


def _table(skips: Sequence[Skip], show_all: bool) -> ReportTable:
    rows = tuple((s.path, s.reason.value, s.detail) for s in skips)
    return table_of(KIND, rows, empty="nothing: every file was read")


KIND: Kind[Skip] = Kind(
    key="skipped",
    entry=Skip,
    evidence=(Skip,),
    fold=SkipFold,
    order=_order,
    title="Skipped",
    columns=("path", "reason", "detail"),
    cells={"path": Cell.CODE},
    shapes={Skip: JsonShape(omit_empty=frozenset({"count", "members"}), decode=_skip)},
    table=_table,
    report_rank=130,
)

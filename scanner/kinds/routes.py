"""Routes: each model alias with the route configs declare for it and what sessions observed behind it.

A derived kind: it has no evidence of its own; the `session routes` join of `inventory/joins.py` builds it
from the models and sessions."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from scanner.kinds.base import Cell, DiffIdentity, JsonShape, Kind, ReportTable, first_of, table_of, text
from scanner.model import Location
from scanner.vocab import Confidence


@dataclass(frozen=True)
class RouteEntry:
    """A model alias: the route configs declare for it, and what session logs observed behind it."""

    alias: str
    declared_via: str | None
    base_model: str | None
    observed_vendor: str | None
    observed_via: str | None
    observed_api: str | None
    sessions: int
    days: tuple[str, ...]
    confidence: Confidence | None
    locations: tuple[Location, ...] = ()


def _table(routes: Sequence[RouteEntry], show_all: bool) -> ReportTable:
    rows = tuple(
        (r.alias, text(r.declared_via), text(r.base_model),
         "/".join(x for x in (r.observed_vendor, r.observed_via) if x) or "never observed", text(r.observed_api),
         str(r.sessions), first_of(r.days, 3),
         text(r.confidence))
        for r in routes
    )
    return table_of(KIND, rows, main="alias")


KIND: Kind[RouteEntry] = Kind(
    key="routes",
    entry=RouteEntry,
    order=lambda r: r.alias,
    title="Routes",
    columns=("alias", "declared via", "base model", "observed", "api", "sessions", "days", "confidence"),
    cells={"alias": Cell.CODE},
    # A route's declared side (route, base model) is its model's: reported once, under models.
    identity=DiffIdentity(lambda r: r.alias, key_fields=frozenset({"alias"}),
                          ignore=frozenset({"declared_via", "base_model"})),
    walked=True,
    shapes={
        RouteEntry: JsonShape(
            order=("alias", "declared_via", "base_model", "observed", "sessions", "days", "confidence", "locations"),
            groups={"observed": {"vendor": "observed_vendor", "served_via": "observed_via", "api": "observed_api"}},
        ),
    },
    table=_table,
    report_rank=80,
)

"""Evidence in, inventory out: each piece of evidence goes to its kind's fold, the folds build, the joins join.

Memory is bounded by what is distinct, not by what is seen: evidence is folded into its entry as it arrives
(`scanner/kinds/`), and each entry keeps at most MAX_LOCATIONS locations (the first ones in a stable order).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from typing import Any

from scanner.catalog import Catalog
from scanner.findings.derive import derive_findings
from scanner.inventory import joins
from scanner.inventory.redact import redact_all
from scanner.kinds import KINDS, Evidence, Inventory, in_declared_order, in_order
from scanner.kinds.base import FoldContext, Kind
from scanner.model import Skip, Stats, TargetInfo
from scanner.sightings import Item, Sightings

Extend = Callable[[Inventory], Inventory]


class InventoryBuilder:
    def __init__(self, catalog: Catalog, kinds: Sequence[Kind[Any]] = KINDS) -> None:
        self.catalog = catalog
        self.ctx = FoldContext(catalog)
        self._kinds = kinds
        self._folds = {k.key: k.fold(self.ctx) for k in kinds if k.fold is not None}
        # One dict lookup per item, by exact type: evidence types are final dataclasses, each claimed by one kind.
        self._intake: dict[type, Callable[[Any], None]] = {
            t: self._folds[k.key].add for k in kinds if k.fold is not None for t in k.evidence
        }
        # A file's repeated sightings of one evidence, bundled in the file's result: its fold takes them at once.
        self._bundles: dict[type, Callable[..., None]] = {
            t: self._folds[k.key].add for k in kinds if k.fold is not None and k.sightings for t in k.evidence
        }
        self._intake[Sightings] = self._add_sightings

    @property
    def takes(self) -> frozenset[type]:
        """The evidence types some kind's fold takes (and `Skip`, and a file's bundled `Sightings`)."""
        return frozenset(self._intake)

    def _add_sightings(self, bundle: Sightings) -> None:
        self._bundles[type(bundle.evidence)](bundle.evidence, bundle.more)

    def add_all(self, evidence: Iterable[Item]) -> None:
        """Evidence of one file, and the skips a detector records for what it could not understand."""
        intake = self._intake
        for ev in evidence:
            intake[type(ev)](ev)

    def add(self, ev: Evidence | Skip) -> None:
        self._intake[type(ev)](ev)

    skip = add

    def build(self, tool_version: str, target: TargetInfo, stats: Stats, extend: Extend | None = None) -> Inventory:
        """The finished inventory; `extend` adds what is seen outside the evidence (a live audit's processes)
        before the findings are derived."""
        joins.before_build(self._folds, self.ctx)
        # `skipped` last: what every other fold's caps cut is counted by then.
        built: dict[str, Any] = {
            key: in_order(key, fold.build())
            for key, fold in sorted(self._folds.items(), key=lambda kv: kv[0] == "skipped")
        }
        inv = Inventory(
            tool_version=tool_version,
            catalogs=self.catalog.refs,
            target=target,
            stats=stats,
            env_settings=self.ctx.settings(),
            **built,
        )
        inv = in_declared_order(joins.after_build(inv, self._folds, self.ctx, self._kinds))
        if extend is not None:
            inv = extend(inv)
        # Findings are derived once, from the whole inventory; then the one redaction step scrubs every string of
        # it, findings included.
        return redact_all(derive_findings(inv), self.catalog)

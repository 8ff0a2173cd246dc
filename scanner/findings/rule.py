"""What a finding rule is: registered data (id, severity, title, help) and the pure function that finds.

A rule's function yields `RuleHit`s; the rule makes them `Finding`s, so a finding's id always starts with its
rule's id and a SARIF dashboard groups by the rule that made it. Finding ids hold no path or line number.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import TYPE_CHECKING

from scanner.model import Finding, Location, Severity

if TYPE_CHECKING:  # a kind declares its own rules: this module is a leaf the kinds import
    from scanner.kinds import Inventory

MAX_FINDING_LOCATIONS = 20  # a finding lists this many locations; how many more there were is counted


@dataclass(frozen=True)
class RuleHit:
    """One thing a rule found in an inventory."""

    key: str  # what tells this hit from the rule's others ("" when the rule finds at most one thing)
    title: str
    locations: tuple[Location, ...] = ()
    severity: Severity | None = None  # a rule that grades its hits; never above the rule's severity
    more: int = 0  # locations its entries found past those they keep (their `locations_cut`)


@dataclass(frozen=True)
class FindingRule:
    id: str  # a finding's id is `id` or `id:key`
    severity: Severity  # the worst a hit of this rule can be; SARIF's default level
    title: str  # SARIF's short description
    help: str  # what the finding means and what to do about it (SARIF's full description)
    find: Callable[[Inventory], Iterator[RuleHit]]

    def findings(self, inv: Inventory) -> Iterator[Finding]:
        for hit in self.find(inv):
            kept = hit.locations[:MAX_FINDING_LOCATIONS]
            yield Finding(
                f"{self.id}:{hit.key}" if hit.key else self.id, hit.severity or self.severity, hit.title, kept,
                len(hit.locations) - len(kept) + hit.more,
            )

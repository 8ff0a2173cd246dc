"""The one list of finding rules, and the one place findings are derived from a finished inventory."""

from __future__ import annotations

import dataclasses

from scanner.findings.inventory_rules import INVENTORY_RULES
from scanner.findings.live_rules import LIVE_RULES
from scanner.findings.rule import FindingRule
from scanner.findings.session_rules import SESSION_RULES
from scanner.kinds import KINDS, Inventory

# The rules of a live audit find nothing in an inventory without processes. A kind's own rules follow, in
# `KINDS` order.
RULES: tuple[FindingRule, ...] = (
    *INVENTORY_RULES, *SESSION_RULES, *LIVE_RULES, *(rule for kind in KINDS for rule in kind.rules)
)
RULE_BY_ID = {r.id: r for r in RULES}


def derive_findings(inv: Inventory) -> Inventory:
    """`inv` with its findings, most severe first, then by id."""
    found = [f for rule in RULES for f in rule.findings(inv)]
    found.sort(key=lambda f: (-f.severity.rank, f.id))
    return dataclasses.replace(inv, findings=tuple(found))

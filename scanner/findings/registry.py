"""The one list of finding rules, and the one place findings are derived from a finished inventory."""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Iterator, Sequence

from scanner.findings.inventory import INVENTORY_RULES
from scanner.findings.live import LIVE_RULES
from scanner.findings.rule import FindingRule, Hit
from scanner.findings.sessions import SESSION_RULES
from scanner.kinds.local_models.facts import LocalModelEntry
from scanner.kinds.local_models.rules import RULES as LOCAL_MODEL_RULES
from scanner.model import Inventory

# The rules of a live audit find nothing in an inventory without processes.


def _local(find: Callable[[Sequence[LocalModelEntry]], Iterator[Hit]]) -> Callable[[Inventory], Iterator[Hit]]:
    return lambda inv: find(inv.local_models)


LOCAL_RULES = tuple(
    FindingRule(rule_id, severity, title, text, _local(find))
    for rule_id, severity, title, text, find in LOCAL_MODEL_RULES
)
RULES: tuple[FindingRule, ...] = (*INVENTORY_RULES, *SESSION_RULES, *LIVE_RULES, *LOCAL_RULES)
RULE_BY_ID = {r.id: r for r in RULES}


def derive_findings(inv: Inventory) -> Inventory:
    """`inv` with its findings, most severe first, then by id."""
    found = [f for rule in RULES for f in rule.findings(inv)]
    found.sort(key=lambda f: (-f.severity.rank, f.id))
    return dataclasses.replace(inv, findings=tuple(found))

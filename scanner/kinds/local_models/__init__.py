"""Models on the machine itself: the weight files, the stores that name them, the servers that serve them, and the
agents and sessions that use them.

Evidence comes from one detector (`detectors/local_models.py`): a weight file's header and digest, a store's
record of a model (an Ollama manifest, a Hugging Face cache repo), a server's command line. `grouping` folds them
into one entry per model; `join` reads the built inventory, so that a model an agent configures through a
server on this machine resolves to its entry and one no store holds is said plainly; `hazards` are its finding rules
and `views` what the report formats show of it.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from typing import TYPE_CHECKING

from scanner.findings.rule import FindingRule
from scanner.kinds.base import Cell, DiffIdentity, FoldContext, Join, Kind, ReportTable, table_of, where
from scanner.kinds.local_models import hazards, views
from scanner.kinds.local_models.catalog_index import SECTION as CATALOG
from scanner.kinds.local_models.facts import (
    LocalEvidence,
    LocalFile,
    LocalModelEntry,
    LocalServer,
    ModelServerEvidence,
    StoreModelEvidence,
    WeightDigestEvidence,
    WeightFacts,
    WeightFileEvidence,
)
from scanner.kinds.local_models.grouping import EVIDENCE, LocalModelFold
from scanner.kinds.local_models.join import resolve_uses

if TYPE_CHECKING:
    from scanner.kinds import Inventory

__all__ = ["KIND", "LocalEvidence", "LocalFile", "LocalModelEntry", "LocalServer", "ModelServerEvidence",
           "StoreModelEvidence", "WeightDigestEvidence", "WeightFacts", "WeightFileEvidence"]


def _table(entries: Sequence[LocalModelEntry], show_all: bool) -> ReportTable:
    return table_of(KIND, views.rows(entries, where), main="model")


def _uses(inv: Inventory, ctx: FoldContext) -> Inventory:
    found = resolve_uses(inv.local_models, inv.models, inv.endpoints, inv.agents, inv.sessions, ctx.catalog)
    return dataclasses.replace(inv, local_models=found)


KIND: Kind[LocalModelEntry] = Kind(
    key="local_models",
    entry=LocalModelEntry,
    evidence=EVIDENCE,
    fold=LocalModelFold,
    order=views.order,
    title=views.TITLE,
    columns=views.COLUMNS,
    cells={"model": Cell.CODE, "sha256": Cell.CODE, "where": Cell.PLACES},
    identity=DiffIdentity(views.diff_key, facets=views.diff_facets, paths=lambda e: (f.path for f in e.files)),
    walked=True,
    table=_table,
    report_rank=25,
    rules=tuple(FindingRule(rule_id, severity, title, text, hazards.on_inventory(find))
                for rule_id, severity, title, text, find in hazards.RULES),  # fmt: skip
    bom=views.bom_part,
    headline=views.headline,
    catalog=CATALOG,
    joins=(Join("a model configured through a local route resolves to the entry that answers to its name; one no "
                "store holds is said plainly; sessions that name it count as uses", _uses),),
)

"""What every report format is told besides the inventory, and the detail tables the human formats share.

A detail table is data (title, headers, rows of plain text) each kind declares (`Kind.table`, ordered by
`Kind.report_rank`); the table, Markdown and HTML formats each lay it out their own way.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from scanner.kinds import KIND, KINDS, WALKED, Inventory, walked_files
from scanner.kinds.base import Kind, ReportTable
from scanner.kinds.base import where as where

#: The CycloneDX schema versions a BOM can be written for (`--cyclonedx-version`).
CYCLONEDX_VERSIONS: tuple[str, ...] = ("1.6", "1.7")


@dataclass(frozen=True)
class ReportOptions:
    width: int | None = 120  # columns the table fits in; None: no limit (piped output, a file)
    wide: bool = False  # full cells, no cut
    all: bool = False  # list mentions that are not wiring in full
    colour: bool = False  # ANSI colour for severities (a TTY without NO_COLOR)
    ignored: Mapping[str, str] = field(default_factory=dict)  # finding id -> why it is accepted (ignore file)
    cyclonedx_version: str = "1.6"  # the CycloneDX schema a BOM is written for (1.6 or 1.7)
    hidden_findings: int = 0  # findings --severity leaves out of the report (the report says how many)


DEFAULT = ReportOptions()

#: The kinds with a detail table, in the order every human format shows them after the headline and findings.
DETAILED: tuple[Kind[Any], ...] = tuple(
    sorted((k for k in KINDS if k.table is not None), key=lambda k: k.report_rank)
)

# Tables only files fill (`Kind.walked`), by html id: absent, not "none", when a live audit did not walk the
# filesystem (--live-only), as they are from its JSON.
FILESYSTEM_ONLY = frozenset(key.replace("_", "-") for key in WALKED)


def filesystem_inspected(inv: Inventory) -> bool:
    return walked_files(inv)


def table_of(key: str, inv: Inventory, opts: ReportOptions) -> ReportTable | None:
    """One kind's detail table; None when the kind was not inspected (a live audit's processes in a scan)."""
    kind = KIND[key]
    entries = getattr(inv, key)
    if entries is None or kind.table is None:
        return None
    return kind.table(entries, opts.all)


def detail_sections(inv: Inventory, opts: ReportOptions) -> list[ReportTable]:
    walked = filesystem_inspected(inv)
    return [
        s for kind in DETAILED
        if (s := table_of(kind.key, inv, opts)) is not None and (walked or s.key not in FILESYSTEM_ONLY)
    ]

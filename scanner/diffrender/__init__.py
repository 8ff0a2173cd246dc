"""How a diff is shown. One module per format; `DIFF_RENDERERS` is the one registry (apart from the
inventory formats in `scanner.render`, which show a single inventory).

A diff renderer is a module with `description` and `render(diff, expired[, opts]) -> str`; it does no I/O. Only the
table takes the report options (width, colour).
`modelcensus diff --format` takes its choices from this dict.
"""

from __future__ import annotations

from types import ModuleType

from scanner.diff.changes import InventoryDiff
from scanner.diffrender import json, markdown, table
from scanner.policy.ignore import IgnoreEntry
from scanner.render._view import DEFAULT, ReportOptions

_MODULES: tuple[ModuleType, ...] = (table, json, markdown)
DIFF_RENDERERS: dict[str, ModuleType] = {m.__name__.rsplit(".", 1)[-1]: m for m in _MODULES}


def render_diff(fmt: str, diff: InventoryDiff, expired: tuple[IgnoreEntry, ...] = (),
                opts: ReportOptions = DEFAULT) -> str:
    if fmt == "table":
        return table.render(diff, expired, opts)
    result: str = DIFF_RENDERERS[fmt].render(diff, expired)
    return result

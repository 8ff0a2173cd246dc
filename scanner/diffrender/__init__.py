"""How a diff is shown. One module per format; `DIFF_RENDERERS` is the one registry (apart from the
inventory formats in `scanner.render`, which show a single inventory).

A diff renderer is a module with `description` and `render(diff, expired[, opts]) -> str`; it does no I/O. Only the
table takes the report options (width, colour).
`modelcensus diff --format` takes its choices from this registry's names; a format's module is imported when it
is first looked up.
"""

from __future__ import annotations

from collections.abc import Mapping
from types import ModuleType

from scanner.diff.changes import InventoryDiff
from scanner.policy.ignore import IgnoreEntry
from scanner.render import LazyRenderers
from scanner.render._view import DEFAULT, ReportOptions

DIFF_RENDERERS: Mapping[str, ModuleType] = LazyRenderers(__name__, ("table", "json", "markdown"))


def render_diff(fmt: str, diff: InventoryDiff, expired: tuple[IgnoreEntry, ...] = (),
                opts: ReportOptions = DEFAULT) -> str:
    if fmt == "table":
        result_table: str = DIFF_RENDERERS["table"].render(diff, expired, opts)
        return result_table
    result: str = DIFF_RENDERERS[fmt].render(diff, expired)
    return result

"""How an inventory is shown. One module per format; `RENDERERS` is the one registry.

A renderer is a module with `description` and `render(inventory, options) -> str`; it does no I/O. The options
(`view.ReportOptions`) carry the terminal width, `--wide`, `--all`, colour and the findings the ignore file accepts.
The CLI's `--format` choices come from this dict.
"""

from __future__ import annotations

from collections.abc import Callable
from types import ModuleType

from scanner.kinds import Inventory
from scanner.render import cyclonedx, html, json, markdown, sarif, spdx, table
from scanner.render._view import DEFAULT, ReportOptions

Renderer = Callable[[Inventory, ReportOptions], str]

_MODULES: tuple[ModuleType, ...] = (table, json, markdown, html, sarif, cyclonedx, spdx)
RENDERERS: dict[str, ModuleType] = {m.__name__.rsplit(".", 1)[-1]: m for m in _MODULES}


def render(fmt: str, inv: Inventory, options: ReportOptions = DEFAULT) -> str:
    result: str = RENDERERS[fmt].render(inv, options)
    return result

"""How an inventory is shown. One module per format; `RENDERERS` is the one registry.

A renderer is a module with `description` and `render(inventory, options) -> str`; it does no I/O. One may also
give `chunks(inventory, options)`, the same text's bytes piece by piece, for a writer that streams (JSON: a large
scan's document is never held whole). The options (`view.ReportOptions`) carry the terminal width, `--wide`,
`--all`, colour and the findings the ignore file accepts.
The CLI's `--format` choices come from this registry's names. A format's module is imported when it is first
looked up: a scan that writes JSON never loads the CycloneDX library or the HTML page's parts.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Iterator, Mapping
from types import ModuleType

from scanner.kinds import Inventory
from scanner.render._view import DEFAULT, ReportOptions

Renderer = Callable[[Inventory, ReportOptions], str]

#: The formats, in the order `--format` lists them.
FORMATS: tuple[str, ...] = ("table", "json", "markdown", "html", "sarif", "cyclonedx", "spdx")


class LazyRenderers(Mapping[str, ModuleType]):
    """Format name -> its renderer module (`package.name`), each imported on first look-up."""

    def __init__(self, package: str, names: tuple[str, ...]) -> None:
        self._package = package
        self._names = names

    def __getitem__(self, name: str) -> ModuleType:
        if name not in self._names:
            raise KeyError(name)
        return importlib.import_module(f"{self._package}.{name}")

    def __contains__(self, name: object) -> bool:
        return name in self._names

    def __iter__(self) -> Iterator[str]:
        return iter(self._names)

    def __len__(self) -> int:
        return len(self._names)


RENDERERS: Mapping[str, ModuleType] = LazyRenderers(__name__, FORMATS)


def render(fmt: str, inv: Inventory, options: ReportOptions = DEFAULT) -> str:
    result: str = RENDERERS[fmt].render(inv, options)
    return result


def render_pieces(fmt: str, inv: Inventory, options: ReportOptions = DEFAULT) -> str | Iterator[bytes]:
    """The report as its renderer streams it, piece by piece (`chunks`), or as one text from a renderer that does
    not."""
    module = RENDERERS[fmt]
    chunks: Callable[[Inventory, ReportOptions], Iterator[bytes]] | None = getattr(module, "chunks", None)
    if chunks is not None:
        return chunks(inv, options)
    return render(fmt, inv, options)

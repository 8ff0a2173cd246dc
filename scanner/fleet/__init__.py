"""Fleet mode: many targets scanned on dask.distributed, their inventories kept and queried together in DuckDB.

Optional (`pip install 'modelcensus[fleet]'`): nothing here is imported by a single-target scan. The engine is an
existing one (dask.distributed), the store an embedded one (DuckDB); modelcensus adds only what a target is, how
one is scanned (the library's scan in `worker.py`, the inventory `modelcensus scan` writes, inside a subprocess
that fences its time and memory) and which tables an inventory yields.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import cache

FLEET_EXTRA_HINT = "fleet mode needs the fleet extra: pip install 'modelcensus[fleet]'"


class FleetError(Exception):
    """A fleet input or store that cannot be used; the CLI prints it as one line."""


@cache
def _scrub() -> Callable[[str], str]:
    from scanner.catalog import load

    return load().scrub


def shown(text: str) -> str:
    """Text of the fleet's own (a target's name, path, labels, a scan's error) with every credential the built-in
    catalogs know redacted, as the inventories it stores already are: a manifest is user input too."""
    return _scrub()(text)


def one_line(text: str) -> str:
    """An error's first line, without the tool's own prefix (a scan's stderr line is stored, then printed again)."""
    lines = [ln.strip() for ln in text.strip().splitlines() if ln.strip()]
    first = lines[0] if lines else ""
    while first.startswith("modelcensus: error: "):
        first = first[len("modelcensus: error: "):]
    return first

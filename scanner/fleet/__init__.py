"""Fleet mode: many targets scanned on dask.distributed, their inventories kept and queried together in DuckDB.

Optional (`pip install 'modelcensus[fleet]'`): nothing here is imported by a single-target scan. The engine is an
existing one (dask.distributed), the store an embedded one (DuckDB); modelcensus adds only what a target is, how
one is scanned (the same `modelcensus scan`, in a subprocess) and which tables an inventory yields.
"""

from __future__ import annotations

FLEET_EXTRA_HINT = "fleet mode needs the fleet extra: pip install 'modelcensus[fleet]'"


class FleetError(Exception):
    """A fleet input or store that cannot be used; the CLI prints it as one line."""

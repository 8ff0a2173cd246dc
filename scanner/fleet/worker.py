"""One fleet scan, inside the fence `task.py` puts around it (its own session, a timeout, a memory limit):
`python -m scanner.fleet.worker REQUEST.json` scans through the library and writes the inventory JSON, the same
text `modelcensus scan -f json` writes.

REQUEST.json: {"path": target, "out": where the inventory goes, "catalogs": [extra catalog paths],
"max_file_size": bytes or null}. A target or catalog that cannot be used is one line on stderr and exit status 2.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

from scanner import api
from scanner.catalog import CatalogError
from scanner.fleet import shown
from scanner.options import DEFAULT_MAX_FILE_SIZE, ScanOptions, usable_cores
from scanner.render.json import chunks
from scanner.textsafe import safe


def run(request: dict[str, Any]) -> None:
    catalog = api.load_catalog(Path(c) for c in request.get("catalogs") or ())
    size = request.get("max_file_size") or DEFAULT_MAX_FILE_SIZE
    # The command line's defaults: one filesystem, no pseudo-filesystems, every usable core.
    options = ScanOptions(size, include_pseudo=False, one_file_system=True, jobs=usable_cores())
    inv = api.scan(request["path"], api.ScanRequest(options), catalog)
    # Streamed as `scan -f json -o` writes it: under the fence's memory limit the whole text is never held.
    with open(request["out"], "wb") as out:
        for piece in chunks(inv):
            out.write(piece)


def main(argv: list[str]) -> int:
    with open(argv[1], encoding="utf-8") as f:
        request = json.load(f)
    try:
        run(request)
    except (api.ScanError, CatalogError) as exc:
        sys.stderr.write(f"modelcensus: error: {safe(shown(str(exc)))}\n")  # a path may hold a key: redacted
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))

"""Scan a directory (or an image) in this (child) process and print what the bomb tests check: peak RSS and the skips.

Run as `python -m tests.scan_child ROOT [JOBS]`; prints one JSON object, with the scan's wall and CPU seconds
(the catalog is compiled before the clock starts). Two peaks: `ru_maxrss` of the child
(Linux carries the forking parent's high-water mark across exec, so it can only overstate), and the
child's own `VmHWM` from /proc/self/status, its true peak.
"""

from __future__ import annotations

import json
import os
import resource
import sys
import time
from typing import Any

from scanner import api
from scanner.catalog import load
from scanner.inventory.document import to_document
from scanner.options import ScanOptions


def _hwm_kib(fallback: int) -> int:
    try:
        with open("/proc/self/status", encoding="ascii") as status:
            for line in status:
                if line.startswith("VmHWM:"):
                    return int(line.split()[1])
    except OSError:
        pass
    return fallback


FIGURES_ENV = "MODELCENSUS_BOMB_FIGURES"


def record_figures(name: str, result: dict[str, Any]) -> None:
    """Append a scan's seconds and peak memory to the file `make bench` names in MODELCENSUS_BOMB_FIGURES (one
    JSON line a scan); without it, do nothing. Tests assert work, never seconds: the bench reads these."""
    target = os.environ.get(FIGURES_ENV)
    if not target:
        return
    # The test's own name when pytest runs it (the tmp directory's is cut short).
    test = os.environ.get("PYTEST_CURRENT_TEST", "").split("::")[-1].split(" ")[0]
    figures = {"bomb": test or name, **{k: result[k] for k in ("cpu_seconds", "seconds", "rss_mb", "workers_rss_mb")}}
    with open(target, "a", encoding="utf-8") as out:
        out.write(json.dumps(figures) + "\n")


def main(root: str, jobs: int = 1) -> None:
    catalog = load()
    _ = catalog.matcher  # compiled before the clock starts: the scan's own work is what is timed
    wall, cpu = time.monotonic(), time.process_time()
    # A directory, or an image (opened, its layer skips included, and closed as every scan does).
    inv = api.scan(root, api.ScanRequest(ScanOptions(jobs=jobs)), catalog)
    wall, cpu = time.monotonic() - wall, time.process_time() - cpu
    doc = to_document(inv)
    peak_kib = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss  # KiB on Linux
    out = {
        "seconds": round(wall, 3),
        "cpu_seconds": round(cpu, 3),
        "maxrss_mb": peak_kib / 1024,
        "workers_rss_mb": resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024,  # the largest worker's
        "rss_mb": _hwm_kib(peak_kib) / 1024,
        "skipped": doc["skipped"],
        "sessions": len(doc["sessions"]),
        "records": sum(s["records"] for s in doc["sessions"]),
        "notes": sorted({note for s in doc["sessions"] for note in s["notes"]}),
        "models": sorted(m["name"] for m in doc["models"]),
        "wired": sorted(m["name"] for m in doc["models"] if m["wired"]),
        "credentials": [c["type"] for c in doc["credentials"]],
        "sdks": sorted(f"{s['ecosystem']}:{s['name']}@{s['version']}" for s in doc["sdks"]),
    }
    sys.stdout.write(json.dumps(out) + "\n")


if __name__ == "__main__":
    main(sys.argv[1], *(int(a) for a in sys.argv[2:3]))

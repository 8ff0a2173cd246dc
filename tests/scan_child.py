"""Scan a directory (or an image) in this (child) process and print what the bomb tests check: peak RSS and the skips.

Run as `python -m tests.scan_child ROOT`; prints one JSON object. Two peaks: `ru_maxrss` of the child
(Linux carries the forking parent's high-water mark across exec, so it can only overstate), and the
child's own `VmHWM` from /proc/self/status, its true peak.
"""

from __future__ import annotations

import json
import resource
import sys

from scanner.catalog import load
from scanner.inventory.document import to_document
from scanner.options import ScanOptions
from scanner.pipeline import scan
from scanner.targets import WalkOptions
from scanner.targets.registry import open_target


def _hwm_kib(fallback: int) -> int:
    try:
        with open("/proc/self/status", encoding="ascii") as status:
            for line in status:
                if line.startswith("VmHWM:"):
                    return int(line.split()[1])
    except OSError:
        pass
    return fallback


def main(root: str) -> None:
    opened = open_target(root, None, WalkOptions())  # a directory, or an image (its layer skips included)
    try:
        inv = scan(opened.target, load(), ScanOptions(), extra=list(opened.skips))
    finally:
        opened.close()
    doc = to_document(inv)
    peak_kib = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss  # KiB on Linux
    out = {
        "maxrss_mb": peak_kib / 1024,
        "rss_mb": _hwm_kib(peak_kib) / 1024,
        "skipped": doc["skipped"],
        "sessions": len(doc["sessions"]),
        "credentials": [c["type"] for c in doc["credentials"]],
    }
    sys.stdout.write(json.dumps(out) + "\n")


if __name__ == "__main__":
    main(sys.argv[1])

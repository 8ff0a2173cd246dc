"""What choosing the detectors of each file costs: every file of a part of a tree, read as a scan reads it, then
the detectors it needs chosen (`Selection.of`), timed by CPU time per file and counted.

    python scripts/profile_selection.py ROOT [--part /usr ...] [--warm]

Each file's context is made before the clock starts (every file needs it, whichever detectors ask); with `--warm`
its config parse and session sniff are made too, so only the choosing itself is timed. Prints the files, the CPU
seconds and microseconds per file, the kinds of file checked whole per file (the index's candidates), and how many
files each detector was chosen for.
"""

from __future__ import annotations

import argparse
import sys
import time
from collections import Counter
from pathlib import Path

SCRIPTS = Path(__file__).resolve().parent
sys.path.insert(0, str(SCRIPTS))
sys.path.insert(0, str(SCRIPTS.parent))

from scan_part import part_target  # noqa: E402

from scanner.catalog import load  # noqa: E402
from scanner.detectors import DETECTORS  # noqa: E402
from scanner.fileview.view import FileView  # noqa: E402
from scanner.model import Skip  # noqa: E402
from scanner.options import ScanOptions  # noqa: E402
from scanner.selection import Selection  # noqa: E402
from scanner.targets.base import ReadFailure  # noqa: E402
from scanner.targets.ownership import Ownership  # noqa: E402


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("root")
    ap.add_argument("--part", action="append", default=[])
    ap.add_argument("--warm", action="store_true", help="make each file's config parse and session sniff first")
    a = ap.parse_args()
    target, catalog = part_target(a.root, a.part), load()
    ownership, limit = Ownership.of(target), ScanOptions().max_file_size
    selection = Selection(DETECTORS, catalog)
    files, checked, cpu = 0, 0, 0.0
    chosen: Counter[str] = Counter()
    for item in target.walk():
        if isinstance(item, Skip):
            continue
        try:
            data = target.read(item, limit).data
        except ReadFailure:
            continue
        view = FileView(item, data, catalog, ownership.meta, target.read_path, user_of=ownership.user_of)
        _ = view.context
        if a.warm:
            _ = view.config, view.session_log
        files += 1
        started = time.process_time()
        selected = selection.of(view)
        cpu += time.process_time() - started
        checked += selection.candidates(view).bit_count()  # a bit mask: one bit a candidate kind
        chosen.update(s.detector.name for s in selected)
    print(f"files {files}  selection CPU {cpu:.2f} s  {cpu / max(files, 1) * 1e6:.1f} us/file  "
          f"kinds checked {checked / max(files, 1):.2f}/file of {sum(len(d.needs.files) for d in DETECTORS)}  "
          f"chosen {sum(chosen.values()) / max(files, 1):.2f}/file")
    for name, n in sorted(chosen.items()):
        print(f"  {name:16} {n:7}")


if __name__ == "__main__":
    main()

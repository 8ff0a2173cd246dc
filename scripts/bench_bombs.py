"""`make bench` (bombs): the hostile inputs of the test suite, timed. The tests assert the work each bomb was
allowed (a budget spent at a given line, a cap met, peak memory); seconds measure the neighbours on a shared
machine, so they are taken here: the bomb tests are run with MODELCENSUS_BOMB_FIGURES naming a file, each scan's
child appends its CPU seconds, wall seconds and peak RSS to it, and this prints them against the bound.

Bound: 10 CPU-s for a scan of one bomb (one worker), 300 MB peak RSS. `BENCH_BOMBS=sqlite` runs only the tests
whose name holds that word (pytest's `-k`).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
CPU_BOUND_S = 10.0
RSS_BOUND_MB = 300.0
SUITES = ("tests/test_work_bounds.py", "tests/test_sqlite_stores.py")


def main() -> int:
    with tempfile.TemporaryDirectory(prefix="modelcensus-bench-bombs-") as tmp:
        figures = Path(tmp) / "figures.jsonl"
        figures.touch()
        cmd = [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", *SUITES]
        if only := os.environ.get("BENCH_BOMBS", "").strip():
            cmd += ["-k", only]
        env = {**os.environ, "MODELCENSUS_BOMB_FIGURES": str(figures)}
        tests = subprocess.run(cmd, cwd=REPO, env=env, capture_output=True, text=True, check=False)
        rows = [json.loads(line) for line in figures.read_text(encoding="utf-8").splitlines() if line.strip()]
    print(f"bombs: {len(rows)} scan(s), bound {CPU_BOUND_S:.0f} CPU-s and {RSS_BOUND_MB:.0f} MB each")
    over = 0
    for row in rows:
        late = row["cpu_seconds"] > CPU_BOUND_S or max(row["rss_mb"], row["workers_rss_mb"]) > RSS_BOUND_MB
        over += late
        print(
            f"  {row['bomb']:<64} {row['cpu_seconds']:6.2f} CPU-s {row['seconds']:6.2f} s "
            f"{max(row['rss_mb'], row['workers_rss_mb']):5.0f} MB{'  OVER' if late else ''}"
        )
    if tests.returncode != 0:
        print("bombs: the tests themselves failed:\n" + tests.stdout[-3000:], file=sys.stderr)
        return 1
    print(f"bombs: {over} over the bound" if over else "bombs: all within the bound")
    return 1 if over else 0


if __name__ == "__main__":
    sys.exit(main())

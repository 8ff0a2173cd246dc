"""`make bench` (real part): the full scan against ripgrep on two trees built from real parts, in turn.

- The shared lived-in tree (`PERF_TREE`, default `/tmp/perfvm/root`; its recipe builds it: ~5 GB, ~180k files,
  with diverse sessions), searched by ripgrep with its 200 catalog-like patterns (`PERF_PATTERNS`); skipped,
  with a note, when it is not built.
- The project's own tree (`.bench/real`, cached; `bench_tree.py`), searched with the patterns the catalog
  compiles.

For each: the whole tree and each part (`/usr`, `/opt`, `/home`, `/var`) in `BENCH_PAIRS` (3) interleaved pairs
with `rg -a --no-unicode --hidden --no-ignore -j N`, the median pair's ratio of wall and CPU time, the read
floor and the peak memory (`bench_measure.py`); then the 10% and 1% subsets (every 10th / 100th file; copies of
the shared tree, whose link counts must not change), one pair each, to show how cost grows. `BENCH_TREES`
(`lived-in,real-parts`) names the trees measured.
"""

from __future__ import annotations

import os
import tempfile
from pathlib import Path

import bench_measure as bm
import bench_tree

from scanner import native

PERF_TREE = Path(os.environ.get("PERF_TREE", "/tmp/perfvm/root"))
PERF_PATTERNS = Path(os.environ.get("PERF_PATTERNS", "/work/shared/perf/patterns200.txt"))
if not PERF_PATTERNS.is_file():
    PERF_PATTERNS = bench_tree.REPO.parent / "shared/perf/patterns200.txt"


def shared_subsets() -> list[tuple[str, Path]]:
    """Copies of every 10th and 100th file of the shared tree (built once, beside the own tree's)."""
    out = []
    for pct in (10, 1):
        dest = bench_tree.BENCH / f"perf-{pct}"
        stamp = bench_tree.BENCH / f"perf-{pct}.source"
        if not (stamp.is_file() and stamp.read_text() == str(PERF_TREE) and dest.is_dir()):
            bench_tree.subset(PERF_TREE, dest, pct, link=False)
            stamp.write_text(str(PERF_TREE))
        out.append((f"lived-in {pct}%", dest))
    return out


def main() -> None:
    from bench import patterns_file  # scripts/ is this script's directory: the one list of rg patterns

    bench_tree.build()
    with tempfile.TemporaryDirectory(prefix="modelcensus-bench-") as tmp:  # .bench may be shared read-only
        out = Path(tmp)
        trees: list[tuple[str, Path, Path, bool]] = []
        if PERF_TREE.is_dir() and PERF_PATTERNS.is_file():
            trees.append(("lived-in", PERF_TREE, PERF_PATTERNS, True))
            trees += [(name, root, PERF_PATTERNS, False) for name, root in shared_subsets()]
        else:
            print(f"the shared lived-in tree is not at {PERF_TREE} (build it with shared/perf/build.sh, or set "
                  f"PERF_TREE): measuring the project's own tree only")
        own = patterns_file(out)
        trees.append(("real-parts", bench_tree.REAL, own, True))
        trees += [(f"real-parts {pct}%", bench_tree.BENCH / f"real-{pct}", own, False) for pct in (10, 1)]
        wanted = os.environ.get("BENCH_TREES", "lived-in,real-parts").split(",")  # measure one tree alone
        summary = []
        for name, root, patterns, full in trees:
            if name.split(" ")[0] not in wanted:
                continue
            figures = bm.measure(name, root, patterns, out, parts=full, n=bm.PAIRS if full else 1)
            summary += [(name, f) for f in figures]
    print(f"\nsummary (median pair, modelcensus / ripgrep; {native.build()}):")
    for name, f in summary:
        print(f"  {name:<18} {f.part:<6} wall {f.wall:5.2f}x  CPU {f.cpu:5.2f}x  peak {f.pss >> 20} MiB PSS")
    if os.getloadavg()[0] > (os.cpu_count() or 1) / 2:
        print(f"note: load average {os.getloadavg()[0]:.1f}; other processes are skewing the wall times")


if __name__ == "__main__":
    main()

"""Scan one part of a tree (`/usr`, `/opt`, ...) as the whole scan sees it: the root stays `/`, so every file keeps
its own path (and so its context), and only the named top-level directories are walked.

    python scripts/scan_part.py ROOT [--part /usr ...] [--jobs N] [-o report.json] [--profile out.prof]

Prints the scan's wall and CPU seconds (this process and its workers). `--profile` runs the scan under cProfile
in one process (`--jobs 1`: every stage in one profile) and writes the stats for `pstats` or `scripts/stages.py`.
Used by `make bench` for the per-part figures, and to profile where a scan's time goes.
"""

from __future__ import annotations

import argparse
import os
import resource
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from scanner import api  # noqa: E402
from scanner.catalog import load  # noqa: E402
from scanner.cli.output import write_output  # noqa: E402
from scanner.options import ScanOptions  # noqa: E402
from scanner.render import render_pieces  # noqa: E402
from scanner.render._view import ReportOptions  # noqa: E402
from scanner.targets import WalkOptions  # noqa: E402
from scanner.targets.walker import Walker  # noqa: E402


def part_target(root: str, parts: list[str]) -> Walker:
    """The tree at `root` with everything outside `parts` (`/usr`, or deeper: `/usr/lib/x`) left out: each
    directory on the way down keeps only the entries on the way (each left out is recorded as a skip)."""
    kept = {"/" + "/".join(p.strip("/").split("/")[:depth]) for p in parts
            for depth in range(1, p.strip("/").count("/") + 2)}
    left_out: list[tuple[str, str]] = []
    for above in sorted({k.rsplit("/", 1)[0] or "/" for k in kept}) if parts else []:
        if above != "/" and above not in kept:
            continue
        for name in sorted(os.listdir(root + above)):
            inside = f"{above.rstrip('/')}/{name}"
            if inside not in kept and not any(k.startswith(inside + "/") for k in kept):
                left_out.append((inside, "not in the part measured"))
    return Walker(root, WalkOptions(exclude=tuple(left_out)))


def cpu_seconds() -> tuple[float, float]:
    """User and system CPU seconds of this process and its (waited-for) workers so far."""
    me, children = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    return me.ru_utime + children.ru_utime, me.ru_stime + children.ru_stime


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("root")
    ap.add_argument("--part", action="append", default=[], help="a top-level directory to walk (repeatable)")
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("-o", "--output", help="write the JSON report here")
    ap.add_argument("--profile", help="write cProfile stats here (runs with --jobs 1)")
    args = ap.parse_args()
    catalog = load()
    _ = catalog.matcher
    target = part_target(args.root, args.part)
    options = ScanOptions(jobs=1 if args.profile else args.jobs)
    cpu0, started = cpu_seconds(), time.perf_counter()
    if args.profile:
        import cProfile

        profiler = cProfile.Profile(time.process_time)  # CPU time: other processes do not count
        inventory = profiler.runcall(api.scan, target, api.ScanRequest(options), catalog)
        profiler.dump_stats(args.profile)
    else:
        inventory = api.scan(target, api.ScanRequest(options), catalog)
    wall, (user, system) = time.perf_counter() - started, (b - a for a, b in zip(cpu0, cpu_seconds(), strict=True))
    if args.output:
        write_output(render_pieces("json", inventory, ReportOptions()), Path(args.output))  # streamed, as the CLI
    stats = inventory.stats
    print(f"{args.root} {' '.join(args.part) or '(whole)'}: {stats.files_read} files, {stats.bytes_read / 1e9:.2f} GB "
          f"read; {wall:.1f} s wall, {user + system:.1f} CPU-s ({user:.1f} user, {system:.1f} system; "
          f"jobs {options.jobs})")


if __name__ == "__main__":
    main()

"""Where a scan's time goes, by stage: py-spy samples of one part of a tree scanned as `make bench` scans it.

    python scripts/profile_stages.py ROOT [--part /usr ...] [--jobs N] [--rate 250] [--keep stacks.txt]

py-spy samples the scan (`scan_part.py`, the parent and its workers) from outside, so the profiled processes run
at full speed; idle threads (a parent waiting on its workers) are not sampled. Each sample is given to one
stage: the innermost of start-up, walk, open/read, the YARA-X search, the confirmation of its hits, a file's
context, its config parse, its text decode, the transfer between processes (pickling, pipes), the fold into
the builder, the build and the report; otherwise the outermost detector that asked. Shares of samples are
shares of CPU time whatever else the machine runs. py-spy is a development tool: `pip install py-spy`.
"""

from __future__ import annotations

import argparse
import shutil
import subprocess
import sys
import tempfile
from collections import Counter
from pathlib import Path

SCRIPTS = Path(__file__).resolve().parent

# (function, file suffix) -> stage, for the innermost frame that names one.
_STAGES = {
    ("_search_on", "catalog/matcher.py"): "confirm hits (re)",
    ("context", "detectors/base.py"): "context (classify)",
    ("classify", "detectors/contexts.py"): "context (classify)",
    ("config", "detectors/base.py"): "config parse",
    ("parse_config", "detectors/config_parse.py"): "config parse",
    ("text", "detectors/base.py"): "text decode",
    ("walk", "targets/directory.py"): "walk",
    ("read", "targets/directory.py"): "open/read",
    ("read_window", "targets/directory.py"): "open/read",
    ("add_all", "inventory/builder.py"): "fold (builder)",
    ("skip", "inventory/builder.py"): "fold (builder)",
    ("keep", "scanner/readonce.py"): "fold (builder)",
    ("_fold", "scanner/pool.py"): "fold (builder)",
    ("_fold_all", "scanner/pipeline.py"): "fold (builder)",
    ("build", "inventory/builder.py"): "build inventory",
    ("render", "scanner/render/__init__.py"): "report",
    ("load", "scanner/catalog/__init__.py"): "start-up (imports, catalog)",
    ("matcher", "catalog/index.py"): "start-up (imports, catalog)",
    ("_sendback_result", "concurrent/futures/process.py"): "transfer (pickle, pipes)",
    ("_feed", "multiprocessing/queues.py"): "transfer (pickle, pipes)",
    ("get", "multiprocessing/queues.py"): "transfer (pickle, pipes)",
    ("recv_bytes", "multiprocessing/connection.py"): "transfer (pickle, pipes)",
    ("wait_result_broken_or_wakeup", "concurrent/futures/process.py"): "transfer (pickle, pipes)",
    ("dumps", "multiprocessing/reduction.py"): "transfer (pickle, pipes)",
}


def _parse(frame: str) -> tuple[str, str, int]:
    """`func (path:line)` -> (func, path, line)."""
    name, _, where = frame.rpartition(" (")
    path, _, line = where.rstrip(")").rpartition(":")
    return name.rsplit(".", 1)[-1], path, int(line) if line.isdigit() else 0  # `Class.method` -> `method`


def stage_of(frames: list[str], yara_line: int) -> str:
    """The stage of one sample, from its frames (outermost first)."""
    parsed = [_parse(f) for f in frames]
    # A forked worker's stack still holds the parent's frames of the moment it was forked: its own start here.
    starts = [i for i, (name, _, _) in enumerate(parsed) if name == "_process_worker"]
    parsed = parsed[starts[-1]:] if starts else parsed
    for name, path, line in reversed(parsed):
        if name == "scan" and path.endswith("catalog/matcher.py"):
            return "yara-x search" if line == yara_line else "confirm hits (re)"
        for (fn, where), stage in _STAGES.items():
            if name == fn and path.endswith(where):
                return stage
        if path.startswith("<frozen importlib") or name == "<module>" and "scanner/" in path:
            return "start-up (imports, catalog)"
    for name, path, _ in parsed:
        if "/scanner/detectors/" in path and name in ("extract", "wants"):
            return f"detector {path.rsplit('/', 1)[-1].removesuffix('.py')}"
    return "pipeline (other)"


def _yara_line() -> int:
    """The line of matcher.py that calls the YARA-X scanner: a sample there is the search itself."""
    source = (SCRIPTS.parent / "scanner/catalog/matcher.py").read_text().splitlines()
    return next(i for i, line in enumerate(source, 1) if "self._scanner().scan(data)" in line)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("root")
    ap.add_argument("--part", action="append", default=[])
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--rate", type=int, default=250, help="samples per second")
    ap.add_argument("--keep", help="keep the collapsed stacks here")
    args = ap.parse_args()
    spy = shutil.which("py-spy") or str(Path(sys.executable).with_name("py-spy"))
    with tempfile.TemporaryDirectory() as tmp:
        stacks = Path(args.keep or f"{tmp}/stacks.txt")
        cmd = [spy, "record", "--subprocesses", "--format", "raw", "--rate", str(args.rate), "-o", str(stacks),
               "--", sys.executable, str(SCRIPTS / "scan_part.py"), args.root, "--jobs", str(args.jobs),
               "-o", f"{tmp}/report.json", *(f"--part={p}" for p in args.part)]
        subprocess.run(cmd, check=True, stdout=sys.stdout, stderr=subprocess.DEVNULL)
        yara_line = _yara_line()
        shares: Counter[str] = Counter()
        for row in stacks.read_text().splitlines():
            stack, _, count = row.rpartition(" ")
            frames = [f for f in stack.split(";") if not f.startswith("process ")]
            shares[stage_of(frames, yara_line)] += int(count)
    total = sum(shares.values()) or 1
    print(f"{args.root} {' '.join(args.part) or '(whole)'}, --jobs {args.jobs}: {total} samples at {args.rate}/s "
          f"(~{total / args.rate:.1f} CPU-s)")
    for stage, n in shares.most_common():
        print(f"  {stage:<30} {100 * n / total:5.1f}%  ~{n / args.rate:6.1f} CPU-s")


if __name__ == "__main__":
    main()

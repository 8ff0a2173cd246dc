"""Where a scan's CPU time goes, by stage: one part of a tree scanned as `make bench` scans it, sampled by CPU time.

    python scripts/profile_stages.py ROOT [--part /usr ...] [--jobs N] [--interval 0.002]

Each process of the scan (the parent and its forked workers) samples its own stack every `interval` seconds of
its CPU time (SIGPROF) and gives the sample the CPU time spent since the last one, so a long C call (a YARA-X
search, an inflate, a read) is weighed whole and time the machine spends on other processes is not counted:
the shares hold on a busy machine. A sample is given to one stage: the innermost of walk, open/read, the
YARA-X search, the confirmation of its hits, a file's context, its config parse, its text decode, a session log's
reading (lines and JSON, the shape walk, the adapters, fingerprints, attribution, mentions, the rest), the transfer
between processes (pickling, pipes: the parent's result thread, sampled while its main thread waits), the fold
into the builder, the build and the report, the selection of the detectors a file needs; otherwise the
outermost detector that extracted.
"""

from __future__ import annotations

import argparse
import os
import pickle
import signal
import sys
import tempfile
import time
from collections import Counter
from multiprocessing.util import Finalize
from pathlib import Path
from types import FrameType

SCRIPTS = Path(__file__).resolve().parent
sys.path.insert(0, str(SCRIPTS))

from scan_part import part_target  # noqa: E402

Frame = tuple[str, str, int]  # (qualified name, file, line)

# (function, file suffix) -> stage, for the innermost frame that names one.
_STAGES = {
    ("_search_on", "catalog/matcher.py"): "confirm hits (re)",
    ("FileView.context", "fileview/view.py"): "context (classify)",
    ("classify", "fileview/contexts.py"): "context (classify)",
    ("FileView.config", "fileview/view.py"): "config parse",
    ("parse_config", "fileview/config_parse.py"): "config parse",
    ("FileView.text", "fileview/view.py"): "text decode",
    ("Selection.of", "scanner/selection.py"): "detector selection (needs)",
    ("Walker.walk", "targets/walker.py"): "walk",
    ("Walker.read", "targets/walker.py"): "open/read",
    ("Walker.read_window", "targets/walker.py"): "open/read",
    ("Future.result", "concurrent/futures/_base.py"): "transfer (pickle, pipes)",
    ("_sendback_result", "concurrent/futures/process.py"): "transfer (pickle, pipes)",
    ("ProcessPoolExecutor.shutdown", "concurrent/futures/process.py"): "transfer (pickle, pipes)",
    ("InventoryBuilder.add_all", "inventory/builder.py"): "fold (builder)",
    ("InventoryBuilder.skip", "inventory/builder.py"): "fold (builder)",
    ("SeenFiles.keep", "scanner/readonce.py"): "fold (builder)",
    ("_fold", "scanner/pool.py"): "fold (builder)",
    ("_fold_all", "scanner/pipeline.py"): "fold (builder)",
    ("InventoryBuilder.build", "inventory/builder.py"): "build inventory",
    # A session log read once for every detector that asks (`FileView.session_read`), by its steps.
    ("FileView.session_read", "fileview/view.py"): "session: read_log (other)",
    ("FileView._mentions", "fileview/view.py"): "session: mentions",
    ("records", "sessions/reader.py"): "session: lines, JSON decode",
    ("read_shape", "sessions/shape.py"): "session: shape walk",
    ("Fingerprinter.match", "sessions/fingerprints.py"): "session: fingerprints",
    ("SessionAccumulator.add", "sessions/attribution.py"): "session: attribution",
    ("SessionAccumulator.finish", "sessions/attribution.py"): "session: attribution",
}


class CpuSampler:
    """Stacks of this process, each weighed by the CPU seconds spent since the last sample."""

    def __init__(self, interval: float) -> None:
        self.interval = interval
        self.samples: Counter[tuple[Frame, ...]] = Counter()
        self.last = time.process_time()

    def start(self) -> None:
        self.last = time.process_time()
        signal.signal(signal.SIGPROF, self._tick)
        signal.setitimer(signal.ITIMER_PROF, self.interval, self.interval)

    def stop(self) -> None:
        signal.setitimer(signal.ITIMER_PROF, 0, 0)

    def _tick(self, _signum: int, frame: FrameType | None) -> None:
        now = time.process_time()
        spent, self.last = now - self.last, now
        stack: list[Frame] = []
        while frame is not None:
            stack.append((frame.f_code.co_qualname, frame.f_code.co_filename, frame.f_lineno))
            frame = frame.f_back
        self.samples[tuple(reversed(stack))] += spent


def stage_of(frames: tuple[Frame, ...], yara_lines: frozenset[int], pickle_lines: frozenset[int]) -> str:
    """The stage of one sample, from its frames (outermost first)."""
    name, path, line = frames[-1]
    if path.endswith("scanner/pool.py") and line in pickle_lines:
        return "transfer (pickle, pipes)"  # a batch's results pickled in the worker, unpickled by the fold
    # A forked worker's stack still holds the parent's frames of the moment it was forked: its own start at
    # `_process_worker`; outside the analysis of a batch, a worker is taking batches in and results out.
    starts = [i for i, (name, _, _) in enumerate(frames) if name == "_process_worker"]
    if starts:
        frames = frames[starts[-1]:]
        if not any(name == "_analyze" for name, _, _ in frames):
            return "transfer (pickle, pipes)"
    for name, path, line in reversed(frames):
        if name in ("Matcher.scan", "Matcher.matches_from"):  # the search past a pattern's cap is YARA-X's too
            return "yara-x search" if line in yara_lines else "confirm hits (re)"
        for (fn, where), stage in _STAGES.items():
            if name == fn and path.endswith(where):
                return stage
        if path.endswith("scanner/render/__init__.py"):
            return "report"
        if "scanner/sessions/adapters/" in path:
            return "session: adapters"
    for name, path, _ in frames:
        if "scanner/detectors/" in path and name.endswith(".extract"):
            return f"detector {path.rsplit('/', 1)[-1].removesuffix('.py')}"
    return "pipeline (other)"


def _pickle_lines() -> frozenset[int]:
    """The lines of pool.py that pickle a batch's results or load them."""
    source = (SCRIPTS.parent / "scanner/pool.py").read_text().splitlines()
    return frozenset(i for i, line in enumerate(source, 1) if "pickle.dumps(" in line or "pickle.loads(" in line)


def _yara_lines() -> frozenset[int]:
    """The lines of matcher.py that call the YARA-X scanners: a sample there is the search itself."""
    source = (SCRIPTS.parent / "scanner/catalog/matcher.py").read_text().splitlines()
    return frozenset(i for i, line in enumerate(source, 1) if ".scan(data" in line and ".matching_rules" in line)


_WORKER: dict[str, object] = {}  # in a forked worker: its sampler, the analysis it wraps, where samples go


def sampled_analyze(batch: list[object]) -> object:
    """The pool's per-batch analysis, in a worker that samples itself and leaves its samples after each batch."""
    sampler = _WORKER.get(f"sampler {os.getpid()}")
    if not isinstance(sampler, CpuSampler):
        sampler = CpuSampler(float(str(_WORKER["interval"])))
        _WORKER[f"sampler {os.getpid()}"] = sampler
        where = Path(str(_WORKER["out"])) / f"{os.getpid()}.samples"
        # Left when the worker exits (multiprocessing runs its finalizers then), not after every batch.
        Finalize(None, lambda: where.write_bytes(pickle.dumps(sampler.samples)), exitpriority=10)
        sampler.start()
    return _WORKER["analyze"](batch)  # type: ignore[operator]


def _sample_workers(interval: float, out: Path) -> None:
    from scanner import pool

    _WORKER.update(analyze=pool._analyze, interval=interval, out=str(out))
    pool._analyze = sampled_analyze  # type: ignore[assignment]


def main() -> None:
    from scanner import api
    from scanner.catalog import load
    from scanner.options import ScanOptions
    from scanner.render import render

    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("root")
    ap.add_argument("--part", action="append", default=[])
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--interval", type=float, default=0.002, help="CPU seconds between samples")
    ap.add_argument("--keep", help="keep the samples here (a pickled Counter of stacks -> CPU seconds)")
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        _sample_workers(args.interval, Path(tmp))
        sampler = CpuSampler(args.interval)
        sampler.start()
        try:
            catalog = load()
            _ = catalog.matcher
            request = api.ScanRequest(ScanOptions(jobs=args.jobs))
            render("json", api.scan(part_target(args.root, args.part), request, catalog))
        finally:
            sampler.stop()
        samples = sampler.samples
        for kept in Path(tmp).glob("*.samples"):
            samples.update(pickle.loads(kept.read_bytes()))
    if args.keep:
        Path(args.keep).write_bytes(pickle.dumps(samples))
    yara_lines, pickle_lines = _yara_lines(), _pickle_lines()
    shares: Counter[str] = Counter()
    for frames, seconds in samples.items():
        shares["start-up (imports, catalog)" if any(n == "load" for n, p, _ in frames if "catalog" in p)
               else stage_of(frames, yara_lines, pickle_lines)] += seconds
    total = sum(shares.values()) or 1
    print(f"{args.root} {' '.join(args.part) or '(whole)'}, --jobs {args.jobs}: {total:.1f} CPU-s sampled "
          f"(every {args.interval * 1000:.0f} ms of CPU, parent and workers)")
    for stage, seconds in shares.most_common():
        print(f"  {stage:<30} {100 * seconds / total:5.1f}%  {seconds:6.2f} CPU-s")


if __name__ == "__main__":
    main()

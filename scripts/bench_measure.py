"""modelcensus against ripgrep on one tree, side by side: the whole tree and each part, pair by pair.

Both tools read the same files from a warm page cache (the read floor's two passes warm it), with the same
number of processes. The two run in turn, pair by pair: a shared machine's speed drifts over minutes, and a
ratio taken within a pair is meaningful where one taken across the whole call is not. The median pair is the
figure, for wall time and for CPU time (user + system of every process). Peak memory is the sum of PSS over all
the processes of a run. Nothing persists between runs: each scan starts from nothing but the page cache and the
scanner's bytecode, compiled once before timing, as an installed copy has it.
"""

from __future__ import annotations

import compileall
import os
import shutil
import statistics
import subprocess
import sys
import threading
import time
from dataclasses import dataclass
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
JOBS = int(os.environ.get("BENCH_JOBS", "2"))
PAIRS = int(os.environ.get("BENCH_PAIRS", "3"))
PARTS = ("/usr", "/opt", "/home", "/var", "/srv")
MIB = 1 << 20


class TreeMemory:
    """The peak memory of a process and all its descendants together, sampled every 50 ms.

    Forked workers share the parent's pages (the compiled catalog, the interpreter) copy-on-write, so a sum
    of RSS counts those pages once per process. The honest figure is the sum of PSS (each shared page
    divided among the processes that map it): what the scan costs the machine. Both are kept."""

    def __init__(self, pid: int) -> None:
        import psutil

        self.proc, self.peak_pss, self.peak_rss = psutil.Process(pid), 0, 0
        self._stop = threading.Event()
        self._t = threading.Thread(target=self._run, daemon=True)
        self._t.start()

    def _run(self) -> None:
        import psutil

        while not self._stop.is_set():
            pss = rss = 0
            try:
                for p in [self.proc, *self.proc.children(recursive=True)]:
                    mem = p.memory_full_info()
                    pss, rss = pss + mem.pss, rss + mem.rss
            except psutil.Error:
                pass
            self.peak_pss, self.peak_rss = max(self.peak_pss, pss), max(self.peak_rss, rss)
            time.sleep(0.05)

    def stop(self) -> tuple[int, int]:
        self._stop.set()
        self._t.join()
        return self.peak_pss, self.peak_rss


@dataclass(frozen=True)
class Run:
    seconds: float
    cpu: float  # user + system seconds of the process and its children
    pss: int  # peak of the summed PSS of all its processes
    rss: int  # peak of the summed RSS (shared pages counted once per process)


def timed(cmd: list[str], out: Path) -> Run:
    started = time.perf_counter()
    with out.open("wb") as f:
        proc = subprocess.Popen(cmd, stdout=f, stderr=subprocess.DEVNULL)
        memory = TreeMemory(proc.pid)
        _, status, usage = os.wait4(proc.pid, 0)
    seconds = time.perf_counter() - started
    pss, rss = memory.stop()
    code = os.waitstatus_to_exitcode(status)
    if code not in (0, 1):  # rg exits 1 when nothing matched
        sys.exit(f"{cmd[0]} failed (status {code}): {' '.join(cmd)}")
    return Run(seconds, usage.ru_utime + usage.ru_stime, pss, rss)


def files_of(root: Path) -> list[Path]:
    return sorted(p for p in root.rglob("*") if p.is_file() and not p.is_symlink())


def read_floor(files: list[Path], jobs: int) -> float:
    """Seconds for `jobs` processes to read every byte of `files` (each its share), from the page cache."""
    shards = [files[i::jobs] for i in range(jobs)]
    code = "import sys\nfor p in sys.stdin.read().split('\\0'):\n    if p:\n        try:\n" \
           "            open(p,'rb').read()\n        except OSError:\n            pass\n"
    started = time.perf_counter()
    procs = [subprocess.Popen([sys.executable, "-c", code], stdin=subprocess.PIPE) for _ in shards]
    for proc, shard in zip(procs, shards, strict=True):
        assert proc.stdin is not None
        proc.stdin.write("\0".join(map(str, shard)).encode("utf-8", "surrogateescape"))
        proc.stdin.close()
    for proc in procs:
        proc.wait()
    return time.perf_counter() - started


@dataclass(frozen=True)
class Figure:
    """The median pair of one part: modelcensus over ripgrep, in wall and CPU time."""

    part: str
    wall: float
    cpu: float
    spread: tuple[float, float]
    seconds: float
    pss: int


def scan_command(root: Path, part: str | None, out: Path) -> list[str]:
    if part is None:  # the whole tree: the command line itself, as a user runs it
        return [str(REPO / ".venv/bin/modelcensus"), "scan", str(root), "-f", "json", "-q", "-o", str(out),
                "--jobs", str(JOBS)]
    return [sys.executable, str(REPO / "scripts/scan_part.py"), str(root), "--part", part, "--jobs", str(JOBS),
            "-o", str(out)]


def pairs(root: Path, part: str | None, patterns: Path, out: Path, n: int) -> Figure:
    where = root / part.lstrip("/") if part else root
    rg = [shutil.which("rg") or "rg", "-a", "--no-unicode", "--hidden", "--no-ignore", "-j", str(JOBS), "-c", "-f",
          str(patterns), str(where)]
    runs: list[tuple[Run, Run]] = []
    for i in range(n):
        mc = timed(scan_command(root, part, out / "report.json"), out / "mc.out")
        r = timed(rg, out / "rg.out")
        runs.append((mc, r))
        print(f"    pair {i + 1}: modelcensus {mc.seconds:6.1f} s, {mc.cpu:6.1f} CPU-s, {mc.pss >> 20} MiB PSS "
              f"({mc.rss >> 20} MiB summed RSS) | ripgrep {r.seconds:6.1f} s, {r.cpu:6.1f} CPU-s, "
              f"{r.pss >> 20} MiB PSS | {mc.seconds / r.seconds:.2f}x [load {load()}]", flush=True)
    ratios = [mc.seconds / r.seconds for mc, r in runs]
    return Figure(part or "whole", statistics.median(ratios),
                  statistics.median(mc.cpu / max(r.cpu, 0.05) for mc, r in runs), (min(ratios), max(ratios)),
                  statistics.median(mc.seconds for mc, _ in runs), max(mc.pss for mc, _ in runs))


def compile_bytecode() -> None:
    """The scanner's modules compiled once before timing, as an installed copy has them (pip compiles a wheel on
    install): a checkout run with PYTHONDONTWRITEBYTECODE would compile ~250 modules on every run instead."""
    compileall.compile_dir(str(REPO / "scanner"), quiet=1)


def measure(name: str, root: Path, patterns: Path, out: Path, parts: bool = True, n: int = PAIRS) -> list[Figure]:
    """The whole tree and (with `parts`) each part of it, `n` pairs each; prints a line per pair and per figure."""
    compile_bytecode()
    files = files_of(root)
    size = sum(p.stat().st_size for p in files)
    cold = read_floor(files, JOBS)  # warms the page cache for both tools
    floor = read_floor(files, JOBS)  # both tools read from the page cache: so does the floor they are set against
    print(f"{name} ({root}): {len(files)} files, {size / 1e9:.2f} GB; read floor ({JOBS} processes) {floor:.1f} s "
          f"from the page cache ({cold:.1f} s the first time) [load {load()}]", flush=True)
    figures = []
    for part in (None, *(p for p in PARTS if (root / p.lstrip("/")).is_dir())) if parts else (None,):
        print(f"  {part or 'whole tree'}:", flush=True)
        fig = pairs(root, part, patterns, out, n)
        figures.append(fig)
        goal = 1.0 if part is None else 1.5
        verdict = "ok" if fig.wall <= goal and fig.cpu <= goal and (part or fig.pss <= 300 * MIB) else "OVER"
        spread = f" (pairs {fig.spread[0]:.2f}-{fig.spread[1]:.2f}x)" if n > 1 else ""
        extra = f", {size / MIB / fig.seconds:.0f} MB/s, {fig.seconds / floor:.2f}x the read floor" if not part else ""
        print(f"  => {name} {fig.part}: {fig.wall:.2f}x ripgrep's wall time{spread}, {fig.cpu:.2f}x its CPU time"
              f"{extra}, peak {fig.pss >> 20} MiB PSS  [{verdict}: goal <= {goal}x"
              f"{', <= 300 MiB' if not part else ''}]", flush=True)
    return figures


def load() -> str:
    return " ".join(f"{x:.1f}" for x in os.getloadavg())

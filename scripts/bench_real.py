"""`make bench` (real part): the full scan against ripgrep on a tree built from real parts, side by side.

The tree (`.bench/real`, cached) holds pip-installed torch, transformers and the LLM SDKs, the npm agent products
of the eval developer machine (their 100–400 MB executables), a copy of the host's `/usr` (hard links, so it
costs no space) and 500 MB of JSONL agent sessions made from the real sample records. ripgrep runs with the
patterns the catalog compiles and the same number of processes as `--jobs`; the read floor is every byte read
by that many processes, from the page cache as both tools read. On the full tree the two tools run in turn,
BENCH_PAIRS times (3), and the median pair's ratio is the figure. The 10% and 1% subsets (every 10th / 100th
file, hard-linked) show how cost grows.
"""

from __future__ import annotations

import os
import random
import shutil
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from dataclasses import dataclass
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
BENCH = REPO / ".bench"
REAL = BENCH / "real"
STAMP = BENCH / "real.version"
VERSION = "1"
JOBS = 2
PAIRS = int(os.environ.get("BENCH_PAIRS", "3"))  # alternating runs of both tools on the full tree
MIB = 1 << 20
PIP = ["torch==2.13.0", "transformers==4.57.1", "openai", "anthropic", "litellm", "google-genai", "mistralai"]
SAMPLES = Path("/work/shared/samples") if Path("/work/shared/samples").is_dir() else REPO.parent / "shared/samples"


def _run(*cmd: str, **kw: object) -> None:
    subprocess.run(list(cmd), check=True, **kw)  # type: ignore[call-overload]


def build() -> None:
    if STAMP.is_file() and STAMP.read_text().strip() == VERSION and REAL.is_dir():
        return
    shutil.rmtree(REAL, ignore_errors=True)
    REAL.mkdir(parents=True)
    site = REAL / "opt/ml/venv/lib/python3.11/site-packages"
    _run(sys.executable, "-m", "pip", "install", "--quiet", "--no-compile", "--target", str(site), *PIP)
    modules = REPO / ".eval/dev-machine/root/usr/lib/node_modules"
    dest = REAL / "usr/lib/node_modules"
    dest.parent.mkdir(parents=True, exist_ok=True)
    if modules.is_dir():
        _run("cp", "-al", str(modules), str(dest)) if _same_fs(modules, REAL) else _run("cp", "-a", str(modules),
                                                                                          str(dest))
    else:
        _run("npm", "install", "-g", "--silent", "--prefix", str(REAL / "usr"), "--os", "linux", "--cpu", "x64",
             "@anthropic-ai/claude-code@2.1.332", "@openai/codex@0.171.0", "opencode-ai@1.18.33")
    host_usr = REAL / "host/usr"
    host_usr.parent.mkdir(parents=True)
    if _same_fs(Path("/usr"), REAL):
        subprocess.run(["cp", "-al", "/usr", str(host_usr)], check=False, stderr=subprocess.DEVNULL)
    else:
        for part in ("lib/python3", "share"):
            subprocess.run(["cp", "-a", f"/usr/{part}", str(host_usr / part)], check=False, stderr=subprocess.DEVNULL)
    _sessions(REAL / "home/agent", 500 * MIB)
    for pct in (10, 1):
        _subset(pct)
    STAMP.write_text(VERSION + "\n")


def _same_fs(a: Path, b: Path) -> bool:
    return os.stat(a).st_dev == os.stat(b).st_dev


def _sessions(home: Path, total: int) -> None:
    """JSONL sessions of Claude Code and Codex shape: the real sample records, with fresh ids, until `total`."""
    rng = random.Random(20261201)
    sources = [SAMPLES / "claude-code/session-basic.jsonl", SAMPLES / "codex-cli/rollout-session-basic.jsonl",
               SAMPLES / "codex-cli/rollout-session-reasoning-head.jsonl"]
    records = [line for src in sources if src.exists() for line in src.read_text().splitlines() if line.strip()]
    written = n = 0
    while written < total:
        sid = f"{rng.getrandbits(128):032x}"
        if n % 2:
            path = home / f".claude/projects/-home-agent-app/{sid}.jsonl"
        else:
            path = home / f".codex/sessions/2026/11/{n % 28 + 1:02d}/rollout-{sid}.jsonl"
        path.parent.mkdir(parents=True, exist_ok=True)
        body = "\n".join(records[rng.randrange(len(records))] for _ in range(4000)) + "\n"
        path.write_text(body)
        written += len(body)
        n += 1


def _subset(pct: int) -> None:
    root = BENCH / f"real-{pct}"
    shutil.rmtree(root, ignore_errors=True)
    for i, path in enumerate(sorted(p for p in REAL.rglob("*") if p.is_file() and not p.is_symlink())):
        if i % (100 // pct) == 0:
            dest = root / path.relative_to(REAL)
            dest.parent.mkdir(parents=True, exist_ok=True)
            os.link(path, dest)


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
    if status:
        sys.exit(f"{cmd[0]} failed (status {status}): {' '.join(cmd)}")
    return Run(seconds, usage.ru_utime + usage.ru_stime, pss, rss)


def read_floor(root: Path, jobs: int) -> float:
    files = sorted(str(p) for p in root.rglob("*") if p.is_file() and not p.is_symlink())
    shards = [files[i::jobs] for i in range(jobs)]
    code = "import sys\nfor p in sys.stdin.read().split('\\0'):\n    if p:\n        open(p,'rb').read()\n"
    started = time.perf_counter()
    procs = [subprocess.Popen([sys.executable, "-c", code], stdin=subprocess.PIPE) for _ in shards]
    for proc, shard in zip(procs, shards, strict=True):
        assert proc.stdin is not None
        proc.stdin.write("\0".join(shard).encode("utf-8", "surrogateescape"))
        proc.stdin.close()
    for proc in procs:
        proc.wait()
    return time.perf_counter() - started


def measure(root: Path, patterns: Path, out: Path) -> None:
    files = sum(1 for p in root.rglob("*") if p.is_file() and not p.is_symlink())
    size = sum(p.stat().st_size for p in root.rglob("*") if p.is_file() and not p.is_symlink())
    cold = read_floor(root, JOBS)  # warms the page cache for both tools
    floor = read_floor(root, JOBS)  # both tools read from the page cache: so does the floor they are set against
    scan_cmd = [str(REPO / ".venv/bin/modelcensus"), "scan", str(root), "-f", "json", "-q", "-o",
                str(out / f"{root.name}.json"), "--jobs", str(JOBS)]
    print(f"{root.name}: {files} files, {size / 1e9:.2f} GB; read floor ({JOBS} processes) {floor:.1f} s "
          f"from the page cache ({cold:.1f} s the first time) [load {_load()}]")
    rg = shutil.which("rg")
    if not rg:
        mc = timed(scan_cmd, out / f"{root.name}.out")
        print(f"  modelcensus --jobs {JOBS}: {mc.seconds:6.1f} s, {mc.cpu:6.1f} CPU-s; peak {mc.pss >> 20} MiB PSS")
        print("  ripgrep is not on PATH (apt-get install ripgrep) - no ratio")
        return
    cmd = [rg, "-a", "--no-unicode", "--hidden", "--no-ignore", "-j", str(JOBS), "-c", "-f", str(patterns),
           str(root)]
    # The two run in turn, pair by pair: a shared machine's speed drifts over minutes, and a ratio taken
    # within a pair is meaningful where one taken across the whole call is not. The median pair is the figure.
    pairs: list[tuple[Run, Run]] = []
    for n in range(PAIRS if root == REAL else 1):
        mc = timed(scan_cmd, out / f"{root.name}.out")
        r = timed(cmd, out / "rg.out")
        pairs.append((mc, r))
        print(f"  pair {n + 1}: modelcensus --jobs {JOBS} {mc.seconds:6.1f} s, {mc.cpu:6.1f} CPU-s, "
              f"{mc.pss >> 20} MiB PSS ({mc.rss >> 20} MiB summed RSS) | ripgrep -j {JOBS} {r.seconds:6.1f} s, "
              f"{r.cpu:6.1f} CPU-s, {r.pss >> 20} MiB PSS | {mc.seconds / r.seconds:.2f}x [load {_load()}]")
    ratio = statistics.median(mc.seconds / r.seconds for mc, r in pairs)
    cpu = statistics.median(mc.cpu / max(r.cpu, 0.1) for mc, r in pairs)
    seconds = statistics.median(mc.seconds for mc, _ in pairs)
    pss = max(mc.pss for mc, _ in pairs)
    verdict = "ok" if ratio <= 1.0 and pss <= 300 * MIB else "OVER"
    spread = f" (pairs {min(mc.seconds / r.seconds for mc, r in pairs):.2f}-" \
             f"{max(mc.seconds / r.seconds for mc, r in pairs):.2f}x)" if len(pairs) > 1 else ""
    print(f"  => {root.name}: {ratio:.2f}x ripgrep's time{spread} (CPU {cpu:.2f}x), {size / MIB / seconds:.0f} MB/s, "
          f"{seconds / floor:.2f}x the read floor, peak {pss >> 20} MiB PSS  [{verdict}: goal <= 1.0x, <= 300 MiB]")


def _load() -> str:
    return " ".join(f"{x:.1f}" for x in os.getloadavg())


def main() -> None:
    from bench import patterns_file  # scripts/ is this script's directory: the one list of rg patterns

    build()
    with tempfile.TemporaryDirectory(prefix="modelcensus-bench-") as out:  # .bench may be shared read-only
        patterns = patterns_file(Path(out))
        for root in (REAL, BENCH / "real-10", BENCH / "real-1"):
            measure(root, patterns, Path(out))
    if os.getloadavg()[0] > (os.cpu_count() or 1) / 2:
        print(f"note: load average {os.getloadavg()[0]:.1f}; other processes are skewing the wall times")


if __name__ == "__main__":
    main()

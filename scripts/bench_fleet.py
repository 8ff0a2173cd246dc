"""`make bench` (fleet part): targets per minute for 50 small targets, on a 2-worker LocalCluster and in a
sequential loop of `modelcensus scan`, with the peak memory of one scan. Needs the `fleet` extra."""

from __future__ import annotations

import shutil
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

import psutil

REPO = Path(__file__).resolve().parent.parent
TARGETS = 50
WORKERS = 2


def make_targets(root: Path) -> Path:
    """50 copies of sample_vm, each with one model changed, so that no two are the same target."""
    rows = ["name,path,release"]
    for i in range(TARGETS):
        dest = root / f"vm{i:02d}"
        shutil.copytree(REPO / "sample_vm", dest, symlinks=True)
        (dest / "etc" / "bench.env").write_text(f"ANTHROPIC_MODEL=claude-sonnet-4-{i % 9}\n")
        rows.append(f"vm{i:02d},{dest},{'A' if i % 2 else 'B'}")
    manifest = root / "fleet.csv"
    manifest.write_text("\n".join(rows) + "\n")
    return manifest


class PeakRss:
    """Samples every scan process below this one: the peak RSS of one scan, and of one scan with the process that
    started it (a dask worker in fleet mode), which is what one worker costs."""

    def __init__(self) -> None:
        self.peak_scan = 0
        self.peak_worker = 0
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)

    def _run(self) -> None:
        me = psutil.Process()
        while not self._stop.is_set():
            for p in me.children(recursive=True):
                try:
                    if "scan" not in p.cmdline() or "fleet" in p.cmdline():
                        continue
                    scan = p.memory_info().rss
                    parent = p.parent()
                    owner = parent.memory_info().rss if parent and parent.pid != me.pid else 0
                except psutil.Error:
                    continue
                self.peak_scan = max(self.peak_scan, scan)
                self.peak_worker = max(self.peak_worker, scan + owner)
            time.sleep(0.1)

    def __enter__(self) -> PeakRss:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        self._thread.join()


def main() -> None:
    try:
        import distributed  # noqa: F401
        import duckdb  # noqa: F401
    except ImportError:
        print("fleet: skipped (the fleet extra is not installed)")
        return
    with tempfile.TemporaryDirectory(prefix="modelcensus-bench-fleet-") as tmp:
        root = Path(tmp)
        manifest = make_targets(root)
        paths = [line.split(",")[1] for line in manifest.read_text().splitlines()[1:]]
        started = time.monotonic()
        with PeakRss() as seq_mem:
            for p in paths:
                subprocess.run([sys.executable, "-m", "scanner", "scan", p, "-f", "json", "-o", str(root / "o.json"),
                                "-q"], check=True)
        sequential = time.monotonic() - started
        started = time.monotonic()
        with PeakRss() as fleet_mem:
            subprocess.run([sys.executable, "-m", "scanner", "fleet", "scan", str(manifest), "--store",
                            str(root / "fleet.duckdb"), "--workers", str(WORKERS), "-q"], check=True)
        fleet = time.monotonic() - started
    print(f"fleet: {TARGETS} targets (sample_vm copies), {WORKERS} workers")
    print(f"  sequential loop : {sequential:6.1f} s  {TARGETS / sequential * 60:6.1f} targets/min  "
          f"peak RSS of one scan {seq_mem.peak_scan >> 20} MiB")
    print(f"  fleet scan      : {fleet:6.1f} s  {TARGETS / fleet * 60:6.1f} targets/min  "
          f"peak RSS of one scan {fleet_mem.peak_scan >> 20} MiB, of one worker with its scan "
          f"{fleet_mem.peak_worker >> 20} MiB  ({sequential / fleet:.2f}x the loop's rate)")


if __name__ == "__main__":
    main()

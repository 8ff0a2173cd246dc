"""Run a fleet on dask.distributed: one task per target, retried by dask, folded into the store as they finish.

By default a LocalCluster on this machine (one worker process per core, one thread each); with a scheduler
address, a real cluster whose workers have modelcensus installed. No scheduling of our own.
"""

from __future__ import annotations

import logging
import os
import sys
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from scanner.fleet import FLEET_EXTRA_HINT, FleetError
from scanner.fleet.manifest import FleetTarget
from scanner.fleet.store import FleetStore
from scanner.fleet.task import ScanLimits, TaskResult, run_target


@dataclass(frozen=True)
class FleetRun:
    scheduler: str | None = None  # tcp://HOST:8786; None starts a LocalCluster
    workers: int | None = None  # LocalCluster workers; None: one per usable core
    retries: int = 2
    rescan: bool = False


@dataclass
class FleetSummary:
    total: int
    scanned: int = 0
    unchanged: int = 0
    failed: int = 0

    def line(self) -> str:
        return (
            f"{self.total} target{'s' if self.total != 1 else ''}: {self.scanned} scanned, "
            f"{self.unchanged} unchanged, {self.failed} failed"
        )


Progress = Callable[[FleetSummary, int, float], None]  # summary so far, running, seconds elapsed


def run_fleet(
    targets: Sequence[FleetTarget],
    store: FleetStore,
    limits: ScanLimits,
    catalogs_key: str,
    run: FleetRun,
    progress: Progress | None = None,
) -> FleetSummary:
    try:
        from dask.distributed import Client, LocalCluster, as_completed
    except ImportError:
        raise FleetError(FLEET_EXTRA_HINT) from None
    stored = store.stored()
    known = {
        t.name: s.fingerprint
        for t in targets
        if (s := stored.get(t.name)) and s.status == "scanned" and s.catalogs == catalogs_key and not run.rescan
    }
    summary = FleetSummary(len(targets))
    started = time.monotonic()
    cluster = None
    try:
        if run.scheduler:
            client = Client(run.scheduler, timeout=30)
        else:
            n = run.workers or _usable_cores()
            # A failed target is a recorded result, not a worker error worth a traceback on the user's terminal.
            cluster = LocalCluster(
                n_workers=n, threads_per_worker=1, processes=True, dashboard_address=None, silence_logs=logging.CRITICAL
            )
            client = Client(cluster)
    except (OSError, TimeoutError) as exc:
        raise FleetError(f"cannot start or reach the dask scheduler: {exc}") from None
    try:
        slots = max(1, sum(w.get("nthreads", 1) for w in client.scheduler_info()["workers"].values()))
        by_key = {}
        futures = []
        for i, t in enumerate(targets):
            fut = client.submit(
                run_target, t, limits, known.get(t.name), key=f"modelcensus-scan-{i}", retries=run.retries, pure=False
            )
            by_key[fut.key] = t
            futures.append(fut)
        pending = len(futures)
        for fut in as_completed(futures):
            pending -= 1
            target = by_key[fut.key]
            if fut.status == "error":
                store.put_failed(target, _one_line(fut.exception()))
                summary.failed += 1
            else:
                _fold(store, target, fut.result(), catalogs_key, summary)
            fut.release()
            if progress:
                progress(summary, min(pending, slots), time.monotonic() - started)
    finally:
        client.close()
        if cluster is not None:
            cluster.close()
    return summary


def _fold(store: FleetStore, target: FleetTarget, result: TaskResult, catalogs_key: str, summary: FleetSummary) -> None:
    if result.status == "unchanged" or result.inventory is None:
        store.relabel(target)
        summary.unchanged += 1
    else:
        store.put_scanned(target, result.inventory, result.fingerprint, catalogs_key, result.seconds)
        summary.scanned += 1


def _one_line(exc: BaseException | None) -> str:
    if exc is None:
        return "failed"
    text = str(exc).strip().splitlines()
    return (text[0] if text else type(exc).__name__)[:500]


def stderr_progress(summary: FleetSummary, running: int, elapsed: float) -> None:
    done = summary.scanned + summary.unchanged + summary.failed
    left = summary.total - done
    eta = f"{elapsed / done * left:.0f} s" if done and left else "-"
    line = f"{done}/{summary.total} done, {summary.failed} failed, {running} running, ETA {eta}"
    if sys.stderr.isatty():
        sys.stderr.write(f"\r\x1b[K{line}")
        if not left:
            sys.stderr.write("\r\x1b[K")
    elif left == 0 or done % max(1, summary.total // 20) == 0:
        sys.stderr.write(line + "\n")
    sys.stderr.flush()


def _usable_cores() -> int:
    if hasattr(os, "sched_getaffinity"):
        return max(1, len(os.sched_getaffinity(0)))
    return os.cpu_count() or 1

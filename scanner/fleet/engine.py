"""Run a fleet on dask.distributed: one task per target, retried by dask, folded into the store as they finish.

By default a LocalCluster on this machine (one worker process per core, one thread each); with a scheduler
address, a real cluster whose workers have modelcensus installed. No scheduling of our own.
"""

from __future__ import annotations

import contextlib
import logging
import socket
import sys
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from typing import Any

from scanner.fleet import FLEET_EXTRA_HINT, FleetError, one_line
from scanner.fleet.fingerprint import target_fingerprint
from scanner.fleet.manifest import FleetTarget
from scanner.fleet.store import FleetStore, StoredTarget
from scanner.fleet.task import ScanLimits, TaskResult, run_target
from scanner.options import usable_cores


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
CONNECT_SECONDS = 10.0


@dataclass(frozen=True)
class Plan:
    """What a run does: targets to scan (each with the fingerprint of its stored result, if any) and targets
    already known unchanged (only relabelled: no cluster is needed for them)."""

    submit: tuple[tuple[FleetTarget, str | None], ...]
    unchanged: tuple[FleetTarget, ...] = ()


def plan_run(targets: Sequence[FleetTarget], stored: dict[str, StoredTarget], catalogs_key: str,
             run: FleetRun) -> Plan:
    """On a local cluster the targets are this machine's paths: a target whose fingerprint matches its stored
    result is settled here, and a run with nothing to scan starts no cluster. A remote cluster's workers see the
    targets; they compare fingerprints themselves."""
    known = {t.name: s.fingerprint for t in targets
             if (s := stored.get(t.name)) and s.status == "scanned" and s.catalogs == catalogs_key and not run.rescan}
    if run.scheduler:
        return Plan(tuple((t, known.get(t.name)) for t in targets))
    submit, unchanged = [], []
    for t in targets:
        fp = known.get(t.name)
        if fp is not None and _fingerprint(t.path) == fp:
            unchanged.append(t)
        else:
            submit.append((t, None))  # the task fingerprints it again, for the result it stores
    return Plan(tuple(submit), tuple(unchanged))


def _fingerprint(path: str) -> str | None:
    try:
        return target_fingerprint(path)
    except OSError:
        return None  # the task records the error


def check_scheduler(address: str) -> None:
    """A clear error for an address dask cannot parse, and for a tcp/tls scheduler nothing listens at, before
    any store is created or a client waits for its timeout."""
    try:
        from distributed.comm.addressing import parse_address, parse_host_port
    except ImportError:
        raise FleetError(FLEET_EXTRA_HINT) from None
    try:
        scheme, location = parse_address(address)
        if scheme not in ("tcp", "tls"):
            return
        host, port = parse_host_port(location)
    except (ValueError, TypeError) as exc:
        raise FleetError(f"--scheduler {address!r}: not a dask scheduler address ({exc}); "
                         "expected tcp://HOST:PORT") from None
    try:
        socket.create_connection((host, port), timeout=CONNECT_SECONDS).close()
    except OSError as exc:
        raise FleetError(f"--scheduler {address}: cannot reach the dask scheduler "
                         f"({exc.strerror or exc or 'timed out'})") from None


@contextlib.contextmanager
def fleet_client(run: FleetRun) -> Iterator[Any]:
    """A dask client of the scheduler given, or of a LocalCluster started for the run (closed after)."""
    try:
        from dask.distributed import Client, LocalCluster
    except ImportError:
        raise FleetError(FLEET_EXTRA_HINT) from None
    cluster = None
    try:
        if run.scheduler:
            check_scheduler(run.scheduler)
            client = Client(run.scheduler, timeout=CONNECT_SECONDS)
        else:
            n = run.workers or usable_cores()
            # A failed target is a recorded result, not a worker error worth a traceback on the user's terminal.
            cluster = LocalCluster(
                n_workers=n, threads_per_worker=1, processes=True, dashboard_address=None, silence_logs=logging.CRITICAL
            )
            client = Client(cluster)
    except (OSError, TimeoutError, ValueError) as exc:
        if cluster is not None:
            cluster.close()
        raise FleetError(f"cannot start or reach the dask scheduler: {exc}") from None
    try:
        yield client
    finally:
        client.close()
        if cluster is not None:
            cluster.close()


def run_fleet(
    targets: Sequence[FleetTarget],
    store: FleetStore,
    limits: ScanLimits,
    catalogs_key: str,
    run: FleetRun,
    progress: Progress | None = None,
) -> FleetSummary:
    plan = plan_run(targets, store.stored(), catalogs_key, run)
    if not plan.submit:
        return execute(plan, None, store, limits, catalogs_key, run.retries, progress)
    with fleet_client(run) as client:
        return execute(plan, client, store, limits, catalogs_key, run.retries, progress)


def execute(plan: Plan, client: Any, store: FleetStore, limits: ScanLimits, catalogs_key: str, retries: int,
            progress: Progress | None = None) -> FleetSummary:
    """Relabel what the plan settled, scan the rest on the client, fold each result into the store."""
    try:
        from dask.distributed import as_completed
    except ImportError:
        raise FleetError(FLEET_EXTRA_HINT) from None
    summary = FleetSummary(len(plan.submit) + len(plan.unchanged))
    started = time.monotonic()
    for t in plan.unchanged:
        store.relabel(t)
        summary.unchanged += 1
    if not plan.submit:
        if progress:
            progress(summary, 0, time.monotonic() - started)
        return summary
    slots = max(1, sum(w.get("nthreads", 1) for w in client.scheduler_info()["workers"].values()))
    by_key = {}
    futures = []
    for i, (t, known) in enumerate(plan.submit):
        fut = client.submit(run_target, t, limits, known, key=f"modelcensus-scan-{i}", retries=retries,
                            pure=False)
        by_key[fut.key] = t
        futures.append(fut)
    pending = len(futures)
    for fut in as_completed(futures):
        pending -= 1
        target = by_key[fut.key]
        if fut.status == "error":
            store.put_failed(target, one_line(str(fut.exception() or "")) or "failed")
            summary.failed += 1
        else:
            _fold(store, target, fut.result(), catalogs_key, summary)
        fut.release()
        if progress:
            progress(summary, min(pending, slots), time.monotonic() - started)
    return summary


def _fold(store: FleetStore, target: FleetTarget, result: TaskResult, catalogs_key: str, summary: FleetSummary) -> None:
    if result.status == "unchanged" or result.inventory is None:
        store.relabel(target)
        summary.unchanged += 1
    else:
        store.put_scanned(target, result.inventory, result.fingerprint, catalogs_key, result.seconds)
        summary.scanned += 1


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



"""One fleet task: scan one target as `modelcensus scan` does, through the library in a subprocess (`worker.py`)
that is the fence: bounded in time and memory, its own session ended on a timeout.

Runs on a dask worker. A task that cannot produce an inventory raises `ScanFailed`, so that dask's own retries
apply; a target whose fingerprint and catalogs match the stored result is not scanned again (`unchanged`).
"""

from __future__ import annotations

import contextlib
import json
import os
import signal
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass

import psutil

from scanner.fleet import one_line
from scanner.fleet.fingerprint import target_fingerprint
from scanner.fleet.manifest import FleetTarget

_POLL_SECONDS = 0.2


class ScanFailed(Exception):
    """The scan of one target gave no inventory: timed out, over its memory limit, or exited with an error."""


@dataclass(frozen=True)
class ScanLimits:
    timeout: float  # seconds per attempt
    memory: int  # bytes of resident memory of the scan process and its children
    catalogs: tuple[str, ...] = ()  # extra catalog files or directories, passed to every scan
    max_file_size: int | None = None  # bytes


@dataclass(frozen=True)
class TaskResult:
    name: str
    status: str  # scanned | unchanged
    fingerprint: str
    seconds: float
    inventory: str | None = None  # the inventory JSON, as `scan -f json` wrote it


def run_target(target: FleetTarget, limits: ScanLimits, known_fingerprint: str | None) -> TaskResult:
    started = time.monotonic()
    try:
        fingerprint = target_fingerprint(target.path)
    except OSError as exc:
        raise ScanFailed(f"{target.path}: {exc.strerror or exc}") from None
    if known_fingerprint == fingerprint:
        return TaskResult(target.name, "unchanged", fingerprint, round(time.monotonic() - started, 3))
    with tempfile.TemporaryDirectory(prefix="modelcensus-fleet-") as tmp:
        out = os.path.join(tmp, "inventory.json")
        _run_scan(target, limits, out)
        with open(out, encoding="utf-8") as f:
            inventory = f.read()
    return TaskResult(target.name, "scanned", fingerprint, round(time.monotonic() - started, 3), inventory)


def worker_command(target: FleetTarget, limits: ScanLimits, out: str) -> list[str]:
    """The scan of one target through the library (`worker.py`), its request written beside its output."""
    request = out + ".request.json"
    with open(request, "w", encoding="utf-8") as f:
        json.dump({"path": target.path, "out": out, "catalogs": list(limits.catalogs),
                   "max_file_size": limits.max_file_size}, f)
    return [sys.executable, "-m", "scanner.fleet.worker", request]


def _run_scan(target: FleetTarget, limits: ScanLimits, out: str) -> None:
    timeout = target.timeout or limits.timeout
    # Its own session, so that a timeout ends the scan and anything it started, and the worker's cwd stays
    # out of it: a modelcensus.toml beside the worker must not change a fleet scan, nor may the worker's
    # MODELCENSUS_* variables (an --exclude or --severity of its own would cut the stored inventory).
    env = {k: v for k, v in os.environ.items() if not k.startswith("MODELCENSUS_")}
    err_path = out + ".stderr"
    with open(err_path, "wb") as err_file:
        proc = subprocess.Popen(
            worker_command(target, limits, out),
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=err_file,  # a file, not a pipe: a chatty scan can never block on a full pipe
            cwd=os.path.dirname(out),
            env=env,
            start_new_session=True,
        )
    deadline = time.monotonic() + timeout
    reason = None
    try:
        watched = psutil.Process(proc.pid)
        while proc.poll() is None:
            if time.monotonic() > deadline:
                reason = f"timed out after {timeout:g} s"
                break
            if _rss(watched) > limits.memory:
                reason = f"over the memory limit of {limits.memory >> 20} MiB"
                break
            time.sleep(_POLL_SECONDS)
    except psutil.NoSuchProcess:
        pass
    if reason:
        _kill(proc)
        raise ScanFailed(reason)
    proc.wait()
    with open(err_path, "rb") as f:
        err = f.read(1 << 16).decode("utf-8", "replace")
    if proc.returncode not in (0, 1) or not os.path.exists(out):
        lines = [ln for ln in err.strip().splitlines() if ln.strip()]
        # The scan's own one-line error, without its `modelcensus: error:` prefix: the CLI adds one when it shows it.
        raise ScanFailed(one_line(lines[-1])[:500] if lines else f"the scan exited with status {proc.returncode}")


def _rss(proc: psutil.Process) -> int:
    total = 0
    for p in [proc, *proc.children(recursive=True)]:
        try:
            total += p.memory_info().rss
        except psutil.Error:
            continue
    return total


def _kill(proc: subprocess.Popen[bytes]) -> None:
    with contextlib.suppress(ProcessLookupError):
        os.killpg(proc.pid, signal.SIGKILL)
    proc.wait()

"""The per-file work of a scan on every core: forked workers analyse batches of files, the parent folds in order.

The YARA-X binding holds the GIL, so threads would not help; processes do. Workers are forked once the catalog
is compiled, so each starts with the compiled rules and the target already open (copy-on-write, no start-up
cost), and reads files itself: only `FileEntry`s go out and pickled `FileResult`s come back. The parent keeps a
bounded window of batches in flight and yields their results strictly in walk order, so the inventory is the same
bytes whatever the number of workers. A target is shared with workers only when its backend says it may be
(`shareable`: positional reads only, no state a fork could tear): host directories and container images.
"""

from __future__ import annotations

import contextlib
import gc
import multiprocessing
import pickle
import signal
import time
from collections import deque
from collections.abc import Callable, Iterator
from concurrent.futures import Future, ProcessPoolExecutor

from scanner.analysis import analyze_file
from scanner.filework import FileResult, FileWork
from scanner.model import Skip
from scanner.targets.base import FileEntry

# Each batch costs the parent a submit and a fold through the executor's queues and pipes (~1.5 ms): /usr's
# 100k small files in batches of 64 spent 5-6% of the scan's CPU there; in batches of 256, a quarter of that.
BATCH_FILES = 256
BATCH_BYTES = 32 << 20  # a batch of many small files, or of a few big ones
# Batches are folded in walk order, so one slow batch (a 400 MB executable, matched window by window) holds
# the fold back while the other workers go on: they idle once the window of batches in flight is used up.
# The window is therefore measured in bytes of work (a big file counts whole, windows included) and is
# wide: the results of finished batches wait in the parent, small next to the bytes they came from.
IN_FLIGHT_BYTES_PER_WORKER = 1 << 30
IN_FLIGHT_BATCHES_PER_WORKER = 16  # 4,096 small files a worker, as many entries held as before
# Results wait pickled (a location is 18 bytes there, 120 as an object) and are
# unpickled when their batch is folded; once this many bytes of them wait behind a slow batch, no batch is
# submitted until it is folded (a session log quoting a price list gives hundreds of thousands of mentions).
WAITING_RESULT_BYTES = 64 << 20

_work: FileWork | None = None  # set in the parent just before the fork; each worker inherits it
_told_to_stop = False  # in a worker: SIGTERM came, the batch in hand ends at its next file

# A stopped worker is given this long to end the file in hand before it is killed.
STOP_GRACE_SECONDS = 10.0


class WorkerStopped(Exception):
    """A batch cut short because its worker was told to stop: it fails rather than give a partial result."""


# A batch in flight: its walked items, the files sent, their pickled results to come, the bytes they hold.
_Pending = tuple[list[FileEntry | Skip], list[FileEntry], "Future[bytes]", int]

# Most files give nothing: their result crosses back as (files read, bytes read), not a pickled FileResult.
_Sent = FileResult | tuple[int, int]


def _analyze(batch: list[FileEntry]) -> bytes:
    """The batch's results, pickled here: the parent keeps them so until it folds them, and knows their size."""
    assert _work is not None
    out: list[_Sent] = []
    for entry in batch:
        if _told_to_stop:
            raise WorkerStopped("the scan's worker was told to stop")
        result = analyze_file(_work, entry)
        out.append(result if result.items else (result.files_read, result.bytes_read))
    return pickle.dumps(out, pickle.HIGHEST_PROTOCOL)


def _received(sent: _Sent) -> FileResult:
    return FileResult([], sent[0], sent[1]) if isinstance(sent, tuple) else sent


def _batches(work: FileWork) -> Iterator[tuple[list[FileEntry | Skip], int]]:
    """Batches in walk order, each with the bytes its files hold (the work it costs)."""
    batch: list[FileEntry | Skip] = []
    files = size = 0
    for item in work.target.walk():
        batch.append(item)
        if isinstance(item, FileEntry):
            files += 1
            size += item.size
        if files >= BATCH_FILES or size >= BATCH_BYTES:
            yield batch, size
            batch, files, size = [], 0, 0
    if batch:
        yield batch, size


def pooled_results(
    work: FileWork, jobs: int, is_repeat: Callable[[FileEntry], bool]
) -> Iterator[tuple[FileEntry | Skip, FileResult | None]]:
    global _work
    _ = work.catalog.matcher  # compiled before the fork, once for every worker
    _work = work
    # What exists now (the catalog, its indexes, the interpreter's modules) is shared with the workers page
    # for page; a collection in a worker would write to every object's header and copy those pages. Frozen
    # objects are left out of collections (unfrozen again when the pool is done, in the parent).
    gc.freeze()
    pending: deque[_Pending] = deque()
    in_flight = 0
    pool = new_pool(jobs)
    try:
        for batch, size in _batches(work):
            files = [i for i in batch if isinstance(i, FileEntry) and not is_repeat(i)]
            pending.append((batch, files, _submit(pool, files), size))
            in_flight += size
            while len(pending) >= jobs * IN_FLIGHT_BATCHES_PER_WORKER or len(pending) > 1 and (
                in_flight >= jobs * IN_FLIGHT_BYTES_PER_WORKER or _waiting(pending) >= WAITING_RESULT_BYTES
            ):
                batch, files, fut, size = pending.popleft()
                in_flight -= size
                yield from _fold(batch, files, fut)
        while pending:
            batch, files, fut, _ = pending.popleft()
            yield from _fold(batch, files, fut)
    except BaseException:
        stop_pool(pool)  # Ctrl-C or an error: the workers end at their next file, not after the batches they hold
        raise
    else:
        pool.shutdown()
    finally:
        _work = None
        gc.unfreeze()
        for _, _, fut, _ in pending:
            fut.cancel()


def new_pool(jobs: int) -> ProcessPoolExecutor:
    return ProcessPoolExecutor(max_workers=jobs, mp_context=multiprocessing.get_context("fork"),
                               initializer=_worker_signals)


# Ctrl-C reaches every process of the terminal's foreground group. The workers ignore it (each would print its
# own KeyboardInterrupt traceback); the parent alone handles it and ends them. The first submit forks every
# worker, so SIGINT is blocked around it: a worker is never interrupted before its initializer runs.
# A worker is ended by SIGTERM, but never in the middle of sending a result: the executor's thread would wait
# for the rest of that message for ever, and the interpreter's exit waits for that thread. So SIGTERM only says
# "stop": the batch in hand ends at its next file, and the worker exits when the executor tells it to.
def _worker_signals() -> None:
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGTERM, _stop_told)
    signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGINT})


def _stop_told(signum: int, frame: object) -> None:
    global _told_to_stop
    _told_to_stop = True


def _waiting(pending: deque[_Pending]) -> int:
    """Bytes of the pickled results that wait to be folded."""
    return sum(len(fut.result()) for _, _, fut, _ in pending if fut.done() and not fut.exception())


def _submit(pool: ProcessPoolExecutor, files: list[FileEntry]) -> Future[bytes]:
    blocked = signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT})
    try:
        return pool.submit(_analyze, files)
    finally:
        signal.pthread_sigmask(signal.SIG_SETMASK, blocked)


def stop_pool(pool: ProcessPoolExecutor) -> None:
    """End the pool now: batches not started are cancelled, those in hand end at their next file. A worker still
    in one file after the grace is killed (its result, if it was sending one, is the only thing lost)."""
    # The executor's own thread is joined once its workers are gone: left running, it would close its wake-up
    # pipe while the interpreter's exit hook writes to it (an "Exception ignored … Bad file descriptor").
    workers = list((getattr(pool, "_processes", None) or {}).values())
    manager = getattr(pool, "_executor_manager_thread", None)
    pool.shutdown(wait=False, cancel_futures=True)
    for proc in workers:
        with contextlib.suppress(OSError, ValueError):
            proc.terminate()
    deadline = time.monotonic() + STOP_GRACE_SECONDS  # one grace for all the workers, not one each
    for proc in workers:
        with contextlib.suppress(OSError, ValueError, AssertionError):
            proc.join(timeout=max(0.0, deadline - time.monotonic()))
            if proc.is_alive():
                proc.kill()
                proc.join(timeout=5)
    if manager is not None:
        manager.join(timeout=10)


def _fold(
    batch: list[FileEntry | Skip], files: list[FileEntry], fut: Future[bytes]
) -> Iterator[tuple[FileEntry | Skip, FileResult | None]]:
    """The batch in walk order, each analysed file with its result; None for skips and repeats."""
    sent: list[_Sent] = pickle.loads(fut.result())
    results = {id(entry): _received(r) for entry, r in zip(files, sent, strict=True)}
    for item in batch:
        yield item, results.get(id(item))

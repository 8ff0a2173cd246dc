"""The whole flow on one screen: target -> files -> detectors -> evidence -> inventory.

Each file's analysis is one function of (entry, its bytes) to a `FileResult`: its evidence and skips, in the order
the detectors gave them. The builder folds results in walk order, so the inventory does not depend on which
worker of a pool (`jobs` > 1, `scanner.pool`) finished first: `--jobs 1` and `--jobs 4` give the same bytes.
"""

from __future__ import annotations

import gc
import time
from collections.abc import Callable, Iterable, Iterator, Sequence
from contextlib import contextmanager

from scanner import __version__
from scanner.analysis import analyze_file
from scanner.catalog import Catalog
from scanner.detectors import DETECTORS, Detector, configured
from scanner.filework import FileResult, FileWork
from scanner.inventory.builder import Extend, InventoryBuilder
from scanner.kinds import Evidence, Inventory
from scanner.model import Skip, Stats
from scanner.options import ScanOptions
from scanner.readonce import RepeatFilter, SeenFiles, relocate
from scanner.targets.base import FileEntry, Target
from scanner.targets.ownership import Ownership

Progress = Callable[[Stats, str], None]


def scan(
    target: Target,
    catalog: Catalog,
    options: ScanOptions,
    detectors: Sequence[Detector] = DETECTORS,
    progress: Progress | None = None,
    extra: Iterable[Evidence | Skip] = (),
    extend: Extend | None = None,
) -> Inventory:
    """The inventory of a target; `extra` is evidence seen outside its files (a live process's environment),
    `extend` adds to the built inventory what is not evidence (a live audit's processes) before its findings.

    With `options.jobs` > 1 the per-file work runs in forked workers when the target can be shared with them."""
    started = time.monotonic()
    stats = Stats()
    builder = InventoryBuilder(catalog)
    builder.add_all(extra)
    work = FileWork(target, catalog, options, configured(detectors, options.turned_off), Ownership.of(target))
    seen = SeenFiles()
    with _fewer_collections():
        _fold_all(work, builder, stats, seen, progress)
    stats.seconds = round(time.monotonic() - started, 3)
    return builder.build(__version__, target.info, stats, extend)


# The cyclic collector's default (a young collection every 700 net allocations) was 3% of a full scan: a
# record's parse allocates a few dozen containers that die at once by reference count, and the parent's
# inventory only grows, so its full collections walked the whole of it again and again. Young collections
# every 50,000 allocations and full ones ten times rarer keep what cycles there are (few: none of the
# per-file work makes any) bounded, at a fraction of the cost. Forked workers inherit the setting.
_SCAN_THRESHOLDS = (50_000, 20, 100)


@contextmanager
def _fewer_collections() -> Iterator[None]:
    before = gc.get_threshold()
    gc.set_threshold(*_SCAN_THRESHOLDS)
    try:
        yield
    finally:
        gc.set_threshold(*before)


def _fold_all(
    work: FileWork, builder: InventoryBuilder, stats: Stats, seen: SeenFiles, progress: Progress | None
) -> None:
    """Every walked file's result, folded into the builder in walk order."""
    for item, result in _results(work, work.options.jobs, RepeatFilter()):
        if isinstance(item, Skip):
            builder.skip(item)
            continue
        stats.files_seen += 1
        if progress and stats.files_seen % 500 == 0:
            progress(stats, item.path)
        if result is None:  # a second path to a file already analysed: its result, relocated, without a read
            first = seen.first(item)
            if first is not None:
                builder.add_all(relocate(first[1], first[0], item))
                continue
            result = analyze_file(work, item)  # its first result was past the keeping bound: read it again
        builder.add_all(result.items)
        seen.keep(item, result.items)
        stats.files_read += result.files_read
        stats.bytes_read += result.bytes_read



def _results(
    work: FileWork, jobs: int, is_repeat: Callable[[FileEntry], bool]
) -> Iterator[tuple[FileEntry | Skip, FileResult | None]]:
    """Every walked item with its result in walk order; None for a skip and for a repeat (not analysed)."""
    if jobs > 1 and work.target.shareable:
        from scanner.pool import pooled_results

        yield from pooled_results(work, jobs, is_repeat)
        return
    for item in work.target.walk():
        if isinstance(item, Skip) or is_repeat(item):
            yield item, None
        else:
            yield item, analyze_file(work, item)



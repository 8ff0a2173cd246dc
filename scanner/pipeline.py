"""The whole flow on one screen: target -> files -> detectors -> evidence -> inventory.

Each file's analysis is one function of (entry, its bytes) to a `FileResult`: its evidence and skips, in the order
the detectors gave them. The builder folds results in walk order, so the inventory does not depend on which
worker of a pool (`jobs` > 1, `scanner.pool`) finished first: `--jobs 1` and `--jobs 4` give the same bytes.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, field

from scanner import __version__
from scanner.catalog import Catalog
from scanner.catalog.matcher import MAX_DISTINCT_PER_PATTERN, MatchTimeout
from scanner.detectors import DETECTORS, Detector, FileView
from scanner.inventory.builder import InventoryBuilder
from scanner.model import Evidence, Inventory, Skip, SkipReason, Stats
from scanner.options import ScanOptions
from scanner.readonce import RepeatFilter, SeenFiles, relocate
from scanner.targets.base import FileEntry, ReadFailure, Target
from scanner.targets.ownership import Ownership
from scanner.textsafe import display_path

Progress = Callable[[Stats, str], None]


@dataclass
class FileResult:
    """What one file gave: evidence and skips in order, and what was read. Built in a worker, folded by the parent."""

    items: list[Evidence | Skip] = field(default_factory=list)
    files_read: int = 0
    bytes_read: int = 0

    def add_all(self, evidence: Iterable[Evidence | Skip]) -> None:
        self.items.extend(evidence)

    def skip(self, skip: Skip) -> None:
        self.items.append(skip)


@dataclass(frozen=True)
class FileWork:
    """Everything the per-file analysis needs, the same in the parent and in every worker."""

    target: Target
    catalog: Catalog
    options: ScanOptions
    detectors: Sequence[Detector]
    ownership: Ownership


def scan(
    target: Target,
    catalog: Catalog,
    options: ScanOptions,
    detectors: Sequence[Detector] = DETECTORS,
    progress: Progress | None = None,
    extra: Iterable[Evidence | Skip] = (),
) -> Inventory:
    """The inventory of a target; `extra` is evidence seen outside its files (a live process's environment).

    With `options.jobs` > 1 the per-file work runs in forked workers when the target can be shared with them."""
    started = time.monotonic()
    stats = Stats()
    builder = InventoryBuilder(catalog)
    builder.add_all(extra)
    work = FileWork(target, catalog, options, detectors, Ownership.of(target))
    seen = SeenFiles()
    for item, result in _results(work, options.jobs, RepeatFilter()):
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
    stats.seconds = round(time.monotonic() - started, 3)
    return builder.build(__version__, target.info, stats)


def _results(
    work: FileWork, jobs: int, is_repeat: Callable[[FileEntry], bool]
) -> Iterator[tuple[FileEntry | Skip, FileResult | None]]:
    """Every walked item with its result in walk order; None for a skip and for a repeat (not analysed)."""
    if jobs > 1 and getattr(work.target, "shareable", False):
        from scanner.pool import pooled_results

        yield from pooled_results(work, jobs, is_repeat)
        return
    for item in work.target.walk():
        if isinstance(item, Skip) or is_repeat(item):
            yield item, None
        else:
            yield item, analyze_file(work, item)


def analyze_file(work: FileWork, entry: FileEntry) -> FileResult:
    """One file: read it (bounded), run every detector that wants it; a failure costs this file, never the scan."""
    out = FileResult()
    target, options = work.target, work.options
    shown = display_path(entry.path)
    try:
        result = target.read(entry, options.max_file_size)
    except ReadFailure as failure:
        out.skip(Skip(shown, failure.reason, failure.detail))
        return out
    if result.truncated:
        detail = f"read the first {len(result.data)} of {entry.size} bytes"
        out.skip(Skip(shown, SkipReason.TOO_LARGE, detail))
    out.files_read += 1
    out.bytes_read += len(result.data)
    layer = target.origin_of(entry.path)
    view = FileView(entry, result.data, work.catalog, work.ownership.meta, target.read_path, layer=layer)
    for detector in work.detectors:
        try:
            if detector.wants(view):
                out.add_all(detector.extract(view))
        except MatchTimeout as exc:
            out.skip(Skip(shown, SkipReason.DETECTOR_ERROR, f"{detector.name}: {exc}"))
        except (KeyboardInterrupt, SystemExit):
            raise
        except BaseException as exc:  # a detector bug (or a native panic) must cost one file, never the scan
            out.skip(Skip(shown, SkipReason.DETECTOR_ERROR, f"{detector.name}: {type(exc).__name__}"))
    cut = getattr(view.__dict__.get("hits"), "cut", 0)
    if cut:
        detail = f"{cut} match(es) of values past {MAX_DISTINCT_PER_PATTERN} distinct per catalog pattern not kept"
        out.skip(Skip(shown, SkipReason.CAP_REACHED, detail))
    return out

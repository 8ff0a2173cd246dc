"""The whole flow on one screen: target -> files -> detectors -> evidence -> inventory."""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable, Sequence

from scanner import __version__
from scanner.catalog import Catalog
from scanner.catalog.matcher import MAX_DISTINCT_PER_PATTERN, MatchTimeout
from scanner.detectors import DETECTORS, Detector, FileView
from scanner.inventory.builder import InventoryBuilder
from scanner.model import Evidence, Inventory, Skip, SkipReason, Stats
from scanner.options import ScanOptions
from scanner.targets.base import FileEntry, ReadFailure, Target
from scanner.targets.ownership import Ownership
from scanner.textsafe import display_path

Progress = Callable[[Stats, str], None]


def scan(
    target: Target,
    catalog: Catalog,
    options: ScanOptions,
    detectors: Sequence[Detector] = DETECTORS,
    progress: Progress | None = None,
    extra: Iterable[Evidence | Skip] = (),
) -> Inventory:
    """The inventory of a target; `extra` is evidence seen outside its files (a live process's environment)."""
    started = time.monotonic()
    stats = Stats()
    builder = InventoryBuilder(catalog)
    for ev in extra:
        if isinstance(ev, Skip):
            builder.skip(ev)
        else:
            builder.add(ev)
    ownership = Ownership.of(target)
    for item in target.walk():
        if isinstance(item, Skip):
            builder.skip(item)
            continue
        stats.files_seen += 1
        if progress and stats.files_seen % 500 == 0:
            progress(stats, item.path)
        _scan_file(target, item, catalog, options, detectors, ownership, builder, stats)
    stats.seconds = round(time.monotonic() - started, 3)
    return builder.build(__version__, target.info, stats)


def _scan_file(
    target: Target,
    entry: FileEntry,
    catalog: Catalog,
    options: ScanOptions,
    detectors: Sequence[Detector],
    ownership: Ownership,
    builder: InventoryBuilder,
    stats: Stats,
) -> None:
    shown = display_path(entry.path)
    try:
        result = target.read(entry, options.max_file_size)
    except ReadFailure as failure:
        builder.skip(Skip(shown, failure.reason, failure.detail))
        return
    if result.truncated:
        detail = f"read the first {len(result.data)} of {entry.size} bytes"
        builder.skip(Skip(shown, SkipReason.TOO_LARGE, detail))
    stats.files_read += 1
    stats.bytes_read += len(result.data)
    view = FileView(entry, result.data, catalog, ownership.meta, target.read_path)
    for detector in detectors:
        try:
            if detector.wants(view):
                builder.add_all(detector.extract(view))
        except MatchTimeout as exc:
            builder.skip(Skip(shown, SkipReason.DETECTOR_ERROR, f"{detector.name}: {exc}"))
        except (KeyboardInterrupt, SystemExit):
            raise
        except BaseException as exc:  # a detector bug (or a native panic) must cost one file, never the scan
            builder.skip(Skip(shown, SkipReason.DETECTOR_ERROR, f"{detector.name}: {type(exc).__name__}"))
    cut = getattr(view.__dict__.get("hits"), "cut", 0)
    if cut:
        detail = f"{cut} match(es) of values past {MAX_DISTINCT_PER_PATTERN} distinct per catalog pattern not kept"
        builder.skip(Skip(shown, SkipReason.CAP_REACHED, detail))

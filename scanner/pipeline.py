"""The whole flow on one screen: target -> files -> detectors -> evidence -> inventory."""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass

from scanner import __version__
from scanner.catalog import Catalog
from scanner.catalog.matcher import MatchTimeout
from scanner.detectors import DETECTORS, Detector, FileView
from scanner.detectors.base import Window
from scanner.inventory.builder import InventoryBuilder
from scanner.model import Context, Evidence, Inventory, Skip, SkipReason, Stats
from scanner.options import ScanOptions
from scanner.targets.base import FileEntry, ReadFailure, Target
from scanner.targets.container.layers import DecompressionLimit
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


# Bytes of left context each later window repeats before the part it owns: enough for a word boundary,
# the token around a hit and the text a credential needs nearby (content detector: 300 bytes at most).
WINDOW_CONTEXT = 4096


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
    overlap = max(options.window_overlap, 2 * WINDOW_CONTEXT)
    # A file past the cap is parsed from its head only; the head owns the hits up to the first window's.
    start = max(0, len(result.data) - overlap)
    boundary = start + WINDOW_CONTEXT if start else 0
    window = Window(0, 0, boundary) if result.truncated else None
    stats.files_read += 1
    stats.bytes_read += len(result.data)
    layer = target.origin_of(entry.path)
    view = FileView(entry, result.data, catalog, ownership.meta, target.read_path, layer=layer, window=window)
    windowed = [d for d in detectors if _run(d, view, builder, shown) and getattr(d, "windowed", False)]
    if not result.truncated:
        return
    if not view.is_binary:
        detail = f"parsed the first {len(result.data)} of {entry.size} bytes; patterns matched in all of it"
        builder.skip(Skip(shown, SkipReason.TOO_LARGE, detail))
    rest = _Rest(
        start=start,
        owned_from=boundary - start,
        line=1 if view.is_binary else 1 + result.data.count(b"\n", 0, start),
        seen=len(result.data),
        head=result.data[:16],
        context=view.context,
        layer=layer,
    )
    del view, result  # the head can be large: only one window is held at a time
    _match_windows(target, entry, catalog, options, windowed, ownership, builder, stats, rest)


@dataclass
class _Rest:
    """Where matching resumes past the head: the next window's offset, where its owned part starts
    (relative to it), its first line, how many bytes were read already, and the file's head facts."""

    start: int
    owned_from: int
    line: int
    seen: int
    head: bytes
    context: Context
    layer: str | None


def _match_windows(
    target: Target,
    entry: FileEntry,
    catalog: Catalog,
    options: ScanOptions,
    detectors: Sequence[Detector],
    ownership: Ownership,
    builder: InventoryBuilder,
    stats: Stats,
    rest: _Rest,
) -> None:
    """The rest of a file past --max-file-size, in windows that overlap; each hit is owned by one window."""
    shown = display_path(entry.path)
    overlap = max(options.window_overlap, 2 * WINDOW_CONTEXT)
    size = max(options.window_size, 2 * overlap)
    while rest.start < entry.size:
        try:
            data = target.read_window(entry, rest.start, size)
        except ReadFailure as failure:
            builder.skip(Skip(shown, failure.reason, f"at byte {rest.start}: {failure.detail}"))
            return
        except DecompressionLimit as exc:  # a container layer inflated past its cap: what came before stands
            builder.skip(Skip(shown, SkipReason.DECOMPRESSION_LIMIT, f"matched up to byte {rest.start}: {exc}"))
            return
        last = len(data) < size or rest.start + len(data) >= entry.size
        owned_to = len(data) if last else len(data) - overlap + WINDOW_CONTEXT
        window = Window(rest.start, rest.owned_from, owned_to, rest.line, rest.head)
        view = FileView(entry, data, catalog, ownership.meta, target.read_path, layer=rest.layer, window=window)
        view.__dict__["context"] = rest.context  # a window is classified by the file's head, not its own bytes
        stats.bytes_read += max(0, rest.start + len(data) - rest.seen)
        rest.seen = max(rest.seen, rest.start + len(data))
        for detector in detectors:
            _run(detector, view, builder, shown, ask=False)
        if last:
            return
        if rest.context is not Context.BINARY:
            rest.line += data.count(b"\n", 0, len(data) - overlap)
        rest.start += len(data) - overlap
        rest.owned_from = WINDOW_CONTEXT


def _run(detector: Detector, view: FileView, builder: InventoryBuilder, shown: str, ask: bool = True) -> bool:
    """Run one detector on a view; True when it wanted the view. A failure costs this file, never the scan."""
    try:
        if ask and not detector.wants(view):
            return False
        builder.add_all(detector.extract(view))
    except MatchTimeout as exc:
        builder.skip(Skip(shown, SkipReason.DETECTOR_ERROR, f"{detector.name}: {exc}"))
    except (KeyboardInterrupt, SystemExit):
        raise
    except BaseException as exc:  # a detector bug (or a native panic) must cost one file, never the scan
        builder.skip(Skip(shown, SkipReason.DETECTOR_ERROR, f"{detector.name}: {type(exc).__name__}"))
    return True

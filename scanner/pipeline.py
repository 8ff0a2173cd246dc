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
from dataclasses import dataclass, field

from scanner import __version__
from scanner.catalog import Catalog
from scanner.catalog.matcher import MAX_DISTINCT_PER_PATTERN, MatchTimeout
from scanner.detectors import DETECTORS, Detector, FileView
from scanner.detectors.base import Window
from scanner.detectors.binaries import EXECUTABLE_MAGICS
from scanner.inventory.builder import Extend, InventoryBuilder
from scanner.kinds import Evidence, Inventory
from scanner.model import Context, Skip, SkipReason, Stats
from scanner.options import ScanOptions
from scanner.readonce import RepeatFilter, SeenFiles, relocate
from scanner.skipgroups import grouped
from scanner.targets.base import FileEntry, ReadFailure, Target
from scanner.targets.ownership import Ownership
from scanner.textsafe import display_path

Progress = Callable[[Stats, str], None]


@dataclass
class FileResult:
    """What one file gave: evidence and skips in order (a file's many skips of one reason grouped into one), and
    what was read. Built in a worker, folded by the parent."""

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
    extend: Extend | None = None,
) -> Inventory:
    """The inventory of a target; `extra` is evidence seen outside its files (a live process's environment),
    `extend` adds to the built inventory what is not evidence (a live audit's processes) before its findings.

    With `options.jobs` > 1 the per-file work runs in forked workers when the target can be shared with them."""
    started = time.monotonic()
    stats = Stats()
    builder = InventoryBuilder(catalog)
    builder.add_all(extra)
    work = FileWork(target, catalog, options, detectors, Ownership.of(target))
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


# Bytes of left context each later window repeats before the part it owns: enough for a word boundary,
# the token around a hit and the text a credential needs nearby (content detector: 300 bytes at most).
WINDOW_CONTEXT = 4096


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
    head_size = _head_size(work, entry)
    try:
        result = target.read(entry, head_size)
    except ReadFailure as failure:
        out.skip(Skip(shown, failure.reason, failure.detail))
        return out
    overlap = max(options.window_overlap, 2 * WINDOW_CONTEXT)
    # A file past the cap is parsed from its head only; the head owns the hits up to the first window's.
    start = max(0, len(result.data) - overlap)
    boundary = start + WINDOW_CONTEXT if start else 0
    window = Window(0, 0, boundary, read=_reader(target, entry)) if result.truncated else None
    out.files_read += 1
    out.bytes_read += len(result.data)
    layer = target.origin_of(entry.path)
    meta, read_path = work.ownership.meta, target.read_path
    view = FileView(entry, result.data, work.catalog, meta, read_path, layer=layer, window=window,
                    user_of=work.ownership.user_of)
    windowed = [d for d in work.detectors if _run(d, view, out, shown) and getattr(d, "windowed", False)]
    _record_cut(view, out, shown)
    if not result.truncated:
        out.items = grouped(out.items)
        return out
    # A file whose head is one window is parsed no less than before (no parser wants it): it is past what
    # would be parsed only when it is past --max-file-size, as any other file.
    parsed = len(result.data) if head_size == options.max_file_size else options.max_file_size
    if not view.is_binary and (head_size == options.max_file_size or entry.size > parsed):
        detail = f"parsed the first {parsed} of {entry.size} bytes; patterns matched in all of it"
        out.skip(Skip(shown, SkipReason.TOO_LARGE, detail))
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
    _match_windows(work, entry, windowed, out, rest)
    out.items = grouped(out.items)
    return out


# A big file is read for its head as one window when nothing but matching wants it: executables (the
# binaries detector's magics; nothing parses an executable whole, all its detectors are windowed) and files
# that only the content detector wants (a JVM `modules` image, static archives, a 70 MB package list). Two
# workers on two such files then hold two windows, not two 64 MB heads. What a format needs from elsewhere in
# an executable (ELF section headers, Go build info) is read positionally (`Window.read`), and so is a big jar
# (its zip directory at the end, then the members asked for: a `positional` detector). Which detectors want
# a file is asked of a view of its first 64 KiB, what session sniffing looks at; a daemon log (whose session
# mentions are looked for in all of its head) is parsed from its head as before.
_PEEK = 64 << 10
_MATCH_ONLY = frozenset({"content"})


def _head_size(work: FileWork, entry: FileEntry) -> int:
    """How much of a file is read at once for its head: --max-file-size, or one window (see above)."""
    target, options = work.target, work.options
    small = options.window_size
    if entry.size <= small or small >= options.max_file_size:
        return options.max_file_size
    try:
        peek = target.read_window(entry, 0, _PEEK)
    except ReadFailure:
        return options.max_file_size  # the read proper records why
    # An executable's headers hold NUL bytes: a text file that merely starts with `MZ` is not one.
    if peek.startswith(EXECUTABLE_MAGICS) and b"\0" in peek[:8192]:
        return small
    view = FileView(
        entry, peek, work.catalog, work.ownership.meta, target.read_path, layer=target.origin_of(entry.path),
        user_of=work.ownership.user_of,
    )
    if view.context is Context.LOG:
        return options.max_file_size
    for detector in work.detectors:
        if detector.name not in _MATCH_ONLY and not getattr(detector, "positional", False) and _wants(detector, view):
            return options.max_file_size
    return small


def _wants(detector: Detector, view: FileView) -> bool:
    try:
        return detector.wants(view)
    except Exception:  # noqa: BLE001 - asked again on the real view, where a failure is recorded
        return True


def _reader(target: Target, entry: FileEntry) -> Callable[[int, int], bytes]:
    def read(offset: int, size: int) -> bytes:
        try:
            return target.read_window(entry, offset, size)
        except ReadFailure:
            return b""  # the file changed or went away: the windows record it

    return read


def _record_cut(view: FileView, out: FileResult, shown: str) -> None:
    cut = getattr(view.__dict__.get("hits"), "cut", 0)
    if cut:
        detail = f"{cut} match(es) of values past {MAX_DISTINCT_PER_PATTERN} distinct per catalog pattern not kept"
        out.skip(Skip(shown, SkipReason.CAP_REACHED, detail))


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
    work: FileWork, entry: FileEntry, detectors: Sequence[Detector], out: FileResult, rest: _Rest
) -> None:
    """The rest of a file past --max-file-size, in windows that overlap; each hit is owned by one window."""
    target, options = work.target, work.options
    shown = display_path(entry.path)
    overlap = max(options.window_overlap, 2 * WINDOW_CONTEXT)
    size = max(options.window_size, 2 * overlap)
    while rest.start < entry.size:
        try:
            data = target.read_window(entry, rest.start, size)
        except ReadFailure as failure:  # a container layer past its inflation cap too: what came before stands
            out.skip(Skip(shown, failure.reason, f"at byte {rest.start}: {failure.detail}"))
            return
        last = len(data) < size or rest.start + len(data) >= entry.size
        owned_to = len(data) if last else len(data) - overlap + WINDOW_CONTEXT
        window = Window(rest.start, rest.owned_from, owned_to, rest.line, rest.head, _reader(target, entry))
        meta, read_path = work.ownership.meta, target.read_path
        view = FileView(entry, data, work.catalog, meta, read_path, layer=rest.layer, window=window,
                        user_of=work.ownership.user_of)
        view.__dict__["context"] = rest.context  # a window is classified by the file's head, not its own bytes
        out.bytes_read += max(0, rest.start + len(data) - rest.seen)
        rest.seen = max(rest.seen, rest.start + len(data))
        for detector in detectors:
            _run(detector, view, out, shown, ask=False)
        _record_cut(view, out, shown)
        if last:
            return
        if rest.context is not Context.BINARY:
            rest.line += data.count(b"\n", 0, len(data) - overlap)
        rest.start += len(data) - overlap
        rest.owned_from = WINDOW_CONTEXT


def _run(detector: Detector, view: FileView, out: FileResult, shown: str, ask: bool = True) -> bool:
    """Run one detector on a view; True when it wanted the view. A failure costs this file, never the scan."""
    try:
        if ask and not detector.wants(view):
            return False
        out.add_all(detector.extract(view))
    except MatchTimeout as exc:
        out.skip(Skip(shown, SkipReason.DETECTOR_ERROR, f"{detector.name}: {exc}"))
    except (KeyboardInterrupt, SystemExit):
        raise
    except BaseException as exc:  # a detector bug (or a native panic) must cost one file, never the scan
        out.skip(Skip(shown, SkipReason.DETECTOR_ERROR, f"{detector.name}: {type(exc).__name__}"))
    return True

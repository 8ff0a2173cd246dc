"""One file's analysis: read it (bounded), run every detector that wants it, then its later windows if it is
larger than --max-file-size. A pure function of (entry, its bytes) to a `FileResult`, in the parent or a worker."""

from __future__ import annotations

from scanner.fileview.view import FileView, Window
from scanner.filework import FileResult, FileWork, record_cut, run_detector, window_reader
from scanner.model import Skip, SkipReason
from scanner.sightings import bundled
from scanner.skipgroups import grouped
from scanner.targets.base import FileEntry, ReadFailure
from scanner.textsafe import display_path
from scanner.windows import AGAIN_ON_WINDOWS, WINDOW_CONTEXT, Rest, head_size, match_windows


def analyze_file(work: FileWork, entry: FileEntry) -> FileResult:
    """One file: read it (bounded), run every detector that wants it; a failure costs this file, never the scan."""
    out = FileResult()
    target, options = work.target, work.options
    shown = display_path(entry.path)
    head = head_size(work, entry)
    try:
        result = target.read(entry, head)
    except ReadFailure as failure:
        out.skip(Skip(shown, failure.reason, failure.detail))
        return out
    overlap = max(options.window_overlap, 2 * WINDOW_CONTEXT)
    # A file past the cap is parsed from its head only; the head owns the hits up to the first window's.
    start = max(0, len(result.data) - overlap)
    boundary = start + WINDOW_CONTEXT if start else 0
    window = Window(0, 0, boundary, read=window_reader(target, entry)) if result.truncated else None
    out.files_read += 1
    out.bytes_read += len(result.data)
    layer = target.origin_of(entry.path)
    meta, read_path = work.ownership.meta, target.read_path
    view = FileView(entry, result.data, work.catalog, meta, read_path, layer=layer, window=window,
                    user_of=work.ownership.user_of)
    chosen = work.selection.of(view)
    for selected in chosen:
        run_detector(work, selected.detector, view, out, shown, selected.failure)
    record_cut(view, out, shown)
    if not result.truncated:
        return _finished(out)
    windowed = [s.detector for s in chosen if s.detector.needs.reading in AGAIN_ON_WINDOWS]
    # A file whose head is one window is parsed no less than before (no parser wants it): it is past what
    # would be parsed only when it is past --max-file-size, as any other file.
    parsed = len(result.data) if head == options.max_file_size else options.max_file_size
    if not view.is_binary and (head == options.max_file_size or entry.size > parsed):
        detail = f"parsed the first {parsed} of {entry.size} bytes; patterns matched in all of it"
        out.skip(Skip(shown, SkipReason.TOO_LARGE, detail))
    rest = Rest(
        start=start,
        owned_from=boundary - start,
        line=1 if view.is_binary else 1 + result.data.count(b"\n", 0, start),
        seen=len(result.data),
        head=result.data[:16],
        context=view.context,
        layer=layer,
    )
    del view, result  # the head can be large: only one window is held at a time
    match_windows(work, entry, windowed, out, rest)
    return _finished(out)


def _finished(out: FileResult) -> FileResult:
    """The file's many skips of one reason grouped, and its repeated sightings of one evidence bundled."""
    if len(out.items) > 1:  # most files give nothing, or one item: nothing to group or bundle
        out.items = bundled(grouped(out.items))
    return out



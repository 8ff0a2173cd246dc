"""A file larger than --max-file-size: how much of its head is read at once, and its later windows, matched in
overlapping windows so each hit is found exactly once."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from scanner.detectors.contract import Detector, Reading
from scanner.fileview.view import FileView, Window
from scanner.filework import FileResult, FileWork, record_cut, run_detector, window_reader
from scanner.formats.executables import is_executable
from scanner.model import Context, Skip
from scanner.targets.base import FileEntry, ReadFailure
from scanner.textsafe import display_path

# Bytes of left context each later window repeats before the part it owns: enough for a word boundary,
# the token around a hit and the text a credential needs nearby (content detector: 300 bytes at most).
WINDOW_CONTEXT = 4096


# A big file is read for its head as one window when nothing but matching wants it: executables (the
# binaries detector's magics; nothing parses an executable whole, all its detectors are windowed) and files
# that only the content detector wants (a JVM `modules` image, static archives, a 70 MB package list). Two
# workers on two such files then hold two windows, not two 64 MB heads. What a format needs from elsewhere in
# an executable (ELF section headers, Go build info) is read positionally (`Window.read`), and so is a big jar
# (its zip directory at the end, then the members asked for: a `positional` detector). Which detectors want
# a file is asked of a view of its first 64 KiB, what session sniffing looks at; a daemon log (whose session
# mentions are looked for in all of its head) is parsed from its head as before.
_PEEK = 64 << 10
_HEAD_NOT_PARSED = frozenset({Reading.MATCH_ONLY, Reading.POSITIONAL})
AGAIN_ON_WINDOWS = frozenset({Reading.WINDOWS, Reading.MATCH_ONLY})


def head_size(work: FileWork, entry: FileEntry) -> int:
    """How much of a file is read at once for its head: --max-file-size, or one window (see above)."""
    target, options = work.target, work.options
    small = options.window_size
    if entry.size <= small or small >= options.max_file_size:
        return options.max_file_size
    try:
        peek = target.read_window(entry, 0, _PEEK)
    except ReadFailure:
        return options.max_file_size  # the read proper records why
    if is_executable(peek):
        return small
    view = FileView(
        entry, peek, work.catalog, work.ownership.meta, target.read_path, layer=target.origin_of(entry.path),
        user_of=work.ownership.user_of,
    )
    if view.context is Context.LOG:
        return options.max_file_size
    # A detector whose question failed counts as needing it: asked again on the real view, its failure is recorded.
    if any(s.detector.needs.reading not in _HEAD_NOT_PARSED for s in work.selection.of(view)):
        return options.max_file_size
    return small



@dataclass
class Rest:
    """Where matching resumes past the head: the next window's offset, where its owned part starts
    (relative to it), its first line, how many bytes were read already, and the file's head facts."""

    start: int
    owned_from: int
    line: int
    seen: int
    head: bytes
    context: Context
    layer: str | None



def match_windows(
    work: FileWork, entry: FileEntry, detectors: Sequence[Detector], out: FileResult, rest: Rest
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
        window = Window(rest.start, rest.owned_from, owned_to, rest.line, rest.head, window_reader(target, entry))
        meta, read_path = work.ownership.meta, target.read_path
        # A window is classified by the file's head, not its own bytes.
        view = FileView(entry, data, work.catalog, meta, read_path, layer=rest.layer, window=window,
                        user_of=work.ownership.user_of, fixed_context=rest.context)
        out.bytes_read += max(0, rest.start + len(data) - rest.seen)
        rest.seen = max(rest.seen, rest.start + len(data))
        for detector in detectors:
            run_detector(work, detector, view, out, shown)
        record_cut(view, out, shown)
        if last:
            return
        if rest.context is not Context.BINARY:
            rest.line += data.count(b"\n", 0, len(data) - overlap)
        rest.start += len(data) - overlap
        rest.owned_from = WINDOW_CONTEXT



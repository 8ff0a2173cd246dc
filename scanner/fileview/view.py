"""The view of one file that every detector shares.

The view is built once per file: its bytes are read once, the catalog matcher runs on them at most once
(`hits`), and the text, its config parse and its session read are made at most once, whichever detectors ask.
"""

from __future__ import annotations

from array import array
from bisect import bisect_right
from collections.abc import Callable
from dataclasses import dataclass, field

from scanner.catalog import Catalog
from scanner.catalog.matcher import Hits, PatternKind
from scanner.fileview.config_parse import NEVER_FAILS, ConfigParse, Parser, config_parser, parse_config
from scanner.fileview.contexts import classify, is_comment_line
from scanner.fileview.gzipped import Inflated, inflate, sniffed_head
from scanner.fileview.once import once
from scanner.formats.config import BudgetExceeded, ConfigItem
from scanner.formats.package_manifests import NpmManifest, PypiMetadata, read_npm_manifest, read_pypi_metadata
from scanner.model import Context, FileMeta, Location, SkipReason
from scanner.sessions.collect import LogRead, looks_like_log, read_log
from scanner.sessions.reader import GZIP_MAGIC
from scanner.targets.base import FileEntry
from scanner.targets.ownership import home_of_path
from scanner.textsafe import decode, display_path


@dataclass(frozen=True)
class Window:
    """Where a view's bytes sit in a file matched in overlapping windows (one larger than --max-file-size).

    A hit belongs to the window its start falls in (`owned_from` <= start < `owned_to`, relative to the
    view's data), so a match across a window edge is found exactly once; the bytes before `owned_from`
    are left context (word boundaries, the token around a hit). Offsets in the view stay relative to its
    data; `offset` makes them absolute and `line_base` keeps line numbers those of the whole file.
    """

    offset: int
    owned_from: int
    owned_to: int
    line_base: int = 1
    head: bytes = b""  # the file's first bytes (its magic), for windows past the head
    # A bounded positional read of the whole file (offset, size -> bytes): what a format needs beyond the
    # window (an ELF section table at the file's end, build info running past the window's edge).
    read: Callable[[int, int], bytes] | None = field(default=None, compare=False, repr=False)

    def owns(self, start: int) -> bool:
        return self.owned_from <= start < self.owned_to


@dataclass
class FileView:
    entry: FileEntry
    data: bytes
    catalog: Catalog
    owner_of: Callable[[FileEntry], FileMeta]
    read_path: Callable[[str, int], bytes | None]
    layer: str | None = None  # the container image layer the file came from
    # The user whose home holds a path (the target's passwd, read once per scan: Ownership.user_of).
    user_of: Callable[[str], str | None] = field(default=home_of_path, compare=False, repr=False)
    # Set when the view holds one window of a larger file; None when it holds the whole file.
    window: Window | None = None
    # The context its bytes are read in when not their own (a later window is its file's head's; derived
    # bytes are their file's).
    fixed_context: Context | None = field(default=None, repr=False)
    _line_cursor: tuple[int, int] = field(default=(0, 1), init=False, repr=False, compare=False)
    # The line cursors and marks below are the view's own bookkeeping: never passed in, never compared.
    # Lines counted so far: (offset, line) marks at least _LINE_MARK bytes apart, in order, up to the farthest
    # offset asked. An offset behind it (a second pass over the file's hits: the content pass after the session
    # read) is counted from the mark before it, so each newline is counted about once. Both are made when the
    # first line is asked (most views are asked none).
    _mark_offsets: array[int] | None = field(default=None, init=False, repr=False, compare=False)
    _mark_lines: array[int] | None = field(default=None, init=False, repr=False, compare=False)
    # (offset, start of its line)
    _start_cursor: tuple[int, int] = field(default=(0, 0), init=False, repr=False, compare=False)
    _hits: Hits | None = field(default=None, init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        if self.window is not None:
            self._line_cursor = (0, self.window.line_base)

    @once
    def path(self) -> str:
        return display_path(self.entry.path)

    @once
    def via(self) -> str | None:
        return display_path(self.entry.via) if self.entry.via else None

    @once
    def name(self) -> str:
        return self.entry.path.rsplit("/", 1)[-1]

    @once
    def context(self) -> Context:
        if self.fixed_context is not None:
            return self.fixed_context
        if self.catalog.native_install(self.entry.path) is not None:
            # An agent product's own executable outside any package dir (a native installer's): what it ships,
            # like the same binary inside node_modules, not what the machine is wired to.
            return Context.PACKAGE
        return classify(self.entry.path, self.data[:8192])

    @property
    def hits(self) -> Hits:
        """The catalog's matches in the bytes it owns (matched once, on first use)."""
        if self._hits is None:
            # Source-code signatures are read by the source detector alone, in source files alone.
            hits = self.catalog.matcher.scan(self.data, signatures=self.context is Context.SOURCE)
            window = self.window
            if window is not None:
                owned = Hits(h for h in hits if window.owns(h.start))
                owned.cut = hits.cut
                hits = owned
            self._hits = hits
        return self._hits

    @property
    def cut_matches(self) -> int:
        """Matches the matcher left out past its bound; 0 when nothing matched the view."""
        return self._hits.cut if self._hits is not None else 0

    @once
    def text(self) -> str:
        return decode(self.data)

    @once
    def lines(self) -> list[str]:
        return self.text.splitlines()

    @once
    def config(self) -> ConfigParse | None:
        """The file's settings, parsed once whichever detector asks first (none writes to the view)."""
        if self.window is not None and self.window.offset:
            return None  # a config file past the read cap is parsed from its head only
        return parse_config(self)

    def items_as(self, parser: Parser) -> tuple[tuple[ConfigItem, ...], str | None]:
        """The file's items as `parser` reads them: the shared parse's when it read the file by that parser (a cut
        it made is its own to record), else a parse of its own; with the detail of a cut only that parse made. An
        item budget cuts a parse, never fails it; a file not in the parser's format raises ParseFailure."""
        shared = self.config
        usable = shared is not None and not shared.broken and (shared.skip is None or shared.skip.reason is _CUT)
        if shared is not None and usable and shared.parser is parser:
            return shared.items, None
        try:
            return tuple(parser(self.text)), None
        except BudgetExceeded as cut:
            return tuple(cut.items), cut.detail

    @once
    def parse_error(self) -> bool:
        """The file's format would not parse: every location in it says so. A reader that never fails is not run
        to ask (a Lua or HCL file is parsed only when a detector reads its settings)."""
        if config_parser(self) in NEVER_FAILS:
            return False
        return self.config is not None and self.config.broken

    @once
    def label_words(self) -> frozenset[str]:
        """Words of the file's labels and descriptions that no value of it sets (see `ConfigParse`)."""
        return self.config.label_words if self.config is not None else frozenset()

    @once
    def npm_manifest(self) -> NpmManifest | None:
        """The file read as an npm manifest (`package.json`), once whichever detector asks."""
        return read_npm_manifest(self.data)

    @once
    def pypi_metadata(self) -> PypiMetadata:
        """The file read as a PyPI distribution's `METADATA` / `PKG-INFO`, once whichever detector asks."""
        return read_pypi_metadata(self.data)

    @once
    def session_log(self) -> bool:
        """Whether the file may be an agent's session log or a capture of API traffic: its head has the shape of
        one (the session reader decides, `session_read`). A later window of a big file is judged by its first
        whole line."""
        if self.context is Context.PACKAGE:
            return False
        data = self.data
        if self.window is not None and self.window.offset:
            data = data[data.find(b"\n") + 1 :]
            return self.context in (Context.SESSION, Context.LOG) and looks_like_log(self.name, data)
        if data[:2] == GZIP_MAGIC:
            return looks_like_log(self.name, data, sniffed_head(data, self.inflated))
        return looks_like_log(self.name, data)

    @once
    def inflated(self) -> Inflated:
        """The file's gzip content, inflated bounded once for every reader (the compressed detector matches it, the
        session sniff reads its head)."""
        return inflate(self.data)

    @once
    def session_read(self) -> LogRead | None:
        """The file read as a session log, once for every detector that asks: its sessions, labels, hosts and
        the catalogued ids its conversation mentions (from this view's hits), and what a bound cut. None when the
        file has no session log's shape; empty (false) when it has, but no session was found in it."""
        if not self.session_log or (self.window is not None and self.window.offset):
            return None
        # A session log inside a test or fixture tree is a fixture: reported, never counted as wiring.
        context = Context.TEST if self.context is Context.TEST else Context.SESSION
        placed = self.context in (Context.SESSION, Context.LOG, Context.TEST)
        return read_log(
            self.entry.path, self.path, self.via, self.data, self.catalog, context, None, self._mentions(), placed
        )

    @once
    def conversation(self) -> bool:
        """Whether ids found in the file's bytes are a conversation's mentions, never wiring: a session log (only
        the session reader, which knows the role of each value, says what served it), or any file named or placed
        as one (`*.jsonl`, `…/sessions/*.json`: a prompt history, a dataset of chats). A fixture's stay `test`."""
        if self.context is Context.SESSION:
            return True
        if self.context is Context.TEST:
            return False
        if self.window is not None and self.window.offset:
            return self.session_log
        return bool(self.session_read)

    @once
    def session_labels(self) -> frozenset[str]:
        """The model labels the session reader read in this file's structure: what the content pass finds of them is
        the session's own model, no mention."""
        read = self.session_read
        return frozenset(seen.label for seen in read.labels) if read else frozenset()

    def _mentions(self) -> dict[int, set[str]]:
        """The catalogued model ids the file's bytes name, per line (this view's hits); a file without lines keeps
        them under -1. gzip content is not matched here (its inflated text is another view's), so a compressed log
        counts no mentions."""
        data = self.data
        if data[:2] == b"\x1f\x8b":
            return {}
        out: dict[int, set[str]] = {}
        names: dict[bytes, str] = {}
        # Lines counted here as `line_of` counts them, forward from the first line, but apart: its cursor is left
        # where it was, so the content pass that follows counts forward from the start, not back from the end.
        line, at, lines = self.window.line_base if self.window is not None else 1, 0, not self.is_binary
        for n, hit in enumerate(self.hits):
            if n >= _MAX_MENTION_HITS:
                break
            if hit.kind in _IDS:
                if lines:
                    line += data.count(b"\n", at, hit.start)
                    at = hit.start
                name = names.get(hit.text)
                if name is None:
                    name = names[hit.text] = decode(hit.text)
                out.setdefault(line if lines else -1, set()).add(name)
        return out

    @once
    def meta(self) -> FileMeta:
        return self.owner_of(self.entry)

    @property
    def head(self) -> bytes:
        """The first bytes of the file, whichever window this view holds."""
        return self.window.head if self.window is not None and self.window.offset else self.data[:16]

    @property
    def is_binary(self) -> bool:
        return self.context is Context.BINARY

    def line_of(self, offset: int) -> int | None:
        """1-based line of a byte offset; None for binaries. Newlines are counted from the last offset asked, or
        from the nearest mark before an offset behind it: asked in any order, each is counted about once."""
        if self.is_binary:
            return None
        last_offset, last_line = self._line_cursor
        offsets, lines = self._mark_offsets, self._mark_lines
        if offsets is None or lines is None:
            offsets = self._mark_offsets = array("q", [0])
            lines = self._mark_lines = array("q", [self.window.line_base if self.window is not None else 1])
        if offset < last_offset or last_offset < offsets[-1]:  # behind, or going over what was counted
            before = bisect_right(offsets, offset) - 1
            if offset < last_offset or offsets[before] > last_offset:
                last_offset, last_line = offsets[before], lines[before]
        line = last_line + self.data.count(b"\n", last_offset, offset)
        self._line_cursor = (offset, line)
        if offset >= offsets[-1] + _LINE_MARK:
            offsets.append(offset)
            lines.append(line)
        return line

    def line_text(self, offset: int) -> str:
        """The first 4 KiB of the line holding `offset`. Fast for increasing offsets: a line's start is searched
        back only to the last offset asked, so thousands of hits on one long line never rescan it."""
        last_offset, last_start = self._start_cursor
        if offset >= last_offset:
            found = self.data.rfind(b"\n", last_offset, offset)
            start = last_start if found == -1 else found + 1
        else:
            start = self.data.rfind(b"\n", 0, offset) + 1
        self._start_cursor = (offset, start)
        end = self.data.find(b"\n", start, start + 4096)
        return decode(self.data[start : end if end != -1 else start + 4096])

    def location(
        self,
        line: int | None,
        context: Context | None = None,
        parse_error: bool = False,
        offset: int | None = None,
    ) -> Location:
        """A location in this file; a line that is commented out makes it a `comment`."""
        ctx = context or self.context
        if ctx in _COMMENTABLE:
            if offset is not None:
                text = self.line_text(offset)
            elif line is not None and 0 < line <= len(self.lines):
                text = self.lines[line - 1]
            else:
                text = ""
            if is_comment_line(text):
                ctx = Context.COMMENT
        return Location(self.path, line, ctx, parse_error or self.parse_error, self.via, self.layer)


_IDS = (PatternKind.MODEL, PatternKind.HOSTED)
_LINE_MARK = 512  # bytes at least between two marks of the lines counted: at most 16 bytes of marks per 512 read

# Model hits of one file turned into per-line mentions, at most (the rest of a huge file's are not counted).
_MAX_MENTION_HITS = 50_000
# The shared config parse's skip when an item budget cut it: its items are what was read, and the cut recorded.
_CUT = SkipReason.BUDGET_EXCEEDED
# Contexts whose lines can be commented out; a mention on such a line is a comment, not a setting.
_COMMENTABLE = frozenset({Context.CONFIG, Context.ENV, Context.SOURCE})

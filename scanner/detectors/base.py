"""The detector contract and the view of one file that every detector shares.

A detector says which files it wants (`wants`, cheap: path, size, context) and extracts evidence from
a `FileView`. The view is built once per file: its bytes are read once, the catalog matcher runs on
them at most once (`hits`), and the text is decoded at most once, whichever detectors ask.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from functools import cached_property
from typing import Protocol

from scanner.catalog import Catalog
from scanner.catalog.matcher import Hit
from scanner.detectors.contexts import classify, is_comment_line
from scanner.model import Context, Evidence, FileMeta, Location, Skip
from scanner.targets.base import FileEntry
from scanner.textsafe import decode, display_path


@dataclass
class FileView:
    entry: FileEntry
    data: bytes
    catalog: Catalog
    owner_of: Callable[[FileEntry], FileMeta]
    read_path: Callable[[str, int], bytes | None]
    # Set by the config detector when the file's format would not parse; marks every location in it.
    parse_error: bool = False
    layer: str | None = None  # the container image layer the file came from
    # Set by the config detector: words of the file's labels and descriptions (`"name": "Qwen3 Coder 30B
    # (local)"`), minus every value the file sets; a catalog match that is only such a word is prose, not an id.
    label_words: frozenset[str] = frozenset()
    _line_cursor: tuple[int, int] = field(default=(0, 1), repr=False)

    @cached_property
    def path(self) -> str:
        return display_path(self.entry.path)

    @cached_property
    def via(self) -> str | None:
        return display_path(self.entry.via) if self.entry.via else None

    @cached_property
    def name(self) -> str:
        return self.entry.path.rsplit("/", 1)[-1]

    @cached_property
    def context(self) -> Context:
        if self.catalog.native_install(self.entry.path) is not None:
            # An agent product's own executable outside any package dir (a native installer's): what it ships,
            # like the same binary inside node_modules, not what the machine is wired to.
            return Context.PACKAGE
        return classify(self.entry.path, self.data[:8192])

    @cached_property
    def hits(self) -> list[Hit]:
        return self.catalog.matcher.scan(self.data)

    @cached_property
    def text(self) -> str:
        return decode(self.data)

    @cached_property
    def lines(self) -> list[str]:
        return self.text.splitlines()

    @cached_property
    def meta(self) -> FileMeta:
        return self.owner_of(self.entry)

    @property
    def is_binary(self) -> bool:
        return self.context is Context.BINARY

    def line_of(self, offset: int) -> int | None:
        """1-based line of a byte offset; None for binaries. Fast for increasing offsets."""
        if self.is_binary:
            return None
        last_offset, last_line = self._line_cursor
        if offset < last_offset:
            last_offset, last_line = 0, 1
        line = last_line + self.data.count(b"\n", last_offset, offset)
        self._line_cursor = (offset, line)
        return line

    def line_text(self, offset: int) -> str:
        start = self.data.rfind(b"\n", 0, offset) + 1
        end = self.data.find(b"\n", offset)
        return decode(self.data[start : end if end != -1 else len(self.data)][:4096])

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


# Contexts whose lines can be commented out; a mention on such a line is a comment, not a setting.
_COMMENTABLE = frozenset({Context.CONFIG, Context.ENV, Context.SOURCE})


class Detector(Protocol):
    name: str
    description: str

    def wants(self, view: FileView) -> bool: ...

    def extract(self, view: FileView) -> Iterable[Evidence | Skip]: ...

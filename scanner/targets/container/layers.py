"""A layer blob read as the tar stream it holds: plain, gzip or zstd, inflated on demand and bounded.

A gzip layer keeps checkpoints (a copy of the inflater every CHECKPOINT bytes of output), so reading any file of
it later costs at most one checkpoint's span of inflation, never a pass from the start: the walk reads files in
path order, not in the layer's order. A zstd layer reads forward and restarts only on a backward read. Inflation
is capped in bytes and in ratio: a bomb stops at the cap, which is reported, never trusted.
"""

from __future__ import annotations

import zlib
from dataclasses import dataclass
from typing import Any, Protocol

from scanner.formats.positional import PositionalFile
from scanner.targets.base import DecompressionLimit
from scanner.targets.container.blobs import Range
from scanner.targets.container.errors import ImageError

CHECKPOINT = 8 << 20
CHUNK = 1 << 20
MAX_INFLATED = 64 << 30  # bytes of tar stream one layer may inflate to
MAX_RATIO = 200  # ... and no more than this many times its compressed size (past MIN_FOR_RATIO)
MIN_FOR_RATIO = 256 << 20
ZSTD_MAX_WINDOW = 1 << 27


class LayerBytes(Protocol):
    compression: str

    def read_at(self, offset: int, size: int) -> bytes: ...


@dataclass
class PlainLayer:
    raw: Range
    compression: str = "none"

    def read_at(self, offset: int, size: int) -> bytes:
        return self.raw.read_at(offset, size)


class _Inflater:
    """One forward-only inflation of the blob from a given state (gzip members handled, multi-member too)."""

    def __init__(
        self, raw: Range, kind: str, pos_in: int = 0, state: Any = None, pos_out: int = 0, pending: bytes = b""
    ) -> None:
        self.raw, self.kind = raw, kind
        self.pos_in, self.pos_out = pos_in, pos_out
        self.pending = pending  # compressed bytes taken from the blob but not yet consumed
        self.state = state if state is not None else self._new()
        self.done = False

    def _new(self) -> Any:
        if self.kind == "gzip":
            return zlib.decompressobj(16 + zlib.MAX_WBITS)
        try:
            import zstandard
        except ImportError:
            raise ImageError("a zstd layer needs the zstandard package: pip install 'modelcensus[images]'") from None
        return zstandard.ZstdDecompressor(max_window_size=ZSTD_MAX_WINDOW).decompressobj()

    def step(self, want: int) -> bytes:
        """Up to `want` more bytes of output; b"" at the end."""
        while not self.done:
            if not self.pending:
                self.pending = self.raw.read_at(self.pos_in, CHUNK)
                self.pos_in += len(self.pending)
                if not self.pending:
                    self.done = True
                    break
            out: bytes  # zlib's and zstandard's decompressobj both give bytes (the state is typed Any)
            if self.kind == "gzip":
                try:
                    out = self.state.decompress(self.pending, want)
                except zlib.error as exc:
                    raise ImageError(f"gzip layer: {exc}") from None
                self.pending = self.state.unconsumed_tail
                if self.state.eof:  # a member ended; another may follow
                    rest = self.state.unused_data + self.pending
                    self.state, self.pending = self._new(), rest
                    if not rest.strip(b"\0") and self.pos_in >= self.raw.size:
                        self.done = True
            else:
                try:
                    out = self.state.decompress(self.pending)
                except Exception as exc:  # zstandard.ZstdError: a corrupt frame ends the layer
                    raise ImageError(f"zstd layer: {exc}") from None
                self.pending = b""
                if getattr(self.state, "eof", False):
                    self.done = True
            if out:
                self.pos_out += len(out)
                return out
        return b""

    def snapshot(self) -> _Inflater | None:
        if self.kind != "gzip":
            return None
        return _Inflater(self.raw, self.kind, self.pos_in, self.state.copy(), self.pos_out, self.pending)


class CompressedLayer:
    def __init__(self, raw: Range, compression: str, limit: int | None = None) -> None:
        self.raw, self.compression = raw, compression
        self._checkpoints: list[_Inflater] = []  # every CHECKPOINT of output (gzip), in order
        self._cursor = _Inflater(raw, compression)
        self._buffer = b""  # output of the cursor not yet consumed: starts at self._buffer_at
        self._buffer_at = 0
        # At most MAX_RATIO times the blob, never less than MIN_FOR_RATIO, never more than MAX_INFLATED.
        self._limit = limit if limit is not None else min(MAX_INFLATED, max(MIN_FOR_RATIO, raw.size * MAX_RATIO))

    def read_at(self, offset: int, size: int) -> bytes:
        if offset < self._buffer_at:
            self._rewind(offset)
        out = bytearray()
        while len(out) < size:
            start = offset + len(out) - self._buffer_at
            if start < len(self._buffer):
                take = self._buffer[start : start + size - len(out)]
                out += take
                continue
            self._buffer_at += len(self._buffer)
            self._buffer = b""
            if self._buffer_at >= self._limit:
                raise DecompressionLimit(f"inflated past {self._limit >> 20} MiB from {self.raw.size} bytes")
            if self.compression == "gzip" and self._buffer_at >= len(self._checkpoints) * CHECKPOINT:
                snap = self._cursor.snapshot()
                if snap is not None and snap.pos_out == self._buffer_at:
                    self._checkpoints.append(snap)
            chunk = self._cursor.step(min(CHUNK, CHECKPOINT - self._buffer_at % CHECKPOINT))
            if not chunk:
                break
            self._buffer = chunk
        return bytes(out)

    def _rewind(self, offset: int) -> None:
        usable = [c for c in self._checkpoints if c.pos_out <= offset]
        if usable:
            base = usable[-1]
            self._cursor = _Inflater(base.raw, base.kind, base.pos_in, base.state.copy(), base.pos_out, base.pending)
        else:
            self._cursor = _Inflater(self.raw, self.compression)
        self._buffer, self._buffer_at = b"", self._cursor.pos_out


def open_layer(raw: Range) -> LayerBytes:
    magic = raw.read_at(0, 4)
    if magic[:2] == b"\x1f\x8b":
        return CompressedLayer(raw, "gzip")
    if magic == b"\x28\xb5\x2f\xfd":
        return CompressedLayer(raw, "zstd")
    return PlainLayer(raw)


def layer_file(layer: LayerBytes) -> PositionalFile:
    """A layer's tar stream as a seekable file, for `tarfile` to read its headers (data is skipped by seeking)."""
    return PositionalFile(layer.read_at)

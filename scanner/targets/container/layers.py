"""A layer blob read once, forward, as the tar stream it holds: one bounded reader for plain, gzip and zstd layers.

Whatever the compression, the bytes of tar stream a layer may give are capped by one rule (at most MAX_RATIO times
the blob past MIN_FOR_RATIO, never past MAX_INFLATED), inflated a chunk at a time: a bomb stops at the cap, which
is reported, never trusted. The blob's bytes (or, for an old `docker save` layer, the tar stream's) are hashed as
they are read and checked against the digest the manifest gives when the stream ends: a flipped byte, a cut blob
or a bad compressed stream is a `LayerFailure` naming what went wrong. zstd is the standard library's
`compression.zstd` (Python 3.14), or its backport (the `images` extra).
"""

from __future__ import annotations

import hashlib
import io
import sys
from dataclasses import dataclass
from typing import Any

from scanner.formats import deflate
from scanner.targets.base import DecompressionLimit
from scanner.targets.container.blobs import Range
from scanner.targets.images import ImageError

CHUNK = 1 << 20  # bytes of blob read at once
OUT_CHUNK = 1 << 20  # bytes of tar stream inflated at once
MAX_INFLATED = 64 << 30  # bytes of tar stream one layer may give
MAX_RATIO = 200  # ... and no more than this many times its blob's size (past MIN_FOR_RATIO)
MIN_FOR_RATIO = 256 << 20
ZSTD_MAX_WINDOW_LOG = 27  # 128 MiB: zstd's own default cap for a decoder's window
_GZIP, _ZSTD = b"\x1f\x8b", b"\x28\xb5\x2f\xfd"


class LayerFailure(Exception):
    """A layer's stream is damaged or does not match its digest; `detail` says how, for its skip."""

    def __init__(self, detail: str) -> None:
        super().__init__(detail)
        self.detail = detail


@dataclass(frozen=True)
class Digest:
    """What a layer must hash to: its blob (`of_blob`), or for an old `docker save` layer its tar stream."""

    value: str  # `sha256:…`
    of_blob: bool = True


def inflation_limit(blob_size: int) -> int:
    return min(MAX_INFLATED, max(MIN_FOR_RATIO, blob_size * MAX_RATIO))


class _Gzip:
    """gzip members one after another (zeros after the last are padding), `want` bytes of output at a time."""

    name = "gzip"

    def __init__(self) -> None:
        self.state = deflate.decompressobj(16 + deflate.MAX_WBITS)
        self.pending = b""
        self.inside = False  # a member has begun and not ended

    def give(self, data: bytes, want: int) -> bytes:
        self.pending += data
        out = b""
        while len(out) < want and self.pending:
            if not self.inside and not self.pending.strip(b"\0"):
                self.pending = b""  # zeros after the last member: padding
                break
            try:
                out += self.state.decompress(self.pending, want - len(out))
            except deflate.error as exc:
                raise LayerFailure(f"bad gzip stream: {exc}") from None
            self.inside = True
            self.pending = self.state.unconsumed_tail
            if self.state.eof:
                rest = self.state.unused_data + self.pending
                self.state, self.pending, self.inside = deflate.decompressobj(16 + deflate.MAX_WBITS), rest, False
        return out


class _Zstd:
    """zstd frames one after another, `want` bytes of output at a time, with a bounded window."""

    name = "zstd"

    def __init__(self) -> None:
        zstd = _zstd_module()
        window = {zstd.DecompressionParameter.window_log_max: ZSTD_MAX_WINDOW_LOG}

        def make() -> Any:
            return zstd.ZstdDecompressor(options=window)

        self._make = make
        self._error = zstd.ZstdError
        self.state = self._make()
        self.pending = b""
        self.inside = False

    def give(self, data: bytes, want: int) -> bytes:
        self.pending += data
        out = b""
        while len(out) < want:
            if self.state.eof:
                self.pending = self.state.unused_data + self.pending
                self.state, self.inside = self._make(), False
            if not self.pending and self.state.needs_input:
                break
            feed, self.pending = self.pending, b""
            try:
                out += self.state.decompress(feed, want - len(out))
            except self._error as exc:
                raise LayerFailure(f"bad zstd stream: {exc}") from None
            self.inside = not self.state.eof
        return out


def _zstd_module() -> Any:
    try:
        if sys.version_info >= (3, 14):
            from compression import zstd  # type: ignore[import-not-found,unused-ignore]
        else:
            from backports import zstd  # type: ignore[import-not-found,unused-ignore]
    except ImportError:
        raise ImageError("a zstd layer needs backports.zstd: pip install 'modelcensus[images]'") from None
    return zstd


class LayerStream(io.RawIOBase):
    """The tar stream of one layer blob, read forward only, bounded, hashed; `finish()` checks the digest. It is
    read by a thread of its own (`layer_source.LayerSource`): zlib, zstd and hashlib release the interpreter as
    they work."""

    def __init__(self, raw: Range, digest: Digest | None = None, limit: int | None = None) -> None:
        super().__init__()
        self.raw = raw
        magic = raw.read_at(0, 4)
        self.compression = "gzip" if magic[:2] == _GZIP else "zstd" if magic == _ZSTD else "none"
        self._codec: _Gzip | _Zstd | None = _Gzip() if self.compression == "gzip" else \
            _Zstd() if self.compression == "zstd" else None
        self.digest = digest
        self._hash = _hasher(digest)
        self.limit = inflation_limit(raw.size) if limit is None else limit
        self.read_in = 0  # bytes of blob consumed
        self.given = 0  # bytes of tar stream given
        self._eof = False
        self._chunk, self._at = b"", 0

    def readable(self) -> bool:
        return True

    def readinto(self, buffer: Any) -> int:
        want = len(buffer)
        if not want or self._eof:
            return 0
        if self.given >= self.limit:
            raise DecompressionLimit(f"inflated past {self.limit >> 20} MiB from a {self.raw.size}-byte blob")
        if self._at >= len(self._chunk):
            self._chunk, self._at = self._produce(), 0
            if not self._chunk:
                self._eof = True
                return 0
        take = min(want, self.limit - self.given, len(self._chunk) - self._at)
        buffer[:take] = self._chunk[self._at : self._at + take]
        self._at += take
        self.given += take
        return take

    def _produce(self) -> bytes:
        """The next chunk of tar stream (b"" at the end), hashed."""
        out = self._next(OUT_CHUNK)
        if out and self._hash is not None and self.digest is not None and not self.digest.of_blob:
            self._hash.update(out)
        return out

    def _next(self, want: int) -> bytes:
        if self._codec is None:
            return self._take(want)
        out = self._codec.give(b"", want)
        while not out:
            data = self._take(CHUNK)
            if not data:
                return self._codec.give(b"", want)
            out = self._codec.give(data, want)
        return out

    def _take(self, size: int) -> bytes:
        data = self.raw.read_at(self.read_in, size)
        self.read_in += len(data)
        if self._hash is not None and self.digest is not None and self.digest.of_blob:
            self._hash.update(data)
        return data

    def finish(self) -> None:
        """Read what is left (the tar's padding, a gzip trailer) within the cap, then check the digest."""
        while self.readinto(bytearray(CHUNK)):
            pass
        self.close()
        if self._codec is not None and self._codec.inside:
            raise LayerFailure(f"the {self._codec.name} stream ends early (truncated blob)")
        if self.digest is None or self._hash is None:
            return
        got = f"{self.digest.value.partition(':')[0]}:{self._hash.hexdigest()}"
        if got != self.digest.value:
            what = "blob" if self.digest.of_blob else "uncompressed layer"
            raise LayerFailure(f"the {what} does not match its digest (it hashes to {got})")


def _hasher(digest: Digest | None) -> Any:
    if digest is None:
        return None
    algorithm = digest.value.partition(":")[0]
    if algorithm not in ("sha256", "sha512"):
        return None
    return hashlib.new(algorithm)

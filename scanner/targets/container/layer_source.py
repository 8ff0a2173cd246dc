"""A layer's tar as a seekable file the squash parses in place, made ready by a thread of its own.

A compressed layer is inflated once, forward, through its bounded and hashed `LayerStream`, by a thread that writes
the tar stream to a temporary file of the spool's (unlinked, $TMPDIR) as it goes; the squash parses the tar from
that file meanwhile, waiting where the thread has not written yet, and skips each member's bytes by seeking: a
file's bytes are then a range of that file (`SpoolSlice`), read in place by the walk and its forked workers. The
layers' threads start at once, top layer first, a few at a time (`Slots`): a lower layer inflates while an upper
one is parsed, and zlib, zstd, hashlib and the writes run on other cores than the parse. zstd layers inflate one
at a time: a zstd decoder may hold a window of up to 128 MiB. A plain layer is parsed in place
in its blob, while its thread reads the blob through once to check its digest.

What fails in the thread (a damaged or cut stream, a digest that does not match, a bomb past the cap, a full disk)
is raised where the parse reads past the last byte written, or by `finish()`: the same failures, at the same
points of the tar, as a forward read of the layer gives.
"""

from __future__ import annotations

import contextlib
import io
import os
import threading
from dataclasses import dataclass, field
from typing import Any

from scanner.formats.positional import PositionalFile
from scanner.targets.container.blobs import Range
from scanner.targets.container.layers import OUT_CHUNK, Digest, LayerStream
from scanner.targets.container.spool import Spool, SpoolSlice

READ_BUFFER = 64 << 10  # the parse's buffer: the headers of small members come from memory
THREADS = max(1, min(4, os.cpu_count() or 1))  # layers read at once


@dataclass(frozen=True)
class Slots:
    """How many of an image's layers are read at once: THREADS, of which one zstd layer."""

    layers: threading.Semaphore = field(default_factory=lambda: threading.Semaphore(THREADS))
    zstd: threading.Semaphore = field(default_factory=lambda: threading.Semaphore(1))


@dataclass(frozen=True, slots=True)  # one for each file of an image: no __dict__ each
class BlobSlice:
    """A member's bytes in a plain layer: a range of its blob, read in place."""

    blob: Range
    start: int

    def read_at(self, offset: int, size: int) -> bytes:
        return self.blob.read_at(self.start + offset, size)


class LayerSource:
    """One layer's tar: parsed from `reader()`, its member bytes at `content(offset)`; `finish()` checks it."""

    def __init__(self, blob: Range, check: Digest | None, spool: Spool, slots: Slots) -> None:
        self._blob = blob
        stream = LayerStream(blob, check)
        self.plain = stream.compression == "none"
        self.fd = -1 if self.plain else spool.temporary()
        self.written = 0  # bytes of tar stream in the temporary file (a plain layer: in its blob, all along)
        self._failure: BaseException | None = None
        self._done = False
        self._stop = False
        self._ready = threading.Condition()
        self._thread = threading.Thread(target=self._run, args=(stream, slots), name="modelcensus-layer", daemon=True)
        self._thread.start()

    def _run(self, stream: LayerStream, slots: Slots) -> None:
        failure: BaseException | None = None
        alone = slots.zstd if stream.compression == "zstd" else contextlib.nullcontext()
        try:
            with slots.layers, alone:
                buffer = bytearray(OUT_CHUNK)
                while not self._stop and (got := stream.readinto(buffer)):
                    if not self.plain:
                        _write_all(self.fd, memoryview(buffer)[:got], self.written)
                    with self._ready:
                        self.written += got
                        self._ready.notify_all()
                if not self._stop:
                    stream.finish()
        except BaseException as exc:  # noqa: BLE001  # handed to the parse, which raises it where it reads
            failure = exc
        finally:
            stream.close()
            with self._ready:
                self._failure, self._done = failure, True
                self._ready.notify_all()

    def reader(self) -> Any:
        """The tar, seekable, for `tarfile.open(fileobj=..., mode="r:")`."""
        if self.plain:
            return io.BufferedReader(PositionalFile(self._blob.read_at, self._blob.size), READ_BUFFER)
        return io.BufferedReader(PositionalFile(self._read_written), READ_BUFFER)  # its end is not known yet

    def _read_written(self, offset: int, size: int) -> bytes:
        """Bytes the thread has written, waiting for them; past the last byte of a thread that failed, its
        failure."""
        have = self.available(offset + size) - offset
        if have <= 0:
            failure = self.failure()
            if failure is not None and size:
                raise failure
            return b""
        return os.pread(self.fd, min(size, have), offset)

    def content(self, offset: int) -> BlobSlice | SpoolSlice:
        """Where a member's bytes at `offset` of the tar are read from, in place."""
        return BlobSlice(self._blob, offset) if self.plain else SpoolSlice(self.fd, offset)

    def available(self, end: int) -> int:
        """Waits until `end` bytes are written or the thread ended; how many are."""
        with self._ready:
            while self.written < end and not self._done:
                self._ready.wait()
            return self.written

    def failure(self) -> BaseException | None:
        with self._ready:
            return self._failure if self._done else None

    def finish(self) -> None:
        """Waits for the thread; raises what it failed with."""
        self._thread.join()
        if self._failure is not None:
            raise self._failure

    def stop(self) -> None:
        """The parse gave up on the layer: the thread stops at its next chunk."""
        self._stop = True
        self._thread.join()


def _write_all(fd: int, data: memoryview, at: int) -> None:
    while data:
        done = os.pwrite(fd, data, at)
        data, at = data[done:], at + done

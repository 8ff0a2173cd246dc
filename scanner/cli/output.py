"""Writing a report: stdout, or PATH written through to what it is.

A regular file (or a new path) is replaced atomically, so a CI step never reads half a report: the text goes to a
temporary file beside it, renamed over it, and the temporary file never outlives a failure. Anything else at PATH
(a device such as /dev/null, a FIFO, a symlink to one) is opened and written as it is, never replaced: renaming over
`/dev/null` as root would turn the machine's /dev/null into a regular file.
"""

from __future__ import annotations

import contextlib
import os
import stat
import sys
import tempfile
from collections.abc import Iterable, Sequence
from pathlib import Path

from scanner.cli.arguments import fail
from scanner.textsafe import unsurrogate


def encode(text: str) -> bytes:
    # A lone surrogate left in a report would make the encoder fail (or write invalid UTF-8): escape it instead.
    return unsurrogate(text).encode("utf-8")


def inside(output: Path, root: Path) -> bool:
    """Whether writing `output` would write into `root` or over it (symlinks and `..` resolved)."""
    try:
        return output.resolve().is_relative_to(root.resolve())
    except (OSError, RuntimeError):
        return False


def refuse_inside(output: Path | None, targets: Sequence[Path]) -> None:
    """Every command refuses to write its report into (or over) what it scans: the target is never written to."""
    if output is None:
        return
    for target in targets:
        if target.exists() and inside(output, target):
            fail(f"{output}: is inside the scanned target {target}; the target is never written to")


def write_output(text: str | Iterable[bytes], output: Path | None) -> None:
    """Write a report: a text, or the bytes of one piece by piece as a renderer that streams gives them (a large
    scan's JSON is never held whole)."""
    pieces: Iterable[bytes] = (encode(text),) if isinstance(text, str) else text
    if output is None:
        sys.stdout.flush()
        for piece in pieces:
            sys.stdout.buffer.write(piece)
        sys.stdout.buffer.flush()
        return
    try:
        st = os.stat(output)  # follows a symlink: what the path leads to is what is written
    except FileNotFoundError:
        st = None
    except OSError as exc:
        fail(f"{output}: cannot write: {exc.strerror or exc}")
    try:
        if st is not None and not stat.S_ISREG(st.st_mode):
            if stat.S_ISDIR(st.st_mode):
                fail(f"{output}: is a directory")
            _write_through(output, pieces)
        else:
            _replace(Path(os.path.realpath(output)) if output.is_symlink() else output, pieces)
    except OSError as exc:
        fail(f"{output}: cannot write: {exc.strerror or exc}")


def _write_through(path: Path, pieces: Iterable[bytes]) -> None:
    fd = os.open(path, os.O_WRONLY | os.O_NOCTTY | getattr(os, "O_CLOEXEC", 0))
    try:
        for piece in pieces:
            view = memoryview(piece)
            while view:
                n = os.write(fd, view)
                view = view[n:]
    finally:
        os.close(fd)


def _replace(path: Path, pieces: Iterable[bytes]) -> None:
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(fd, "wb") as fh:
            for piece in pieces:
                fh.write(piece)
        with contextlib.suppress(OSError):  # keep the mode an existing report had
            os.chmod(tmp, stat.S_IMODE(os.stat(path).st_mode))
        if not path.exists():
            os.chmod(tmp, 0o666 & ~_umask())
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise


def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask

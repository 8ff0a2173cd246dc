"""What inflates deflate streams (gzip and zlib): zlib-ng's module, with the standard library's API and the same
output at about twice the speed (a man page tree is tens of thousands of gzip files, a container layer hundreds of
MB); the standard library's where zlib-ng has no build for the platform.

Callers take `decompressobj` and catch `error` from here: each module's error is its own class.
"""

from __future__ import annotations

from typing import cast

try:
    from zlib_ng import zlib_ng as _zlib
except ImportError:  # pragma: no cover - a platform without a zlib-ng wheel
    import zlib as _zlib  # type: ignore[no-redef]

decompressobj = _zlib.decompressobj
error = cast(type[Exception], _zlib.error)  # zlib-ng's stub types it as an instance
MAX_WBITS: int = _zlib.MAX_WBITS

__all__ = ["MAX_WBITS", "decompressobj", "error"]

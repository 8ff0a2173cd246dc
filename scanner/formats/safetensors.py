"""safetensors headers: an 8-byte little-endian length, then that many bytes of JSON naming every tensor.

The JSON maps each tensor name to `{"dtype", "shape", "data_offsets"}` and may hold `__metadata__`, a map of
strings (`{"format": "pt"}`). The length is checked against the file and a cap before the JSON is read: the
format's own library refuses headers over 100 MB; real ones are a few hundred KB.
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass
from typing import TypeGuard

from scanner.formats.bounded import FailureKind, FormatFailure, ReadAt

MAX_HEADER = 16 << 20  # a parsed JSON header costs ~10x its bytes
MAX_METADATA = 64  # __metadata__ entries kept
MAX_VALUE = 1024  # characters of one metadata value kept


@dataclass(frozen=True)
class SafetensorsHeader:
    header_size: int
    tensor_count: int
    parameters: int  # elements over all tensors
    dtypes: tuple[tuple[str, int], ...]  # (dtype, tensors of it), the most common first
    metadata: tuple[tuple[str, str], ...]  # __metadata__, sorted by key
    data_size: int  # bytes of tensor data the header accounts for (the end of the last tensor)


def looks_like(head: bytes, size: int) -> bool:
    """A plausible header: a length that fits the file, then `{"` (safetensors has no magic of its own)."""
    if len(head) < 10:
        return False
    length = int.from_bytes(head[:8], "little")
    return 2 <= length <= size - 8 and head[8:10] == b'{"'


def read_safetensors(read: ReadAt, size: int) -> SafetensorsHeader | FormatFailure:
    """The header of a safetensors file of `size` bytes, or why it could not be read."""
    head = read(0, 8)
    if len(head) < 8:
        return FormatFailure("safetensors", FailureKind.TRUNCATED, "shorter than the 8-byte header length")
    length = int.from_bytes(head, "little")
    if length > MAX_HEADER:
        return FormatFailure("safetensors", FailureKind.LIMIT, f"header length {length} (cap {MAX_HEADER})")
    if length > size - 8:
        return FormatFailure("safetensors", FailureKind.TRUNCATED, f"header length {length}, file {size} bytes")
    raw = read(8, length)
    if len(raw) < length:
        return FormatFailure("safetensors", FailureKind.TRUNCATED, "the header was cut short")
    try:
        doc = json.loads(raw)
    except (ValueError, RecursionError) as exc:
        return FormatFailure("safetensors", FailureKind.MALFORMED, f"header is not JSON ({type(exc).__name__})")
    if not isinstance(doc, dict):
        return FormatFailure("safetensors", FailureKind.MALFORMED, "header is not a JSON object")
    return _header(length, doc)


def _header(length: int, doc: dict[str, object]) -> SafetensorsHeader | FormatFailure:
    counts: dict[str, int] = {}
    parameters = end = tensors = 0
    for name, info in doc.items():
        if name == "__metadata__":
            continue
        if not isinstance(info, dict):
            return FormatFailure("safetensors", FailureKind.MALFORMED, "a tensor entry is not an object")
        dtype, shape, offsets = info.get("dtype"), info.get("shape"), info.get("data_offsets")
        if not isinstance(dtype, str) or not _ints(shape) or not _ints(offsets) or len(offsets) != 2:
            return FormatFailure("safetensors", FailureKind.MALFORMED, "a tensor lacks dtype, shape or offsets")
        counts[dtype[:32]] = counts.get(dtype[:32], 0) + 1
        parameters += math.prod(shape)
        end = max(end, offsets[1])
        tensors += 1
    meta = doc.get("__metadata__")
    pairs = sorted((str(k)[:MAX_VALUE], str(v)[:MAX_VALUE]) for k, v in meta.items()) if isinstance(meta, dict) else []
    dtypes = tuple(sorted(counts.items(), key=lambda kv: (-kv[1], kv[0])))
    return SafetensorsHeader(length, tensors, parameters, dtypes, tuple(pairs[:MAX_METADATA]), end)


def _ints(value: object) -> TypeGuard[list[int]]:
    return isinstance(value, list) and all(isinstance(v, int) and not isinstance(v, bool) and v >= 0 for v in value)

"""GGUF header metadata (llama.cpp, Ollama, LM Studio weights), read with bounded counts and lengths.

The header is the magic `GGUF`, a version (1-3; a byte-swapped version marks a big-endian file), the tensor
and key counts, the key/value pairs, then one info record per tensor (name, dimensions, type, offset).
What a model is comes from the `general.*` keys (architecture, name, basename, size label, license, file
type) and `<architecture>.context_length`; its parameter total is the sum over the tensor infos of the
product of their dimensions, as llama.cpp and Ollama count it. Arrays (the tokenizer's vocabulary) are
skipped without being read into memory. Every count and length is checked before it is trusted.
"""

from __future__ import annotations

from dataclasses import dataclass

from scanner.formats.bounded import Cursor, FailureKind, FormatFailure, ReadAt, Refused

MAGIC = b"GGUF"
MAX_KEYS = 10_000  # real files carry 20-80
MAX_TENSORS = 1 << 20  # the largest MoE checkpoints carry a few tens of thousands per shard
MAX_ARRAY = 1 << 20  # elements in one array (vocabularies run to ~260k)
MAX_KEPT_STRING = 1024  # longer values (a chat template) are skipped, not kept
MAX_KEPT = 256  # scalar keys kept for the inventory
MAX_DIMS = 8
HEADER_BUDGET = 64 << 20  # bytes of header walked at most (a 260k-token vocabulary is ~10 MB)

# GGUF value types: struct format of the fixed-size ones; 8 is a string, 9 an array.
_SCALAR = {0: "B", 1: "b", 2: "H", 3: "h", 4: "I", 5: "i", 6: "f", 7: "?", 10: "Q", 11: "q", 12: "d"}
_STRING, _ARRAY = 8, 9

# general.file_type (llama.cpp's llama_ftype): the quantization of the file as a whole.
FILE_TYPES = {
    0: "F32", 1: "F16", 2: "Q4_0", 3: "Q4_1", 7: "Q8_0", 8: "Q5_0", 9: "Q5_1", 10: "Q2_K", 11: "Q3_K_S",
    12: "Q3_K_M", 13: "Q3_K_L", 14: "Q4_K_S", 15: "Q4_K_M", 16: "Q5_K_S", 17: "Q5_K_M", 18: "Q6_K",
    19: "IQ2_XXS", 20: "IQ2_XS", 21: "Q2_K_S", 22: "IQ3_XS", 23: "IQ3_XXS", 24: "IQ1_S", 25: "IQ4_NL",
    26: "IQ3_S", 27: "IQ3_M", 28: "IQ2_S", 29: "IQ2_M", 30: "IQ4_XS", 31: "IQ1_M", 32: "BF16", 36: "TQ1_0",
    37: "TQ2_0", 38: "MXFP4_MOE", 39: "NVFP4", 40: "Q1_0",
}  # fmt: skip

Scalar = str | int | float | bool


@dataclass(frozen=True)
class BaseModel:
    name: str | None
    organization: str | None
    repo_url: str | None


@dataclass(frozen=True)
class GgufHeader:
    version: int
    tensor_count: int
    architecture: str | None
    name: str | None
    basename: str | None
    size_label: str | None
    license: str | None
    context_length: int | None
    file_type: int | None
    quantization: str | None  # the file type's name (Q4_K_M), None when the file does not say
    parameters: int | None  # None when the tensor infos could not be read (see `note`)
    base_models: tuple[BaseModel, ...]
    metadata: tuple[tuple[str, Scalar], ...]  # the general.* and <architecture>.* scalars, in file order
    note: str | None = None  # what of the header was not read, when the metadata was


def looks_like(head: bytes) -> bool:
    return head.startswith(MAGIC)


def read_gguf(read: ReadAt, size: int) -> GgufHeader | FormatFailure:
    """The header of a GGUF file of `size` bytes, or why it could not be read."""
    cur = Cursor(read, size, HEADER_BUDGET)
    try:
        if cur.take(4, "magic") != MAGIC:
            return FormatFailure("gguf", FailureKind.NOT_THIS_FORMAT, "no GGUF magic")
        raw = cur.take(4, "version")
        order = "<" if int.from_bytes(raw, "little") & 0xFFFF else ">"
        version = int.from_bytes(raw, "little" if order == "<" else "big")
        if version not in (1, 2, 3):
            raise Refused(FailureKind.MALFORMED, f"GGUF version {version} is not 1, 2 or 3")
        width = order + ("I" if version == 1 else "Q")
        tensors, keys = cur.uint(width, "tensor count"), cur.uint(width, "key count")
        if keys > MAX_KEYS:
            raise Refused(FailureKind.LIMIT, f"header claims {keys} keys (cap {MAX_KEYS})")
        if tensors > MAX_TENSORS:
            raise Refused(FailureKind.LIMIT, f"header claims {tensors} tensors (cap {MAX_TENSORS})")
        kept = _read_keys(cur, keys, order, width)
    except Refused as exc:
        return FormatFailure("gguf", exc.kind, exc.detail)
    parameters, note = _parameters(cur, tensors, order, width)
    return _header(version, tensors, kept, parameters, note)


def _read_keys(cur: Cursor, count: int, order: str, width: str) -> list[tuple[str, Scalar]]:
    kept: list[tuple[str, Scalar]] = []
    for i in range(count):
        key = _string(cur, width, f"key #{i}", MAX_KEPT_STRING)
        kind = cur.uint(order + "I", f"type of {key!r}")
        value = _value(cur, kind, order, width, key, depth=0)
        if value is not None and key is not None and len(kept) < MAX_KEPT:
            kept.append((key, value))
    return kept


def _string(cur: Cursor, width: str, what: str, keep: int) -> str | None:
    """A length-prefixed UTF-8 string; None (skipped, not read) when longer than `keep` bytes."""
    length = cur.uint(width, f"length of {what}")
    if length > keep:
        cur.skip(length, what)
        return None
    return cur.take(length, what).decode("utf-8", "replace")


def _value(cur: Cursor, kind: int, order: str, width: str, key: str | None, depth: int) -> Scalar | None:
    """A value of type `kind`: scalars and short strings are returned, arrays walked over and dropped."""
    fmt = _SCALAR.get(kind)
    if fmt is not None:
        (value,) = cur.unpack(order + fmt, f"value of {key!r}")
        return bool(value) if kind == 7 else value
    if kind == _STRING:
        return _string(cur, width, f"value of {key!r}", MAX_KEPT_STRING)
    if kind != _ARRAY or depth > 1:
        raise Refused(FailureKind.MALFORMED, f"value of {key!r} has type {kind}")
    element = cur.uint(order + "I", f"element type of {key!r}")
    count = cur.uint(width, f"length of {key!r}")
    if count > MAX_ARRAY:
        raise Refused(FailureKind.LIMIT, f"array {key!r} claims {count} elements (cap {MAX_ARRAY})")
    fmt = _SCALAR.get(element)
    if fmt is not None:
        cur.skip(count * _size(fmt), f"array {key!r}")
    elif element == _STRING:
        cur.skip_strings(count, width, f"array {key!r}")
    else:
        for _ in range(count):
            _value(cur, element, order, width, None, depth + 1)
    return None


def _size(fmt: str) -> int:
    return {"B": 1, "b": 1, "?": 1, "H": 2, "h": 2, "I": 4, "i": 4, "f": 4, "Q": 8, "q": 8, "d": 8}[fmt]


def _parameters(cur: Cursor, tensors: int, order: str, width: str) -> tuple[int | None, str | None]:
    """The sum over the tensor infos of the product of their dimensions; (None, why) when not readable."""
    total = 0
    try:
        for i in range(tensors):
            _string(cur, width, f"name of tensor #{i}", 1 << 16)
            dims = cur.uint(order + "I", f"dimensions of tensor #{i}")
            if dims > MAX_DIMS:
                raise Refused(FailureKind.MALFORMED, f"tensor #{i} claims {dims} dimensions")
            product = 1
            for _ in range(dims):
                product *= cur.uint(order + "Q", f"dimension of tensor #{i}")
            cur.skip(12, f"type and offset of tensor #{i}")
            total += product
    except Refused as exc:
        return None, f"tensor infos not read: {exc.detail}"
    return total, None


def _header(
    version: int, tensors: int, kept: list[tuple[str, Scalar]], parameters: int | None, note: str | None
) -> GgufHeader:
    values = dict(kept)

    def text(key: str) -> str | None:
        v = values.get(key)
        return v if isinstance(v, str) and v else None

    def number(key: str) -> int | None:
        v = values.get(key)
        return v if isinstance(v, int) and not isinstance(v, bool) else None

    arch = text("general.architecture")
    file_type = number("general.file_type")
    bases = tuple(
        BaseModel(text(f"general.base_model.{i}.name"), text(f"general.base_model.{i}.organization"),
                  text(f"general.base_model.{i}.repo_url"))
        for i in range(min(number("general.base_model.count") or 0, 16))
    )  # fmt: skip
    prefixes = ("general.", f"{arch}.") if arch else ("general.",)
    return GgufHeader(
        version=version,
        tensor_count=tensors,
        architecture=arch,
        name=text("general.name"),
        basename=text("general.basename"),
        size_label=text("general.size_label"),
        license=text("general.license") or text("general.license.name"),
        context_length=number(f"{arch}.context_length") if arch else None,
        file_type=file_type,
        quantization=FILE_TYPES.get(file_type) if file_type is not None else None,
        parameters=parameters,
        base_models=bases,
        metadata=tuple((k, v) for k, v in kept if k.startswith(prefixes)),
        note=note,
    )

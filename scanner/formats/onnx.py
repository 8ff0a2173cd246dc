"""ONNX models: the top-level fields of the ModelProto message, read without parsing the graph.

ONNX has no magic. A model is a protobuf message whose first field, as every writer emits it, is
`ir_version` (field 1, a varint); the others read here are the producer (2, 3), domain (4), model version
(5), the opset imports (8: domain and version) and `metadata_props` (14: key/value strings). The graph
(field 7), which holds the weights, is stepped over by its length without being read, so its metadata after
it costs a few small reads. Every length is checked against the file before it is trusted.
"""

from __future__ import annotations

from dataclasses import dataclass

from scanner.formats.bounded import Cursor, FailureKind, FormatFailure, ReadAt, Refused

MAX_FIELDS = 10_000  # top-level fields walked
MAX_KEPT = 64  # opset imports and metadata entries kept
MAX_STRING = 4096  # bytes of one kept string
HEADER_BUDGET = 4 << 20  # bytes of non-graph fields walked
_GRAPH = 7
_KNOWN = {1: 0, 2: 2, 3: 2, 4: 2, 5: 0, 6: 2, 7: 2, 8: 2, 14: 2, 20: 2, 25: 2, 26: 2}  # field -> wire type


@dataclass(frozen=True)
class OnnxHeader:
    ir_version: int
    producer_name: str | None
    producer_version: str | None
    domain: str | None
    model_version: int | None
    opsets: tuple[tuple[str, int], ...]  # (domain, version); "" is the default ONNX domain
    metadata: tuple[tuple[str, str], ...]
    graph_size: int  # bytes of the graph message (the weights, unless they sit in external data files)


def looks_like(head: bytes) -> bool:
    """`ir_version` (field 1, varint) first with a plausible value, then another ModelProto field."""
    if len(head) < 4 or head[0] != 0x08 or not 1 <= head[1] <= 64:
        return False
    tag = head[2]
    return tag >> 3 in _KNOWN and tag & 7 == _KNOWN[tag >> 3] and tag >> 3 != 1


def read_onnx(read: ReadAt, size: int) -> OnnxHeader | FormatFailure:
    """The top-level fields of an ONNX model of `size` bytes, or why they could not be read."""
    if not looks_like(read(0, 4)):
        return FormatFailure("onnx", FailureKind.NOT_THIS_FORMAT, "does not open with an ONNX ir_version")
    cur = Cursor(read, size, HEADER_BUDGET)
    fields: dict[int, int | bytes] = {}
    opsets: list[tuple[str, int]] = []
    metadata: list[tuple[str, str]] = []
    graph = 0
    try:
        for _ in range(MAX_FIELDS):
            if cur.left() == 0:
                break
            number, wire = _tag(cur)
            if wire == 0:
                value: int | bytes = _varint(cur)
            elif wire == 2:
                length = _varint(cur)
                if number == _GRAPH:
                    cur.jump(length, "graph")
                    graph += length
                    continue
                value = cur.take(length, f"field {number}") if length <= MAX_STRING or number in (8, 14) else b""
                if len(value) < length:
                    cur.skip(length, f"field {number}")
            elif wire in (1, 5):
                cur.skip(8 if wire == 1 else 4, f"field {number}")
                continue
            else:
                raise Refused(FailureKind.MALFORMED, f"field {number} has wire type {wire}")
            if number == 8 and isinstance(value, bytes) and len(opsets) < MAX_KEPT:
                opsets.append(_opset(value))
            elif number == 14 and isinstance(value, bytes) and len(metadata) < MAX_KEPT:
                metadata.append(_pair(value))
            else:
                fields.setdefault(number, value)
    except Refused as exc:
        return FormatFailure("onnx", exc.kind, exc.detail)
    return _header(fields, opsets, metadata, graph)


def _header(
    fields: dict[int, int | bytes], opsets: list[tuple[str, int]], metadata: list[tuple[str, str]], graph: int
) -> OnnxHeader | FormatFailure:
    ir = fields.get(1)
    if not isinstance(ir, int):
        return FormatFailure("onnx", FailureKind.MALFORMED, "no ir_version")

    def text(n: int) -> str | None:
        v = fields.get(n)
        return v.decode("utf-8", "replace") if isinstance(v, bytes) and v else None

    version = fields.get(5)
    return OnnxHeader(ir, text(2), text(3), text(4), version if isinstance(version, int) else None,
                      tuple(opsets), tuple(metadata), graph)  # fmt: skip


def _tag(cur: Cursor) -> tuple[int, int]:
    tag = _varint(cur)
    return tag >> 3, tag & 7


def _varint(cur: Cursor) -> int:
    value = shift = 0
    while shift < 70:
        byte = cur.take(1, "varint")[0]
        value |= (byte & 0x7F) << shift
        if not byte & 0x80:
            return value
        shift += 7
    raise Refused(FailureKind.MALFORMED, "a varint longer than 10 bytes")


def _submessage(data: bytes) -> dict[int, int | bytes]:
    """The first value of each field of a small nested message (an opset import, a metadata entry)."""
    cur = Cursor(lambda off, n: data[off : off + n], len(data), len(data))
    out: dict[int, int | bytes] = {}
    while cur.left():
        number, wire = _tag(cur)
        if wire == 0:
            out.setdefault(number, _varint(cur))
        elif wire == 2:
            out.setdefault(number, cur.take(_varint(cur), "string")[:MAX_STRING])
        else:
            raise Refused(FailureKind.MALFORMED, f"nested field {number} has wire type {wire}")
    return out


def _opset(data: bytes) -> tuple[str, int]:
    msg = _submessage(data)
    domain, version = msg.get(1, b""), msg.get(2, 0)
    return (domain.decode("utf-8", "replace") if isinstance(domain, bytes) else "",
            version if isinstance(version, int) else 0)  # fmt: skip


def _pair(data: bytes) -> tuple[str, str]:
    msg = _submessage(data)
    key, value = msg.get(1, b""), msg.get(2, b"")
    return (key.decode("utf-8", "replace")[:MAX_STRING] if isinstance(key, bytes) else "",
            value.decode("utf-8", "replace")[:MAX_STRING] if isinstance(value, bytes) else "")  # fmt: skip

"""Hostile archives and stores, built in a test's tmp_path: each is small on disk and huge when trusted."""

from __future__ import annotations

import sqlite3
import struct
import zlib
from pathlib import Path

_PIECE = 16 << 20


def deflate_zeros(size: int) -> bytes:
    """A raw deflate stream of `size` zero bytes, made by repeating one fully flushed block run (fast)."""
    assert size % _PIECE == 0
    c = zlib.compressobj(9, zlib.DEFLATED, -15)
    run = c.compress(bytes(_PIECE)) + c.flush(zlib.Z_FULL_FLUSH)  # byte-aligned, dictionary reset
    end = zlib.compressobj(9, zlib.DEFLATED, -15).flush()  # an empty final block
    return run * (size // _PIECE) + end


def zip_one_member(
    name: str, payload: bytes, declared_size: int, method: int = 8, version: int = 20, compressed: int | None = None
) -> bytes:
    """A zip holding one member whose headers declare `declared_size` (the lie) over `payload`; `compressed`
    declares a compressed size other than the payload's (a member cut short)."""
    crc = 0
    raw = name.encode()
    packed = len(payload) if compressed is None else compressed
    local = struct.pack(
        "<4sHHHHHIIIHH", b"PK\x03\x04", version, 0, method, 0, 0, crc, packed, declared_size, len(raw), 0
    )
    central = struct.pack(
        "<4sHHHHHHIIIHHHHHII",
        b"PK\x01\x02",
        version,
        version,
        0,
        method,
        0,
        0,
        crc,
        packed,
        declared_size,
        len(raw),
        0,
        0,
        0,
        0,
        0,
        0,
    )
    body = local + raw + payload
    directory = central + raw
    end = struct.pack("<4sHHHHIIH", b"PK\x05\x06", 0, 0, 1, 1, len(directory), len(body), 0)
    return body + directory + end


def lying_jar(path: Path, inflated: int = 1 << 30) -> Path:
    """A ~1 MB jar whose pom.properties says it is 100 bytes and inflates to `inflated` bytes."""
    data = zip_one_member("META-INF/maven/com.example/x/pom.properties", deflate_zeros(inflated), 100)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(data)
    return path


def gzip_zeros(head: bytes, size: int) -> bytes:
    """A gzip member: `head`, then `size` zero bytes (compressed ~1000:1)."""
    c = zlib.compressobj(9, zlib.DEFLATED, -15)
    body = c.compress(head) + c.flush(zlib.Z_FULL_FLUSH) + deflate_zeros(size)
    header = b"\x1f\x8b\x08\x00\x00\x00\x00\x00\x02\xff"
    return header + body + struct.pack("<II", 0, (len(head) + size) & 0xFFFFFFFF)


def sqlite_file(path: Path, schema: list[str]) -> Path:
    """A SQLite database built from `schema` statements (a view, a generated column: the hostile part)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    con = sqlite3.connect(path)
    for statement in schema:
        con.execute(statement)
    con.commit()
    con.close()
    return path

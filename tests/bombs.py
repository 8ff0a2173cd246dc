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


def deflate_repeat(unit: bytes, size: int) -> bytes:
    """A raw deflate stream of `unit` repeated to at least `size` bytes (whole units), made by repeating one
    fully flushed block run of a 16 MiB piece (fast)."""
    per_piece = max(1, _PIECE // len(unit))
    piece = unit * per_piece
    c = zlib.compressobj(9, zlib.DEFLATED, -15)
    run = c.compress(piece) + c.flush(zlib.Z_FULL_FLUSH)
    end = zlib.compressobj(9, zlib.DEFLATED, -15).flush()
    return run * -(-size // len(piece)) + end


def gzip_repeat(head: bytes, unit: bytes, size: int) -> bytes:
    """A gzip member: `head`, then `unit` repeated to at least `size` bytes (the trailer's CRC is not checked
    before the end, and the reader stops at its cap long before)."""
    c = zlib.compressobj(9, zlib.DEFLATED, -15)
    body = c.compress(head) + c.flush(zlib.Z_FULL_FLUSH) + deflate_repeat(unit, size)
    header = b"\x1f\x8b\x08\x00\x00\x00\x00\x00\x02\xff"
    return header + body + struct.pack("<II", 0, 0)


def _central(name: bytes, offset: int, size: int = 0, crc: int = 0) -> bytes:
    return struct.pack(
        "<4sHHHHHHIIIHHHHHII", b"PK\x01\x02", 20, 20, 0, 0, 0, 0, crc, size, size, len(name), 0, 0, 0, 0, 0, offset
    ) + name


def _local(name: bytes, payload: bytes = b"", crc: int = 0) -> bytes:
    header = struct.pack("<4sHHHHHIIIHH", b"PK\x03\x04", 20, 0, 0, 0, 0, crc, len(payload), len(payload), len(name), 0)
    return header + name + payload


def _end(entries: int, directory: bytes, at: int) -> bytes:
    return struct.pack("<4sHHHHIIH", b"PK\x05\x06", 0, 0, entries & 0xFFFF, entries & 0xFFFF, len(directory), at, 0)


def _zip64_end(entries: int, directory: bytes, at: int) -> bytes:
    """The zip64 end record and its locator, then a classic end record that defers to them (0xFFFF counts)."""
    record = struct.pack("<4sQHHIIQQQQ", b"PK\x06\x06", 44, 45, 45, 0, 0, entries, entries, len(directory), at)
    locator = struct.pack("<4sIQI", b"PK\x06\x07", 0, at + len(directory), 1)
    end = struct.pack("<4sHHHHIIH", b"PK\x05\x06", 0, 0, 0xFFFF, 0xFFFF, len(directory), at, 0)
    return record + locator + end


def many_member_jar(members: int, last: tuple[str, bytes] | None = None) -> bytes:
    """A jar of `members` empty stored class files, each with its own local header (a real layout, only
    many: its central directory alone is ~60 bytes an entry), and `last` (name, content) as its last member."""
    body = bytearray()
    directory = bytearray()
    for i in range(members):
        name = b"c/%07d.class" % i
        directory += _central(name, len(body))
        body += _local(name)
    if last is not None:
        name, payload = last[0].encode(), last[1]
        crc = zlib.crc32(payload)
        directory += _central(name, len(body), len(payload), crc)
        body += _local(name, payload, crc)
        members += 1
    return bytes(body) + bytes(directory) + _zip64_end(members, bytes(directory), len(body))


def overlapping_jar(entries: int) -> bytes:
    """A jar whose `entries` central-directory entries (each a pom.properties) all point at one local
    header: zipfile refuses each member as overlapping another."""
    payload = b"groupId=g\nartifactId=a\nversion=1\n"
    crc = zlib.crc32(payload)
    body = _local(b"META-INF/maven/g/a/pom.properties", payload, crc)
    directory = b"".join(
        _central(b"META-INF/maven/g%05d/a/pom.properties" % i, 0, len(payload), crc) for i in range(entries)
    )
    return body + directory + _end(entries, directory, len(body))


def empty_files(root: Path, count: int, per_dir: int = 10_000) -> Path:
    """`count` empty files under `root`, `per_dir` to a directory."""
    import os

    for i in range(count):
        if i % per_dir == 0:
            folder = root / f"d{i // per_dir:03d}"
            folder.mkdir(parents=True, exist_ok=True)
        os.close(os.open(folder / f"f{i:06d}", os.O_CREAT | os.O_WRONLY, 0o644))
    return root


def model_list(size: int, ids: list[str], tail: tuple[str, ...] = ()) -> bytes:
    """A models.dev-shaped catalog (what opencode caches as `models.json`) of about `size` bytes: providers,
    each with a `models` map of entries carrying costs, limits and modalities, ids taken from `ids` in turn
    (suffixed once `ids` is used up: `gpt-5.5-v3`), and the `tail` ids last."""
    import json

    providers: dict[str, dict[str, object]] = {}
    n = 0
    total = 0
    names = iter(tail)
    while total < size or (model := next(names, None)) is not None:
        provider = f"provider{n // 40:03d}"
        base = ids[n % len(ids)]
        if total < size:
            model = base if n < len(ids) else f"{base}-v{n // len(ids)}"
        entry = {
            "id": model,
            "name": model.replace("-", " ").title(),
            "attachment": n % 2 == 0,
            "reasoning": n % 3 == 0,
            "temperature": True,
            "tool_call": True,
            "knowledge": "2025-04",
            "release_date": "2025-08-07",
            "last_updated": "2025-08-07",
            "modalities": {"input": ["text", "image"], "output": ["text"]},
            "open_weights": False,
            "cost": {"input": 1.25, "output": 10, "cache_read": 0.125},
            "limit": {"context": 400000, "output": 128000},
        }
        slot = providers.setdefault(provider, {"id": provider, "env": [f"{provider.upper()}_API_KEY"],
                                               "npm": "@ai-sdk/openai-compatible", "name": provider, "models": {}})
        models = slot["models"]
        assert isinstance(models, dict)
        models[model] = entry
        total += len(json.dumps(entry)) + len(model) + 6
        n += 1
    return json.dumps(providers).encode()


def package_lock(packages: int, extra: dict[str, str]) -> bytes:
    """A package-lock.json (v3) of `packages` real-shaped entries, then `extra` {name: version} last."""
    import json

    entries: dict[str, dict[str, object]] = {"": {"name": "app", "version": "1.0.0"}}
    for i in range(packages):
        entries[f"node_modules/pkg-{i}"] = {
            "version": f"1.{i % 50}.0",
            "resolved": f"https://registry.npmjs.org/pkg-{i}/-/pkg-{i}-1.{i % 50}.0.tgz",
            "integrity": "sha512-" + "A" * 86 + "==",
            "dev": True,
        }
    for name, version in extra.items():
        entries[f"node_modules/{name}"] = {"version": version}
    return json.dumps({"name": "app", "lockfileVersion": 3, "packages": entries}, indent=2).encode()

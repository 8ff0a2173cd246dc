"""Property-based fuzzing of every parser and format reader.

Each property feeds random bytes, or mutations of a real seed (a jar, an ELF with cargo-auditable data,
a Go build-info blob, a gzip log, an Agents SDK SQLite store, session logs from tests/data), and checks
that nothing raises and that what comes out is bounded by what went in; the config parsers get any text,
lone surrogates included, and give items or a parse failure. `make test` runs the "ci"
profile (a bounded example count); `make fuzz` runs the "fuzz" profile, many more (tests/conftest.py).
"""

from __future__ import annotations

import gzip
import io
import json
import sqlite3
import struct
import zipfile
import zlib
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from scanner.catalog import Catalog
from scanner.detectors.compressed import CompressedDetector
from scanner.detectors.ecosystems import EcosystemDetector
from scanner.detectors.lockfiles import LockfileDetector
from scanner.detectors.manifests import ManifestDetector
from scanner.detectors.session_logs import SessionDetector
from scanner.fileview.view import FileView
from scanner.formats import auditable, elf, gobuild, ziparchive
from scanner.formats import config as config_formats
from scanner.formats.positional import PositionalFile
from scanner.model import FileMeta, Skip, SkipReason
from scanner.sessions.collect import collect
from scanner.sessions.formats import sqlite_rows
from scanner.sessions.reader import ReadNotes, records
from scanner.targets.base import FileEntry
from tests.conftest import REPO, examples

_FIXTURE = settings(suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
_SESSIONS = REPO / "tests/data/sessions"


# --- seeds: real shapes to mutate ----------------------------------------------------------------------


def _jar() -> bytes:
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as z:
        z.writestr(
            zipfile.ZipInfo("META-INF/maven/com.openai/openai-java/pom.properties"),
            "groupId=com.openai\nartifactId=openai-java\nversion=1.2.0\n",
            compress_type=zipfile.ZIP_DEFLATED,
        )
        z.writestr("META-INF/MANIFEST.MF", "Manifest-Version: 1.0\n", compress_type=zipfile.ZIP_STORED)
    return buf.getvalue()


def _elf_with_dep_v0() -> bytes:
    """A minimal little-endian ELF64 whose `.dep-v0` section holds cargo-auditable data."""
    dep = zlib.compress(json.dumps({"packages": [{"name": "async-openai", "version": "0.29.0"}]}).encode())
    names = b"\0.shstrtab\0.dep-v0\0"
    body_at = 64
    dep_at, names_at = body_at, body_at + len(dep)
    shoff = names_at + len(names)
    header = bytearray(64)
    header[:7] = b"\x7fELF\x02\x01\x01"
    struct.pack_into("<Q", header, 0x28, shoff)
    struct.pack_into("<HHH", header, 0x3A, 64, 3, 1)
    sections = bytes(64)  # the null section
    sections += struct.pack("<IIQQQQ", 1, 3, 0, 0, names_at, len(names)) + bytes(24)
    sections += struct.pack("<IIQQQQ", 11, 1, 0, 0, dep_at, len(dep)) + bytes(24)
    return bytes(header) + dep + names + sections


def _go_buildinfo() -> bytes:
    info = (
        bytes.fromhex("3077af0c9274080241e1c107e6d618e6")
        + b"path\texample.com/agent\nmod\texample.com/agent\t(devel)\t\n"
        + b"dep\tgithub.com/sashabaranov/go-openai\tv1.20.0\th1:x=\n"
        + bytes.fromhex("f932433186182072008242104116d8f2")
    )
    version = b"go1.22.1"
    header = gobuild.MAGIC + bytes([8, 2]) + bytes(16)
    return b"\x7fELF" + bytes(60) + header + bytes([len(version)]) + version + bytes([len(info)]) + info


def _agents_store() -> bytes:
    con = sqlite3.connect(":memory:")
    con.execute(
        "CREATE TABLE agent_messages (id INTEGER PRIMARY KEY, session_id TEXT, message_data TEXT, created_at TEXT)"
    )
    for n, item in enumerate([{"role": "user", "content": "hi"}, {"type": "message", "model": "gpt-5.5"}]):
        con.execute(
            "INSERT INTO agent_messages (session_id, message_data, created_at) VALUES (?, ?, ?)",
            ("s1", json.dumps(item), f"2026-11-20 10:00:0{n}"),
        )
    con.commit()
    data = con.serialize()
    con.close()
    return data


def _session_logs() -> list[tuple[str, bytes]]:
    """One small real log per format directory of tests/data/sessions (every adapter gets its own shape)."""
    first: dict[Path, Path] = {}
    for p in sorted(_SESSIONS.rglob("*")):
        if p.suffix in (".jsonl", ".json") and p.stat().st_size < 256 << 10:
            first.setdefault(p if p.parent.name == "constructed" else p.parent, p)  # constructed: one per agent
    logs = [(f"/home/dev/.logs/{p.parent.name}/{p.name}", p.read_bytes()) for p in first.values()]
    aider = _SESSIONS / "aider/aider.chat.history.head.md"
    return [*logs, ("/home/dev/project/.aider.chat.history.md", aider.read_bytes())]


SEEDS = {"jar": _jar(), "elf": _elf_with_dep_v0(), "go": _go_buildinfo(), "sqlite": _agents_store()}
LOGS = _session_logs()


@st.composite
def mutated(draw: st.DrawFn, seed: bytes) -> bytes:
    """`seed` with some bytes overwritten, a run inserted or deleted, and maybe a cut tail."""
    data = bytearray(seed)
    for _ in range(draw(st.integers(0, 8))):
        if not data:
            break
        at = draw(st.integers(0, len(data) - 1))
        op = draw(st.sampled_from(["set", "insert", "delete", "max"]))
        if op == "set":
            data[at] = draw(st.integers(0, 255))
        elif op == "insert":
            data[at:at] = draw(st.binary(max_size=16))
        elif op == "delete":
            del data[at : at + draw(st.integers(1, 16))]
        else:  # a field set to its maximum: sizes, offsets and counts are where parsers trust their input
            data[at : at + 4] = b"\xff\xff\xff\xff"
    if draw(st.booleans()):
        data = data[: draw(st.integers(0, len(data)))]
    return bytes(data)


def _view(catalog: Catalog, path: str, data: bytes) -> FileView:
    entry = FileEntry(path, len(data), 0o100644, 0, 0)
    return FileView(entry, data, catalog, lambda _e: FileMeta("0644", "root:root"), lambda _p, _n: None)


def _run(detector: object, view: FileView) -> list[object]:
    """A detector's whole output; a skip it records must say why (never a catch-all detector error)."""
    out: list[object] = []
    if detector.needs.selects(view):  # type: ignore[attr-defined]
        out = list(detector.extract(view))  # type: ignore[attr-defined]
    for item in out:
        if isinstance(item, Skip):
            assert item.reason is not SkipReason.DETECTOR_ERROR and item.detail
    return out


# --- format readers ------------------------------------------------------------------------------------


@given(st.one_of(st.binary(max_size=512), mutated(SEEDS["elf"])))
def test_elf_sections_never_raise(data: bytes) -> None:
    found = elf.section(data, ".dep-v0")
    assert found is None or len(found) <= len(data)
    assert len(auditable.crates(data)) <= len(data)


def test_the_elf_seed_is_read() -> None:
    assert auditable.crates(SEEDS["elf"]) == [("async-openai", "0.29.0")]
    info = gobuild.parse(SEEDS["go"])
    assert info is not None and info.go_version == "go1.22.1"
    assert [d.path for d in info.deps] == ["github.com/sashabaranov/go-openai"]


@given(st.one_of(st.binary(max_size=512), mutated(SEEDS["go"]), mutated(gobuild.MAGIC + bytes(40))))
def test_go_build_info_never_raises(data: bytes) -> None:
    info = gobuild.parse(data)
    if info is not None:
        assert len(info.deps) <= len(data)


@given(st.one_of(st.binary(max_size=512), mutated(SEEDS["jar"])))
def test_zip_members_never_raise_and_stay_capped(data: bytes) -> None:
    problems: list[ziparchive.ZipProblem] = []
    for member in ziparchive.members(data, lambda _n: True, problems, max_member=4096):
        assert len(member.data) <= 4096
    assert all(p.detail for p in problems)
    # Read in place (a big jar's positional reader): the same members, the same problems.
    in_place: list[ziparchive.ZipProblem] = []
    source = PositionalFile(lambda offset, size: data[offset : offset + size], len(data))
    read = list(ziparchive.members(source, lambda _n: True, in_place, max_member=4096))
    assert [(m.name, m.data) for m in read] == [
        (m.name, m.data) for m in ziparchive.members(data, lambda _n: True, [], max_member=4096)
    ]
    assert [p.kind for p in in_place] == [p.kind for p in problems]


_NAMES = st.sampled_from(["a.txt", "dir/", "dir/b.bin", "META-INF/maven/g/a/pom.properties", "ünï/ç.txt", "x"])


@given(
    st.lists(st.tuples(_NAMES, st.binary(max_size=300), st.booleans()), max_size=8),
    st.binary(max_size=64),
    st.binary(max_size=40).filter(lambda c: b"PK" not in c),  # a signature in the comment fools zipfile too
)
def test_the_directory_walk_reads_what_zipfile_reads(files: list[tuple[str, bytes, bool]], stub: bytes,
                                                     comment: bytes) -> None:
    import warnings

    buf = io.BytesIO()
    with warnings.catch_warnings(), zipfile.ZipFile(buf, "w") as z:
        warnings.simplefilter("ignore")  # duplicate names: zipfile warns, and keeps both
        for name, payload, deflate in files:
            z.writestr(name, b"" if name.endswith("/") else payload,
                       zipfile.ZIP_DEFLATED if deflate else zipfile.ZIP_STORED)
        z.comment = comment
    data = stub + buf.getvalue()  # bytes before the archive (a self-extracting stub) shift every offset
    reference = zipfile.ZipFile(io.BytesIO(data))
    expected = [(i.filename, reference.read(i)) for i in reference.infolist() if not i.is_dir()]
    problems: list[ziparchive.ZipProblem] = []
    assert [(m.name, m.data) for m in ziparchive.members(data, lambda n: True, problems)] == expected
    assert not problems
    wanted = [(n, d) for n, d in expected if n.endswith(".txt")]
    assert [(m.name, m.data) for m in ziparchive.members(data, lambda n: n.endswith(".txt"), [])] == wanted


@given(st.one_of(st.binary(max_size=4096), mutated(SEEDS["sqlite"])))
@settings(max_examples=examples(30))
def test_sqlite_stores_never_raise(data: bytes) -> None:
    notes = ReadNotes()
    read = list(sqlite_rows.read(b"SQLite format 3\x00" + data[16:], notes, sqlite_rows.StoreRead(), budget=1_000_000))
    assert len(read) <= 2 or len(read) <= len(data)


@given(st.one_of(st.binary(max_size=2048), mutated(gzip.compress(LOGS[0][1][:4096]))))
def test_log_reader_never_raises_and_is_bounded(data: bytes) -> None:
    notes = ReadNotes()
    out = list(records(data, notes, max_inflated=1 << 20))
    assert len(out) <= 1 << 20  # at most one record per line of the capped inflated text


# --- detectors over fuzzed files -------------------------------------------------------------------------


@given(data=st.data())
@_FIXTURE
def test_session_logs_and_attribution_never_raise(catalog: Catalog, data: st.DataObject) -> None:
    path, seed = data.draw(st.sampled_from(LOGS))
    raw = data.draw(st.one_of(mutated(seed[:8192]), st.just(gzip.compress(seed))))
    cut: list[tuple[SkipReason, str]] = []
    sessions, labels = collect(path, path, None, raw, catalog, cut)
    assert len(sessions) <= raw.count(b"\n") + 1
    assert len(labels) <= 1000
    _run(SessionDetector(), _view(catalog, path, raw))
    _run(CompressedDetector(), _view(catalog, path + ".gz", gzip.compress(raw)))


_JSON = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=40),
    lambda inner: st.lists(inner, max_size=4)
    | st.dictionaries(
        st.sampled_from(["model", "role", "id", "type", "message", "usage", "sessionId", "provider", "content",
                         "response", "choices", "timestamp", "stop_reason", "encrypted_content", "x"]),
        inner,
        max_size=5,
    ),
    max_leaves=20,
)


@given(st.lists(_JSON, min_size=1, max_size=8))
@_FIXTURE
def test_fingerprint_attribution_over_random_records_never_raises(catalog: Catalog, items: list[object]) -> None:
    raw = b"".join(json.dumps({"role": "assistant", "x": item}).encode() + b"\n" for item in items)
    sessions, _ = collect("/var/log/agent.jsonl", "/var/log/agent.jsonl", None, raw, catalog)
    assert len(sessions) <= len(items)


_LOCK_NAMES = ["package-lock.json", "pnpm-lock.yaml", "poetry.lock", "uv.lock", "Cargo.lock", "go.mod",
               "go.sum", "Gemfile.lock"]
_MANIFEST_NAMES = ["requirements.txt", "pyproject.toml", "package.json"]
_ECOSYSTEM_PATHS = ["/opt/conda/conda-meta/openai-1.0.json", "/var/lib/gems/3.0.0/specifications/x-1.0.gemspec",
                    "/srv/app/x.nuspec", "/srv/app/obj/project.assets.json", "/root/.cargo/.crates2.json",
                    "/opt/app/lib/x.jar"]
_TEXTY = st.text(alphabet=st.characters(codec="utf-8", categories=["L", "N", "P", "S", "Z", "Cc"]), max_size=600)


@given(name=st.sampled_from(_LOCK_NAMES + _MANIFEST_NAMES), text=_TEXTY)
@_FIXTURE
def test_lockfiles_and_manifests_never_raise(catalog: Catalog, name: str, text: str) -> None:
    view = _view(catalog, f"/srv/app/{name}", text.encode())
    for detector in (LockfileDetector(), ManifestDetector()):
        assert len(_run(detector, view)) <= len(text) + 1


@given(path=st.sampled_from(_ECOSYSTEM_PATHS), data=st.data())
@_FIXTURE
def test_ecosystem_files_never_raise(catalog: Catalog, path: str, data: st.DataObject) -> None:
    seed = SEEDS["jar"] if path.endswith(".jar") else b'{"name": "openai", "version": "1.0", "libraries": {}}'
    raw = data.draw(st.one_of(mutated(seed), _TEXTY.map(str.encode)))
    assert len(_run(EcosystemDetector(), _view(catalog, path, raw))) <= len(raw) + 1


def test_the_seeds_are_understood(catalog: Catalog, tmp_path: Path) -> None:
    """The mutations start from inputs each reader really understands (else the fuzzing tests little)."""
    found = _run(EcosystemDetector(), _view(catalog, "/opt/app/lib/openai-java.jar", SEEDS["jar"]))
    assert [getattr(e, "name", None) for e in found] == ["com.openai:openai-java"]
    assert len(list(sqlite_rows.read(SEEDS["sqlite"], ReadNotes(), sqlite_rows.StoreRead()))) == 2
    assert any(collect(p, p, None, raw, catalog)[0] for p, raw in LOGS)


# --- config parsers on any text ---------------------------------------------------------------------------

# Text as a fuzzer makes it: any code point, lone surrogates included (a file decoded with surrogateescape holds
# them), mixed with each format's own punctuation.
_ANY_TEXT = st.text(st.characters(categories=["L", "N", "P", "S", "Z", "Cc", "Cs"])) | st.text(
    alphabet=st.sampled_from(list(':-[]{}#&*!|>"\'=\n \t') + ["\udcff", "\ud800", "é", "a", "1"]), max_size=60
)


@given(_ANY_TEXT, st.sampled_from(["yaml", "json", "toml", "ini", "conf", "env", "systemd", "hcl"]))
def test_every_parser_returns_items_or_a_parse_failure_even_on_surrogates(text: str, name: str) -> None:
    try:
        items = getattr(config_formats, f"parse_{name}")(text)
    except config_formats.ParseFailure:
        return
    except config_formats.BudgetExceeded as cut:
        items = cut.items
    assert all(isinstance(item, config_formats.ConfigItem) for item in items)


def test_a_lone_surrogate_is_a_yaml_parse_failure() -> None:
    with pytest.raises(config_formats.ParseFailure, match="UnicodeEncodeError"):
        config_formats.parse_yaml("\udcff")

"""Files past --max-file-size are matched end to end, in overlapping windows, each hit exactly once."""

from __future__ import annotations

import hashlib
import json
from collections import Counter
from collections.abc import Iterable
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from scanner import api
from scanner.catalog import Catalog
from scanner.catalog.matcher import MAX_MATCH_BYTES
from scanner.detectors import DETECTORS
from scanner.detectors.binaries import BinaryDetector
from scanner.detectors.content import ContentDetector
from scanner.fileview.view import FileView
from scanner.inventory.document import dumps
from scanner.kinds import Evidence
from scanner.kinds.models import ModelEvidence
from scanner.model import Skip
from scanner.options import WINDOW_OVERLAP, ScanOptions
from scanner.targets.walker import Walker
from scanner.windows import WINDOW_CONTEXT
from tests.conftest import write
from tests.gobuildinfo import go_binary

# Small windows so a test file crosses many edges: head 16 KiB, windows 32 KiB overlapping by 8 KiB.
SMALL = ScanOptions(max_file_size=16 << 10, window_size=32 << 10, window_overlap=8 << 10)


class Recording:
    """A detector that forwards to another and keeps every piece of evidence it yields."""

    def __init__(self, inner: ContentDetector | BinaryDetector) -> None:
        self.inner = inner
        self.name = inner.name
        self.description = inner.description
        self.needs = inner.needs
        self.seen: list[Evidence | Skip] = []

    def extract(self, view: FileView) -> Iterable[Evidence | Skip]:
        out = list(self.inner.extract(view))
        self.seen.extend(out)
        return out


def _scan(root: Path, catalog: Catalog, options: ScanOptions) -> tuple[Recording, dict[str, object]]:
    rec = Recording(ContentDetector())
    others = [d for d in DETECTORS if d.name != "content"]
    inv = api.scan(Walker(str(root)), api.ScanRequest(options, detectors=[rec, *others]), catalog)
    return rec, {"inv": inv}


def _models(rec: Recording) -> Counter[tuple[str, int | None]]:
    return Counter((e.name, e.location.line) for e in rec.seen if isinstance(e, ModelEvidence))


def _planted(size: int, step: int, ids: list[str], line: bool) -> tuple[bytes, list[tuple[str, int]]]:
    """`size` bytes of filler with an id every `step` bytes, at shifting offsets so some straddle every edge."""
    buf = bytearray(b"." * size)
    if line:
        for at in range(63, size, 64):
            buf[at] = 0x0A
    placed: list[tuple[str, int]] = []
    at, n = 500, 0
    while at + 40 < size:
        model = ids[n % len(ids)].encode()
        buf[at - 1] = 0x20
        buf[at : at + len(model)] = model
        buf[at + len(model)] = 0x20
        placed.append((ids[n % len(ids)], at))
        at += step + (n * 37) % 101
        n += 1
    return bytes(buf), placed


def test_text_file_past_the_cap_is_matched_whole_with_right_lines(tmp_path: Path, catalog: Catalog) -> None:
    data, placed = _planted(200_000, 1_003, ["gpt-4o", "claude-sonnet-4-5"], line=False)
    # Lines of varying length so a wrong line count would show.
    text = bytearray(data)
    for at in range(97, len(text), 211):
        if text[at] == ord("."):
            text[at] = 0x0A
    write(tmp_path, "/var/log/agent/huge.log", bytes(text))
    rec, _ = _scan(tmp_path, catalog, SMALL)
    expected = Counter((name, bytes(text[:at]).count(b"\n") + 1) for name, at in placed)
    assert _models(rec) == expected  # every id, each exactly once, on its own line


def _owned_edges(options: ScanOptions, count: int) -> list[int]:
    """Absolute offsets where one window's owned part ends and the next one's begins."""
    head, size, overlap = options.max_file_size, options.window_size, options.window_overlap
    start = head - overlap
    edges = [start + WINDOW_CONTEXT]
    for _ in range(count - 1):
        start += size - overlap
        edges.append(start + WINDOW_CONTEXT)
    return edges


@pytest.mark.parametrize("shift", [-12, -1, 0, 1, 5])
def test_id_across_each_window_edge_is_found_once(tmp_path: Path, catalog: Catalog, shift: int) -> None:
    edges = _owned_edges(SMALL, 4)
    buf = bytearray(b"\x00" * (edges[-1] + SMALL.window_size))
    buf[:4] = b"\x7fELF"
    model = b"claude-opus-4-1-20250805"
    for edge in edges:  # the id starts just before, at or just after each edge, so some straddle it
        buf[edge + shift : edge + shift + len(model)] = model
    write(tmp_path, "/opt/agent/bin/agent", bytes(buf))
    rec, _ = _scan(tmp_path, catalog, SMALL)
    found = [e.name for e in rec.seen if isinstance(e, ModelEvidence)]
    assert found == [model.decode()] * len(edges)


def test_id_at_the_head_edge_is_never_cut(tmp_path: Path, catalog: Catalog) -> None:
    head = SMALL.max_file_size
    buf = bytearray(b"\x00" * (head * 3))
    buf[:4] = b"\x7fELF"
    model = b"claude-sonnet-4-5-20250929"
    buf[head - 10 : head - 10 + len(model)] = model  # straddles the end of what is read for parsing
    write(tmp_path, "/opt/agent/bin/agent", bytes(buf))
    rec, _ = _scan(tmp_path, catalog, SMALL)
    assert [e.name for e in rec.seen if isinstance(e, ModelEvidence)] == [model.decode()]


def test_whole_file_read_once_when_under_the_cap(tmp_path: Path, catalog: Catalog) -> None:
    write(tmp_path, "/etc/agent/a.yaml", "model: gpt-4o\n")
    inv = api.scan(Walker(str(tmp_path)), api.ScanRequest(SMALL), catalog)
    assert inv.stats.bytes_read == len("model: gpt-4o\n")
    assert not inv.skipped


def test_bytes_read_count_each_byte_once(tmp_path: Path, catalog: Catalog) -> None:
    data, _ = _planted(150_001, 997, ["gpt-4o"], line=True)
    write(tmp_path, "/var/log/big.log", data)
    inv = api.scan(Walker(str(tmp_path)), api.ScanRequest(SMALL), catalog)
    assert inv.stats.bytes_read == len(data)
    [skip] = inv.skipped
    assert skip.reason.value == "too-large" and "patterns matched in all of it" in skip.detail


@pytest.mark.parametrize("head", [1024, 9000, 40_000])
def test_tiny_or_odd_heads_still_cover_the_file(tmp_path: Path, catalog: Catalog, head: int) -> None:
    data, placed = _planted(120_000, 1_501, ["gpt-4o"], line=True)
    write(tmp_path, "/var/log/big.log", data)
    options = ScanOptions(max_file_size=head, window_size=32 << 10, window_overlap=8 << 10)
    rec, _ = _scan(tmp_path, catalog, options)
    assert _models(rec) == Counter(("gpt-4o", data[:at].count(b"\n") + 1) for _, at in placed)


def test_go_build_info_past_the_head_is_read(tmp_path: Path, catalog: Catalog) -> None:
    # Built by hand in the real layout (no Go toolchain on this machine); past the head, in a later window.
    blob = go_binary([("github.com/openai/openai-go/v2", "v2.7.1")])
    data = b"\x7fELF" + b"\x00" * (100_000 - 4) + blob + b"\x00" * 50_000
    write(tmp_path, "/usr/local/bin/agent", data)
    inv = api.scan(Walker(str(tmp_path)), api.ScanRequest(SMALL), catalog)
    sdks = {(s.ecosystem, s.name, s.version) for s in inv.sdks}
    assert ("go", "github.com/openai/openai-go", "v2.7.1") in sdks


def test_every_catalog_match_fits_in_the_overlap() -> None:
    """A match longer than the overlap could be cut at a window edge: the matcher never confirms one."""
    assert MAX_MATCH_BYTES <= WINDOW_OVERLAP - 2 * WINDOW_CONTEXT


IDS = ["gpt-4o-mini", "claude-sonnet-4-5-20250929", "us.anthropic.claude-opus-4-1-20250805-v1:0", "gemini-2.5-pro"]


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    layout=st.lists(st.tuples(st.integers(0, 40_000), st.sampled_from(IDS), st.booleans()), min_size=1, max_size=12),
    binary=st.booleans(),
)
def test_windowed_matching_finds_what_a_whole_read_finds(
    tmp_path: Path, catalog: Catalog, layout: list[tuple[int, str, bool]], binary: bool
) -> None:
    """Whatever the layout, matching in windows gives the same hits, on the same lines, as one whole read."""
    buf = bytearray(b"\x7fELF\x00" if binary else b"log\n")
    for gap, model, newline in layout:
        buf += (b"\x00" if binary else b" ") * gap + model.encode() + (b"\n" if newline else b" ")
    root = tmp_path / hashlib.sha256(buf).hexdigest()[:12]  # one tree per example
    write(root, "/var/lib/agent/blob", bytes(buf))
    windowed, _ = _scan(root, catalog, SMALL)
    whole, _ = _scan(root, catalog, ScanOptions())
    assert _models(windowed) == _models(whole)


def test_a_pem_key_across_a_window_edge_is_one_credential(tmp_path: Path, catalog: Catalog) -> None:
    body = "\n".join("QUJDREVGR0hJSktMTU5PUFFSU1RVVldYWVphYmNkZWZnaGlqa2xtbm9wcXJzdHV2" for _ in range(26))
    pem = f"-----BEGIN RSA PRIVATE KEY-----\n{body}\n-----END RSA PRIVATE KEY-----"
    edge = _owned_edges(SMALL, 2)[1]
    data = b"x" * (edge - 700) + b"\n" + pem.encode() + b"\n" + b"y" * 60_000
    write(tmp_path, "/srv/deploy/notes.txt", data)
    inv = api.scan(Walker(str(tmp_path)), api.ScanRequest(SMALL), catalog)
    keys = [c for c in inv.credentials if c.type == "private-key"]
    assert len(keys) == 1 and keys[0].sha256 == hashlib.sha256(pem.encode()).hexdigest()
    assert [loc.location.line for loc in keys[0].locations] == [2]


@pytest.mark.parametrize(
    ("inside", "magic"),
    [("/usr/lib/libagent.a", b"!<arch>\n"), ("/usr/share/lists/models.tsv", b"name\tversion\n"),
     ("/opt/agent/bin/agentd", b"\x7fELF\x02\x01\x01\x00")],
)  # fmt: skip
def test_a_big_file_only_matching_wants_gives_what_a_whole_head_gives(
    tmp_path: Path, catalog: Catalog, inside: str, magic: bytes
) -> None:
    # Its head is read as one window (memory), which must not change what the scan finds.
    data, _ = _planted(300_000, 1_009, IDS, line=True)
    write(tmp_path, inside, magic + data)
    windowed = ScanOptions(max_file_size=1 << 20, window_size=32 << 10, window_overlap=8 << 10)
    whole = ScanOptions(max_file_size=1 << 20, window_size=1 << 20, window_overlap=8 << 10)
    got = json.loads(dumps(api.scan(Walker(str(tmp_path)), api.ScanRequest(windowed), catalog)))
    expected = json.loads(dumps(api.scan(Walker(str(tmp_path)), api.ScanRequest(whole), catalog)))
    got.pop("stats"), expected.pop("stats")
    assert got == expected
    assert got["models"]


def test_an_id_at_every_offset_of_a_64k_range_is_found_once(tmp_path: Path, catalog: Catalog) -> None:
    """The same bytes give the same facts wherever the window edges fall. A NUL-separated id table spans a 64 KiB
    range across the head's and the windows' edges; across the files of one scan, each shifted by another offset
    of one stride and holding another slice of the table (fewer copies than an entry keeps locations), some copy
    starts at every offset of the range. Each copy is found exactly once, and the product's ships name it."""
    model = b"claude-opus-4-7"
    stride = len(model) + 1
    span_from, span, per_file = SMALL.max_file_size - (8 << 10), 64 << 10, 150 * stride
    size = span_from + span + SMALL.window_size
    expected: dict[str, int] = {}
    for shift in range(stride):
        for n, part in enumerate(range(span_from, span_from + span, per_file)):
            buf = bytearray(b"\x00" * size)
            buf[:4] = b"\x7fELF"
            placed, at = 0, part + shift
            while at < min(part + per_file, span_from + span) and at + len(model) < size:
                buf[at : at + len(model)] = model
                at += stride
                placed += 1
            path = f"/home/u{shift}/.local/share/claude/versions/2.1.{n}"
            write(tmp_path, path, bytes(buf))
            expected[path] = placed
    rec, out = _scan(tmp_path, catalog, SMALL)
    found = Counter(e.location.path for e in rec.seen if isinstance(e, ModelEvidence))
    assert found == expected
    inv = out["inv"]
    assert all(model.decode() in agent.ships for agent in inv.agents)  # type: ignore[attr-defined]
    assert len(inv.agents) == stride  # type: ignore[attr-defined]  # one install per home, its newest version

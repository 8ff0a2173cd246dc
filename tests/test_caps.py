"""No silent gap (issue 11): a cap either keeps every distinct fact (repeats are counted, not kept) or
records in `skipped` what it cut, with how much."""

from __future__ import annotations

import json
from pathlib import Path

from scanner.catalog import Catalog
from scanner.catalog.matcher import MAX_HITS_PER_PATTERN
from scanner.fileview.config_parse import MAX_CONFIG_BYTES
from scanner.inventory.builder import InventoryBuilder
from scanner.kinds.base import MAX_URLS
from scanner.kinds.endpoints import EndpointEvidence
from scanner.model import Context, Location, SkipReason, Stats, TargetInfo
from tests.conftest import ScanFn, write


def test_a_new_model_after_thousands_of_repeats_is_found(tmp_path: Path, scan_dir: ScanFn) -> None:
    repeats = "model: claude-opus-4-1\n" * (MAX_HITS_PER_PATTERN + 1000)
    write(tmp_path, "/srv/app/models.txt", repeats + "model: claude-sonnet-4-5\n")
    inv, _ = scan_dir(tmp_path)
    names = {m.name for m in inv.models}
    assert {"claude-opus-4-1", "claude-sonnet-4-5"} <= names
    sonnet = next(m for m in inv.models if m.name == "claude-sonnet-4-5")
    assert sonnet.locations[0].line == MAX_HITS_PER_PATTERN + 1001
    assert not [s for s in inv.skipped if s.reason is SkipReason.CAP_REACHED]


def test_many_distinct_values_past_the_engine_cap_are_all_found(tmp_path: Path, scan_dir: ScanFn) -> None:
    lines = [f"claude-opus-4-1-2026{n:04d}" for n in range(MAX_HITS_PER_PATTERN + 50)]
    write(tmp_path, "/srv/app/ids.txt", "\n".join(lines) + "\n")
    inv, _ = scan_dir(tmp_path)
    found = {m.name for m in inv.models if m.name.startswith("claude-opus-4-1-2026")}
    assert len(found) == len(lines)


def test_a_config_over_the_parse_limit_is_recorded(tmp_path: Path, scan_dir: ScanFn) -> None:
    body = "model: gpt-5.5\n" + "# padding\n" * (MAX_CONFIG_BYTES // 10 + 10)
    write(tmp_path, "/etc/agent/config.yaml", body)
    inv, _ = scan_dir(tmp_path)
    cut = [s for s in inv.skipped if s.path == "/etc/agent/config.yaml"]
    assert [s.reason for s in cut] == [SkipReason.CAP_REACHED] and "not parsed" in cut[0].detail
    assert "gpt-5.5" in {m.name for m in inv.models}  # the content detector still matched its bytes


def test_utf16_strings_past_their_cap_are_recorded(tmp_path: Path, scan_dir: ScanFn) -> None:
    one = "abcdefg".encode("utf-16-le") + b"\x00\x00"
    write(tmp_path, "/opt/tool/tool.exe", b"MZ" + b"\x00" * 62 + one * 50_010)
    inv, _ = scan_dir(tmp_path)
    cut = [s for s in inv.skipped if s.path == "/opt/tool/tool.exe"]
    assert [s.reason for s in cut] == [SkipReason.CAP_REACHED] and "UTF-16" in cut[0].detail


def test_builder_caps_count_what_they_cut(catalog: Catalog) -> None:
    builder = InventoryBuilder(catalog)
    loc = Location("/etc/a.env", 1, Context.ENV)
    for n in range(MAX_URLS + 5):
        builder.add(EndpointEvidence("api.openai.com", f"https://api.openai.com/v{n}", loc))
        builder.add(EndpointEvidence("api.openai.com", f"https://api.openai.com/v{n}", loc))  # a repeat
    inv = builder.build("0", TargetInfo("/", "directory"), Stats())
    assert len(inv.endpoints[0].urls) == MAX_URLS
    cut = [s for s in inv.skipped if s.reason is SkipReason.CAP_REACHED]
    assert [(s.path, s.detail) for s in cut] == [
        ("(inventory)", f"10 URL sighting(s) past {MAX_URLS} distinct per host not kept")
    ]


def test_a_lockfile_and_a_manifest_over_their_limits_are_recorded(tmp_path: Path, scan_dir: ScanFn) -> None:
    write(tmp_path, "/srv/app/requirements.txt", "openai==1.0\n" + "# x\n" * (1 << 20) + "\n")
    inv, _ = scan_dir(tmp_path)
    cut = [s for s in inv.skipped if s.path == "/srv/app/requirements.txt"]
    assert [s.reason for s in cut] == [SkipReason.CAP_REACHED] and "manifest not parsed" in cut[0].detail


def test_sessions_past_the_per_file_cap_are_recorded(tmp_path: Path, scan_dir: ScanFn) -> None:
    from scanner.sessions.collect import MAX_SESSIONS_PER_FILE

    lines = [
        json.dumps({"sessionId": f"s{n}", "type": "assistant", "message": {"role": "assistant", "model": "gpt-5.5"}})
        for n in range(MAX_SESSIONS_PER_FILE + 3)
    ]
    write(tmp_path, "/home/dev/.claude/projects/p/log.jsonl", "\n".join(lines) + "\n")
    inv, _ = scan_dir(tmp_path)
    cut = [s for s in inv.skipped if s.reason is SkipReason.CAP_REACHED]
    assert [s.detail for s in cut] == [f"session log: 3 record(s) of sessions beyond {MAX_SESSIONS_PER_FILE} per file"]

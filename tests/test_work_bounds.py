"""Bounded work, not only bounded bytes: every bomb meets a bound, and every bound it meets is written down.

Each bomb is built in a tmp directory (the big ones once per session, sparse or repeated where it can be) and
scanned by a child process (`tests.scan_child`, one worker), which reports its peak RSS (VmHWM), what it read and
what it cut. The tests assert the work, not the clock: the budget that was spent (records, parser events, inflated
bytes), the line it was spent at, and peak memory. Seconds measure the neighbours on a shared machine, so they
belong to `make bench` (`scripts/bench_bombs.py` runs these same bombs and sets each one's CPU time against its
10 s bound); the child's timeout here is only a guard against a hang. Marked `bomb`: `pytest -m bomb` runs them
alone, `-m "not bomb"` leaves them out.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from scanner.catalog import Catalog
from scanner.formats import zipdirectory
from tests import bombs
from tests.biglog import real_log
from tests.conftest import REPO, write
from tests.scan_child import record_figures

RSS_LIMIT_MB = 300
HANG_GUARD_S = 600  # a hang, not a speed: speed is `make bench`'s

pytestmark = pytest.mark.bomb

LOG = "/home/dev/.claude/projects/-srv-app/0f4c.jsonl"
HEAD = json.dumps({"type": "user", "sessionId": "s1", "message": {"role": "user", "content": "hi"}}).encode() + b"\n"


def scan_bomb(root: Path, rss_mb: float = RSS_LIMIT_MB, jobs: int = 1) -> dict[str, Any]:
    """Scan `root` in a child process (with `jobs` workers); assert the peak memory of it and of each worker;
    return what it reports."""
    proc = subprocess.run(
        [sys.executable, "-m", "tests.scan_child", str(root), str(jobs)],
        cwd=REPO,
        capture_output=True,
        text=True,
        timeout=HANG_GUARD_S,
        env=dict(os.environ),
        check=False,
    )
    assert proc.returncode == 0, proc.stderr[-2000:]
    result: dict[str, Any] = json.loads(proc.stdout)
    record_figures(root.name, result)
    assert result["rss_mb"] <= rss_mb and result["workers_rss_mb"] <= rss_mb
    return result


def skipped(result: dict[str, Any], reason: str) -> list[str]:
    return [s["detail"] for s in result["skipped"] if s["reason"] == reason]


@pytest.fixture(scope="module")
def bomb_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("bombs")


# --- session logs: blank lines, repeats, tiny records ------------------------------------------------


def test_a_gzip_log_of_newlines_ends_at_its_inflation_cap(bomb_dir: Path) -> None:
    root = bomb_dir / "gz-newlines"
    write(root, LOG + ".gz", bombs.gzip_repeat(HEAD, b"\n", 512 << 20))  # 512 MiB of blank lines, 0.5 MB on disk
    result = scan_bomb(root)
    assert result["sessions"] == 1 and result["records"] == 1
    assert "session log: gzip inflated only up to 512 MiB" in skipped(result, "decompression-limit")


def test_a_gzip_log_of_identical_records_is_read_as_one_run(bomb_dir: Path) -> None:
    root = bomb_dir / "gz-records"
    write(root, LOG + ".gz", bombs.gzip_repeat(HEAD, b"{}\n", 512 << 20))
    result = scan_bomb(root)
    assert "session log: gzip inflated only up to 512 MiB" in skipped(result, "decompression-limit")
    folded = [n for n in result["notes"] if "identical to the line before them read once" in n]
    assert folded and int(folded[0].split()[0]) > 170_000_000  # every repeat counted, none looped over


def test_64_mb_of_identical_records_cost_one_record(bomb_dir: Path) -> None:
    root = bomb_dir / "records-64mb"
    count = ((64 << 20) - len(HEAD)) // 3
    write(root, LOG, HEAD + b"{}\n" * count)
    result = scan_bomb(root)
    assert f"{count - 1} line(s) identical to the line before them read once" in result["notes"]
    assert not skipped(result, "budget-exceeded")


def test_64_mb_of_distinct_tiny_records_spend_the_record_budget(bomb_dir: Path) -> None:
    root = bomb_dir / "distinct-64mb"
    write(root, LOG, HEAD + b'{}\n{"a":1}\n' * (((64 << 20) - len(HEAD)) // 12))
    result = scan_bomb(root)
    [cut] = skipped(result, "budget-exceeded")
    assert cut.startswith("session log: work budget of 1,000,000 records spent at line 1,000,001 (1,000,000 records")
    assert result["records"] == 1_000_000


def test_records_of_many_objects_spend_the_event_budget(bomb_dir: Path) -> None:
    root = bomb_dir / "events-64mb"
    body = b'"a":[' + b",".join([b"{}"] * 10_000) + b"]}\n"
    n = ((64 << 20) - len(HEAD)) // (len(body) + 12)
    write(root, LOG, HEAD + b"".join(b'{"i":%d,' % i + body for i in range(n)))
    result = scan_bomb(root)
    [cut] = skipped(result, "budget-exceeded")
    assert cut.startswith("session log: work budget of 10,000,000 parser events spent at line ")


def test_real_40_mb_session_logs_are_read_whole(bomb_dir: Path) -> None:
    # Real record shapes with fresh ids and real text in every record: the budget never cuts real data.
    root = bomb_dir / "real-logs"
    claude = real_log("claude-code", 40 << 20, sessions=3)
    codex = real_log("codex", 40 << 20)
    write(root, "/home/dev/.claude/projects/-srv-app/9c42ba52.jsonl", claude.data)
    write(root, "/home/dev/.codex/sessions/2026/08/20/rollout-2026-08-20T11-16-43-01a0.jsonl", codex.data)
    assert min(len(claude.data), len(codex.data)) >= 40 << 20
    result = scan_bomb(root)
    assert result["sessions"] == 4  # three in the resumed Claude Code log, one rollout
    assert result["records"] == claude.records + codex.records
    assert not [s for s in result["skipped"] if "session log" in s["detail"]], result["skipped"]


# --- a file too big to parse whole is read in part ----------------------------------------------------

_TAIL = ("claude-opus-4-7", "gpt-5.5", "kimi-k3")  # only past the cut: found by the content pass alone


def test_a_big_model_list_is_read_in_part_and_its_tail_by_patterns(bomb_dir: Path, catalog: Catalog) -> None:
    root = bomb_dir / "models-json"
    # In-house ids first: no catalog pattern knows them, only the parse by key finds them.
    in_house = [f"acme-coder-{i}b" for i in range(1, 41)]
    ids = in_house + sorted({m.id for f in catalog.files for m in f.models} - set(_TAIL))
    data = bombs.model_list(3_400_000, ids, _TAIL)
    write(root, "/home/dev/.cache/opencode/models.json", data)
    result = scan_bomb(root)
    [cut] = skipped(result, "budget-exceeded")
    assert cut.startswith("JSON: more than 400,000 JSON tokens: read the first 400,000 (up to byte ")
    assert f" of {len(data):,}: " in cut and cut.endswith("values); the rest matched by patterns only")
    assert set(in_house) <= set(result["wired"])
    assert set(_TAIL) <= set(result["models"])


# --- zip central directories, counted before they are parsed -------------------------------------------

_POM = (
    "META-INF/maven/com.anthropic/anthropic-java/pom.properties",
    b"groupId=com.anthropic\nartifactId=anthropic-java\nversion=2.1.0\n",
)


def test_a_600000_member_jar_is_walked_in_a_bounded_stream(bomb_dir: Path) -> None:
    # zipfile alone built 600,000 ZipInfo objects (381 MB) before the first was looked at; the directory is
    # now walked a block at a time and zipfile sees only the one entry wanted, the last.
    root = bomb_dir / "jar-600k"
    data = bombs.many_member_jar(600_000, last=_POM)
    write(root, "/opt/app/lib/fat.jar", data)
    found = zipdirectory.directory(lambda o, n: data[o : o + n], len(data))
    assert found.entries == 600_001  # counted from the end record, before any entry is parsed
    result = scan_bomb(root)
    assert "maven:com.anthropic:anthropic-java@2.1.0" in result["sdks"]
    assert not result["skipped"]


# --- skips grouped per file and reason -----------------------------------------------------------------


def test_a_jar_of_20000_overlapping_entries_is_one_grouped_skip(bomb_dir: Path) -> None:
    root = bomb_dir / "overlapping-jar"
    write(root, "/opt/app/lib/overlap.jar", bombs.overlapping_jar(20_000))  # 1.7 MB
    result = scan_bomb(root)
    [group] = result["skipped"]
    assert (group["path"], group["reason"], group["count"]) == ("/opt/app/lib/overlap.jar", "parse-error", 20_000)
    assert group["detail"].startswith("20,000 parse-error skips in this file; the first: member 'META-INF/maven/")
    assert len(group["members"]) == 5 and all(m.startswith("member 'META-INF/maven/g0000") for m in group["members"])



# --- model ids bounded by the catalog's grammar ----------------------------------------------------------


def test_32_kb_runs_of_a_family_grammar_are_not_model_ids(bomb_dir: Path) -> None:
    root = bomb_dir / "long-ids"
    runs = ["gpt-5." + digit * (32_768 - 6) for digit in "123"]
    config = {"model": "gpt-5.5", "fallbacks": runs[:2], "notes": f"we use {runs[2]} daily"}
    write(root, "/etc/agent/config.json", json.dumps(config))
    result = scan_bomb(root)
    assert result["models"] == ["gpt-5.5"]
    [said] = skipped(result, "cap-reached")
    assert said == "3 run(s) longer than any model id of their family not read as ids: gpt (at most 64 characters)"


# --- memory grows with depth, not with the number of files ------------------------------------------------


def test_300000_empty_files_in_one_directory_stay_under_200_mb(bomb_dir: Path) -> None:
    # One directory is the worst case: its listing was held as 300,000 stat results (284 MB) before its first
    # file was read. Two workers, as the command line runs: the parent walks and folds, the workers read.
    root = bomb_dir / "empty-files"
    bombs.empty_files(root / "srv/data", 300_000, per_dir=300_000)
    result = scan_bomb(root, rss_mb=200, jobs=2)
    assert not result["skipped"]


# --- whole JSON documents: built only when their size allows, read without rescanning ---------------------


def test_a_60000_package_lockfile_is_read_whole_with_its_pin(bomb_dir: Path) -> None:
    # Each package's line was searched from the top of the text: a real 17 MB lockfile took over ten minutes.
    root = bomb_dir / "lockfile"
    data = bombs.package_lock(60_000, {"openai": "4.0.0"})
    write(root, "/srv/app/package-lock.json", data)
    result = scan_bomb(root)
    assert result["sdks"] == ["npm:openai@4.0.0"] and not result["skipped"]


def test_a_lockfile_of_ten_million_objects_is_not_built(bomb_dir: Path) -> None:
    root = bomb_dir / "lockfile-objects"
    write(root, "/srv/app/package-lock.json", b"[" + b"{}," * (10 << 20) + b"{}]")  # 30 MB: was 834 MB of dicts
    result = scan_bomb(root)
    assert skipped(result, "budget-exceeded") == [
        "lockfile: JSON document of 10,485,762 objects and arrays (over 1,000,000) not parsed"
    ]

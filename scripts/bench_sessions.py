"""`make bench`, sessions part: records/s of the session reader on a large JSONL set built from real samples.

The set (about 200k records) repeats the real records of tests/data/sessions and sample_vm's session logs,
each copy under its own session id, in one JSONL file; `collect` reads it the way a scan does.
"""

from __future__ import annotations

import json
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from scanner.catalog import load  # noqa: E402
from scanner.sessions.collect import collect  # noqa: E402

SOURCES = [
    *sorted((REPO / "sample_vm/home/agent/.jarvis/sessions").rglob("*.jsonl")),
    REPO / "tests/data/sessions/claude-code/session-basic.jsonl",
    REPO / "tests/data/sessions/codex-cli/rollout-session-basic.jsonl",
    REPO / "tests/data/sessions/api-azure-openai/azure-reasoning-encrypted-content.1.json",
    REPO / "tests/data/sessions/api-anthropic/anthropic-clear-thinking.1.json",
    REPO / "tests/data/sessions/api-openai-chat/openai-text.json",
]
TARGET = 200_000


def sample_records() -> list[dict[str, object]]:
    out: list[dict[str, object]] = []
    for path in SOURCES:
        text = path.read_text(encoding="utf-8")
        if path.suffix == ".json":
            out.append(json.loads(text))
        else:
            out.extend(json.loads(line) for line in text.splitlines() if line.strip())
    return out


def build() -> bytes:
    base = sample_records()
    lines = []
    copy = 0
    while len(lines) < TARGET:
        copy += 1
        for rec in base:
            # One session per copy: the per-file session cap (500) is hit, as on a real busy log.
            lines.append(json.dumps({**rec, "session_id": f"bench-{copy % 400}"}, separators=(",", ":")))
    return ("\n".join(lines[:TARGET]) + "\n").encode()


def main() -> None:
    catalog = load()
    data = build()
    collect("/var/log/agent/warm.jsonl", "warm.jsonl", None, data[:200_000], catalog)  # warm caches
    best = cpu = float("inf")
    for _ in range(3):
        started, used = time.perf_counter(), time.process_time()
        sessions, _ = collect("/var/log/agent/bench.jsonl", "bench.jsonl", None, data, catalog)
        best = min(best, time.perf_counter() - started)
        cpu = min(cpu, time.process_time() - used)
    records = sum(s.records for s in sessions)
    mb = len(data) / 1e6
    # CPU time too: on a shared machine it moves far less than the wall time.
    print(f"sessions reader: {records} records, {mb:.0f} MB in {best:.2f}s: {records / best:,.0f} records/s "
          f"({records / cpu:,.0f} records per CPU-second)")


if __name__ == "__main__":
    main()

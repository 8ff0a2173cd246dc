"""What the session reader works out once a file rather than once a record still reads the same per record:
the file's stem as the session of records naming none, the rule of each API host and served model, and the
parent session a record names."""

from __future__ import annotations

import json
from pathlib import Path

from scanner.catalog import load
from scanner.model import Context
from scanner.sessions.adapters.base import file_stem, stem
from scanner.sessions.collect import LogRead, read_log


def _read(path: Path, records: list[dict[str, object]]) -> LogRead:
    path.parent.mkdir(parents=True, exist_ok=True)
    data = "".join(json.dumps(r) + "\n" for r in records).encode()
    path.write_bytes(data)
    return read_log(str(path), str(path), None, data, load(), Context.SESSION)


def test_file_stem_is_the_stem_of_the_state_path() -> None:
    state: dict[str, object] = {"path": "/h/.kimi/sessions/abc/context.jsonl"}
    assert file_stem(state) == stem("/h/.kimi/sessions/abc/context.jsonl") == "abc/context"
    assert file_stem(state) == "abc/context" and state["stem"] == "abc/context"
    assert file_stem({}) == ""


def test_records_without_a_session_id_share_the_file_stem_and_each_record_counts_its_hosts(tmp_path: Path) -> None:
    reply = {"model": "gpt-4o-2024-08-06", "object": "chat.completion", "usage": {"total_tokens": 3}}
    records = [
        {"api_base": "https://api.openai.com/v1", "model": "gpt-4o", "response": reply, "parentSessionId": "p-1"},
        {"api_base": "https://api.openai.com/v1", "model": "gpt-4o", "response": reply},
        {"api_base": "https://api.anthropic.com", "model": "claude-sonnet-4-5", "parent_session_id": "  "},
    ]
    read = _read(tmp_path / "abc" / "session.jsonl", records)
    assert [s.session_id for s in read.sessions] == ["abc/session"]
    (session,) = read.sessions
    assert session.records == 3
    assert session.parent_session_id == "p-1"
    assert read.hosts == {"api.openai.com": 1, "api.anthropic.com": 3}
    vendors = {p.vendor for p in session.providers}
    assert {"openai", "anthropic"} <= vendors

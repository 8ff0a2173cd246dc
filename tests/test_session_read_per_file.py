"""What the session reader works out once a file rather than once a record still reads the same per record:
the file's stem as the session of records naming none, the rule of each API host and served model, and the
parent session a record names."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from scanner.catalog import load
from scanner.model import Context
from scanner.sessions import collect
from scanner.sessions.adapters.base import _parse_text_time, file_stem, parse_time, stem
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


_REPLY = {"model": "gpt-4o-2024-08-06", "object": "chat.completion", "usage": {"total_tokens": 3}}
_RECORDS: list[dict[str, object]] = [
    {"api_base": "https://api.openai.com/v1", "model": "gpt-4o", "response": _REPLY, "parentSessionId": "p-1"},
    {"api_base": "https://api.openai.com/v1", "model": "gpt-4o", "response": _REPLY},
    {"api_base": "https://api.anthropic.com", "model": "claude-sonnet-4-5", "parent_session_id": "  "},
]


def _rule_counts(read: LogRead) -> dict[str, dict[str, int]]:
    return {p.vendor: {e.rule: e.count for e in p.evidence} for s in read.sessions for p in s.providers}


def test_records_without_a_session_id_share_the_file_stem_and_each_record_counts_its_hosts(tmp_path: Path) -> None:
    read = _read(tmp_path / "abc" / "session.jsonl", _RECORDS)
    assert [s.session_id for s in read.sessions] == ["abc/session"]
    (session,) = read.sessions
    assert session.records == 3
    assert session.parent_session_id == "p-1"
    assert read.hosts == {"api.openai.com": 1, "api.anthropic.com": 3}
    # The second record's host and served model, looked up in the file's tables, count as the first's did.
    assert _rule_counts(read) == {"openai": {"api-host": 2, "served-model": 2}, "anthropic": {"api-host": 1}}


def test_hosts_and_served_models_past_the_files_tables_read_the_same(tmp_path: Path,
                                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    """Past its bound, a file's table of rules keeps no more: what is not in it is looked up again, the same."""
    whole = _read(tmp_path / "whole" / "session.jsonl", _RECORDS)
    monkeypatch.setattr(collect, "_KNOWN_PER_FILE", 0)
    bounded = _read(tmp_path / "bounded" / "session.jsonl", _RECORDS)
    assert _rule_counts(bounded) == _rule_counts(whole)
    assert bounded.hosts == whole.hosts


_TIMES = st.sampled_from(
    ["2025-09-23T08:00:00Z", "2025-09-23 08:00:01+02:00", "1727078400", "", "x", "2025-13-01T00:00"]
)


@given(st.lists(st.one_of(_TIMES, st.text(max_size=30)), max_size=12))
def test_the_time_kept_for_the_last_string_read_is_only_its_own(values: list[str]) -> None:
    """A record's time is read by its walk and again by its adapter, and the second read reuses the first: every
    read gives that string's own time, whatever was read before it, an equal string built anew included."""
    for value in values:
        assert parse_time(value) == _parse_text_time(value)
        again = "".join(list(value))  # an equal string, another object
        assert parse_time(again) == parse_time(value) == _parse_text_time(value)

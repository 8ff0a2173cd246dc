"""Containers any tool writes, read into records without a product's adapter: Markdown and plain-text transcripts,
recorded HTTP exchanges wherever a document keeps them, SQLite tables whose columns hold records. Real records
from tests/data/sessions/** (see each SOURCE.txt), changed only where a test says so; hypothesis for each reader."""

from __future__ import annotations

import base64
import gzip
import hashlib
import json
import sqlite3
from pathlib import Path
from typing import Any

import yaml
from hypothesis import given, settings
from hypothesis import strategies as st

from scanner.catalog import Catalog
from scanner.model import SkipReason
from scanner.sessions.budget import WorkBudget
from scanner.sessions.collect import collect, looks_like_log
from scanner.sessions.formats import exchanges, transcript
from scanner.sessions.reader import ReadNotes
from tests.conftest import ScanFn, examples, write

DATA = Path(__file__).parent / "data" / "sessions"
HISTORY = (DATA / "aider/aider.chat.history.head.md").read_text()
LLM_HISTORY = (DATA / "aider/aider.llm.history.excerpt.txt").read_text()
COPILOT = DATA / "sessions-more/agent-sessions-fixtures/copilot-cli.events.jsonl"
CASSETTE = DATA / "sessions-more/vcr-cassettes-pydantic-ai/openai-chat-tool-output.yaml"
AT = "/home/dev/src/calc/.aider.chat.history.md"


def fake_key(tag: str) -> str:
    """A well-formed FAKE key: sk-ant-api03- + 93 characters + AA (the gitleaks/trufflehog shape)."""
    return "sk-ant-api03-" + ((tag + "Fk9Tq2Lm7Zw") * 12)[:93] + "AA"


# --- transcripts --------------------------------------------------------------------------------------


def test_a_reply_opening_with_a_reasoning_tag_is_visible_reasoning(catalog: Catalog) -> None:
    # Aider writes a reasoning model's thinking into the reply inside its own tag, before the answer.
    reply = "This repository contains a simple web-based calculator"
    history = HISTORY.replace(reply, "<thinking-content-7bbeb8e1441453ad999a0bbba8a46d4b>\n\nThe user wants an "
                              "overview.\n\n</thinking-content-7bbeb8e1441453ad999a0bbba8a46d4b>\n\n" + reply)
    (s,), _ = collect(AT, AT, None, history.encode(), catalog)
    assert s.reasoning == "visible"
    (p,) = s.providers
    assert (p.vendor, p.reasoning) == ("google", "visible")


def test_each_chat_of_a_history_is_a_session_with_its_own_header(catalog: Catalog) -> None:
    second = HISTORY.replace("2025-05-04 17:02:36", "2025-05-05 09:00:00")
    second = second.replace("gemini/gemini-2.5-pro-exp-03-25", "anthropic/claude-sonnet-4-5-20250929")
    found, _ = collect(AT, AT, None, (HISTORY + second).encode(), catalog)
    assert [(s.session_id, s.providers[0].vendor, s.served_models) for s in found] == [
        ("aider-1746378156", "google", ("gemini/gemini-2.5-pro-exp-03-25",)),
        ("aider-1746435600", "anthropic", ("anthropic/claude-sonnet-4-5-20250929",)),
    ]


def test_a_model_the_conversation_names_is_a_mention_not_a_label(tmp_path: Path, scan_dir: ScanFn) -> None:
    # The user's prompt and the agent's notes after the header name other vendors' models: conversation.
    history = HISTORY.replace("#### give me a quick summarized overview of this repo",
                              "#### compare gpt-5 with grok-4 for this repo\n> Model: deepseek-chat is mentioned here")
    write(tmp_path, AT, history)
    _, doc = scan_dir(tmp_path)
    (s,) = doc["sessions"]
    assert s["labels"] == ["gemini/gemini-2.5-pro-exp-03-25", "openai/qwen3:4b"]
    assert {"gpt-5", "grok-4", "deepseek-chat"} <= set(s["mentioned"])
    assert not {"gpt-5", "grok-4", "deepseek-chat"} & {m["name"] for m in doc["models"] if m["wired"]}


def test_a_key_pasted_into_a_chat_is_still_a_credential(tmp_path: Path, scan_dir: ScanFn) -> None:
    key = fake_key("aiderchat")
    write(tmp_path, AT, HISTORY.replace("#### give me a quick", f"#### use {key} and give me a quick"))
    _, doc = scan_dir(tmp_path)
    assert hashlib.sha256(key.encode()).hexdigest() in {c["sha256"] for c in doc["credentials"]}
    assert key not in json.dumps(doc)
    assert [s["format"] for s in doc["sessions"]] == ["transcript"]


def test_a_role_marked_exchange_log_is_a_session_that_names_no_vendor(catalog: Catalog) -> None:
    at = "/home/dev/src/calc/.aider.llm.history"
    assert looks_like_log(".aider.llm.history", LLM_HISTORY.encode())
    (s,), _ = collect(at, at, None, LLM_HISTORY.encode(), catalog)
    assert (s.format, s.records, s.started_at) == ("transcript", 3, "2025-05-04T17:06:58Z")
    (p,) = s.providers
    assert (p.vendor, p.served_via, s.reasoning) == ("unknown", None, "absent")


def test_an_llm_logs_conversation_is_one_session_of_the_model_its_first_exchange_states(
    tmp_path: Path, scan_dir: ScanFn
) -> None:
    # Written by `llm logs -c` (llm-cli/SOURCE.txt): role headings; the second exchange's heading states nothing.
    text = (DATA / "llm-cli/llm-logs.conversation.md").read_text()
    write(tmp_path, "/home/dev/notes/galaxy.md", text)
    _, doc = scan_dir(tmp_path)
    (s,) = doc["sessions"]
    assert (s["format"], s["labels"], s["served_models"]) == ("transcript", ["gpt-4.1-nano"], ["gpt-4.1-nano"])
    assert [p["vendor"] for p in s["providers"]] == ["openai"]
    assert {"gemini-2.5-pro", "grok-4"} <= set(s["mentioned"])  # the prompt's, never wired
    assert not {"gemini-2.5-pro", "grok-4"} & {m["name"] for m in doc["models"] if m["wired"]}


def test_a_reasoning_section_of_a_transcript_is_visible_reasoning(catalog: Catalog) -> None:
    text = (DATA / "llm-cli/llm-logs.conversation.md").read_text()
    shown = text.replace("## Response", "## Reasoning\n\n<details><summary>Reasoning trace</summary>\n\nThe user "
                         "wants a comparison.\n\n</details>\n\n## Response", 1)
    at = "/home/dev/notes/galaxy.md"
    (s,), _ = collect(at, at, None, shown.encode(), catalog)
    assert s.reasoning == "visible"
    (plain,), _ = collect(at, at, None, text.encode(), catalog)
    assert plain.reasoning == "absent"


def test_texts_with_a_timed_heading_or_a_user_line_are_no_transcripts() -> None:
    changelog = b"# Release 2.1 (2025-05-04 17:02)\n\n- faster\n\n## Fixes\n\nmodel: none here\n"
    dockerfile = b"FROM debian:12\nUSER app\nRUN echo 2025-05-04T17:02:36\n"
    # A person's heading is timed to the minute: the model its next line states is what was discussed, not served.
    notes = b"# Meeting 2025-05-04 17:02\n\n> Main model: gpt-4o was discussed\n\n## Done\n\nThe parser.\n"
    assert not looks_like_log("CHANGELOG.md", changelog)
    assert not looks_like_log("Dockerfile", dockerfile)
    assert not looks_like_log("notes.md", notes)
    assert looks_like_log("notes.md", notes.replace(b"17:02", b"17:02:36"))  # a program's stamp: a chat's header


_LINES = st.one_of(
    st.sampled_from([
        "# aider chat started at 2025-05-04 17:02:36", "> Main model: gemini/gemini-2.5-pro with diff edit format",
        "> Weak model: openai/qwen3:4b", "#### a prompt", "## Response:", "## Prompt", "> a note", "plain reply",
        "TO LLM 2025-05-04T17:06:58", "LLM RESPONSE 2025-05-04T17:07:07", "SYSTEM act", "USER hi", "ASSISTANT ok",
        "<think>x</think>", "", "Model: **gpt-4o**",
    ]),
    st.text(max_size=60),
)


@given(st.sampled_from(["# aider chat started at 2025-05-04 17:02:36", "TO LLM 2025-05-04T17:06:58"]),
       st.lists(_LINES, max_size=60))
@settings(max_examples=examples(200))
def test_the_transcript_reader_never_raises_and_is_bounded(head: str, lines: list[str]) -> None:
    data = "\n".join([head, *lines]).encode("utf-8", "surrogatepass")
    notes = ReadNotes()
    read = list(transcript.read(data, notes))
    assert len(read) <= data.count(b"\n") + 1
    for record in read:
        assert record.line is not None and record.end is not None and record.line <= record.end
        assert len(record.value.get("content", "")) <= transcript.MAX_TEXT


# --- recorded exchanges -------------------------------------------------------------------------------


def _interactions() -> list[dict[str, Any]]:
    doc = yaml.safe_load(CASSETTE.read_text())
    interactions: list[dict[str, Any]] = doc["interactions"]
    return interactions


def test_exchanges_are_found_wherever_a_document_keeps_them(catalog: Catalog) -> None:
    # The real cassette's exchanges, kept by some other recorder under keys of its own.
    doc = {"recorder": "x", "runs": [{"name": "tool-output", "calls": {"items": _interactions()}}]}
    at = "/home/dev/app/recordings/run.json"
    assert looks_like_log("run.json", json.dumps(doc).encode())
    (s,), _ = collect(at, at, None, json.dumps(doc).encode(), catalog)
    assert (s.format, s.records) == ("http-capture", len(_interactions()))
    assert [(p.vendor, p.served_via, p.api) for p in s.providers] == [("openai", "direct", "openai-chat")]


def test_a_log_of_many_compressed_bodies_inflates_them_only_up_to_its_budget(catalog: Catalog) -> None:
    # The real exchange, its response body kept as base64 of gzip (as a capture keeps one it cannot decode),
    # padded with 3 MiB of spaces: 4 KB a line that inflates to 3 MiB. Thirty lines would inflate to 90 MiB: past
    # 64 MiB the rest stay undecoded, and the cut is recorded.
    first = _interactions()[0]
    padded = json.dumps(first["response"].pop("parsed_body")).encode() + b" " * (3 << 20)
    first["response"]["body"] = {"string": base64.b64encode(gzip.compress(padded)).decode()}
    data = b"".join((json.dumps({**first, "n": n}) + "\n").encode() for n in range(30))  # no line repeats
    assert len(data) < 256 << 10
    skipped: list[tuple[SkipReason, str]] = []
    at = "/var/log/proxy/exchanges.jsonl"
    (s,), _ = collect(at, at, None, data, catalog, skipped=skipped)
    assert s.records == 30 and s.providers[0].vendor == "openai" and "gpt-4o-2024-08-06" in s.labels
    assert [reason for reason, detail in skipped if "compressed bodies inflated up to 64 MiB" in detail] == [
        SkipReason.BUDGET_EXCEEDED]


def test_a_proxy_log_of_one_exchange_per_line_keeps_its_lines(catalog: Catalog) -> None:
    at = "/var/log/proxy/exchanges.jsonl"
    data = "".join(json.dumps(x) + "\n" for x in _interactions()).encode()
    (s,), _ = collect(at, at, None, data, catalog)
    assert s.location.line == 1 and s.records == len(_interactions())
    assert s.providers[0].vendor == "openai"


def test_a_credential_in_a_recorded_request_is_still_found_and_never_kept(tmp_path: Path, scan_dir: ScanFn) -> None:
    key = fake_key("cassette")
    doc = yaml.safe_load(CASSETTE.read_text())
    request = doc["interactions"][0]["request"]
    request["headers"]["x-api-key"] = [key]  # a header the recorder did not filter
    request["parsed_body"]["messages"][0]["content"] = f"my key is {key}, keep it"  # and the conversation
    write(tmp_path, "/home/dev/app/tests/cassettes/tool.yaml", yaml.safe_dump(doc))
    write(tmp_path, "/home/dev/work/recordings/tool.yaml", yaml.safe_dump(doc))
    inventory, out = scan_dir(tmp_path)
    assert hashlib.sha256(key.encode()).hexdigest() in {c["sha256"] for c in out["credentials"]}
    assert key not in json.dumps(out)
    assert {s["providers"][0]["vendor"] for s in out["sessions"]} == {"openai"}


def test_each_file_names_the_route_its_own_host_says(catalog: Catalog) -> None:
    # The same cassette recorded through OpenRouter, then through Azure: both hosts name only a route (their rules
    # share an id and a vendor), and a file read later must not take the route concluded for the one before.
    text = CASSETTE.read_text()
    routes = []
    for host in ("openrouter.ai/api", "contoso.cognitiveservices.azure.com/openai"):
        at = f"/home/dev/app/tests/cassettes/{host.split('.')[0]}.yaml"
        data = text.replace("https://api.openai.com/v1/", f"https://{host}/v1/").encode()
        (s,), _ = collect(at, at, None, data, catalog)
        routes.append([(p.vendor, p.served_via) for p in s.providers])
    assert routes == [[("openai", "openrouter")], [("openai", "azure")]]


def test_the_response_headers_keep_only_ids_models_and_base_urls() -> None:
    record = exchanges._exchange(
        {},
        {"uri": "https://api.openai.com/v1/chat/completions"},
        {"headers": {"x-request-id": ["req_1"], "set-cookie": ["secret"], "openai-model": ["gpt-4o"]}, "body": ""},
        WorkBudget(),
    )
    assert record["response"]["headers"] == {"x-request-id": "req_1", "set-cookie": "", "openai-model": "gpt-4o"}


_JSON = st.recursive(
    st.none() | st.booleans() | st.integers() | st.text(max_size=30),
    lambda inner: st.lists(inner, max_size=4)
    | st.dictionaries(
        st.sampled_from(["request", "response", "request_sample", "response_sample", "uri", "url", "method",
                         "headers", "body", "status", "content", "text", "log", "entries", "interactions", "x"]),
        inner,
        max_size=5,
    ),
    max_leaves=30,
)


@given(_JSON, st.booleans())
@settings(max_examples=examples(200))
def test_the_exchange_reader_never_raises_and_is_bounded(doc: Any, as_yaml: bool) -> None:
    data = yaml.safe_dump(doc).encode() if as_yaml else json.dumps(doc).encode()
    found = exchanges.CaptureRead()
    read = list(exchanges.read("x.yaml" if as_yaml else "x.json", data, ReadNotes(), found))
    assert found.exchanges <= len(read) <= data.count(b"{") + data.count(b"request") + 1
    for record in read:
        assert isinstance(record.value, dict)


# --- SQLite tables of records -------------------------------------------------------------------------


def _store(path: Path, table: str, columns: str, rows: list[tuple[Any, ...]]) -> bytes:
    con = sqlite3.connect(path)
    con.execute(f"CREATE TABLE {table} ({columns})")
    marks = ", ".join("?" * len(rows[0]))
    con.executemany(f"INSERT INTO {table} VALUES ({marks})", rows)
    con.commit()
    con.close()
    return path.read_bytes()


def test_a_table_of_json_records_under_any_names_is_read(catalog: Catalog, tmp_path: Path) -> None:
    # The real OpenAI Responses items, kept by some tool in a table and columns of its own naming.
    doc = json.loads((DATA / "api-openai-responses/openai-reasoning-encrypted-content.1.json").read_text())
    rows = [(n, "chat-7", json.dumps(item), "2025-12-13T02:03:10Z") for n, item in enumerate(doc["output"])]
    data = _store(tmp_path / "memory.sqlite", "history", "n INTEGER, thread_id TEXT, payload TEXT, at TEXT", rows)
    assert looks_like_log("memory.sqlite", data)
    (s,), _ = collect("/srv/bot/memory.sqlite", "/srv/bot/memory.sqlite", None, data, catalog)
    assert (s.format, s.session_id, s.records, s.reasoning) == ("sqlite-store", "chat-7", len(rows), "visible")
    assert [(p.vendor, p.api) for p in s.providers] == [("openai", "openai-responses")]


def test_a_table_of_settings_json_is_no_session_store(catalog: Catalog, tmp_path: Path) -> None:
    # An editor's state (key, JSON value): settings, not records of a session.
    rows = [("ext.settings", json.dumps({"apiProvider": "vertex", "apiModelId": "claude-sonnet-4-5@20250929"})),
            ("panel.views", "1")]
    data = _store(tmp_path / "state.vscdb", "ItemTable", "key TEXT, value BLOB", rows)
    assert collect("/home/u/state.vscdb", "/home/u/state.vscdb", None, data, catalog) == ([], [])


def _dumped_store(root: Path, inside: str, dump: str) -> None:
    """A real store's schema and rows (an `sqlite3 .dump`) laid where its product keeps it."""
    path = root / inside.lstrip("/")
    path.parent.mkdir(parents=True, exist_ok=True)
    con = sqlite3.connect(path)
    con.executescript((DATA / dump).read_text())
    con.close()


def test_a_store_of_messages_by_role_and_its_sessions_settings_is_read(tmp_path: Path, scan_dir: ScanFn) -> None:
    # Goose's sessions.db: messages hold no model; each session's row names its provider and model, and the
    # messages refer to it by `session_id`. A config the user pasted into a prompt is a mention.
    _dumped_store(tmp_path, "/home/dev/.local/share/goose/sessions/sessions.db", "goose-sqlite/sessions.sql")
    _, doc = scan_dir(tmp_path)
    found = {s["session_id"]: (s["labels"], [(p["vendor"], p["served_via"]) for p in s["providers"]])
             for s in doc["sessions"]}
    assert found == {
        "20250918_1": (["claude-sonnet-4-20250514"], [("anthropic", "direct")]),
        "20250919_1": (["qwen2.5-coder:32b"], [("alibaba", "self-hosted")]),
        "20250920_1": (["google/gemini-2.5-pro"], [("google", "openrouter")]),
    }
    wired = {m["name"] for m in doc["models"] if m["wired"]}
    assert wired == {"claude-sonnet-4-20250514", "qwen2.5-coder:32b", "google/gemini-2.5-pro"}


def test_ids_a_tool_printed_into_a_store_of_messages_are_mentions(tmp_path: Path, scan_dir: ScanFn) -> None:
    # Crush's crush.db: each assistant message names its model and provider; a bash tool's result lists the
    # models of a proxy. Read as bytes, those were wiring (and `qwen3:30b` ran into the next byte).
    _dumped_store(tmp_path, "/home/dev/projects/webshop/.crush/crush.db", "crush-sqlite/crush.sql")
    _, doc = scan_dir(tmp_path)
    found = sorted((s["labels"], [(p["vendor"], p["served_via"]) for p in s["providers"]]) for s in doc["sessions"])
    assert found == [
        (["anthropic.claude-sonnet-4-20250514-v1:0"], [("anthropic", "bedrock")]),
        (["qwen3:30b"], [("alibaba", "self-hosted")]),
    ]
    models = {m["name"]: m["wired"] for m in doc["models"]}
    assert {n for n, wired in models.items() if wired} == {"anthropic.claude-sonnet-4-20250514-v1:0", "qwen3:30b"}
    assert not any(models.get(n) for n in ("gpt-4.1", "o4-mini", "text-embedding-3-small"))


def test_a_table_of_models_no_message_refers_to_is_no_session_s_settings(tmp_path: Path, scan_dir: ScanFn) -> None:
    # Beside Goose's real tables, a table listing the models a picker offers (a model column, its own ids): no
    # message refers to those ids, so its models are no session's, and never wiring.
    path = tmp_path / "home/dev/.local/share/goose/sessions/sessions.db"
    _dumped_store(tmp_path, "/home/dev/.local/share/goose/sessions/sessions.db", "goose-sqlite/sessions.sql")
    con = sqlite3.connect(path)
    con.execute("CREATE TABLE offered (id TEXT PRIMARY KEY, model TEXT)")
    con.executemany("INSERT INTO offered VALUES (?, ?)", [("m1", "gpt-4.1"), ("m2", "o4-mini")])
    con.commit()
    con.close()
    _, doc = scan_dir(tmp_path)
    assert {tuple(s["labels"]) for s in doc["sessions"]} == {
        ("claude-sonnet-4-20250514",), ("qwen2.5-coder:32b",), ("google/gemini-2.5-pro",)}
    assert not {"gpt-4.1", "o4-mini"} & {m["name"] for m in doc["models"] if m["wired"]}


def test_a_model_named_under_a_key_of_its_own_naming_is_a_label_where_the_catalogs_know_it(
    tmp_path: Path, scan_dir: ScanFn
) -> None:
    # Continue's sessions name a model by its title (`chatModelTitle`, `promptLogs[].modelTitle`) and its provider
    # (`modelProvider`). A title spelled as an id is the session's model; a display title is no model at all.
    for name in ("0b7c2f8e-4d1a-4e9b-9c3f-2a6d8e1f7b54", "5e91d3a0-7b2c-4f86-a1d4-c0e8b3f29a17",
                 "c4a8e2d6-1f3b-4a7e-8d90-6b5c2e7f1a03", "sessions"):
        # Kept apart from the session samples: two of these files hold no session by design, one is an index.
        text = (DATA.parent / f"session-stores/continue/{name}.json").read_text()
        write(tmp_path, f"/home/dev/.continue/sessions/{name}.json", text)
    _, doc = scan_dir(tmp_path)
    found = {s["session_id"]: (s["labels"], [(p["vendor"], p["served_via"]) for p in s["providers"]])
             for s in doc["sessions"]}
    assert found == {"5e91d3a0-7b2c-4f86-a1d4-c0e8b3f29a17": (["qwen2.5-coder:32b"], [("alibaba", "self-hosted")])}
    assert {m["name"] for m in doc["models"] if m["wired"]} == {"qwen2.5-coder:32b"}  # the pasted ids: mentions


def test_a_value_under_a_model_word_key_that_no_catalog_knows_is_no_label(catalog: Catalog) -> None:
    rows = [{"sessionId": "s1", "modelType": "chat", "modelTitle": "gpt-4o", "role": "assistant", "content": "ok"},
            {"sessionId": "s1", "chatModelTitle": "team-default", "modelProvider": "openai"}]
    at = "/home/u/.agent/sessions/s1.jsonl"
    data = "".join(json.dumps(r) + "\n" for r in rows).encode()
    found, _ = collect(at, at, None, data, catalog)
    assert [s.labels for s in found] == [("gpt-4o",)]


# --- an agent's own events ----------------------------------------------------------------------------


def test_copilot_cli_events_name_the_model_of_its_assistant_messages(tmp_path: Path, scan_dir: ScanFn) -> None:
    # No provider id: the assistant's own events name their model; the route is the product's (its folder).
    write(tmp_path, "/home/dev/.copilot/session-state/copilot_stage0_small/events.jsonl", COPILOT.read_text())
    _, doc = scan_dir(tmp_path)
    (s,) = doc["sessions"]
    assert [(p["vendor"], p["served_via"]) for p in s["providers"]] == [("openai", "github-copilot")]
    assert s["served_models"] == ["gpt-5-mini"]
    # Its subagent's records name claude-haiku-4.5 and carry no served-by fact: OpenAI serving gpt-5-mini's
    # replies says nothing against that label.
    assert "claude-haiku-4.5" in s["labels"] and s["mismatched_labels"] == []
    assert s["unserved_labels"] == ["gpt-4.1", "claude-haiku-4.5"]
    observed = {r["alias"]: r["observed"]["vendor"] for r in doc["routes"]}
    assert observed == {"gpt-5-mini": "openai", "gpt-4.1": None, "claude-haiku-4.5": None}
    # Its reasoning fields hold only the fixture's placeholder: nothing of a reasoning is in it.
    assert s["reasoning"] == "absent"


def test_a_placeholder_where_reasoning_was_is_no_reasoning_and_real_text_is(catalog: Catalog) -> None:
    at = "/var/log/agent/events.jsonl"
    for text, want in (("[trimmed for fixture]", "absent"), ("<redacted>", "absent"),
                       ("The user wants a listing; [1] first.", "visible")):
        rows = [{"type": "assistant.reasoning", "data": {"reasoningId": "r1", "content": text}},
                {"type": "assistant.message", "data": {"model": "gpt-5-mini", "content": "ok"}}]
        (s,), _ = collect(at, at, None, "".join(json.dumps(r) + "\n" for r in rows).encode(), catalog)
        assert s.reasoning == want, text

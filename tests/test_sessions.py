"""Session adapters and fingerprint rules on real recorded samples (tests/data/sessions, origins in SOURCE.txt)."""

from __future__ import annotations

import base64
import binascii
import json
import re
import sqlite3
import struct
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from scanner.catalog import Catalog
from scanner.kinds.sessions import SessionEntry
from scanner.sessions.collect import collect, looks_like_log
from scanner.sessions.fernet import fernet_time, strip_tag
from scanner.sessions.fingerprints import decode_litellm_id

DATA = Path(__file__).parent / "data" / "sessions"


def run(catalog: Catalog, sample: str, inside: str | None = None, data: bytes | None = None) -> list[SessionEntry]:
    raw = data if data is not None else (DATA / sample).read_bytes()
    path = inside or f"/var/log/captures/{Path(sample).name}"
    sessions, _ = collect(path, path, None, raw, catalog)
    return sessions


def one(catalog: Catalog, sample: str, inside: str | None = None, data: bytes | None = None) -> SessionEntry:
    found = run(catalog, sample, inside, data)
    assert len(found) == 1, [s.session_id for s in found]
    return found[0]


def main(s: SessionEntry) -> tuple[str, str | None, str | None]:
    p = max(s.providers, key=lambda p: p.records)
    return p.vendor, p.served_via, p.api


def rules(s: SessionEntry) -> set[str]:
    return {e.rule for p in s.providers for e in p.evidence}


def json_block(md: str) -> bytes:
    """The first fenced JSON object of a Markdown capture, as bytes."""
    m = re.search(r"```json\n(\{.*?\})\n```", (DATA / md).read_text(encoding="utf-8"), re.S)
    assert m
    return m.group(1).encode()


# --- adapters ----------------------------------------------------------------------------------------


def test_claude_code_session_is_anthropic(catalog: Catalog) -> None:
    s = one(catalog, "claude-code/session-basic.jsonl", "/home/u/.claude/projects/-home-u-x/9c42ba52.jsonl")
    assert s.format == "claude-code"
    assert s.session_id == "9c42ba52-3bf1-449f-a040-8ee33284a1c8"
    assert main(s) == ("anthropic", "direct", "anthropic-messages")
    assert {"anthropic-message-id", "anthropic-tool-use-id", "anthropic-request-id"} <= rules(s)
    assert s.labels == ("claude-haiku-4-5-20251001",)
    assert s.reasoning == "encrypted"  # Claude Code keeps only the signature of its thinking
    assert s.started_at == "2026-08-20T10:21:52Z"


def test_codex_rollout_is_openai(catalog: Catalog) -> None:
    inside = "/home/u/.codex/sessions/2026/08/20/rollout-2026-08-20T11-16-42-01a01ee3.jsonl"
    s = one(catalog, "codex-cli/rollout-session-basic.jsonl", inside)
    assert s.format == "codex-cli"
    assert s.session_id == "01a01ee3-393c-7cb1-818e-268d8e2ae938"
    assert [p.vendor for p in s.providers] == ["openai"]
    assert main(s) == ("openai", "direct", "openai-responses")  # its declared provider is OpenAI's own API
    assert {"openai-responses-id", "openai-tool-call-id", "stated-route"} <= rules(s)
    assert s.declared == "openai"
    assert s.mismatched_labels == ()


def test_codex_reasoning_rollout_has_summaries_only(catalog: Catalog) -> None:
    s = one(
        catalog, "codex-cli/rollout-session-reasoning-head.jsonl", "/root/.codex/sessions/2026/08/20/rollout-x.jsonl"
    )
    assert s.format == "codex-cli"
    # agent_reasoning events carry no provider id: unknown, never an empty list
    assert [(p.vendor, p.record_ranges) for p in s.providers] == [("unknown", ((1, 10),))]
    # their text is the reasoning's summary, readable: visible
    assert s.reasoning == "visible"
    assert s.providers[0].visible_records == ((2, 8),)  # a run spans the records between that carry none


def test_cline_task_folder(catalog: Catalog) -> None:
    store = "/home/u/.config/Code/User/globalStorage/saoudrizwan.claude-dev"
    inside = f"{store}/tasks/1769053680585/api_conversation_history.json"
    s = one(catalog, "constructed/api_conversation_history.json", inside)
    assert (s.format, s.session_id) == ("cline", "1769053680585")
    assert main(s) == ("anthropic", "direct", "anthropic-messages")
    assert s.reasoning == "visible"
    assert s.declared == "anthropic"


def test_roo_code_task_folder_is_named_as_such(catalog: Catalog) -> None:
    inside = (
        "/home/u/.config/Code/User/globalStorage/rooveterinaryinc.roo-cline/tasks/abc/api_conversation_history.json"
    )
    assert one(catalog, "constructed/api_conversation_history.json", inside).format == "roo-code"


def test_gemini_cli_chat(catalog: Catalog) -> None:
    s = one(catalog, "constructed/gemini-cli-session.json", "/home/u/.gemini/tmp/5f2b/chats/session-2025-10-18.json")
    assert (s.format, s.session_id) == ("gemini-cli", "7e1c9a40-2b8f-4d55-9a63-1f0e2d3c4b5a")
    assert s.labels == ("gemini-2.5-pro",)
    assert s.reasoning == "visible"
    # Gemini CLI mints its own tool ids; the model its `gemini` messages name is what answered: Google's
    (p,) = s.providers
    assert (p.vendor, p.candidates, p.confidence) == ("google", (), "medium")
    assert s.served_models == ("gemini-2.5-pro",)


def test_pi_session_reads_the_reasoning_item_inside_the_signature(catalog: Catalog) -> None:
    s = one(catalog, "constructed/pi-session.jsonl", "/home/u/.pi/agent/sessions/--home-u--/s.jsonl")
    assert s.format == "pi"
    assert main(s) == ("openai", "direct", "openai-responses")  # the provider it declares: OpenAI's own
    assert {"openai-fernet-reasoning", "openai-responses-id"} <= rules(s)
    assert s.labels == ("gpt-5-mini",)


def test_an_aider_history_is_a_transcript_whose_header_names_the_model_of_its_replies(catalog: Catalog) -> None:
    # Read by its structure (a timed chat heading, the agent's header, prompt headings): no adapter of Aider's.
    s = one(catalog, "aider/aider.chat.history.head.md", "/home/u/calc/.aider.chat.history.md")
    assert (s.format, s.session_id) == ("transcript", "aider-1746378156")
    assert s.labels == ("gemini/gemini-2.5-pro-exp-03-25", "openai/qwen3:4b")  # the main model, then the weak one
    assert s.started_at == "2025-05-04T17:02:36Z"
    (p,) = s.providers  # the replies came from the main model; the weak model is only a label
    assert (p.vendor, p.served_via, p.candidates) == ("google", "direct", ())
    assert s.served_models == ("gemini/gemini-2.5-pro-exp-03-25",)
    # No reply ran under the weak model (Qwen): Google's replies say nothing against it.
    assert s.unserved_labels == ("openai/qwen3:4b",) and s.mismatched_labels == ()


def test_openai_agents_sdk_sqlite_store(catalog: Catalog, tmp_path: Path) -> None:
    # The schema of agents/memory/sqlite_session.py (tests/data/sessions/openai-agents-sdk/), filled with a real
    # Azure Responses item (api-azure-openai) and a Chat-Completions item the SDK marked __fake_id__.
    db = tmp_path / "conversations.db"
    con = sqlite3.connect(db)
    con.execute("CREATE TABLE agent_sessions (session_id TEXT PRIMARY KEY, created_at TIMESTAMP, updated_at TIMESTAMP)")
    con.execute(
        "CREATE TABLE agent_messages (id INTEGER PRIMARY KEY AUTOINCREMENT, session_id TEXT NOT NULL, "
        "message_data TEXT NOT NULL, created_at TIMESTAMP DEFAULT CURRENT_TIMESTAMP)"
    )
    doc = json.loads((DATA / "api-azure-openai/azure-tool-call.1.json").read_text())
    item = next(o for o in doc["output"] if o["type"] == "function_call")
    rows = [
        ("user_123", json.dumps(item), "2026-02-11 09:00:00"),
        ("user_123", json.dumps({"id": "__fake_id__", "type": "message", "role": "assistant"}), "2026-02-11 09:00:05"),
    ]
    con.executemany("INSERT INTO agent_messages (session_id, message_data, created_at) VALUES (?, ?, ?)", rows)
    con.commit()
    con.close()
    data = db.read_bytes()
    assert looks_like_log("conversations.db", data)
    s = one(catalog, "", "/srv/app/conversations.db", data)
    # Read by its table's shape (a column of JSON records beside a session_id column): no adapter of the SDK's.
    assert (s.format, s.session_id, s.records) == ("sqlite-store", "user_123", 2)
    assert main(s)[0] == "openai"
    assert "agents-sdk-fake-id" in rules(s)


def test_litellm_spend_log_names_the_upstream(catalog: Catalog) -> None:
    s = one(catalog, "constructed/litellm-spendlogs.jsonl")
    assert s.format == "litellm"
    assert s.declared == "azure"
    assert main(s) == ("openai", "azure", "openai-responses")
    assert {"litellm-proxy-response-id", "openai-responses-id"} <= rules(s)


def test_generic_adapter_reads_an_unknown_agents_log(catalog: Catalog) -> None:
    # Records of an agent no adapter knows, with a real Azure Responses reply inside each line.
    reply = json.loads((DATA / "api-azure-openai/azure-reasoning-encrypted-content.1.json").read_text())
    lines = [{"ts": "2025-12-13T00:50:03Z", "conversation_id": "c-1", "event": {"model": "gpt-5-mini"}, "reply": reply}]
    data = "".join(json.dumps(x) + "\n" for x in lines).encode()
    s = one(catalog, "", "/opt/acme/logs/agent.jsonl", data)
    assert (s.format, s.session_id, s.labels) == ("generic", "c-1", ("gpt-5-mini",))
    assert main(s) == ("openai", "azure", "openai-responses")
    assert s.fernet is not None and s.fernet.inconsistent == 0


# --- raw API responses and fingerprint rules -----------------------------------------------------------

RAW = [
    ("api-openai-chat/openai-text.json", ("openai", None, "openai-chat"), "openai-chat-completion-id"),
    (
        "api-openai-responses/openai-reasoning-encrypted-content.1.json",
        ("openai", None, "openai-responses"),
        "openai-fernet-reasoning",
    ),
    (
        "api-azure-openai/azure-reasoning-encrypted-content.1.json",
        ("openai", "azure", "openai-responses"),
        "azure-content-filter",
    ),
    ("api-azure-openai/azure-tool-call.1.json", ("openai", "azure", "openai-responses"), "openai-tool-call-id"),
    (
        "api-anthropic/anthropic-clear-thinking.1.json",
        ("anthropic", "direct", "anthropic-messages"),
        "anthropic-thinking-signature",
    ),
    (
        "api-anthropic/anthropic-web-search-tool.1.json",
        ("anthropic", "direct", "anthropic-messages"),
        "anthropic-tool-use-id",
    ),
    (
        "api-bedrock/amazon-bedrock-reasoning.json",
        ("anthropic", "bedrock", "bedrock-converse"),
        "bedrock-converse-reasoning",
    ),
    ("api-mistral/mistral-tool-call.json", ("mistral", None, "openai-chat"), "mistral-tool-call-id"),
    ("api-groq/groq-tool-call.json", ("groq", None, "openai-chat"), "groq-request-id"),
    ("api-xai/xai-reasoning-store-false.item-done.jsonl", ("xai", None, "openai-responses"), "xai-encrypted-reasoning"),
]


@pytest.mark.parametrize(("sample", "expected", "rule"), RAW, ids=[r[0].split("/")[0] for r in RAW])
def test_raw_api_response(
    catalog: Catalog, sample: str, expected: tuple[str, str | None, str | None], rule: str
) -> None:
    s = one(catalog, sample)
    assert s.format == "api-response"
    assert main(s) == expected
    assert rule in rules(s)


@pytest.mark.parametrize(
    ("sample", "expected", "rule"),
    [
        ("openrouter/openrouter-result_test.md", ("unknown", "openrouter", None), "openrouter-generation-id"),
        ("ollama/ollama-openai-compat-sses.md", ("self-hosted", None, "openai-chat"), "ollama-system-fingerprint"),
    ],
)
def test_captures_in_notes(
    catalog: Catalog, sample: str, expected: tuple[str, str | None, str | None], rule: str
) -> None:
    s = one(catalog, "", "/var/log/x/capture.json", json_block(sample))
    assert main(s) == expected
    assert rule in rules(s)


def test_qwen_hex24_call_id_is_not_openai(catalog: Catalog) -> None:
    s = one(catalog, "api-alibaba-qwen/alibaba-tool-call.json")
    assert "openai" not in {p.vendor for p in s.providers}
    assert rules(s) == {"openai-lookalike-hex24-tool-call-id", "served-model"}
    (p,) = s.providers  # the reply's model (qwen-plus) names Alibaba; a shim minting the same ids stays possible
    assert (p.vendor, p.candidates, p.confidence) == ("alibaba", ("self-hosted",), "medium")


def test_xai_base64_blob_is_not_fernet_nor_openai(catalog: Catalog) -> None:
    s = one(catalog, "api-xai/xai-reasoning-store-false.item-done.jsonl")
    assert {p.vendor for p in s.providers} == {"xai"}
    assert "openai-fernet-reasoning" not in rules(s)
    assert s.fernet is None
    blob = json.loads((DATA / "api-xai/xai-reasoning-store-false.item-done.jsonl").read_text().splitlines()[1])
    assert fernet_time(blob["item"]["encrypted_content"]) is None


def test_fernet_time_is_read_without_a_key() -> None:
    doc = json.loads((DATA / "api-openai-responses/openai-reasoning-encrypted-content.1.json").read_text())
    token = next(o for o in doc["output"] if o["type"] == "reasoning")["encrypted_content"]
    seconds = fernet_time(token)
    assert seconds is not None and 0 <= seconds - doc["created_at"] <= 600
    assert fernet_time("gAAAAABnot-base64!!") is None
    assert fernet_time(token[:-7]) is None  # cut: no longer whole AES blocks + HMAC
    assert strip_tag("gpt_responses_v1:" + token) == ("gpt_responses_v1", token)


def _fernet_time_decoded_whole(token: str) -> int | None:
    """The layout read from the whole decoded token: what `fernet_time` must agree with."""
    if not token.startswith("gAAAAA"):
        return None
    try:
        raw = base64.urlsafe_b64decode(token + "=" * (-len(token) % 4))
    except (binascii.Error, ValueError):
        return None
    body = len(raw) - 1 - 8 - 16 - 32
    if raw[0] != 0x80 or body < 16 or body % 16:
        return None
    return int(struct.unpack(">Q", raw[1:9])[0])


_TOKEN_CHARS = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_"


def _token(when: int, blocks: int, extra: int, padded: bool) -> str:
    """A Fernet token's layout around zero bytes (`extra` bytes off whole AES blocks), padded or not."""
    raw = b"\x80" + struct.pack(">Q", when) + bytes(16 + 16 * blocks + extra + 32)
    token = base64.urlsafe_b64encode(raw).decode()
    return token if padded else token.rstrip("=")


@settings(max_examples=500, deadline=None)
@given(
    st.builds(_token, st.integers(0, 2**35), st.integers(0, 6), st.sampled_from([0, 0, 1, 15]), st.booleans())
    | st.text(alphabet=_TOKEN_CHARS + "=+/ .\né", max_size=300).map(lambda t: "gAAAAA" + t)
)
def test_fernet_time_counts_the_length_as_a_whole_decode_reads_it(token: str) -> None:
    """The time is read from the token's first bytes and its length counted, not decoded: the same answer as
    decoding all of it, for well-formed tokens and any other text after the `gAAAAA` mark."""
    assert fernet_time(token) == _fernet_time_decoded_whole(token)


def test_litellm_id_decodes_to_its_upstream() -> None:
    value = (
        "resp_bGl0ZWxsbTpjdXN0b21fbGxtX3Byb3ZpZGVyOmF6dXJlO21vZGVsX2lkOjg2ODUwNGY1LWQyZTYtNDY4NC1hZDdkLTI4MDRkYjEw"
        "YTM4ZjtyZXNwb25zZV9pZDpyZXNwXzBlNmU4N2RmMmY3YmFjZDEwMDY5NTc5NjRiOTkwNDgxOTZhODQ2YjNlNzc2MzYyYzM1"
    )
    fields = decode_litellm_id(value)
    assert fields["custom_llm_provider"] == "azure"
    assert fields["response_id"].startswith("resp_0e6e87df")


def test_provider_switch_mid_session_gives_two_providers(catalog: Catalog) -> None:
    # A router's silent fallback: the first turns carry runtime ids, the later ones Anthropic's.
    lines = [
        {
            "session_id": "s",
            "timestamp": "2026-01-01T00:00:00Z",
            "role": "assistant",
            "tool_calls": [{"id": "call_df1db1afefc8cb0e1936524a9ad401f8"}],
        },
        {
            "session_id": "s",
            "timestamp": "2026-01-01T00:01:00Z",
            "role": "assistant",
            "id": "msg_011CeDqKnDd2qP37QdkC5nGR",
        },
    ]
    data = "".join(json.dumps(x) + "\n" for x in lines).encode()
    s = one(catalog, "", "/var/log/agent/s.jsonl", data)
    assert [p.vendor for p in s.providers] == ["self-hosted", "anthropic"]
    assert [p.records for p in s.providers] == [1, 1]


def test_key_rule_example_does_not_depend_on_the_hash_seed(catalog: Catalog) -> None:
    # Azure's filter annotations under all four key names: the example is the first name in sorted order,
    # not the first a set happens to yield (which changes with PYTHONHASHSEED from one run to the next).
    from scanner.sessions.fingerprints import Fingerprinter

    names = ["prompt_filter_results", "content_filters", "content_filter_offsets", "content_filter_results"]
    record = {"id": "chatcmpl-x", "choices": [{name: {} for name in names}]}
    hits = [h for h in Fingerprinter(catalog.fingerprints).scan(record) if h.rule.id == "azure-content-filter"]
    assert [h.value for h in hits] == sorted(names)

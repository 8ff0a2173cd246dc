# ruff: noqa: E501  (the tables of expected results read best one sample per line)
"""Session forensics on logs no adapter was written for (issue 10): every real sample, invented layouts, a
mid-session provider switch, DeepSeek and Qwen behind look-alike ids and clouds, fixtures, and the shape walk's
bounds. Origins of every file are in tests/data/sessions/**/SOURCE.txt."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from scanner.catalog import Catalog
from scanner.kinds.sessions import SessionEntry
from scanner.sessions.collect import collect, engine, looks_like_log
from scanner.sessions.fingerprints import _first_chars
from scanner.sessions.shape import MAX_LEAVES, MAX_NODES, read_shape
from tests.conftest import ScanFn, write

DATA = Path(__file__).parent / "data" / "sessions"
CLINE = "/home/u/.config/Code/User/globalStorage/saoudrizwan.claude-dev/tasks/1747415182436/"
INSIDE = {
    "claude-code/session-basic.jsonl": "/home/u/.claude/projects/-home-u-x/9c42ba52.jsonl",
    "codex-cli/rollout-session-basic.jsonl": "/home/u/.codex/sessions/2026/08/20/rollout-2026-08-20T11-16-42-01a01ee3.jsonl",
    "codex-cli/rollout-session-reasoning-head.jsonl": "/root/.codex/sessions/2026/08/20/rollout-x.jsonl",
    "sessions-more/cline-task-openrouter/1747415182436.api_conversation_history.json": CLINE
    + "api_conversation_history.json",
    "sessions-more/cline-task-openrouter/1747415182436.ui_messages.json": CLINE + "ui_messages.json",
    "sessions-more/cline-task-openrouter/1747415182436.task_metadata.json": CLINE + "task_metadata.json",
    "sessions-more/agent-sessions-fixtures/gemini-cli.chats.jsonl_v040.jsonl": "/home/u/.gemini/tmp/0b7d/chats/s.jsonl",
    "sessions-more/agent-sessions-fixtures/qwen-code.system_telemetry.jsonl": "/home/u/.qwen/projects/-tmp-x/chats/s.jsonl",
    "aider/aider.chat.history.head.md": "/home/u/calc/.aider.chat.history.md",
    "mixed/session-5e1f0a9c2d7b4e83.jsonl": "/home/agent/.jarvis/sessions/2026-11-20/session-5e1f0a9c2d7b4e83.jsonl",
}
Provider = tuple[str, str | None, str | None, tuple[tuple[int, int], ...]]


def inside(sample: str) -> str:
    return INSIDE.get(sample, f"/var/log/captures/{Path(sample).name}")


def sessions_of(catalog: Catalog, sample: str) -> list[SessionEntry]:
    at = inside(sample)
    found, _ = collect(at, at, None, (DATA / sample).read_bytes(), catalog)
    return found


def one(catalog: Catalog, sample: str) -> SessionEntry:
    found = sessions_of(catalog, sample)
    assert len(found) == 1, [s.session_id for s in found]
    return found[0]


def who(s: SessionEntry) -> tuple[Provider, ...]:
    return tuple((p.vendor, p.served_via, p.api, p.record_ranges) for p in s.providers)


# (sample, format, providers as (vendor, route, api, record ranges), reasoning). Read without an agent's adapter
# wherever the format is `generic` or a container's (`transcript`, `vcr-cassette`, `sqlite-store`, …).
SAMPLES: list[tuple[str, str, tuple[Provider, ...], str]] = [
    # Transcripts: the reply (record 5) runs on the model the header states first; an exchange log names none.
    ("aider/aider.chat.history.head.md", "transcript", (("google", "direct", None, ((5, 5),)),), "absent"),
    ("aider/aider.llm.history.excerpt.txt", "transcript", (("unknown", None, None, ((1, 3),)),), "absent"),
    # `llm logs`: the model stated over the first exchange answers both (records 5 and 8 are the responses).
    ("llm-cli/llm-logs.conversation.md", "transcript", (("openai", None, None, ((5, 8),)),), "absent"),
    (
        "api-alibaba-qwen/alibaba-tool-call.json",
        "api-response",
        (("alibaba", None, "openai-chat", ((1, 1),)),),
        "absent",
    ),
    (
        "api-anthropic/anthropic-clear-thinking.1.json",
        "api-response",
        (("anthropic", "direct", "anthropic-messages", ((1, 1),)),),
        "visible",
    ),
    (
        "api-anthropic/anthropic-json-tool.1.json",
        "api-response",
        (("anthropic", "direct", "anthropic-messages", ((1, 1),)),),
        "absent",
    ),
    (
        # The encrypted blobs are the web search tool's results (a tool's output), not reasoning: there is none.
        "api-anthropic/anthropic-web-search-tool.1.json",
        "api-response",
        (("anthropic", "direct", "anthropic-messages", ((1, 1),)),),
        "absent",
    ),
    (
        "api-azure-openai/azure-deepseek-reasoning.1.json",
        "api-response",
        (("deepseek", "azure", None, ((1, 1),)),),
        "visible",
    ),
    (
        # A reasoning summary is readable beside the Fernet-encrypted item: visible.
        "api-azure-openai/azure-reasoning-encrypted-content.1.json",
        "api-response",
        (("openai", "azure", "openai-responses", ((1, 1),)),),
        "visible",
    ),
    (
        "api-azure-openai/azure-tool-call.1.json",
        "api-response",
        (("openai", "azure", "openai-responses", ((1, 1),)),),
        "absent",
    ),
    (
        "api-bedrock/amazon-bedrock-reasoning.json",
        "api-response",
        (("anthropic", "bedrock", "bedrock-converse", ((1, 1),)),),
        "visible",
    ),
    ("api-groq/groq-tool-call.json", "api-response", (("groq", None, "openai-chat", ((1, 1),)),), "absent"),
    ("api-mistral/mistral-reasoning.json", "api-response", (("mistral", None, None, ((1, 1),)),), "visible"),
    ("api-mistral/mistral-tool-call.json", "api-response", (("mistral", None, "openai-chat", ((1, 1),)),), "absent"),
    ("api-openai-chat/openai-text.json", "api-response", (("openai", None, "openai-chat", ((1, 1),)),), "absent"),
    (
        "api-openai-responses/openai-reasoning-encrypted-content.1.json",
        "api-response",
        (("openai", None, "openai-responses", ((1, 1),)),),
        "visible",
    ),
    (
        "api-xai/xai-reasoning-store-false.item-done.jsonl",
        "api-response",
        (("xai", None, "openai-responses", ((1, 2),)),),
        "visible",
    ),
    # A request to a vendor's own API host (api.openai.com) is `direct`, and so are Anthropic's own ids (its clouds'
    # carry `bdrk` and `vrtx`). Inference hosts and hubs: the request host, the server's own fields and headers name the route; the vendor
    # is the model's maker, except on a server of one's own (vLLM), which is self-hosted whatever model it runs.
    (
        "captures-pydantic-ai/test_bedrock_anthropic_tool_with_thinking.yaml",
        "vcr-cassette",
        (("anthropic", "bedrock", "bedrock-converse", ((1, 2),)),),
        "visible",
    ),
    (
        "captures-pydantic-ai/test_crusoe_model_simple.yaml",
        "vcr-cassette",
        (("self-hosted", None, "openai-chat", ((1, 1),)),),
        "visible",
    ),
    (
        "captures-pydantic-ai/test_heroku_model_provider_claude_3_7_sonnet.yaml",
        "vcr-cassette",
        (("anthropic", "heroku", "openai-chat", ((1, 1),)),),
        "absent",
    ),
    (
        "captures-pydantic-ai/test_hf_model_thinking_part.yaml",
        "vcr-cassette",
        (("deepseek", "huggingface", None, ((1, 2),)),),
        "visible",
    ),
    (
        "captures-pydantic-ai/test_openai_model_cerebras_provider.yaml",
        "vcr-cassette",
        (("meta", "cerebras", "openai-chat", ((1, 1),)),),
        "absent",
    ),
    (
        "captures-pydantic-ai/test_openrouter_tool_optional_parameters.yaml",
        "vcr-cassette",
        (("anthropic", "openrouter", "anthropic-messages", ((1, 1),)),),
        "absent",
    ),
    (
        "claude-code/session-basic.jsonl",
        "claude-code",
        (("anthropic", "direct", "anthropic-messages", ((5, 10),)),),
        "encrypted",
    ),
    (
        "codex-cli/rollout-session-basic.jsonl",
        "codex-cli",
        (("openai", "direct", "openai-responses", ((12, 17),)),),  # model_provider: openai, its own API
        "absent",
    ),
    ("codex-cli/rollout-session-reasoning-head.jsonl", "codex-cli", (("unknown", None, None, ((1, 10),)),), "visible"),
    (
        "sessions-more/agent-sessions-fixtures/copilot-cli.events.jsonl",
        "generic",
        (("openai", None, None, ((8, 32),)),),  # the assistant's own events name their model (the route: its folder)
        "absent",  # its reasoning event holds only the fixture's placeholder text, its encryptedContent too
    ),
    (
        # The chat's own `gemini` messages name the model that answered: Google's.
        "sessions-more/agent-sessions-fixtures/gemini-cli.chats.jsonl_v040.jsonl",
        "gemini-cli",
        (("google", None, None, ((4, 5),)),),
        "absent",
    ),
    (
        "sessions-more/agent-sessions-fixtures/opencode.storage.message.msg_0002.json",
        "generic",
        (("openai", "direct", None, ((1, 1),)),),  # providerID: openai
        "absent",
    ),
    (
        "sessions-more/agent-sessions-fixtures/qwen-code.system_telemetry.jsonl",
        "generic",
        (("alibaba", None, None, ((1, 5),)),),
        "absent",
    ),
    (
        # The model wrote its reasoning inline, in `<thinking>` tags Cline's prompt asks for: visible.
        "sessions-more/cline-task-openrouter/1747415182436.api_conversation_history.json",
        "cline",
        (("unknown", None, None, ((1, 3),)),),
        "visible",
    ),
    (
        # Metadata only (no record names who served it): its label and the provider it declares are all it says.
        "sessions-more/cline-task-openrouter/1747415182436.task_metadata.json",
        "cline",
        (("google", "openrouter", None, ((1, 1),)),),
        "absent",
    ),
    (
        "sessions-more/cline-task-openrouter/1747415182436.ui_messages.json",
        "cline",
        (("unknown", None, None, ((1, 7),)),),
        "absent",
    ),
    (
        "sessions-more/mini-swe-agent-openrouter/django__django-16255.traj.json",
        "generic",
        (("google", "openrouter", None, ((4, 8),)),),
        "visible",
    ),
    (
        # The agent's `thought` is the text it sent with a tool call (the action's arguments), not reasoning.
        "sessions-more/openhands/basic.json",
        "generic",
        (("anthropic", "direct", "anthropic-messages", ((2, 4),)),),
        "absent",
    ),
    (
        "sessions-more/swe-agent/6e44b9__sweagenttestrepo-1c2844.traj",
        "generic",
        (("openai", None, None, ((4, 10),)),),
        "absent",  # `thought` is the reply text again, no reasoning channel
    ),
    (
        "sessions-more/swe-agent/function_calling_simple.traj",
        "generic",
        (("openai", None, None, ((3, 11),)),),
        "absent",  # `thought` is the reply text again, no reasoning channel
    ),
    (
        "sessions-more/vcr-cassettes-otel-demo-agent/azure_gpt-5.5_cassette.yaml",
        "vcr-cassette",
        (("openai", "azure", None, ((1, 2),)),),
        "absent",
    ),
    (
        # Bedrock's `tooluse_` tool ids, in an OpenAI-shaped reply: Claude on Bedrock.
        "sessions-more/vcr-cassettes-otel-demo-agent/claude-opus-4-7_cassette.yaml",
        "vcr-cassette",
        (("anthropic", "bedrock", "bedrock-converse", ((1, 2),)),),
        "absent",
    ),
    (
        "sessions-more/vcr-cassettes-pydantic-ai/anthropic-tool-output.yaml",
        "vcr-cassette",
        (("anthropic", "direct", "anthropic-messages", ((1, 2),)),),
        "absent",
    ),
    (
        "sessions-more/vcr-cassettes-pydantic-ai/azure-openai-chat.yaml",
        "vcr-cassette",
        (("openai", "azure", "openai-chat", ((1, 1),)),),
        "absent",
    ),
    (
        "sessions-more/vcr-cassettes-pydantic-ai/bedrock-application-inference-profile-converse.yaml",
        "vcr-cassette",
        (("unknown", "bedrock", None, ((1, 1),)),),
        "absent",
    ),
    (
        "sessions-more/vcr-cassettes-pydantic-ai/deepseek-thinking.yaml",
        "vcr-cassette",
        (("deepseek", "direct", "openai-chat", ((1, 1),)),),
        "visible",
    ),
    (
        "sessions-more/vcr-cassettes-pydantic-ai/openai-chat-tool-output.yaml",
        "vcr-cassette",
        (("openai", "direct", "openai-chat", ((1, 2),)),),
        "absent",
    ),
    (
        "sessions-more/vcr-cassettes-pydantic-ai/openai-responses-tool-call.yaml",
        "vcr-cassette",
        (("openai", "direct", "openai-responses", ((1, 2),)),),
        "absent",
    ),
    (
        "sessions-more/vcr-cassettes-pydantic-ai/vertex-gemini-generateContent.yaml",
        "vcr-cassette",
        (("google", "vertex", "gemini", ((1, 1),)),),
        "absent",
    ),
    (
        "sessions-more/vcr-cassettes-pydantic-ai/xai-grpc-tool-call.xai.yaml",
        "vcr-cassette",
        (("xai", None, "openai-chat", ((1, 2),)),),
        "absent",
    ),
]


@pytest.mark.parametrize(("sample", "fmt", "providers", "reasoning"), SAMPLES, ids=[s[0] for s in SAMPLES])
def test_every_sample_gives_its_vendor_route_reasoning_and_ranges(
    catalog: Catalog, sample: str, fmt: str, providers: tuple[Provider, ...], reasoning: str
) -> None:
    s = one(catalog, sample)
    assert (s.format, who(s), s.reasoning) == (fmt, providers, reasoning)


def test_every_log_in_the_samples_is_read_and_none_has_empty_providers(catalog: Catalog) -> None:
    covered = {s[0] for s in SAMPLES}
    read = 0
    for path in sorted(DATA.rglob("*")):
        sample = str(path.relative_to(DATA))
        if not path.is_file() or path.name in ("SOURCE.txt", "INDEX.md"):
            continue
        at = inside(sample)
        if not looks_like_log(at.rsplit("/", 1)[-1], path.read_bytes()):
            continue
        found = sessions_of(catalog, sample)
        assert found, sample
        for s in found:
            assert s.providers, (sample, s.session_id)
        read += 1
        assert sample in covered or sample.startswith(("constructed/", "mixed/", "invented/")), sample
    assert read >= len(SAMPLES)


# --- a provider switch mid-session ----------------------------------------------------------------------


def test_mixed_session_lists_both_providers_with_records_and_times(catalog: Catalog) -> None:
    s = one(catalog, "mixed/session-5e1f0a9c2d7b4e83.jsonl")
    # The user's turn (record 2) carries only its runtime-minted message id: no fact of who served.
    assert who(s) == (
        ("self-hosted", None, None, ((3, 6),)),
        ("openai", "azure", "openai-responses", ((7, 14),)),
    )
    inhouse, azure = s.providers
    assert (inhouse.first_seen, inhouse.last_seen) == ("2026-11-20T09:14:09Z", "2026-11-20T09:14:32Z")
    assert (azure.first_seen, azure.last_seen) == ("2026-11-20T09:14:46Z", "2026-11-20T09:16:57Z")
    assert (inhouse.first_record, azure.last_record) == (3, 14)
    # Azure's records carry a readable summary beside each Fernet blob: the reasoning is visible.
    assert (inhouse.reasoning, azure.reasoning) == ("visible", "visible")
    assert {"runtime-hex32-id", "runtime-hex32-tool-call-id"} <= {e.rule for e in inhouse.evidence}
    assert {"openai-fernet-reasoning", "openai-tool-call-id", "api-host"} <= {e.rule for e in azure.evidence}
    assert s.reasoning == "visible"
    assert s.labels == ("muse-3.2",) and s.mismatched_labels == ("muse-3.2",)
    assert s.fernet is not None and s.fernet.inconsistent == 0


def test_mixed_session_findings_keep_the_steady_label_high(scan_dir: ScanFn, tmp_path: Path) -> None:
    sample = "mixed/session-5e1f0a9c2d7b4e83.jsonl"
    write(tmp_path, inside(sample), (DATA / sample).read_bytes())
    _, doc = scan_dir(tmp_path)
    (s,) = doc["sessions"]
    assert [(p["vendor"], p["record_ranges"]) for p in s["providers"]] == [
        ("self-hosted", [[3, 6]]),
        ("openai", [[7, 14]]),
    ]
    findings = {f["id"]: f for f in doc["findings"]}
    mismatch = findings["session-label-mismatch:session-5e1f0a9c2d7b4e83"]
    assert mismatch["severity"] == "high"
    external = findings["session-external-provider:session-5e1f0a9c2d7b4e83"]
    assert "records 7-14" in external["title"]


def test_a_steady_catalogued_label_across_a_switch_is_a_mismatch(catalog: Catalog) -> None:
    # The label names OpenAI's model all along; the ids change from OpenAI's to Anthropic's.
    lines = [
        {
            "session_id": "s",
            "ts": "2026-01-01T00:00:00Z",
            "model": "gpt-5.5",
            "id": "chatcmpl-D8Z5f52zQqikDBEKQMQoYcWMcWPeU",
            "object": "chat.completion",
        },
        {
            "session_id": "s",
            "ts": "2026-01-01T00:01:00Z",
            "model": "gpt-5.5",
            "id": "msg_011CeDqKnDd2qP37QdkC5nGR",
            "role": "assistant",
        },
    ]
    data = "".join(json.dumps(x) + "\n" for x in lines).encode()
    (s,), _ = collect("/var/log/a/s.jsonl", "s.jsonl", None, data, catalog)
    assert [p.vendor for p in s.providers] == ["openai", "anthropic"]
    assert s.mismatched_labels == ("gpt-5.5",)


def test_a_label_that_changes_under_one_provider_is_known_as_that_providers(catalog: Catalog) -> None:
    # The label moves from gpt-5.5 to gpt-4.1 while OpenAI's ids go on, then Anthropic's ids serve gpt-4.1: the
    # label was served by two vendors, though its first record under OpenAI came with no change of vendor.
    def line(model: str, reply_id: str, minute: int) -> dict[str, str]:
        return {"session_id": "s", "ts": f"2026-01-01T00:0{minute}:00Z", "model": model, "id": reply_id,
                "object": "chat.completion"}

    lines = [
        line("gpt-5.5", "chatcmpl-D8Z5f52zQqikDBEKQMQoYcWMcWPeU", 0),
        line("gpt-4.1", "chatcmpl-D8Z5f52zQqikDBEKQMQoYcWMcWPeV", 1),
        {**line("gpt-4.1", "msg_011CeDqKnDd2qP37QdkC5nGR", 2), "role": "assistant"},
    ]
    del lines[2]["object"]
    data = "".join(json.dumps(x) + "\n" for x in lines).encode()
    (s,), _ = collect("/var/log/a/s.jsonl", "s.jsonl", None, data, catalog)
    assert [p.vendor for p in s.providers] == ["openai", "anthropic"]
    assert "gpt-4.1" in s.mismatched_labels


# --- layouts no adapter knows -------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("sample", "session", "label", "providers", "reasoning"),
    [
        (
            "invented/conv-at-parts.jsonl",
            "c-77",
            "atlas-13b-chat",
            (("self-hosted", None, None, ((2, 3),)),),
            "visible",
        ),
        (
            "invented/event-envelope-vertex.jsonl",
            "v-2031",
            "claude-sonnet-4-5@20250929",
            (("anthropic", "vertex", "anthropic-messages", ((1, 3),)),),
            "encrypted",
        ),
        (
            "invented/gateway-trace-azure-deepseek.jsonl",
            "t-9",
            "DeepSeek-R1",
            (("deepseek", "azure", None, ((1, 2),)),),
            "visible",
        ),
        (
            "invented/thought-opaque-blob.jsonl",
            "c-88",
            "gpt-5.5",
            (("openai", None, "openai-responses", ((1, 1),)),),
            "encrypted",
        ),
    ],
)
def test_invented_layouts_are_read_by_shape(
    catalog: Catalog, sample: str, session: str, label: str, providers: tuple[Provider, ...], reasoning: str
) -> None:
    s = one(catalog, sample)
    assert (s.format, s.session_id, s.labels, who(s), s.reasoning) == (
        "generic",
        session,
        (label,),
        providers,
        reasoning,
    )
    assert s.started_at is not None


# --- clouds host many vendors; look-alike ids ------------------------------------------------------------


def test_deepseek_on_azure_is_deepseek_via_azure_never_openai(catalog: Catalog) -> None:
    s = one(catalog, "api-azure-openai/azure-deepseek-reasoning.1.json")
    (p,) = s.providers
    assert (p.vendor, p.served_via) == ("deepseek", "azure")
    assert {"azure-content-filter", "served-model"} <= {e.rule for e in p.evidence}
    assert p.confidence == "medium"  # the route is certain; the vendor is the reply's own model field
    assert s.reasoning == "visible" and s.mismatched_labels == ()


def test_azure_markers_alone_name_no_vendor(catalog: Catalog) -> None:
    doc = json.loads((DATA / "api-azure-openai/azure-deepseek-reasoning.1.json").read_text())
    doc["model"] = "contoso-private-v2"  # a deployment name the catalogs do not know
    (s,), _ = collect("/var/log/c/x.json", "x.json", None, json.dumps(doc).encode(), catalog)
    assert [(p.vendor, p.served_via) for p in s.providers] == [("unknown", "azure")]


def test_qwen_code_log_is_placed_by_its_oauth_model(catalog: Catalog) -> None:
    s = one(catalog, "sessions-more/agent-sessions-fixtures/qwen-code.system_telemetry.jsonl")
    assert s.format == "generic"  # Qwen Code's envelope looks like Claude Code's, but it is not
    assert s.labels == ("coder-model",)
    assert [(p.vendor, {e.rule for e in p.evidence}) for p in s.providers] == [("alibaba", {"qwen-oauth-model-alias"})]
    # The label is itself the fingerprint that placed the session: no catalogued model, yet nothing belies it.
    assert s.mismatched_labels == ()


def test_qwen_lookalike_without_a_label_stays_two_candidates(catalog: Catalog) -> None:
    doc = json.loads((DATA / "api-alibaba-qwen/alibaba-tool-call.json").read_text())
    doc.pop("model")
    (s,), _ = collect("/var/log/c/q.json", "q.json", None, json.dumps(doc).encode(), catalog)
    (p,) = s.providers
    assert (p.vendor, p.candidates) == ("unknown", ("alibaba", "self-hosted"))


# --- fixtures are not sessions --------------------------------------------------------------------------


def test_a_session_log_in_a_fixture_tree_is_test_context_and_never_wiring(scan_dir: ScanFn, tmp_path: Path) -> None:
    sample = "mixed/session-5e1f0a9c2d7b4e83.jsonl"
    write(tmp_path, "/home/dev/agent/tests/fixtures/sessions/s.jsonl", (DATA / sample).read_bytes())
    _, doc = scan_dir(tmp_path)
    (s,) = doc["sessions"]
    assert s["location"]["context"] == "test"
    assert s["providers"]  # still read and attributed
    assert doc["routes"] == []
    assert not [f for f in doc["findings"] if f["id"].startswith("session-")]
    for m in doc["models"]:
        assert all(loc["context"] != "session" for loc in m["locations"])


# --- the shape walk and the matcher ---------------------------------------------------------------------

_json = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=60),
    lambda inner: st.lists(inner, max_size=6) | st.dictionaries(st.text(max_size=12), inner, max_size=6),
    max_leaves=60,
)
_keys = st.sampled_from(
    [
        "id",
        "call_id",
        "ref",
        "type",
        "kind",
        "model",
        "at",
        "ts",
        "conv",
        "reasoning",
        "thinking",
        "thought",
        "body",
        "signature",
        "encrypted_content",
        "parts",
        "upstream",
        "sessionId",
    ]
)
_shaped = st.recursive(
    st.text(max_size=40)
    | st.integers(0, 2_000_000_000_000)
    | st.sampled_from(
        [
            "call_8koaluXAmO2oKzRlIWNZVHkW",
            "call_df1db1afefc8cb0e1936524a9ad401f8",
            "thought",
            "reasoning",
            "2026-11-20T09:14:47Z",
            "https://x.openai.azure.com/v1",
            "msg_011CeDqKnDd2qP37QdkC5nGR",
            "gAAAAAB",
        ]
    ),
    lambda inner: st.lists(inner, max_size=5) | st.dictionaries(_keys, inner, max_size=6),
    max_leaves=80,
)


@settings(max_examples=300, deadline=None)
@given(_json | _shaped)
def test_shape_walk_never_raises_and_stays_bounded(value: Any) -> None:
    shape = read_shape(value)
    assert len(shape.leaves) <= MAX_LEAVES and len(shape.labels) <= 20
    assert shape.reasoning <= {"visible", "encrypted"}


def test_shape_walk_is_bounded_on_deep_and_wide_records() -> None:
    deep: Any = "call_8koaluXAmO2oKzRlIWNZVHkW"
    for _ in range(5_000):
        deep = {"x": [deep]}
    assert read_shape(deep).truncated
    wide = {"items": [{"id": f"call_{i:024d}"} for i in range(MAX_NODES * 2)]}
    shape = read_shape(wide)
    assert shape.truncated and len(shape.leaves) <= MAX_LEAVES


@settings(max_examples=150, deadline=None)
@given(st.lists(st.dictionaries(_keys, _shaped, max_size=6), min_size=1, max_size=8))
def test_any_jsonl_gives_sessions_with_providers(catalog: Catalog, records: list[dict[str, Any]]) -> None:
    data = "".join(json.dumps(r) + "\n" for r in records).encode()
    found, _ = collect("/var/log/agent/h.jsonl", "h.jsonl", None, data, catalog)
    for s in found:
        assert s.providers and all(p.records >= 1 or s.records == 0 for p in s.providers)


def test_combined_matcher_agrees_with_each_rule_alone(catalog: Catalog) -> None:
    """The one-alternation pass finds exactly the rules a per-rule fullmatch finds, on every real value."""
    fp = engine(catalog)
    checked = 0
    for path in sorted(DATA.rglob("*.json*")):
        for line in path.read_text(encoding="utf-8", errors="replace").splitlines():
            try:
                value = json.loads(line)
            except ValueError:
                continue
            shape = read_shape(value)
            record: list[str] = []
            for parent, key, leaf in shape.leaves:
                applicable = fp._compile(parent, key).rules
                one_by_one = [
                    h.rule.id for spec, rx in applicable if rx.fullmatch(leaf) for h in fp._decoded(spec, leaf)
                ]
                assert [h.rule.id for h in fp._value_hits(parent, key, leaf)] == one_by_one, (path.name, key, leaf[:40])
                record += one_by_one
                checked += 1
            # The record's pass (its length bounds first, then the alternation) misses none of them.
            assert [h.rule.id for h in fp.match(shape)] == record, path.name
    assert checked > 500


def test_a_rule_is_tried_on_every_value_it_can_match(catalog: Catalog) -> None:
    """A value is tried only by the rules its first character can begin: every example a rule matches begins
    with a character of the set read from its pattern, and what the reader cannot read begins with anything."""
    checked = 0
    for spec in catalog.fingerprints:
        first = _first_chars(spec.pattern)
        for example in spec.examples.match:
            if re.fullmatch(spec.pattern, example):
                assert first is None or example[0] in first, (spec.id, example)
                checked += 1
    assert checked > 50
    assert _first_chars("(?:resp|msg)_[a-z]+") == frozenset("mr")
    assert _first_chars("(?:[a-z][a-z0-9_]{0,40}:)?gAAAAA") == frozenset("abcdefghijklmnopqrstuvwxyz")
    assert _first_chars("(?=[a-z0-9]*[A-Z])x") == frozenset("x")  # a lookahead is no character
    assert _first_chars("a*b") == frozenset("ab")
    for anything in (r"\d+", r"[\w]x", r"(?:x|\d)", "[^a]b", ".x", "(?i)abc", "(?i:a)b"):
        assert _first_chars(anything) is None, anything


# --- logs beside the sessions corroborate ---------------------------------------------------------------


def test_a_daemon_log_line_naming_the_session_is_tied_to_it(scan_dir: ScanFn, tmp_path: Path) -> None:
    sample = "mixed/session-5e1f0a9c2d7b4e83.jsonl"
    write(tmp_path, inside(sample), (DATA / sample).read_bytes())
    # sample_vm's real daemon log, plus the line a router writes when it falls back (its URL carries a key).
    daemon = (Path(__file__).parent.parent / "sample_vm/var/log/jarvis/jarvisd.log").read_text()
    daemon += (
        '2026-11-20T09:14:46.901Z  WARN jarvisd::router: fallback session_id="session-5e1f0a9c2d7b4e83" '
        'from_model="muse-3.2" reason="upstream-timeout" '
        'upstream="https://muse-eastus.openai.azure.com/openai/v1/responses?api-key=0123456789abcdef0123456789abcdef"\n'
    )
    write(tmp_path, "/var/log/jarvis/jarvisd.log", daemon)
    _, doc = scan_dir(tmp_path)
    (s,) = doc["sessions"]
    (c,) = s["corroborated_by"]
    assert (c["kind"], c["location"]["path"], c["location"]["line"]) == ("fallback", "/var/log/jarvis/jarvisd.log", 14)
    assert "upstream=muse-eastus.openai.azure.com" in c["detail"] and "from_model=muse-3.2" in c["detail"]
    assert "0123456789abcdef" not in json.dumps(doc)  # the URL's key never leaves the log


def test_the_shallowest_session_id_and_time_are_the_records() -> None:
    """A session id or a time is read where it sits nearest the record's top (a blank or overlong id is none, and at
    one depth the first wins); a time nested below the shallow levels, or that is no time, is not the record's."""
    record = {
        "sessionId": "   ",
        "session_id": "x" * 201,
        "timestamp": "not a time",
        "message": {"conversation_id": " conv-1 ", "thread_id": "thread-2", "created_at": "2025-09-04T12:34:56.789Z",
                    "ts": "2025-09-04T12:00:00Z"},
        "payload": {"a": {"b": {"c": {"timestamp": "2020-01-01T00:00:00Z", "session": "deep"}}}},
    }
    shape = read_shape(record)
    assert shape.session_id == "conv-1"
    assert shape.timestamp == 1756987200.0  # `ts` outranks `created_at` at its depth; the deep one never counts
    flat = read_shape({"time": " 2025-09-04T12:34:56Z ", "session": 7, "sessionId": "s-1"})
    assert (flat.timestamp, flat.session_id) == (1756989296.0, "7")


def test_the_name_or_id_of_a_record_under_a_model_key_is_its_label(catalog: Catalog) -> None:
    # SWE-agent keeps the run's config in its trajectory: `replay_config.agent.model.name` is the model it ran;
    # Claude Code's status line gives `model: {id, display_name}`.
    run = {"replay_config": {"agent": {"model": {"name": "gpt-4o", "api_base": None, "temperature": 1.0}}}}
    assert read_shape(run).labels == ["gpt-4o"]
    status = {"model": {"id": "claude-opus-4-5", "display_name": "Opus 4.5"}, "session_id": "a1"}
    assert read_shape(status).labels == ["claude-opus-4-5"]
    assert read_shape({"model": {"name": "GPT 4o (fast)"}}).labels == []  # a display name is no id
    assert read_shape({"tool": {"name": "bash"}, "user": {"name": "bob"}}).labels == []  # not under a model key
    quoted = {"role": "tool", "content": [{"type": "text", "text": "x"}], "args": {"model": {"name": "gpt-4.1"}}}
    assert "gpt-4.1" not in read_shape(quoted).labels  # a tool's arguments are conversation
    (s,) = sessions_of(catalog, "sessions-more/swe-agent/6e44b9__sweagenttestrepo-1c2844.traj")
    assert s.labels == ("gpt-4o",) and "gpt-4o" not in s.mentioned

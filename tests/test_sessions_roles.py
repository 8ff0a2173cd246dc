"""Where a string sits in a session record decides what it means: a reply's own fields say who served it, the
conversation (a prompt, a tool's input or output, a quoted file) only mentions. Real records from
tests/data/sessions/** (see each SOURCE.txt), changed only where a test says so, scanned as a machine would be."""

from __future__ import annotations

import base64
import gzip
import json
from pathlib import Path
from typing import Any

import pytest

from scanner.catalog import Catalog
from scanner.catalog.spelling import identify_spelled
from scanner.diff.compare import diff_inventories
from scanner.render import RENDERERS, render
from scanner.render._view import ReportOptions
from scanner.sessions.collect import collect
from tests.conftest import ScanFn, write

DATA = Path(__file__).parent / "data" / "sessions"
CLAUDE = "/home/dev/.claude/projects/-home-dev-app/9c42ba52-3bf1-449f-a040-8ee33284a1c8.jsonl"
SID = "9c42ba52-3bf1-449f-a040-8ee33284a1c8"
# Ids of four vendors, as a tool's output lists them (a price list, `grep` output).
QUOTED = ["gemini-2.5-pro", "gpt-5", "grok-4", "deepseek-chat"]


def lines(sample: str) -> list[dict[str, Any]]:
    return [json.loads(x) for x in (DATA / sample).read_text().splitlines() if x.strip()]


def jsonl(records: list[dict[str, Any]]) -> str:
    return "".join(json.dumps(r) + "\n" for r in records)


def wired(doc: dict[str, Any]) -> set[str]:
    return {m["name"] for m in doc["models"] if m["wired"]}


def model(doc: dict[str, Any], name: str) -> dict[str, Any]:
    return next(m for m in doc["models"] if m["name"] == name)


def claude_session_quoting(content: Any) -> str:
    """The real Claude Code session with its tool result's output replaced by `content`."""
    records = lines("claude-code/session-basic.jsonl")
    for r in records:
        for block in (r.get("message") or {}).get("content") or ():
            if isinstance(block, dict) and block.get("type") == "tool_result":
                block["content"] = content
    return jsonl(records)


def test_a_tool_result_listing_four_vendors_ids_adds_none_of_them_as_wired(tmp_path: Path, scan_dir: ScanFn) -> None:
    # The tool printed part of a price list (litellm's model_prices_and_context_window.json).
    listing = json.dumps({m: {"input_cost_per_token": 1.25e-06, "litellm_provider": "x"} for m in QUOTED}, indent=1)
    write(tmp_path, CLAUDE, claude_session_quoting(listing))
    _, doc = scan_dir(tmp_path)
    assert wired(doc) == {"claude-haiku-4-5-20251001"}  # the model that answered, from its own replies
    for name in QUOTED:
        m = model(doc, name)
        assert (m["wired"], m["mentioned_in_sessions"]) == (False, 1)
        assert {loc["context"] for loc in m["locations"]} == {"conversation"}
    (s,) = doc["sessions"]
    assert set(QUOTED) <= set(s["mentioned"])
    assert [p["vendor"] for p in s["providers"]] == ["anthropic"]
    assert not any(name in f["id"] or name in f["title"] for f in doc["findings"] for name in QUOTED)
    assert not any(r["alias"] in QUOTED for r in doc["routes"])


@pytest.mark.parametrize("every_model", [False, True])
def test_a_served_model_another_sessions_tool_output_quotes_renders_in_every_format(
    tmp_path: Path, scan_dir: ScanFn, every_model: bool
) -> None:
    # Claude Code served claude-haiku; a Codex rollout's tool output quotes that id: the model is wired and
    # mentioned, and each report says how each place found it.
    write(tmp_path, CLAUDE, (DATA / "claude-code/session-basic.jsonl").read_text())
    records = lines("codex-cli/rollout-session-basic.jsonl")
    for r in records:
        payload = r.get("payload") or {}
        if payload.get("type") == "custom_tool_call_output":
            payload["output"] = [{"type": "input_text", "text": "model: claude-haiku-4-5-20251001, gemini-2.5-pro\n"}]
    write(tmp_path, "/home/dev/.codex/sessions/2026/08/20/rollout-2026-08-20T11-16-42-01a01ee3.jsonl", jsonl(records))
    inv, doc = scan_dir(tmp_path)
    haiku = model(doc, "claude-haiku-4-5-20251001")
    assert haiku["wired"] and {"session", "conversation"} <= {loc["context"] for loc in haiku["locations"]}
    options = ReportOptions(all=every_model)
    for fmt in RENDERERS:
        assert "claude-haiku-4-5-20251001" in render(fmt, inv, options), fmt
    assert ("gemini-2.5-pro" in render("cyclonedx", inv, options)) is every_model


def test_structured_tool_output_quoting_another_vendors_reply_is_no_fingerprint(
    tmp_path: Path, scan_dir: ScanFn
) -> None:
    # A tool printed an OpenAI reply (ids, a model field): it is what the tool said, not who served the session.
    quoted = [{"type": "text", "text": json.dumps({"id": "chatcmpl-D8Z5f52zQqikDBEKQMQoYcWMcWPeU", "model": "gpt-5"})}]
    records = json.loads("[" + claude_session_quoting(quoted).replace("\n", ",").rstrip(",") + "]")
    records[7]["toolUseResult"] = {"stdout": {"object": "chat.completion", "model": "gpt-5", "usage": {}}}
    write(tmp_path, CLAUDE, jsonl(records))
    _, doc = scan_dir(tmp_path)
    (s,) = doc["sessions"]
    assert [p["vendor"] for p in s["providers"]] == ["anthropic"]
    assert "gpt-5" not in s["labels"] and "gpt-5" not in wired(doc)


def test_a_codex_rollout_quoting_an_npm_command_names_no_model(tmp_path: Path, scan_dir: ScanFn) -> None:
    records = lines("codex-cli/rollout-session-basic.jsonl")
    for r in records:
        payload = r.get("payload") or {}
        if payload.get("type") == "custom_tool_call_output":
            payload["output"] = [{"type": "input_text", "text": "$ npm i -g @anthropic-ai/claude-code@latest\n"}]
    write(tmp_path, "/home/dev/.codex/sessions/2026/08/20/rollout-2026-08-20T11-16-42-01a01ee3.jsonl", jsonl(records))
    _, doc = scan_dir(tmp_path)
    assert "claude-code@latest" not in {m["name"] for m in doc["models"]}
    assert wired(doc) == {"gpt-5.6-sol"}


def test_a_proxy_request_log_quoting_ids_in_its_prompts_wires_only_the_models_it_routed(
    tmp_path: Path, scan_dir: ScanFn
) -> None:
    # A LiteLLM proxy's request log: the model and api_base of each request are its routing; the prompt preview
    # quotes a price list.
    rows = [
        {
            "ts": "2025-09-01T08:00:02.000Z",
            "level": "INFO",
            "logger": "litellm.proxy",
            "request_id": "chatcmpl-RIsVj2G8PWA9BuN3JHBJGRBQH3s3p",
            "model": model_name,
            "api_base": base,
            "messages_preview": "compare: " + ", ".join(QUOTED),
            "response_preview": "ok",
            "usage": {"prompt_tokens": 10, "completion_tokens": 2},
            "status": 200,
        }
        for model_name, base in [
            ("bedrock/anthropic.claude-3-7-sonnet-20250219-v1:0", "https://bedrock-runtime.us-east-1.amazonaws.com"),
            ("azure/gpt-4.1-mini", "https://contoso-swedencentral.openai.azure.com"),
            ("openai/gpt-5-mini", "https://api.openai.com/v1"),
        ]
    ]
    write(tmp_path, "/var/log/litellm/proxy-2025-09-01-000.jsonl", jsonl(rows))
    _, doc = scan_dir(tmp_path)
    assert wired(doc) == {
        "bedrock/anthropic.claude-3-7-sonnet-20250219-v1:0",
        "azure/gpt-4.1-mini",
        "openai/gpt-5-mini",
    }
    (s,) = doc["sessions"]  # each request attributed alone: the one to OpenAI's own host is not Azure's
    assert [(p["vendor"], p["served_via"], p["record_ranges"]) for p in s["providers"]] == [
        ("anthropic", "bedrock", [[1, 1]]),
        ("openai", "azure", [[2, 2]]),
        ("openai", "direct", [[3, 3]]),
    ]
    assert {"bedrock-runtime.us-east-1.amazonaws.com", "contoso-swedencentral.openai.azure.com"} <= {
        e["host"] for e in doc["endpoints"] if e["wired"]
    }


def test_bedrock_tooluse_id_in_a_tool_use_block_gives_bedrock(catalog: Catalog) -> None:
    # A Cline task on Bedrock: the real task's records, its assistant turn calling a tool with Bedrock's id
    # (`tooluse_` + 22, from a recorded Bedrock Converse reply) and naming its model the way Cline does.
    task = DATA / "sessions-more/cline-task-openrouter"
    history = json.loads((task / "1747415182436.api_conversation_history.json").read_text())
    history[1]["content"].append(
        {"type": "tool_use", "id": "tooluse_1DXOdhDwtJHfyGzegF1GWH", "name": "read_file", "input": {"path": "a.ts"}}
    )
    history[1]["modelInfo"] = {"modelId": "anthropic.claude-sonnet-4-20250514-v1:0", "providerId": "bedrock"}
    at = "/home/u/.config/Code/User/globalStorage/saoudrizwan.claude-dev/tasks/1/api_conversation_history.json"
    (s,), _ = collect(at, at, None, json.dumps(history).encode(), catalog)
    assert [(p.vendor, p.served_via) for p in s.providers] == [("anthropic", "bedrock")]
    assert "bedrock-converse-tool-use-id" in {e.rule for p in s.providers for e in p.evidence}


@pytest.mark.parametrize("hexes", [8, 16, 24, 32, 40])
def test_a_vllm_id_of_any_hex_length_gives_self_hosted(catalog: Catalog, hexes: int) -> None:
    doc = (DATA / "captures-pydantic-ai/test_crusoe_model_simple.yaml").read_text()
    doc = doc.replace("chatcmpl-0ab4663bd38a42ca", "chatcmpl-" + ("0ab4663bd38a42ca" * 3)[:hexes])
    at = "/home/dev/app/.captures/crusoe.yaml"
    (s,), _ = collect(at, at, None, doc.encode(), catalog)
    assert [p.vendor for p in s.providers] == ["self-hosted"]


def test_think_tags_in_a_reply_are_visible_reasoning(catalog: Catalog) -> None:
    rows = [
        {"role": "user", "content": "hi"},
        {"role": "assistant", "model": "kimi-k2-thinking", "content": "<think>\nThe user greets me.\n</think>\nHello!"},
    ]
    at = "/home/dev/.kimi/sessions/0f1e/context.jsonl"
    (s,), _ = collect(at, at, None, jsonl(rows).encode(), catalog)
    assert s.reasoning == "visible"
    assert s.session_id == "0f1e/context"  # a generic file name is qualified by its folder


def test_kimi_think_parts_are_visible_reasoning(catalog: Catalog) -> None:
    # Kimi CLI's context.jsonl keeps the model's reasoning as its own content part: {"type": "think", "think": ...}.
    rows = [
        {"role": "user", "content": "list the files"},
        {
            "role": "assistant",
            "content": [
                {"type": "think", "think": "The user wants a listing; I will call ls.", "encrypted": None},
                {"type": "text", "text": "Listing them."},
            ],
            "tool_calls": [
                {"type": "function", "id": "Shell:0", "function": {"name": "Shell", "arguments": '{"command": "ls"}'}}
            ],
        },
    ]
    at = "/home/dev/.kimi/sessions/0f1e/context.jsonl"
    (s,), _ = collect(at, at, None, jsonl(rows).encode(), catalog)
    assert s.reasoning == "visible"
    (p,) = s.providers  # named by nothing: the records' reasoning is still its
    assert (p.reasoning, p.visible_records) == ("visible", ((2, 2),))


def test_readable_reasoning_in_some_records_and_only_a_signature_in_others_is_mixed(catalog: Catalog) -> None:
    records = lines("claude-code/session-basic.jsonl")
    sealed = next(i for i, r in enumerate(records) if '"thinking"' in json.dumps(r))  # its text is empty
    shown = json.loads(json.dumps(records[sealed]))
    shown["uuid"] = "0b8f5c1e-6d0a-4a51-9a8e-2f7f0d7c1b11"
    shown["message"]["content"][0]["thinking"] = "The user wants the date; I will run `date`."
    records.insert(sealed + 1, shown)
    (s,), _ = collect(CLAUDE, CLAUDE, None, jsonl(records).encode(), catalog)
    (p,) = s.providers
    assert (s.reasoning, p.reasoning) == ("mixed", "mixed")
    assert (sealed + 1, sealed + 1) in p.encrypted_records  # records count from 1
    assert p.visible_records == ((sealed + 2, sealed + 2),)


@pytest.mark.parametrize(
    ("served", "want"),
    [
        ("amazon.nova-pro-v1:0", ("aws", "bedrock")),  # no catalog lists Nova; Bedrock's form names its maker
        ("azure/muse-special", ("unknown", None)),  # a deployment's free name says nothing of who made the model
    ],
)
def test_a_served_model_only_a_hosted_form_places_names_its_maker_not_a_deployment(
    catalog: Catalog, served: str, want: tuple[str, str | None]
) -> None:
    rows = [
        {"role": "user", "content": "hi"},
        {"role": "assistant", "model": served, "content": "Hello!", "stop_reason": "end_turn"},
    ]
    at = "/var/log/agent/s.jsonl"
    (s,), _ = collect(at, at, None, jsonl(rows).encode(), catalog)
    assert [(p.vendor, p.served_via) for p in s.providers] == [want]


def test_a_meta_json_label_disagreeing_with_the_records_is_a_mismatch(tmp_path: Path, scan_dir: ScanFn) -> None:
    # A subagent's records (the real Claude Code session) and, beside them, its metadata naming another model.
    folder = f"/home/dev/.claude/projects/-home-dev-app/{SID}/subagents/"
    write(tmp_path, folder + "agent-a1.jsonl", (DATA / "claude-code/session-basic.jsonl").read_text())
    meta = {"sessionId": SID, "agentType": "reviewer", "model": "gpt-5.5", "title": "Review the diff"}
    write(tmp_path, folder + "agent-a1.meta.json", json.dumps(meta))
    _, doc = scan_dir(tmp_path)
    (s,) = doc["sessions"]  # the metadata is no session of its own
    assert s["title"] == "Review the diff"
    assert "gpt-5.5" in s["labels"] and "gpt-5.5" in s["mismatched_labels"]
    assert [p["vendor"] for p in s["providers"]] == ["anthropic"]
    assert f"session-label-mismatch:{SID}" in {f["id"] for f in doc["findings"]}


def test_an_openhands_conversation_kept_one_event_per_file_is_one_session_with_its_metadata(
    tmp_path: Path, scan_dir: ScanFn
) -> None:
    # OpenHands' file store: sessions/<id>/events/<event id>.json and sessions/<id>/metadata.json (its
    # ConversationMetadata, `llm_model` the model the user chose). The events are the real trajectory's.
    sid = "5c8ae1a831f24321804f626d6d48c941"
    home = f"/home/dev/.openhands/sessions/{sid}/"
    events = json.loads((DATA / "sessions-more/openhands/basic.json").read_text())
    for event in events:
        write(tmp_path, f"{home}events/{event['id']}.json", json.dumps(event))
    meta = {"conversation_id": sid, "title": "2048 game", "llm_model": "litellm_proxy/NovaPro1", "user_id": "dev"}
    write(tmp_path, home + "metadata.json", json.dumps(meta))
    _, doc = scan_dir(tmp_path)
    (s,) = doc["sessions"]
    assert (s["session_id"], s["title"]) == (sid, "2048 game")
    assert [(p["vendor"], p["records"]) for p in s["providers"]] == [("anthropic", 3)]
    assert s["labels"] == ["claude-3-5-sonnet-20241022", "litellm_proxy/NovaPro1"]
    assert s["mismatched_labels"] == ["litellm_proxy/NovaPro1"]
    assert f"session-label-mismatch:{sid}" in {f["id"] for f in doc["findings"]}


def test_an_llm_logs_db_made_by_the_llm_package_is_read(tmp_path: Path, scan_dir: ScanFn) -> None:
    llm = pytest.importorskip("llm")
    sqlite_utils = pytest.importorskip("sqlite_utils")
    from llm.migrations import migrate

    reply = json.loads((DATA / "api-openai-chat/openai-text.json").read_text())

    class Recorded(llm.Model):  # type: ignore[misc]
        """Answers with a recorded OpenAI reply, so no network is needed; llm logs it as it logs any model."""

        model_id = "gpt-4.1-nano"

        def execute(self, prompt: Any, stream: bool, response: Any, conversation: Any) -> Any:
            response.response_json = reply
            yield reply["choices"][0]["message"]["content"]

    path = tmp_path / "home/dev/.config/io.datasette.llm/logs.db"
    path.parent.mkdir(parents=True)
    db = sqlite_utils.Database(path)
    migrate(db)
    answer = Recorded().prompt("Compare gemini-2.5-pro with grok-4, briefly.")
    answer.text()
    answer.log_to_db(db)
    db.close()
    _, doc = scan_dir(tmp_path)
    (s,) = doc["sessions"]
    assert s["format"] == "sqlite-store"
    assert [(p["vendor"], p["api"]) for p in s["providers"]] == [("openai", "openai-chat")]
    assert "gpt-4.1-nano" in s["labels"] and reply["model"] in s["served_models"]
    assert {"gemini-2.5-pro", "grok-4"} <= set(s["mentioned"])
    assert not {"gemini-2.5-pro", "grok-4"} & wired(doc)


def test_a_har_capture_with_a_gzip_base64_body_is_read(catalog: Catalog) -> None:
    reply = (DATA / "api-anthropic/anthropic-json-tool.1.json").read_bytes()
    har = {
        "log": {
            "version": "1.2",
            "entries": [
                {
                    "startedDateTime": "2026-01-02T09:56:27.000Z",
                    "request": {"method": "POST", "url": "https://api.anthropic.com/v1/messages", "headers": []},
                    "response": {
                        "status": 200,
                        "headers": [{"name": "anthropic-organization-id", "value": "org"}],
                        "content": {"encoding": "base64", "text": base64.b64encode(gzip.compress(reply)).decode()},
                    },
                }
            ],
        }
    }
    at = "/home/dev/captures/session.har"
    (s,), _ = collect(at, at, None, json.dumps(har).encode(), catalog)
    assert s.format == "har"
    assert [(p.vendor, p.api) for p in s.providers] == [("anthropic", "anthropic-messages")]
    assert {"anthropic-message-id", "anthropic-response-header", "api-host"} <= {
        e.rule for p in s.providers for e in p.evidence
    }


def test_a_json_cassette_keeps_the_request_label_apart_from_the_served_model(catalog: Catalog) -> None:
    import yaml

    doc = yaml.safe_load((DATA / "sessions-more/vcr-cassettes-pydantic-ai/azure-openai-chat.yaml").read_text())
    at = "/home/dev/app/recordings/azure.json"
    (s,), _ = collect(at, at, None, json.dumps(doc).encode(), catalog)
    assert (s.format, s.labels) == ("vcr-cassette", ("gpt-4o", "gpt-4o-2024-11-20"))  # asked for, then answered
    assert s.served_models == ("gpt-4o-2024-11-20",)
    assert [(p.vendor, p.served_via) for p in s.providers] == [("openai", "azure")]


@pytest.mark.parametrize(
    ("spelled", "vendor", "canonical"),
    [
        ("claude_3_5_sonnet_20241022", "anthropic", "claude-3-5-sonnet-20241022"),
        ("claude-3.7-sonnet", "anthropic", "claude-3-7-sonnet-20250219"),
        ("google/gemini-3-pro-preview", "google", "gemini-3-pro-preview"),
        ("anthropic/claude-3.7-sonnet:thinking", "anthropic", "claude-3-7-sonnet-20250219"),
        ("claude-code@latest", None, None),  # an npm package, not a model
    ],
)
def test_model_ids_in_the_spellings_agents_use(
    catalog: Catalog, spelled: str, vendor: str | None, canonical: str | None
) -> None:
    ident = identify_spelled(catalog, spelled)
    assert (ident.canonical, ident.vendor if ident.canonical else None) == (canonical, vendor)


def test_an_aider_history_on_an_openrouter_model_names_its_vendor_and_route(catalog: Catalog) -> None:
    # The real history's banner, its models switched to OpenRouter's: the model the header states first is what the
    # replies came from, as the agent itself says (no provider's id: medium, like any agent's own model field).
    history = (DATA / "aider/aider.chat.history.head.md").read_text()
    history = history.replace("gemini/gemini-2.5-pro-exp-03-25", "openrouter/anthropic/claude-3.7-sonnet")
    history = history.replace("openai/qwen3:4b", "openrouter/anthropic/claude-3.5-haiku")
    at = "/home/dev/calc/.aider.chat.history.md"
    (s,), _ = collect(at, at, None, history.encode(), catalog)
    (p,) = s.providers
    assert (p.vendor, p.served_via, p.confidence) == ("anthropic", "openrouter", "medium")


def test_a_model_mentioned_a_thousand_times_and_configured_once_stays_wired(
    tmp_path: Path, scan_dir: ScanFn
) -> None:
    # Mentions fill an entry's location slots first (their paths sort first); the one config line still wires it.
    records = lines("claude-code/session-basic.jsonl")
    quoting = next(r for r in records if r.get("type") == "user" and isinstance(r["message"]["content"], list))
    for n in range(5):
        quotes = []
        for i in range(220):
            r = json.loads(json.dumps(quoting))
            r["message"]["content"][0]["content"] = json.dumps({"model": "gemini-2.5-pro", "row": i})
            quotes.append(r)
        write(tmp_path, f"/home/alice/.claude/projects/-home-alice-app/{n:08d}-0000-4000-8000-000000000000.jsonl",
              jsonl(records + quotes))
    write(tmp_path, "/srv/app/config.yaml", "llm:\n  model: gemini-2.5-pro\n")
    _, doc = scan_dir(tmp_path)
    m = model(doc, "gemini-2.5-pro")
    assert m["wired"] and m["mentioned_in_sessions"] == 5
    assert "/srv/app/config.yaml" in {loc["path"] for loc in m["locations"]}


def test_diff_ignores_ids_a_conversation_only_mentions_unless_asked(tmp_path: Path, scan_dir: ScanFn) -> None:
    # The same machine a day apart: the session's tool printed other ids; the model that served it did not change.
    write(tmp_path / "old", CLAUDE, claude_session_quoting("compare " + ", ".join(QUOTED[:2])))
    write(tmp_path / "new", CLAUDE, claude_session_quoting("compare " + ", ".join(QUOTED[2:])))
    old, _ = scan_dir(tmp_path / "old")
    new, _ = scan_dir(tmp_path / "new")
    assert [c for c in diff_inventories(old, new).changes if c.section == "models"] == []
    moved = {(c.key, c.kind.value) for c in diff_inventories(old, new, mentions=True).changes if c.section == "models"}
    assert moved == {("gemini-2.5-pro", "removed"), ("gpt-5", "removed"), ("grok-4", "added"),
                     ("deepseek-chat", "added")}

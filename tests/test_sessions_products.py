"""A session whose records say nothing of who served it is completed from the agent product whose folder holds it:
the config there, else the product's catalogued provider and route. Records from tests/data/sessions/** (see each
SOURCE.txt) laid where their agents keep them, scanned as a machine would be."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from scanner.catalog import Catalog
from scanner.diff.compare import diff_inventories
from scanner.sessions.shape import read_shape
from tests.conftest import ScanFn, write

DATA = Path(__file__).parent / "data" / "sessions"
GEMINI = "/home/bob/.gemini/tmp/0b7dfb1274ee51b336813b17f2ddab1f/chats/session-2026-04-29T21-39-gemini_s.jsonl"
KIMI = "/home/dave/.kimi/sessions/4e65d402/a329f428-9217-46b0-b342-b56f3ad4c41f/context.jsonl"
# Kimi CLI's context.jsonl, in the layout of MoonshotAI/kimi-cli @ fbc20da2 outputs/**/<session>.jsonl: the
# records name no model and its tool ids (`Name:N`) no provider.
KIMI_RECORDS: list[dict[str, Any]] = [
    {"role": "_checkpoint", "id": 0},
    {"role": "user", "content": "Explain what this migration does."},
    {"role": "_usage", "token_count": 4504},
    {"role": "assistant", "content": [{"type": "text", "text": "Reading it first."}], "tool_calls": [
        {"type": "function", "id": "ReadFile:0", "function": {"name": "ReadFile", "arguments": '{"path": "m.sql"}'}}]},
    {"role": "tool", "content": [{"type": "text", "text": "ALTER TABLE t ADD c int;"}], "tool_call_id": "ReadFile:0"},
]
KIMI_CONFIG = """default_model = "kimi-code/kimi-for-coding"

[providers."managed:kimi-code"]
type = "kimi"
base_url = "https://api.kimi.com/coding/v1"
api_key = ""

[models."kimi-code/kimi-for-coding"]
provider = "managed:kimi-code"
model = "kimi-for-coding"
max_context_size = 262144
"""


def providers(doc: dict[str, Any], path: str) -> list[tuple[str, str | None]]:
    (s,) = [s for s in doc["sessions"] if s["location"]["path"] == path]
    return [(p["vendor"], p["served_via"]) for p in s["providers"]]


def test_a_kimi_session_naming_nothing_takes_the_model_its_config_selects(tmp_path: Path, scan_dir: ScanFn) -> None:
    write(tmp_path, KIMI, "".join(json.dumps(r) + "\n" for r in KIMI_RECORDS))
    _, bare = scan_dir(tmp_path)
    assert providers(bare, KIMI) == [("moonshot", "direct")]  # the product's own provider, as catalogued
    write(tmp_path, "/home/dave/.kimi/config.toml", KIMI_CONFIG)
    _, doc = scan_dir(tmp_path)
    assert providers(doc, KIMI) == [("moonshot", "direct")]
    (s,) = doc["sessions"]
    (p,) = s["providers"]
    assert p["confidence"] == "low" and "agent-product" in {e["rule"] for e in p["evidence"]}


def test_a_gemini_cli_session_takes_the_route_its_settings_select(tmp_path: Path, scan_dir: ScanFn) -> None:
    chats = DATA / "sessions-more/agent-sessions-fixtures/gemini-cli.chats.jsonl_v040.jsonl"
    write(tmp_path, GEMINI, chats.read_text())
    _, bare = scan_dir(tmp_path)
    assert providers(bare, GEMINI) == [("google", "direct")]
    settings = {"security": {"auth": {"selectedType": "vertex-ai"}}, "model": {"name": "gemini-3-flash-preview"}}
    write(tmp_path, "/home/bob/.gemini/settings.json", json.dumps(settings))
    _, doc = scan_dir(tmp_path)
    assert providers(doc, GEMINI) == [("google", "vertex")]


def test_a_project_config_speaks_for_no_session_and_a_fixture_is_left_alone(tmp_path: Path, scan_dir: ScanFn) -> None:
    # A session outside any product's folder, or in a test fixture, keeps what its records say: nothing.
    at = "/home/dave/work/app/logs/context.jsonl"
    fixture = "/home/dave/work/app/tests/fixtures/.kimi/sessions/0f1e/context.jsonl"
    for place in (at, fixture):
        write(tmp_path, place, "".join(json.dumps(r) + "\n" for r in KIMI_RECORDS))
    write(tmp_path, "/home/dave/work/app/.aider.conf.yml", "model: gpt-4.1\n")
    _, doc = scan_dir(tmp_path)
    assert providers(doc, at) == [("unknown", None)]
    assert providers(doc, fixture) == [("unknown", None)]


def test_a_signature_holding_the_reasoning_item_as_json_shows_its_summary(catalog: Catalog) -> None:
    # pi keeps OpenAI's whole reasoning item (rs_ id, summary, Fernet blob) as its thinking block's signature.
    records = [json.loads(x) for x in (DATA / "constructed/pi-session.jsonl").read_text().splitlines() if x.strip()]
    thinking = next(r for r in records if "thinkingSignature" in json.dumps(r))
    assert "visible" in read_shape(thinking).reasoning
    block = thinking["message"]["content"][0]
    block["thinkingSignature"] = json.dumps({**json.loads(block["thinkingSignature"]), "summary": []})
    assert "visible" not in read_shape(thinking).reasoning


def test_a_proxy_alias_naming_the_maker_its_config_maps_to_is_no_mismatch(tmp_path: Path, scan_dir: ScanFn) -> None:
    # A LiteLLM proxy's spend log (the constructed row: o3-pro on Azure) under three of the proxy's own aliases: one
    # that names its maker and that the config maps to that model, one that hides its maker, one the config maps to
    # Amazon's Nova (a fallback served it: the seed's mismatch).
    row = json.loads((DATA / "constructed/litellm-spendlogs.jsonl").read_text())
    aliases = ("GPTReasoner", "Reasoner", "NovaPro1")
    rows = [{**row, "model_group": alias, "session_id": f"c8e1d7f2-0a3b-4c5d-8e9f-a0b1c2d3e4f{n}"}
            for n, alias in enumerate(aliases)]
    write(tmp_path, "/var/log/litellm/spend-logs-00.jsonl", "".join(json.dumps(r) + "\n" for r in rows))
    config = "model_list:\n" + "".join(
        f"  - model_name: {alias}\n    litellm_params:\n      model: {model}\n"
        for alias, model in zip(aliases, ("azure/o3-pro", "azure/o3-pro", "bedrock/amazon.nova-pro-v1:0"), strict=True)
    )
    write(tmp_path, "/etc/litellm/config.yaml", config)
    _, doc = scan_dir(tmp_path)
    flagged = {s["session_id"][-1]: s["mismatched_labels"] for s in doc["sessions"]}
    assert flagged == {"0": [], "1": ["Reasoner"], "2": ["NovaPro1"]}
    assert sorted(f["id"] for f in doc["findings"] if f["id"].startswith("session-label-mismatch")) == [
        "session-label-mismatch:c8e1d7f2-0a3b-4c5d-8e9f-a0b1c2d3e4f1",
        "session-label-mismatch:c8e1d7f2-0a3b-4c5d-8e9f-a0b1c2d3e4f2",
    ]


COPILOT = "/home/carol/.copilot/session-state/copilot_stage0_small/events.jsonl"


def models_via(doc: dict[str, Any]) -> dict[str, str | None]:
    return {m["name"]: m["served_via"] for m in doc["models"] if m["wired"]}


def test_a_copilot_subagent_s_model_takes_the_route_copilot_reaches_every_model_by(
    tmp_path: Path, scan_dir: ScanFn
) -> None:
    # Copilot CLI's events name the subagent's model (`subagent.completed`) and a tool's (`tool.execution_complete`)
    # on records no response fact is on: no provider of the session is theirs, yet Copilot CLI reaches every model
    # through GitHub Copilot (catalogued route, no vendor of its own).
    events = DATA / "sessions-more/agent-sessions-fixtures/copilot-cli.events.jsonl"
    write(tmp_path, COPILOT, events.read_text())
    _, doc = scan_dir(tmp_path)
    (s,) = doc["sessions"]
    assert s["product"] == "copilot-cli"
    assert set(s["unserved_labels"]) == {"gpt-4.1", "claude-haiku-4.5"}
    assert {k: models_via(doc)[k] for k in ("gpt-5-mini", "gpt-4.1", "claude-haiku-4.5")} == dict.fromkeys(
        ("gpt-5-mini", "gpt-4.1", "claude-haiku-4.5"), "github-copilot"
    )
    # Outside the product's folder the same records say nothing of the subagent's route.
    elsewhere = tmp_path / "elsewhere"
    write(elsewhere, "/srv/logs/events.jsonl", events.read_text())
    _, bare = scan_dir(elsewhere)
    (s,) = bare["sessions"]
    assert "product" not in s and models_via(bare)["claude-haiku-4.5"] is None


def test_a_product_with_a_vendor_gives_its_route_to_that_vendor_s_models_only(tmp_path: Path, scan_dir: ScanFn) -> None:
    # Kimi CLI (moonshot, direct) with a subagent on an OpenAI model no record served: direct to Moonshot says
    # nothing of how the OpenAI model was reached.
    records = [
        {"role": "assistant", "model": "kimi-k2.5", "content": "x",
         "tool_calls": [{"type": "function", "id": "ReadFile:0", "function": {"name": "ReadFile", "arguments": "{}"}}]},
        {"role": "_subagent", "model": "gpt-5.2", "status": "completed"},
    ]
    write(tmp_path, KIMI, "".join(json.dumps(r) + "\n" for r in records))
    _, doc = scan_dir(tmp_path)
    (s,) = doc["sessions"]
    assert s["product"] == "kimi-cli"
    via = models_via(doc)
    assert via.get("kimi-k2.5") == "direct"
    assert via.get("gpt-5.2") is None


def test_an_editor_extension_s_storage_is_its_product_s_folder(tmp_path: Path, scan_dir: ScanFn) -> None:
    task = "/home/erin/.vscode-server/data/User/globalStorage/saoudrizwan.claude-dev/tasks/1747415182436"
    for name in ("api_conversation_history", "ui_messages", "task_metadata"):
        text = (DATA / f"sessions-more/cline-task-openrouter/1747415182436.{name}.json").read_text()
        write(tmp_path, f"{task}/{name}.json", text)
    _, doc = scan_dir(tmp_path)
    (s,) = doc["sessions"]
    assert (s["product"], s["format"]) == ("cline", "cline")


def test_a_product_whose_sessions_alone_are_here_was_used_here(tmp_path: Path, scan_dir: ScanFn) -> None:
    chats = (DATA / "sessions-more/agent-sessions-fixtures/gemini-cli.chats.jsonl_v040.jsonl").read_text()
    write(tmp_path, GEMINI, chats)
    write(tmp_path, GEMINI.replace("/home/bob/", "/home/ann/"), chats)
    write(tmp_path, KIMI, "".join(json.dumps(r) + "\n" for r in KIMI_RECORDS))
    write(tmp_path, "/home/dave/.kimi/config.toml", KIMI_CONFIG)  # configured: its entry is the config's
    write(tmp_path, "/srv/app/tests/fixtures/.copilot/session-state/s1/events.jsonl",
          (DATA / "sessions-more/agent-sessions-fixtures/copilot-cli.events.jsonl").read_text())
    _, doc = scan_dir(tmp_path)
    agents = {a["name"]: a for a in doc["agents"]}
    assert sorted(agents) == ["gemini-cli", "kimi-cli"]  # a fixture's sessions are nobody's use of Copilot CLI
    gemini = agents["gemini-cli"]
    assert (gemini["install_path"], gemini["configs"], gemini["sessions"]) == (None, [], 2)
    assert sorted(loc["path"] for loc in gemini["locations"]) == sorted(
        [GEMINI, GEMINI.replace("/home/bob/", "/home/ann/")]
    )
    assert "sessions" not in agents["kimi-cli"] and agents["kimi-cli"]["configs"]

    # Between two states of the machine, the product's arrival says it was used, not installed.
    empty = tmp_path.with_name(tmp_path.name + "-before")
    write(empty, "/home/dave/.kimi/config.toml", KIMI_CONFIG)
    old, _ = scan_dir(empty)
    new, _ = scan_dir(tmp_path)
    titles = {c.key: c.title for c in diff_inventories(old, new).changes if c.section == "agents"}
    assert titles == {"gemini-cli@-": "agent product Gemini CLI now used (not installed)"}

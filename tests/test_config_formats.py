"""Unit tests of scanner.formats.config on real-format text, plus property tests."""

from __future__ import annotations

import json

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from scanner.formats import config as fmt
from scanner.formats.config import ConfigItem, ParseFailure
from tests.conftest import examples


def by_path(items: list[ConfigItem]) -> dict[tuple[str, ...], ConfigItem]:
    return {item.path: item for item in items}


# --- JSON ------------------------------------------------------------------------------------------

AGENT_JSONC = (
    "\ufeff{\r\n"  # 1  a UTF-8 BOM, then CRLF line endings throughout
    "  // Agent settings (JSONC, as editors write them)\r\n"  # 2
    '  "model": "claude-opus-4-8",\r\n'  # 3
    "  /* the proxy; see\r\n"  # 4
    "     runbook */\r\n"  # 5
    '  "base_url": "http://x", // the // inside the string must survive\r\n'  # 6
    '  "note": "a /* not a comment */ and // not one either",\r\n'  # 7
    '  "fallbacks": [\r\n'  # 8
    '    "muse-9.1",\r\n'  # 9
    '    "claude-haiku-4-5",\r\n'  # 10  trailing comma in a list
    "  ],\r\n"  # 11
    '  "limits": {"max_tokens": 8192, "stream": true,},\r\n'  # 12  trailing comma in an object
    "}\r\n"  # 13
)


def test_json_tolerant_reading_bom_crlf_comments_trailing_commas() -> None:
    items = by_path(fmt.parse_json(AGENT_JSONC))
    assert items[("model",)].value == "claude-opus-4-8"
    assert items[("base_url",)].value == "http://x"
    assert items[("note",)].value == "a /* not a comment */ and // not one either"
    assert items[("fallbacks", "[0]")].value == "muse-9.1"
    assert items[("fallbacks", "[1]")].value == "claude-haiku-4-5"
    assert items[("limits", "max_tokens")].value == "8192"
    assert items[("limits", "stream")].value == "true"
    assert not any(item.env for item in items.values())


def test_json_line_numbers_are_exact() -> None:
    lines = {path: item.line for path, item in by_path(fmt.parse_json(AGENT_JSONC)).items()}
    assert lines == {
        ("model",): 3,
        ("base_url",): 6,
        ("note",): 7,
        ("fallbacks", "[0]"): 9,
        ("fallbacks", "[1]"): 10,
        ("limits", "max_tokens"): 12,
        ("limits", "stream"): 12,
    }


def test_clean_json_blanks_comments_but_keeps_strings_and_offsets() -> None:
    cleaned = fmt.clean_json(AGENT_JSONC)
    assert cleaned.count("\n") == AGENT_JSONC.count("\n")
    assert len(cleaned) == len(AGENT_JSONC) - 1  # only the BOM is gone
    assert "Agent settings" not in cleaned and "runbook" not in cleaned
    assert '"http://x"' in cleaned
    assert '"a /* not a comment */ and // not one either"' in cleaned
    assert json.loads(cleaned)["limits"] == {"max_tokens": 8192, "stream": True}


def test_json_trailing_comma_followed_by_a_comment() -> None:
    # VS Code / Claude Code settings.json style: the last entry carries a trailing comma and a comment.
    text = '{\n  "model": "claude-opus-4-8",\n  "env": {\n    "AGENT_MODEL": "muse-9.1", // pinned\n  },\n}\n'
    items = by_path(fmt.parse_json(text))
    assert items[("env", "AGENT_MODEL")].value == "muse-9.1"


def test_json_line_of_a_value_that_also_names_its_parent_key() -> None:
    # opencode/LiteLLM-style maps keyed by the model id: the value is on line 3, not the key's line 2.
    text = '{\n  "claude-opus-4-8": {\n    "model": "claude-opus-4-8"\n  }\n}\n'
    assert by_path(fmt.parse_json(text))[("claude-opus-4-8", "model")].line == 3


@pytest.mark.parametrize("text", ["{", '{"model": }', "model: x", '{"a": 1} trailing', "[1, 2", ""])
def test_json_malformed_raises_parse_failure(text: str) -> None:
    with pytest.raises(ParseFailure):
        fmt.parse_json(text)


@pytest.mark.parametrize(
    ("parse", "text"),
    [
        (fmt.parse_json, '{"model": "muse-9.1", "seed": ' + "7" * 5000 + "}"),
        (fmt.parse_toml, 'model = "muse-9.1"\nseed = ' + "7" * 5000 + "\n"),
    ],
    ids=["json", "toml"],
)
def test_huge_integer_is_a_parse_failure(parse, text: str) -> None:  # type: ignore[no-untyped-def]
    with pytest.raises(ParseFailure):
        parse(text)


def test_json_flattening_stops_at_max_items() -> None:
    # Every node visited counts (nulls too, which are never items): the walk stops before "late",
    # and says so with what it had read.
    text = '{"model": "muse-9.1",\n "pad": [' + ",".join(["null"] * (fmt.MAX_ITEMS + 10)) + '],\n "late": "x"}'
    with pytest.raises(fmt.BudgetExceeded) as cut:
        fmt.parse_json(text)
    assert cut.value.items == [ConfigItem(("model",), "muse-9.1", 1)]
    assert str(fmt.MAX_ITEMS) in cut.value.detail


# --- YAML ------------------------------------------------------------------------------------------

LITELLM_YAML = """\
defaults: &defaults
  api_base: https://llm-gw.internal/v1
  timeout: 600
model_list:
  - model_name: muse
    litellm_params:
      <<: *defaults
      model: openai/muse-9.1
  - model_name: opus
    litellm_params:
      model: anthropic/claude-opus-4-8
---
# second document
router_settings:
  fallbacks: [muse, opus]
empty: ~
"""


def test_yaml_anchors_multiple_documents_and_lines() -> None:
    items = fmt.parse_yaml(LITELLM_YAML)
    found = {(item.path, item.value, item.line) for item in items}
    assert (("model_list", "[0]", "litellm_params", "model"), "openai/muse-9.1", 8) in found
    assert (("model_list", "[1]", "litellm_params", "model"), "anthropic/claude-opus-4-8", 11) in found
    # The merged alias is walked (values come from the anchor, at the anchor's lines).
    assert (("model_list", "[0]", "litellm_params", "<<", "api_base"), "https://llm-gw.internal/v1", 2) in found
    # The second document: line numbers count from the top of the file.
    assert (("router_settings", "fallbacks", "[0]"), "muse", 15) in found
    assert (("router_settings", "fallbacks", "[1]"), "opus", 15) in found
    assert not any(item.path == ("empty",) for item in items)  # null is no value


def billion_laughs(levels: int = 9) -> str:
    lines = ['a: &a ["lol","lol","lol","lol","lol","lol","lol","lol","lol"]']
    names = "abcdefghijklmnopqrstuvwxyz"
    for i in range(1, levels):
        lines.append(f"{names[i]}: &{names[i]} [" + ", ".join([f"*{names[i - 1]}"] * 9) + "]")
    return "\n".join(lines) + "\n"


def test_yaml_alias_bomb_is_bounded() -> None:
    # 9**9 ≈ 387 million leaves if expanded; the walk must stop at MAX_ITEMS, not hang or exhaust memory.
    with pytest.raises(fmt.BudgetExceeded) as cut:
        fmt.parse_yaml(billion_laughs())
    items = cut.value.items
    assert 0 < len(items) <= fmt.MAX_ITEMS
    assert items[0] == ConfigItem(("a", "[0]"), "lol", 1)


def test_yaml_alias_bomb_in_several_documents_is_still_bounded() -> None:
    with pytest.raises(fmt.BudgetExceeded) as cut:
        fmt.parse_yaml(billion_laughs() + "---\n" + billion_laughs())
    assert len(cut.value.items) <= fmt.MAX_ITEMS


@pytest.mark.parametrize("text", ["model: [unclosed\n", "a: b: c\n", "key: *undefined_anchor\n", "\t- x\n"])
def test_yaml_malformed_raises_parse_failure(text: str) -> None:
    with pytest.raises(ParseFailure):
        fmt.parse_yaml(text)


# --- TOML ------------------------------------------------------------------------------------------

CODEX_TOML = """\
# Codex CLI config
model = "gpt-5.6-sol"
model_provider = "azure"

[model_providers.azure]
name = "Azure"
base_url = "https://jarvis-prod.openai.azure.com/openai"
env_key = "AZURE_OPENAI_API_KEY"
query_params = { api-version = "2025-04-01-preview" }
wire_api = "responses"

[features]
web_search = true
fallbacks = ["muse-9.1", "claude-opus-4-8"]
"""


def test_toml_tables_inline_tables_arrays_and_lines() -> None:
    items = by_path(fmt.parse_toml(CODEX_TOML))
    assert (items[("model",)].value, items[("model",)].line) == ("gpt-5.6-sol", 2)
    assert items[("model_provider",)].line == 3
    base = items[("model_providers", "azure", "base_url")]
    assert (base.value, base.line) == ("https://jarvis-prod.openai.azure.com/openai", 7)
    assert items[("model_providers", "azure", "query_params", "api-version")].line == 9
    assert (items[("features", "web_search")].value, items[("features", "web_search")].line) == ("true", 13)
    assert items[("features", "fallbacks", "[0]")].value == "muse-9.1"
    assert items[("features", "fallbacks", "[1]")].line == 14


def test_toml_line_of_a_profile_named_after_its_model() -> None:
    # Codex profiles are commonly named after the model they select.
    text = '[profiles.muse-fast]\nmodel = "muse-fast"\n'
    assert by_path(fmt.parse_toml(text))[("profiles", "muse-fast", "model")].line == 2


def test_toml_malformed_raises_parse_failure() -> None:
    with pytest.raises(ParseFailure):
        fmt.parse_toml('model = "unterminated\n')
    with pytest.raises(ParseFailure):
        fmt.parse_toml("[a]\nx = 1\n[a]\nx = 2\n")


# --- INI -------------------------------------------------------------------------------------------

AGENT_INI = """\
; agent.ini: written by the installer
[llm]
; the model the planner uses
model = claude-opus-4-8
fallback_model: muse-9.1
# hash comments too
api_base = https://llm-gw.internal/v1

[safety]
kill_switch = off
"""


def test_ini_sections_comments_and_lines() -> None:
    items = by_path(fmt.parse_ini(AGENT_INI))
    model = items[("llm", "model")]
    assert (model.value, model.line, model.comment) == ("claude-opus-4-8", 4, "the model the planner uses")
    fallback = items[("llm", "fallback_model")]
    assert (fallback.value, fallback.line, fallback.comment) == ("muse-9.1", 5, None)
    assert items[("llm", "api_base")].comment == "hash comments too"
    assert items[("llm", "api_base")].line == 7
    switch = items[("safety", "kill_switch")]
    assert (switch.value, switch.line, switch.comment) == ("off", 10, None)  # a blank line ends a comment block


def test_ini_malformed_raises_parse_failure() -> None:
    with pytest.raises(ParseFailure):
        fmt.parse_ini("[llm\nmodel = x\n")


# --- env files -------------------------------------------------------------------------------------

RUNTIME_ENV = """\
# runtime.env for the agent
export ANTHROPIC_BASE_URL=http://inference-proxy.internal:8080/anthropic
AGENT_MODEL="muse-9.1"
AGENT_FALLBACK='claude-opus-4-8'
AGENT_PLANNER=claude-haiku-4-5   # inline comment after an unquoted value
AGENT_MOTTO="keep # this"

# Live kill switch: set to 1 to route all traffic through the reverse proxy
# (the proxy enforces the org policy)
FOO_OVERRIDE=0
not an assignment
  export   SPACED = value with spaces
"""


def test_env_export_quotes_inline_comments_and_comment_blocks() -> None:
    items = by_path(fmt.parse_env(RUNTIME_ENV))
    assert all(item.env for item in items.values())
    assert items[("ANTHROPIC_BASE_URL",)].value == "http://inference-proxy.internal:8080/anthropic"
    assert items[("ANTHROPIC_BASE_URL",)].comment == "runtime.env for the agent"
    assert (items[("AGENT_MODEL",)].value, items[("AGENT_MODEL",)].line) == ("muse-9.1", 3)
    assert items[("AGENT_MODEL",)].comment is None
    assert items[("AGENT_FALLBACK",)].value == "claude-opus-4-8"
    assert items[("AGENT_PLANNER",)].value == "claude-haiku-4-5"
    assert items[("AGENT_MOTTO",)].value == "keep # this"
    override = items[("FOO_OVERRIDE",)]
    assert (override.value, override.line) == ("0", 10)
    assert override.comment == (
        "Live kill switch: set to 1 to route all traffic through the reverse proxy (the proxy enforces the org policy)"
    )
    assert (items[("SPACED",)].value, items[("SPACED",)].line) == ("value with spaces", 12)
    assert len(items) == 7


def test_env_quoted_value_with_inline_comment() -> None:
    items = by_path(fmt.parse_env('AGENT_MODEL="muse-9.1"  # pinned until Q3\nLLM_KILL_SWITCH="1" # armed\n'))
    assert items[("AGENT_MODEL",)].value == "muse-9.1"
    assert items[("LLM_KILL_SWITCH",)].value == "1"


# --- systemd units ---------------------------------------------------------------------------------

UNIT = """\
[Unit]
Description=Agent daemon

[Service]
User=agent
# model selection for the daemon
Environment="AGENT_MODEL=muse-9.1" "AGENT_GREETING=two words"
Environment=LLM_KILL_SWITCH=0 RUST_LOG=info
EnvironmentFile=-/etc/x/settings
ExecStart=/opt/agent/bin/agentd --config /etc/agent/daemon.toml
"""


def test_systemd_environment_assignments_and_environment_file() -> None:
    items = fmt.parse_systemd(UNIT)
    env = {item.path[0]: item for item in items if item.env}
    assert {k: (v.value, v.line) for k, v in env.items()} == {
        "AGENT_MODEL": ("muse-9.1", 7),
        "AGENT_GREETING": ("two words", 7),
        "LLM_KILL_SWITCH": ("0", 8),
        "RUST_LOG": ("info", 8),
    }
    assert env["AGENT_MODEL"].comment == "model selection for the daemon"
    keys = by_path([item for item in items if not item.env])
    assert keys[("Service", "EnvironmentFile")].value == "-/etc/x/settings"
    assert keys[("Service", "EnvironmentFile")].line == 9
    assert keys[("Service", "User")].value == "agent"
    assert keys[("Unit", "Description")].value == "Agent daemon"
    assert keys[("Service", "ExecStart")].value == "/opt/agent/bin/agentd --config /etc/agent/daemon.toml"


# --- parse_loose ---------------------------------------------------------------------------------

BROKEN_JSON = """\
{
  "model": "muse-9.1",
  "base_url": "https://llm-gw.internal/v1"
  "fallback_model" = 'claude-opus-4-8',
  oops this line is garbage {{{
  timeout: 30
"""


def test_parse_loose_reads_a_broken_file_line_by_line() -> None:
    with pytest.raises(ParseFailure):
        fmt.parse_json(BROKEN_JSON)
    items = [(i.path, i.value, i.line) for i in fmt.parse_loose(BROKEN_JSON)]
    assert items == [
        (("model",), "muse-9.1", 2),
        (("base_url",), "https://llm-gw.internal/v1", 3),
        (("fallback_model",), "claude-opus-4-8", 4),
        (("timeout",), "30", 6),
    ]


# --- properties ----------------------------------------------------------------------------------

_SETTINGS = settings(max_examples=examples(300), deadline=None, suppress_health_check=[HealthCheck.too_slow])


@_SETTINGS
@given(st.text())
def test_clean_json_preserves_line_count_and_length(text: str) -> None:
    cleaned = fmt.clean_json(text)
    stripped = text.lstrip("\ufeff")
    assert cleaned.count("\n") == stripped.count("\n")
    assert len(cleaned) == len(stripped)


_tricky = st.text(alphabet=st.sampled_from(list('/*,"\\\n\r\t {}[]:ab#é') + ["\u2028"]), max_size=20) | st.text()


def _render_jsonc(doc: dict[str, str], note: str, ensure_ascii: bool) -> tuple[str, list[tuple[int, str]]]:
    """JSONC for `doc`: comments around every pair, a trailing comma; returns it and each literal's offset."""
    parts: list[str] = ["\ufeff{\r\n"]
    literals: list[tuple[int, str]] = []

    def emit(chunk: str, literal: bool = False) -> None:
        if literal:
            literals.append((sum(map(len, parts)) - 1, chunk))  # -1: clean_json drops the BOM
        parts.append(chunk)

    line_note, block_note = note.replace("\n", " "), note.replace("*", "")
    for key, value in doc.items():
        emit(f"  // {line_note}\n  ")
        emit(json.dumps(key, ensure_ascii=ensure_ascii), literal=True)
        emit(f" /* {block_note} */ : ")
        emit(json.dumps(value, ensure_ascii=ensure_ascii), literal=True)
        emit(",\r\n")  # the last one is a trailing comma
    emit("}\n")
    return "".join(parts), literals


@_SETTINGS
@given(st.dictionaries(_tricky, _tricky, max_size=6), _tricky, st.booleans())
def test_clean_json_never_changes_string_literals(doc: dict[str, str], note: str, ascii_: bool) -> None:
    text, literals = _render_jsonc(doc, note, ascii_)
    cleaned = fmt.clean_json(text)
    for offset, lit in literals:
        assert cleaned[offset : offset + len(lit)] == lit
    assert json.loads(cleaned) == doc
    assert {item.path: item.value for item in fmt.parse_json(text)} == {(k,): v for k, v in doc.items()}


@_SETTINGS
@given(st.text())
def test_parse_env_never_raises(text: str) -> None:
    lines = text.splitlines()
    for item in fmt.parse_env(text):
        assert item.env and item.line is not None
        assert item.path[0] in lines[item.line - 1]  # the line number points at the assignment


@_SETTINGS
@given(st.text() | st.text(alphabet=st.sampled_from(list('{}[]",:/*\n 0123456789.eE-+truefalsn\\')), max_size=60))
def test_parse_json_returns_items_or_raises_parse_failure(text: str) -> None:
    try:
        items = fmt.parse_json(text)
    except ParseFailure:
        return
    assert all(isinstance(item, ConfigItem) for item in items)


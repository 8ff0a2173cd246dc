"""Lua tables as settings: Neovim plugin specs and `setup({...})` calls name the models an editor agent runs and
where. Real files from public dotfiles (tests/data/configs/neovim-lua, see SOURCE.txt), laid where Neovim keeps
them; the reader's own shape on small texts."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from scanner.formats.config import BudgetExceeded, parse_lua
from scanner.formats.config.lua_items import MAX_LUA_TOKENS
from tests.conftest import REPO, ScanFn, write

DATA = REPO / "tests/data/configs/neovim-lua"


def wired(doc: dict[str, Any]) -> dict[str, str | None]:
    return {m["name"]: m["served_via"] for m in doc["models"] if m["wired"]}


def test_plugin_specs_name_their_models_and_routes(tmp_path: Path, scan_dir: ScanFn) -> None:
    for user, name in (("al", "albertpinnerup.avante.lua"), ("or", "oreoezi.avante.lua"),
                       ("ma", "massolari.avante.lua"), ("ja", "janbaer.code-companion.lua"),
                       ("as", "ashurbekovz.codecompanion.lua")):
        write(tmp_path, f"/home/{user}/.config/nvim/lua/plugins/{name}", (DATA / name).read_text())
    _, doc = scan_dir(tmp_path)
    got = wired(doc)
    assert {k: got.get(k) for k in (
        "qwen2.5-coder:7b", "openai/gpt-5.1-codex-mini", "claude-sonnet-4.6", "gemini-2.5-flash-preview-05-20",
        "claude-sonnet-4-20250514", "tngtech/deepseek-r1t2-chimera:free", "deepseek/deepseek-chat-0324-alt-fast",
        "unsloth/QwQ-32B-GGUF",
    )} == {
        "qwen2.5-coder:7b": "self-hosted",  # providers.ollama.endpoint = "http://127.0.0.1:11434"
        "openai/gpt-5.1-codex-mini": "openrouter",  # providers.openrouter.endpoint, not the `openai/` prefix's API
        "claude-sonnet-4.6": "github-copilot",  # providers.copilot
        "gemini-2.5-flash-preview-05-20": "direct",  # adapters.gemini: extend("gemini", {schema.model.default})
        "claude-sonnet-4-20250514": "direct",
        "tngtech/deepseek-r1t2-chimera:free": "openrouter",  # an adapter's own `url`
        "deepseek/deepseek-chat-0324-alt-fast": "api.vsegpt.ru",  # `env.url`: a gateway no catalog lists
        "unsloth/QwQ-32B-GGUF": "self-hosted",  # LM Studio's port on this machine
    }
    local = {e["name"] for e in doc["local_models"]}
    assert "qwen2.5-coder:7b" in local and any(n.endswith("QwQ-32B-GGUF") for n in local)


def test_a_lua_file_is_read_as_settings_only_when_it_names_a_model(tmp_path: Path, scan_dir: ScanFn) -> None:
    # The same kill switch in two Lua files: read in the one that names a model, not in plain editor code.
    switch = 'vim.g.LLM_KILL_SWITCH = "1"\n'
    write(tmp_path, "/home/al/.config/nvim/lua/options.lua", switch)
    write(tmp_path, "/home/al/.config/nvim/lua/plugins/agent.lua", switch + 'vim.g.agent_model = "gpt-4o"\n')
    _, doc = scan_dir(tmp_path)
    places = {loc["path"] for k in doc["kill_switches"] for loc in k["locations"]}
    assert places == {"/home/al/.config/nvim/lua/plugins/agent.lua"}
    assert wired(doc) == {"gpt-4o": None}


def test_the_reader_keeps_literal_values_under_their_keys() -> None:
    text = """-- a comment = "gpt-4o"
--[[ a long comment
model = "claude-3-opus"
]]
local default_model = "gpt-4.1"
return {
  "owner/plugin.nvim",
  opts = {
    ["my-key"] = 'single',
    model = vim.env.MODEL or "gpt-5",
    url = "https://" .. host,
    list = { "a", [[long]], 3 },
    adapter = function()
      return require("x").extend("openai", { schema = { model = { default = "gpt-4o-mini" } } })
    end,
    after = true,
  },
}
"""
    got = {(".".join(it.path), it.value) for it in parse_lua(text)}
    assert got == {
        ("default_model", "gpt-4.1"), ("[0]", "owner/plugin.nvim"), ("opts.my-key", "single"),
        ("opts.list.[0]", "a"), ("opts.list.[1]", "long"), ("opts.list.[2]", "3"),
        ("opts.adapter.schema.model.default", "gpt-4o-mini"), ("opts.after", "true"),
    }  # nothing from comments; an expression (`vim.env.MODEL or "gpt-5"`, `"https://" .. host`) is no value


def test_a_file_of_more_tokens_than_the_budget_is_read_in_its_head() -> None:
    # The token list is what a hostile file grows in memory: past the budget, the head's items and the cut.
    text = 'model = "gpt-4o"\n' + "f()\n" * (MAX_LUA_TOKENS // 3 + 10)  # 3 tokens, no value
    with pytest.raises(BudgetExceeded) as cut:
        parse_lua(text)
    assert cut.value.items[0].path == ("model",) and f"read the first {MAX_LUA_TOKENS:,}" in cut.value.detail

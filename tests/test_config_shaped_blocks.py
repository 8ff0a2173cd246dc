"""Provider blocks known by their shape, not by a container's name: a record of any container that holds a models
map or list, or a list element whose type names a route (mods' `apis.<id>`, aichat's `clients[]`). Their models
take the block's route; `<block>:<model>` names a block's model; a file that routes models elsewhere does not make
its route-less ones local. Real files from public dotfiles (tests/data/configs/{aichat,mods}, see SOURCE.txt), laid
where the products keep them."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from scanner import api
from scanner.catalog import load
from scanner.inventory.document import dumps
from scanner.options import ScanOptions
from scanner.targets import Walker
from tests.conftest import REPO, ScanFn, write

DATA = REPO / "tests/data/configs"


def wired(doc: dict[str, Any]) -> dict[str, str | None]:
    return {m["name"]: m["served_via"] for m in doc["models"] if m["wired"]}


def test_a_models_map_of_a_block_under_any_name_takes_the_block_s_route(tmp_path: Path, scan_dir: ScanFn) -> None:
    # mods: `apis.<id>: {base-url, models: {<id>: {aliases, max-input-chars}}}`. The ids are the map's keys.
    write(tmp_path, "/home/tz/.config/mods/mods.yml", (DATA / "mods/tzhouhc.mods.yml").read_text())
    _, doc = scan_dir(tmp_path)
    got = wired(doc)
    assert {k: got.get(k) for k in ("gpt-4o", "claude-3-5-sonnet-20240620", "llama3:70b", "deepseek/deepseek-chat",
                                    "llama-3.1-8b-lexi-uncensored-v2", "gemini-1.5-pro-latest")} == {
        "gpt-4o": "direct",  # apis.openai.base-url: https://api.openai.com/v1
        "claude-3-5-sonnet-20240620": "direct",
        "llama3:70b": "self-hosted",  # apis.ollama.base-url: http://localhost:11434/api
        "deepseek/deepseek-chat": "openrouter",  # apis.openrouter.base-url: https://openrouter.ai/api/v1
        "llama-3.1-8b-lexi-uncensored-v2": "self-hosted",  # LM Studio at 127.0.0.1:1234
        "gemini-1.5-pro-latest": "direct",  # apis.google: no base URL, the vendor's own API by the block's name
    }
    # A key with no digit is an id where a block lists it and the catalogs know it; an alias the catalogs know is
    # its model's, on its model's route.
    assert (got.get("command-r"), got.get("deepseek-reasoner")) == ("direct", "direct")
    (alias,) = [m for m in doc["models"] if m["name"] == "claude-3-5-sonnet"]
    assert (alias["served_via"], alias["base_model"]) == ("direct", "claude-3-5-sonnet-20240620")
    assert all(route for route in got.values())  # every model of the file, on its block's route
    local = {e["name"] for e in doc["local_models"]}
    assert {"llama3:70b", "llama-3.1-8b-lexi-uncensored-v2"} <= local
    # The file routes its other models to OpenAI, Anthropic, Groq...: an id it names with no route of its own (an
    # alias, `claude-3-5-sonnet`) is not its local server's.
    assert not {"gpt-4o", "claude-3-5-sonnet", "claude-3-5-sonnet-20240620", "command-r"} & local


def test_provider_colon_model_names_a_block_s_model(tmp_path: Path, scan_dir: ScanFn) -> None:
    # aichat: `model: local:llama3.1:8b` picks model `llama3.1:8b` of the client named `local` (a local Ollama);
    # `model: gemini:gemini-2.0-flash` the model of the client whose type is `gemini` (no name: its type names it).
    write(tmp_path, "/home/gw/.config/aichat/config.yaml", (DATA / "aichat/gwelican.config.yaml").read_text())
    write(tmp_path, "/home/db/.config/aichat/config.yaml", (DATA / "aichat/diegobit.config.yaml").read_text())
    _, doc = scan_dir(tmp_path)
    got = wired(doc)
    assert (got.get("llama3.1:8b"), got.get("gemini-2.0-flash")) == ("self-hosted", "direct")
    assert not {"local:llama3.1:8b", "gemini:gemini-2.0-flash"} & {m["name"] for m in doc["models"]}
    (model,) = [m for m in doc["models"] if m["name"] == "llama3.1:8b"]
    assert sorted(loc["line"] for loc in model["locations"]) == [1, 8]  # the selection and the listing


def test_a_route_name_before_a_colon_only_with_a_model_the_catalogs_know(tmp_path: Path, scan_dir: ScanFn) -> None:
    # pydantic-ai's `provider:model` strings; an Ollama tag `mistral:latest` is a model of its own, not Mistral's
    # `latest`.
    write(tmp_path, "/srv/app/settings.yaml", "agent_model: anthropic:claude-sonnet-4-0\nlocal_model: mistral:latest\n")
    _, doc = scan_dir(tmp_path)
    got = wired(doc)
    assert got.get("claude-sonnet-4-0") == "direct"
    assert "mistral:latest" in got and "latest" not in got and "anthropic:claude-sonnet-4-0" not in got


def test_a_model_record_s_endpoint_is_its_route_and_its_kind_no_model(tmp_path: Path, scan_dir: ScanFn) -> None:
    # Tabby: `[model.<role>.http] {kind, model_name, api_endpoint}`. Chat and embedding on OpenAI's API, completion on
    # a local Ollama; `kind = "ollama/completion"` is the client's kind, not an Ollama model named `completion`.
    write(tmp_path, "/home/ana/.tabby/config.toml", (DATA / "tabby/docs-remote-models.config.toml").read_text())
    write(tmp_path, "/home/sek/.tabby/config.toml", (DATA / "tabby/sekirocc.config.toml").read_text())
    _, doc = scan_dir(tmp_path)
    got = wired(doc)
    assert {k: got.get(k) for k in ("gpt-4o", "text-embedding-3-small", "codellama:7b", "qwen2.5-coder-32b-instruct")} \
        == {"gpt-4o": "direct", "text-embedding-3-small": "direct", "codellama:7b": "self-hosted",
            "qwen2.5-coder-32b-instruct": "self-hosted"}  # LM Studio's `http://localhost:1234/v1`
    names = {m["name"] for m in doc["models"]} | {e["name"] for e in doc["local_models"]}
    assert not {"ollama/completion", "completion", "openai/chat"} & names


def test_a_provider_named_by_its_domain_is_that_gateway(tmp_path: Path, scan_dir: ScanFn) -> None:
    # Zed: `agent.default_model: {provider: "zed.dev", model: "gpt-5.4"}` runs on Zed's hosted service.
    zed = (DATA / "zed-settings/aqothy.zed.settings.json").read_text()
    write(tmp_path, "/home/aq/.config/zed/settings.json", zed)
    _, doc = scan_dir(tmp_path)
    assert wired(doc).get("gpt-5.4") == "zed.dev"


def test_an_rc_file_of_assignments_is_read_as_settings(tmp_path: Path, scan_dir: ScanFn) -> None:
    # shell_gpt's `.sgptrc`: `KEY=value` lines under a name no format claims. Its model runs on the LM Studio
    # server its `API_BASE_URL` names.
    write(tmp_path, "/home/ib/.config/shell_gpt/.sgptrc", (DATA / "shell-gpt/indianboy42.sgptrc").read_text())
    _, doc = scan_dir(tmp_path)
    assert wired(doc) == {"lmstudio/qwen2.5-coder-14b-instruct": "self-hosted"}
    (model,) = doc["models"]
    assert [(loc["line"], loc["context"]) for loc in model["locations"]] == [(1, "env")]


def test_the_names_of_provider_containers_are_catalog_data(tmp_path: Path) -> None:
    # A container the built-in catalogs do not name is no providers container; a user's catalog naming it makes
    # its entries blocks (their models take the block's route), with no code change.
    config = "backends:\n  corp:\n    url: https://llm.corp.example/v1\n    model: corp-coder-2\n"
    root = tmp_path / "vm"
    write(root, "/etc/agent/agent.yaml", config)
    extra = write(tmp_path, "/cat/containers.toml",
                  '[catalog]\nname = "site"\nversion = "1"\n\n[config_keys]\nprovider_container = ["backends"]\n')

    def route(extra_catalogs: list[Path]) -> str | None:
        inv = api.scan(Walker(str(root)), api.ScanRequest(ScanOptions()), load(extra_catalogs))
        return {m["name"]: m["served_via"] for m in json.loads(dumps(inv))["models"]}.get("corp-coder-2")

    assert route([]) is None
    assert route([extra]) == "llm.corp.example"

"""A config that lists providers, each with its base URL and the model ids it serves, and picks among them by
reference: claude-code-router's real example config (tests/data/configs/claude-code-router, see SOURCE.txt), laid
where users keep it. Each model takes the route of the provider that lists it; a slug's inner id is no second
model; a file that also names a local server makes only its route-less models local. And a product's settings that
list model records (Continue), each on its own route."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from tests.conftest import REPO, ScanFn, write

CCR = (REPO / "tests/data/configs/claude-code-router/musistudio.config.example.json").read_text()
AT = "/home/dev/.claude-code-router/config.json"


def routes(doc: dict[str, Any]) -> dict[str, str | None]:
    return {m["name"]: m["served_via"] for m in doc["models"] if m["wired"]}


def test_each_listed_model_takes_the_route_of_the_provider_that_lists_it(tmp_path: Path, scan_dir: ScanFn) -> None:
    write(tmp_path, AT, CCR)
    _, doc = scan_dir(tmp_path)
    got = routes(doc)
    assert {k: got.get(k) for k in (
        "deepseek-chat", "deepseek-reasoner", "gemini-2.5-flash", "qwen3-coder-plus", "qwen2.5-coder:latest",
        "deepseek-v3-250324", "moonshotai/Kimi-K2-Instruct", "Qwen/Qwen3-Coder-480B-A35B-Instruct",
        "google/gemini-2.5-pro-preview", "anthropic/claude-sonnet-4",
    )} == {
        "deepseek-chat": "direct", "deepseek-reasoner": "direct", "gemini-2.5-flash": "direct",
        "qwen3-coder-plus": "direct", "qwen2.5-coder:latest": "self-hosted",
        "deepseek-v3-250324": "ark.cn-beijing.volces.com",  # a gateway no catalog lists, named by its host
        "moonshotai/Kimi-K2-Instruct": "api.siliconflow.cn",
        "Qwen/Qwen3-Coder-480B-A35B-Instruct": "api-inference.modelscope.cn",
        # A vendor's prefix says nothing of the route where the provider that lists the id states one.
        "google/gemini-2.5-pro-preview": "openrouter", "anthropic/claude-sonnet-4": "openrouter",
    }
    # `Router.longContext = "openrouter,google/gemini-2.5-pro-preview"` names a provider of the file and a model it
    # serves: a location of that model, on its provider's route.
    (slug,) = [m for m in doc["models"] if m["name"] == "google/gemini-2.5-pro-preview"]
    assert sorted(loc["line"] for loc in slug["locations"]) == [8, 120]
    # The ids inside the router's slugs are the slugs' own, not models with no route of their own.
    assert not {"gemini-2.5-pro-preview", "Kimi-K2-Instruct", "Qwen3-Coder-480B-A35B-Instruct"} & set(got)
    # Only the model the local Ollama provider lists is a local model, not the file's every model.
    assert "qwen2.5-coder:latest" in {e["name"] for e in doc["local_models"]}
    assert not {"deepseek-chat", "anthropic/claude-sonnet-4", "gemini-2.5-flash"} & {
        e["name"] for e in doc["local_models"]}


def test_a_deployment_of_the_model_s_own_name_keeps_both_facts(tmp_path: Path, scan_dir: ScanFn) -> None:
    write(tmp_path, "/etc/app/azure.yaml", "endpoint: https://corp.openai.azure.com\ndeployments:\n"
          "  gpt-4.1: gpt-4.1\n")
    _, doc = scan_dir(tmp_path)
    got = {m["name"]: [loc["line"] for loc in m["locations"]] for m in doc["models"]}
    assert got["azure/gpt-4.1"] == [3] and got["gpt-4.1"] == [3]


def test_a_bare_id_elsewhere_is_still_its_own_sighting(tmp_path: Path, scan_dir: ScanFn) -> None:
    write(tmp_path, "/etc/a/config.json", '{"models": ["moonshotai/Kimi-K2-Instruct"]}')
    write(tmp_path, "/etc/b/notes.txt", "we also tried Kimi-K2-Instruct on our own GPUs\n")
    _, doc = scan_dir(tmp_path)
    places = {m["name"]: [loc["path"] for loc in m["locations"]] for m in doc["models"]}
    assert places["moonshotai/Kimi-K2-Instruct"] == ["/etc/a/config.json"]
    assert places["Kimi-K2-Instruct"] == ["/etc/b/notes.txt"]


CONTINUE = """name: bob
version: 1.0.0
schema: v1
models:
  - name: Gemini 2.5 Flash (Vertex)
    provider: vertexai
    model: gemini-2.5-flash
    env:
      projectId: bob-analytics
      region: us-central1
    roles:
      - chat
  - name: local-coder
    provider: ollama
    model: qwen2.5-coder:1.5b
    apiBase: http://localhost:11434
    roles:
      - autocomplete
"""


def test_an_alias_runs_on_its_model_s_route_beside_a_local_deployment(tmp_path: Path, scan_dir: ScanFn) -> None:
    proxy = """model_list:
  - model_name: team-default
    litellm_params:
      model: bedrock/us.anthropic.claude-sonnet-4-5-20250929-v1:0
      aws_region_name: us-east-1
  - model_name: team-vision
    litellm_params:
      model: vertex_ai/gemini-2.5-flash
      vertex_project: team-prod
  - model_name: team-local
    litellm_params:
      model: ollama/qwen3-coder:30b
      api_base: http://127.0.0.1:11434
"""
    write(tmp_path, "/etc/litellm/config.yaml", proxy)
    _, doc = scan_dir(tmp_path)
    local = {e["name"] for e in doc["local_models"]}
    assert {"team-local", "qwen3-coder:30b"} <= local
    assert not {"team-default", "team-vision", "gemini-2.5-flash"} & local


def test_a_minified_config_s_one_line_of_slugs_keeps_each_slug_once(tmp_path: Path, scan_dir: ScanFn) -> None:
    # Every id of the line sits beside many slugs: the inner ids are found by one lookup each, not by a search of
    # the line's slugs per sighting.
    slugs = [f"moonshotai/kimi-k2-{n:04d}" for n in range(400)]
    write(tmp_path, "/etc/gw/config.json", '{"models": [' + ", ".join(f'"{s}"' for s in slugs) + "]}")
    _, doc = scan_dir(tmp_path)
    names = {m["name"] for m in doc["models"]}
    assert set(slugs) <= names and not any(n.startswith("kimi-k2-") for n in names)


CONTINUE_JSON = """{
  "models": [
    {
      "title": "Claude 3.5 Sonnet (Bedrock)",
      "provider": "bedrock",
      "model": "anthropic.claude-3-5-sonnet-20240620-v1:0",
      "region": "us-east-1"
    }
  ],
  "tabAutocompleteModel": {
    "title": "StarCoder2 3b",
    "provider": "ollama",
    "model": "starcoder2:3b"
  }
}
"""


# Continue's documented shapes. config.yaml: chat on Vertex, autocomplete on a local Ollama; the first record's
# provider gave every model of the file its route (the autocomplete model ran "on Vertex", the chat model was
# local). config.json: the autocomplete model is a record of its own beside `models[]` with the same `provider`
# field; it took the chat model's Bedrock route.
@pytest.mark.parametrize(("path", "text", "chat", "chat_route", "local_model"), [
    ("/home/bob/.continue/config.yaml", CONTINUE, "gemini-2.5-flash", "vertex", "qwen2.5-coder:1.5b"),
    ("/home/bob/.continue/config.json", CONTINUE_JSON, "anthropic.claude-3-5-sonnet-20240620-v1:0", "bedrock",
     "starcoder2:3b"),
], ids=["config.yaml list", "config.json record beside the list"])
def test_each_model_record_of_a_product_s_settings_takes_its_own_route(
    tmp_path: Path, scan_dir: ScanFn, path: str, text: str, chat: str, chat_route: str, local_model: str
) -> None:
    write(tmp_path, path, text)
    _, doc = scan_dir(tmp_path)
    got = routes(doc)
    assert (got[chat], got[local_model]) == (chat_route, "self-hosted")
    local = {e["name"] for e in doc["local_models"]}
    assert local_model in local and chat not in local

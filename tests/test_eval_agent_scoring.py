"""The agent-zoo eval's own logic (eval/agent_score.py, eval/zoo_diff.py, eval/leave_one_out_agents.py,
eval/score.py): products matched under any of their names, routes taken from the config or the model, files
changed between two hard-linked trees, and a catalog entry left out through the library."""

from __future__ import annotations

import os
import sys
from pathlib import Path
from typing import Any

EVAL = Path(__file__).resolve().parent.parent / "eval"
sys.path.insert(0, str(EVAL))
import agent_score  # noqa: E402
import leave_one_out_agents as loo  # noqa: E402
import score  # noqa: E402
import zoo_diff  # noqa: E402

from scanner.catalog.loader import load_catalogs  # noqa: E402

CONFIG = "/home/alice/.continue/config.yaml"
TRUTH: dict[str, Any] = {
    "name": "continue-cli", "names": ["@continuedev/cli", "cn", "Continue CLI", "continue-cli"],
    "version": "1.5.47", "install_path": "/usr/lib/node_modules/@continuedev/cli",
    "configs": [{"user": "alice", "models": ["corp-gpt-4.1"], "route": ["llm-gateway.acme-corp.net"],
                 "model_routes": {"corp-gpt-4.1": ["llm-gateway.acme-corp.net"]},
                 "base_models": {"corp-gpt-4.1": "gpt-4.1"}, "mcp_servers": ["acme-search"], "files": [CONFIG]}],
    "_mcp": [{"name": "acme-search", "user": "alice", "path": CONFIG, "transport": "http"}],
}


def _model(name: str, via: str | None, base: str | None = None) -> dict[str, Any]:
    return {"name": name, "canonical": None, "base_model": base, "served_via": via, "wired": True,
            "locations": [{"path": CONFIG, "line": 5}]}


def test_an_unknown_product_reported_under_its_package_name_is_that_product() -> None:
    inv = {"agents": [{"name": "@continuedev/cli", "version": "1.5.47", "install_path": None, "configs": []}]}
    ps = agent_score.score_product(TRUTH, inv)
    assert ps.entry
    inv["agents"][0]["version"] = "1.5.45"
    assert not agent_score.score_product(TRUTH, inv).entry


def test_a_configured_model_counts_with_its_route_on_the_model_or_on_the_config() -> None:
    on_model = {"agents": [], "models": [_model("corp-gpt-4.1", "llm-gateway.acme-corp.net", "gpt-4.1")],
                "mcp_servers": []}
    ps = agent_score.score_product(TRUTH, on_model)
    assert [ok for _, ok, _ in ps.models] == [True]
    assert [ok for _, ok, _ in ps.aliases] == [True]
    wrong_route = {**on_model, "models": [_model("corp-gpt-4.1", "openai")]}
    ps = agent_score.score_product(TRUTH, wrong_route)
    assert [ok for _, ok, _ in ps.models] == [False] and [ok for _, ok, _ in ps.aliases] == [False]
    on_config = {"agents": [{"name": "cn", "version": "1.5.47", "install_path": TRUTH["install_path"],
                             "configs": [{"user": "alice", "models": ["gpt-4.1"],
                                          "served_via": "llm-gateway.acme-corp.net", "mcp_servers": []}]}],
                 "models": [], "mcp_servers": []}
    assert [ok for _, ok, _ in agent_score.score_product(TRUTH, on_config).models] == [True]


def test_an_mcp_server_counts_from_its_own_file_with_its_transport() -> None:
    server = {"name": "acme-search", "user": "alice", "config": CONFIG, "transport": "unknown"}
    ps = agent_score.score_product(TRUTH, {"agents": [], "models": [], "mcp_servers": [server]})
    assert [ok for _, ok, _ in ps.mcp] == [True]
    assert [ok for _, ok, _ in ps.transports] == [False]
    elsewhere = {**server, "config": "/home/alice/.claude.json", "transport": "http"}
    ps = agent_score.score_product(TRUTH, {"agents": [], "models": [], "mcp_servers": [elsewhere]})
    assert [ok for _, ok, _ in ps.mcp] == [False]


def test_files_two_hard_linked_trees_do_not_share_are_the_changes(tmp_path: Path) -> None:
    new, old = tmp_path / "new", tmp_path / "old"
    (new / "usr/lib").mkdir(parents=True)
    (new / "usr/lib/shared.js").write_text('"gpt-4.1"')
    (new / "usr/lib/tool.js").write_text('"gpt-5.1"')
    (old / "usr/lib").mkdir(parents=True)
    os.link(new / "usr/lib/shared.js", old / "usr/lib/shared.js")
    (old / "usr/lib/tool.js").write_text('"gpt-5"')
    (old / "usr/lib/gone.js").write_text('"gpt-4.1"')
    changed_old, changed_new = zoo_diff.differing_files(old, new)
    assert changed_old == ["/usr/lib/gone.js", "/usr/lib/tool.js"]
    assert changed_new == ["/usr/lib/tool.js"]
    models, ambiguous = zoo_diff.model_id_changes(old, new, changed_old, changed_new)
    # gpt-4.1 left gone.js but stays in the shared file: in both trees, so no change either way
    assert {(m["kind"], m["key"]) for m in models} == {("added", "gpt-5.1"), ("removed", "gpt-5")}
    assert ambiguous == ["gpt-4.1"]


def test_leaving_a_product_out_drops_its_entry_its_mcp_file_globs_and_its_package_as_an_sdk() -> None:
    files = load_catalogs()
    kept, dropped = loo.without(files, "codex")
    agents = [a.id for cat in kept for a in cat.agents]
    tools = [c.tool for cat in kept for c in cat.agent_configs]
    sdks = {(s.ecosystem, s.name) for cat in kept for s in cat.sdks}
    assert "codex" not in agents and "codex" not in tools
    # The vendor catalog lists the CLI's own package among its SDKs: that entry names the product too.
    assert ("npm", "@openai/codex") not in sdks and ("npm", "openai") in sdks
    assert dropped == 1 + sum(c.tool == "codex" for cat in files for c in cat.agent_configs) + sum(
        (s.ecosystem, s.name) == ("npm", "@openai/codex") for cat in files for s in cat.sdks)
    assert len(agents) == sum(len(cat.agents) for cat in files) - 1


def test_a_model_change_the_trees_confirm_is_not_noise() -> None:
    diff = {"changes": [{"section": "models", "kind": "added", "key": "qwen3.8-max:thinking"}]}
    _, noise = score.score_diff({"expected": [], "ambiguous": []}, diff)
    assert noise == 1
    sections, noise = score.score_diff({"expected": [], "ambiguous": []}, diff, {("added", "qwen3.8-max:thinking")})
    assert noise == 0 and sections[2].n_truth == 1


def test_a_models_spellings_answer_the_ids_the_trees_add_and_remove() -> None:
    """The diff reports one model with its spellings: an expected id removed is found as a spelling the model lost,
    and a respelling is noise only for a spelling nothing explains."""
    lost = {"section": "models", "kind": "changed", "key": "Llama-3.1-405B-Instruct", "field": "spelling",
            "old": ["Llama-3.1-405B-Instruct", "llama-3.1-405b-instruct"], "new": "Llama-3.1-405B-Instruct"}
    truth = {"expected": [{"section": "models", "kind": "removed", "key": "llama-3.1-405b-instruct"}], "ambiguous": []}
    sections, noise = score.score_diff(truth, {"changes": [lost]})
    assert sections[0].misses == [] and noise == 0
    respelled = {**lost, "new": ["Llama-3.1-405B-Instruct", "meta/llama-3.1-405b"]}
    _, noise = score.score_diff(truth, {"changes": [respelled]})
    assert noise == 1  # `meta/llama-3.1-405b` joined, and nothing says it did
    _, noise = score.score_diff(truth, {"changes": [respelled]}, {("added", "meta/llama-3.1-405b")})
    assert noise == 0
    # A model removed under two spellings answers both.
    gone = {"section": "models", "kind": "removed", "key": "gpt-6.1-sol",
            "old": {"spelling": ["gpt-6.1-sol", "openai.gpt-6.1-sol"]}}
    both = {"expected": [{"section": "models", "kind": "removed", "key": k} for k in ("gpt-6.1-sol",
                                                                                     "openai.gpt-6.1-sol")]}
    sections, noise = score.score_diff(both, {"changes": [gone]})
    assert sections[0].misses == [] and noise == 0


def test_the_route_and_base_a_respelling_brings_are_that_respelling() -> None:
    """`qwen/qwen3.6-27b:thinking` lost beside `qwen3.6-27b:thinking` takes its openrouter route and its base
    with it: one change in the tree, judged once as the respelling."""
    key = "qwen3.6-27b:thinking"
    spelling = {"section": "models", "kind": "changed", "key": key, "field": "spelling",
                "old": ["qwen/qwen3.6-27b:thinking", key], "new": key}
    facets = [{"section": "models", "kind": "changed", "key": key, "field": "served_via", "old": ["openrouter", None],
               "new": None}, {"section": "models", "kind": "changed", "key": key, "field": "base_model",
                              "old": ["qwen3.6-27b", None], "new": None}]
    truth: dict[str, list[str]] = {"expected": [], "ambiguous": []}
    assert score.score_diff(truth, {"changes": [spelling, *facets]})[1] == 1
    assert score.score_diff(truth, {"changes": [spelling, *facets]}, {("removed", "qwen/qwen3.6-27b:thinking")})[1] == 0
    assert score.score_diff(truth, {"changes": facets})[1] == 2  # no respelling: a route change of its own


EXT = "/home/alice/.vscode/extensions/saoudrizwan.claude-dev"


def test_a_product_is_found_by_its_install_path_whatever_its_release_folder() -> None:
    """A product the catalog names otherwise (`continue`, not the truth's `continue-cli`) is its install; an
    extension moved to its next release's folder is keyed by the path with the release left out."""
    expected = [
        {"section": "agents", "kind": "changed", "key": "continue-cli", "field": "version", "old": "1.5.45",
         "new": "1.5.47", "aliases": [], "install_paths": ["/usr/lib/node_modules/@continuedev/cli"]},
        {"section": "agents", "kind": "changed", "key": "cline-vscode", "field": "version", "old": "4.1.12",
         "new": "4.1.13", "aliases": [], "install_paths": [f"{EXT}-4.1.12", f"{EXT}-4.1.13"]},
    ]
    changes = [
        {"section": "agents", "kind": "changed", "key": "continue@/usr/lib/node_modules/@continuedev/cli",
         "field": "version", "old": "1.5.45", "new": "1.5.47"},
        {"section": "agents", "kind": "changed", "key": f"cline@{EXT}-*",
         "field": "version", "old": "4.1.12", "new": "4.1.13"},
    ]
    sections, noise = score.score_diff({"expected": expected}, {"changes": changes})
    assert sections[0].misses == [] and noise == 0
    # The product's CLI shares the extension's name (`cline`): each expectation takes its own install's change.
    cli = {"section": "agents", "kind": "changed", "key": "cline", "field": "version", "old": "3.0.57",
           "new": "3.0.65", "aliases": ["Cline"], "install_paths": ["/usr/lib/node_modules/cline"]}
    both = [{**changes[1]}, {"section": "agents", "kind": "changed", "key": "cline@/usr/lib/node_modules/cline",
                             "field": "version", "old": "3.0.57", "new": "3.0.65"}]
    sections, noise = score.score_diff({"expected": [cli, {**expected[1], "aliases": ["Cline"]}]}, {"changes": both})
    assert sections[0].misses == [] and noise == 0


def test_an_id_still_named_by_a_providers_literal_is_in_the_tree(tmp_path: Path) -> None:
    (tmp_path / "usr").mkdir()
    (tmp_path / "usr/table.js").write_text('{"TEE/gemma-4-26b-a4b-uncensored":{}, "xai/grok-2-image-1212x":1}\n'
                                           'const c = ["clarifai/xai.image-generation.grok-2-image-1212"]\n')
    assert zoo_diff.named_in(tmp_path, {"gemma-4-26b-a4b-uncensored", "grok-2-image-1212", "kimi-k2.6-flex"}) == {
        "gemma-4-26b-a4b-uncensored", "grok-2-image-1212"}

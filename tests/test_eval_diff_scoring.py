"""The eval's diff scoring and its inspection of shipped ids (eval/score.py, eval/common.py), on the diff of
real inventories (tests/data/diff) and on byte shapes copied from the real products' files."""

from __future__ import annotations

import sys
from pathlib import Path

from scanner.diff.compare import diff_inventories
from scanner.diff.diff_document import to_document
from scanner.inventory.load import load_file

EVAL = Path(__file__).resolve().parent.parent / "eval"
sys.path.insert(0, str(EVAL))
import common  # noqa: E402
import score  # noqa: E402

DATA = Path(__file__).parent / "data" / "diff"

# What inspection of the builder (eval/build_dev_machine.py --old vs new) says changed, for the three products
# the trimmed inventories keep.
EXPECTED = [
    {"section": "agents", "kind": "changed", "key": "codex", "field": "version", "old": "0.137.0",
     "new": "0.171.0", "aliases": ["npm/@openai/codex"]},
    {"section": "agents", "kind": "changed", "key": "gemini-cli", "field": "version", "old": "0.31.0",
     "new": "0.61.0", "aliases": ["npm/@google/gemini-cli"]},
    {"section": "agents", "kind": "changed", "key": "copilot-cli", "field": "version", "old": "1.0.12",
     "new": "1.0.102", "aliases": ["npm/@github/copilot"]},
    {"section": "agents", "kind": "changed", "key": "codex", "field": "models", "old": ["gpt-5.5"],
     "new": ["gpt-5.6-sol"]},
    {"section": "agents", "kind": "changed", "key": "copilot-cli", "field": "mcp_servers",
     "old": ["playwright"], "new": ["playwright", "sentry"]},
    {"section": "sdks", "kind": "changed", "key": "npm/@openai/codex-linux-x64", "field": "version",
     "old": "0.137.0-linux-x64", "new": "0.171.0-linux-x64", "aliases": ["npm/@openai/codex"]},
    {"section": "sdks", "kind": "changed", "key": "npm/@github/copilot-linux-x64", "field": "version",
     "old": "1.0.12", "new": "1.0.102"},
    {"section": "sdks", "kind": "removed", "key": "npm/@google/genai", "old": "1.41.0"},
    {"section": "models", "kind": "changed", "key": "gpt-5.5", "field": "wired", "old": True, "new": False},
    {"section": "models", "kind": "changed", "key": "gpt-5.6-sol", "field": "wired", "old": False, "new": True},
    {"section": "models", "kind": "added", "key": "gpt-6.1-sol"},  # spelled gpt-6.1-sol and openai.gpt-6.1-sol
    {"section": "models", "kind": "added", "key": "gemma3-1b-gpu-custom"},
    {"section": "mcp_servers", "kind": "added", "key": "sentry", "user": "bob"},
]


def test_a_product_upgrade_is_found_in_agents_and_its_own_packages_are_not_noise() -> None:
    old, new = load_file(DATA / "dev-machine-old.json"), load_file(DATA / "dev-machine.json")
    doc = to_document(diff_inventories(old, new))
    sections, noise = score.score_diff({"expected": EXPECTED, "ambiguous": []}, doc)
    assert sections[0].misses == [] and noise == 0, (sections[0].misses, sections[1].misses)


def test_an_unexpected_change_is_still_noise() -> None:
    old, new = load_file(DATA / "dev-machine-old.json"), load_file(DATA / "dev-machine.json")
    doc = to_document(diff_inventories(old, new))
    expected = [e for e in EXPECTED if e["key"] != "gemma3-1b-gpu-custom"]
    _, noise = score.score_diff({"expected": expected, "ambiguous": []}, doc)
    assert noise == 1


def test_shipped_ids_read_real_literal_shapes(tmp_path: Path) -> None:
    blob = tmp_path / "bundle"
    blob.write_bytes(
        # Claude Code's Bun executable: a JS catalog entry, and the same ids as NUL-terminated strings.
        b'{id:"claude-mythos-5-1",family:"mythos",provider_ids:{bedrock:"us.anthropic.claude-fable-5-2"}}'
        b"\x05o\x00anthropic.claude-haiku-5-5\x00\x00"
        # Gemini CLI's bundle: a model config alias is not a model; the model it names is.
        b'"gemini-3.5-flash-base": {\n      extends: "base",\n      modelConfig: {\n        model: "gemini-3.5-flash"'
        # Codex (Rust): literals packed back to back; the last piece runs into the next literal.
        b"model_providers.gcp.base_url.openai.gpt-5.6-solopenai.gpt-5.6-terraopenai.gpt-6-lunagateway access"
        # A truncated fragment pair is no run.
        b"codex/connectionopenai.gpt-5.6-lus.openai.gpt-6-Read"
    )
    assert common.shipped_ids([blob]) == [
        "anthropic.claude-haiku-5-5", "claude-mythos-5-1", "gemini-3.5-flash", "openai.gpt-5.6-sol",
        "openai.gpt-5.6-terra", "us.anthropic.claude-fable-5-2",
    ]

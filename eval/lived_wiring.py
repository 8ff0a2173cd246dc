"""The configs of the lived-in machine: what each user's agents select, from real config samples where one exists
(tests/data/configs, shared/samples/configs). Returns the config-selected models (truth `wired`, source = config)
and the aliases that are fine to report but not required."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import common as c


def configs(root: Path) -> tuple[list[dict[str, Any]], set[str]]:
    wired: list[dict[str, Any]] = []
    acceptable: set[str] = set()

    def sel(model: str, canonical: str, vendor: Any, route: Any, user: str, product: str, path: str) -> None:
        wired.append({"id": model, "canonical": canonical, "vendor": vendor, "route": route, "user": user,
                      "product": product, "path": path, "source": "config"})

    # alice: Claude Code on Anthropic's API (real settings sample + the model), Codex on OpenAI (real config.toml).
    cc = json.loads(c.sample("claude-code", "dennywu.settings.json"))
    cc["model"] = "claude-sonnet-4-5-20250929"
    p = "/home/alice/.claude/settings.json"
    c.write_json(root, p, cc)
    sel("claude-sonnet-4-5-20250929", "claude-sonnet-4-5-20250929", "anthropic", "direct", "alice", "claude-code", p)
    text = c.sample("codex-config-toml", "nu-pan.config.toml").replace('model = "gpt-5.4"', 'model = "gpt-5.1-codex"')
    p = "/home/alice/.codex/config.toml"
    c.write(root, p, text)
    sel("gpt-5.1-codex", "gpt-5.1-codex", "openai", "direct", "alice", "codex", p)

    # bob: Claude Code on Bedrock (real settings sample, its model variables set to this user's), Gemini CLI
    # with an API key (real settings sample, `model.name` set).
    bed = json.loads(c.sample("claude-code", "seika139.bedrock.settings.json"))
    for key in ("ANTHROPIC_DEFAULT_HAIKU_MODEL", "ANTHROPIC_DEFAULT_OPUS_MODEL", "ANTHROPIC_DEFAULT_SONNET_MODEL"):
        bed["env"].pop(key, None)
    bed.pop("model", None)
    bed["env"]["ANTHROPIC_MODEL"] = "us.anthropic.claude-sonnet-4-5-20250929-v1:0"
    bed["env"]["ANTHROPIC_SMALL_FAST_MODEL"] = "us.anthropic.claude-3-7-sonnet-20250219-v1:0"
    bed["env"]["AWS_REGION"] = "us-east-1"
    p = "/home/bob/.claude/settings.json"
    c.write_json(root, p, bed)
    sel("us.anthropic.claude-sonnet-4-5-20250929-v1:0", "claude-sonnet-4-5-20250929", "anthropic", "bedrock", "bob",
        "claude-code", p)
    sel("us.anthropic.claude-3-7-sonnet-20250219-v1:0", "claude-3-7-sonnet-20250219", "anthropic", "bedrock", "bob",
        "claude-code", p)
    gem = json.loads(c.sample("gemini-cli-settings", "mai0313.gemini.settings.json"))
    gem["model"]["name"] = "gemini-2.5-pro"
    p = "/home/bob/.gemini/settings.json"
    c.write_json(root, p, gem)
    sel("gemini-2.5-pro", "gemini-2.5-pro", "google", "direct", "bob", "gemini-cli", p)

    # carol: Aider and mini-swe-agent on OpenRouter; Cline's choice lives in its task metadata.
    p = "/home/carol/.aider.conf.yml"
    c.write(root, p, "model: openrouter/anthropic/claude-sonnet-4.5\n"
                     "weak-model: openrouter/anthropic/claude-haiku-4.5\nauto-commits: false\ndark-mode: true\n")
    sel("openrouter/anthropic/claude-sonnet-4.5", "claude-sonnet-4-5", "anthropic", "openrouter", "carol", "aider", p)
    sel("openrouter/anthropic/claude-haiku-4.5", "claude-haiku-4-5", "anthropic", "openrouter", "carol", "aider", p)
    p = "/home/carol/.config/mini-swe-agent/.env"
    c.write(root, p, "MSWEA_MODEL_NAME='openrouter/google/gemini-3-pro-preview'\nMSWEA_CONFIGURED='true'\n")
    sel("openrouter/google/gemini-3-pro-preview", "gemini-3-pro-preview", "google", "openrouter", "carol",
        "mini-swe-agent", p)

    # dave: Kimi Code CLI (its documented config.toml), Codex on Azure OpenAI, OpenHands through the LiteLLM proxy
    # (the real aiyadav Bedrock config under /etc/litellm, one fallback added).
    p = "/home/dave/.kimi/config.toml"
    c.write(root, p, 'default_model = "kimi-code/kimi-for-coding"\ndefault_thinking = true\n\n'
                     '[providers."managed:kimi-code"]\ntype = "kimi"\nbase_url = "https://api.kimi.com/coding/v1"\n'
                     'api_key = ""\n\n[models."kimi-code/kimi-for-coding"]\nprovider = "managed:kimi-code"\n'
                     'model = "kimi-for-coding"\nmax_context_size = 262144\n')
    sel("kimi-for-coding", "kimi-for-coding", "moonshot", "direct", "dave", "kimi", p)
    acceptable |= {"kimi-code/kimi-for-coding"}
    p = "/home/dave/.codex/config.toml"
    c.write(root, p, 'model = "gpt-5.1"\nmodel_provider = "azure"\nmodel_reasoning_effort = "medium"\n\n'
                     '[model_providers.azure]\nname = "Azure OpenAI"\n'
                     'base_url = "https://dave-swedencentral.openai.azure.com/openai/v1"\n'
                     'env_key = "AZURE_OPENAI_API_KEY"\n'
                     'wire_api = "responses"\n')
    sel("gpt-5.1", "gpt-5.1", "openai", "azure", "dave", "codex", p)
    text = c.sample("litellm-proxy", "aiyadav.litellm-config.yml")
    text = text.rstrip("\n") + "\n\nrouter_settings:\n  fallbacks: [{\"NovaPro1\": [\"ClaudeSonnet4\"]}]\n"
    p = "/etc/litellm/config.yaml"
    c.write(root, p, text)
    for model in re.findall(r"model: (\S+)\n", text):
        base = model.removeprefix("bedrock/").removeprefix("us.")
        base = base.removeprefix("anthropic.").removeprefix("amazon.").removesuffix("-v1:0")
        vendor = "aws" if "nova" in model else "anthropic"  # the catalogs' id of Amazon
        sel(model, base, vendor, "bedrock", "root", "litellm-proxy", p)
    acceptable |= {"NovaPro1", "Claude3", "Claude3.5", "ClaudeSonnet4", "ClaudeOpus4", "ClaudeOpus4.1"}
    p = "/home/dave/.openhands/settings.json"
    c.write_json(root, p, {"language": "en", "agent": "CodeActAgent", "max_iterations": 100,
                           "llm_model": "litellm_proxy/ClaudeSonnet4", "llm_base_url": "http://litellm:4000",
                           "confirmation_mode": False, "enable_default_condenser": True})
    acceptable |= {"litellm_proxy/ClaudeSonnet4", "litellm_proxy/NovaPro1"}

    # erin: Claude Code on Vertex (real settings sample + the Vertex switches), `llm` and an Agents SDK app.
    vx = json.loads(c.sample("claude-code", "di-is.settings.json"))
    vx["env"].update({"CLAUDE_CODE_USE_VERTEX": "1", "CLOUD_ML_REGION": "us-east5",
                      "ANTHROPIC_VERTEX_PROJECT_ID": "erin-agents", "ANTHROPIC_MODEL": "claude-opus-4-5@20251101"})
    p = "/home/erin/.claude/settings.json"
    c.write_json(root, p, vx)
    sel("claude-opus-4-5@20251101", "claude-opus-4-5-20251101", "anthropic", "vertex", "erin", "claude-code", p)
    p = "/home/erin/.config/io.datasette.llm/default_model.txt"
    c.write(root, p, "gpt-4.1-mini\n")
    sel("gpt-4.1-mini", "gpt-4.1-mini", "openai", "direct", "erin", "llm", p)
    p = "/home/erin/work/assistant/agent.py"
    c.write(root, p, 'from agents import Agent, Runner, SQLiteSession\n\n'
                     'support = Agent(name="support", instructions="Answer from the runbook.",\n'
                     '                model="gpt-5-mini")\n\n\n'
                     'def answer(question: str, conversation: str) -> str:\n'
                     '    session = SQLiteSession(conversation, "conversations.db")\n'
                     '    return Runner.run_sync(support, question, session=session).final_output\n')
    sel("gpt-5-mini", "gpt-5-mini", "openai", "direct", "erin", "openai-agents", p)
    return wired, acceptable

"""carol: a researcher on direct APIs, Moonshot, Mistral, Azure and the in-house gateway, working over VS Code's
remote server; Python agents installed as uv tools."""

from __future__ import annotations

from zoo_facts import GATEWAY, GATEWAY_URL, MCP_HOST, SELF_HOSTED, Facts

U = "carol"
H = f"/home/{U}"


def claude_code(f: Facts, s: dict[str, str]) -> None:
    """Claude Code through the team's LiteLLM gateway (ANTHROPIC_BASE_URL), a key under its auth-token name."""
    p = f.write_json(f"{H}/.claude/settings.json", {
        "model": "claude-opus-4-1",
        "env": {"ANTHROPIC_BASE_URL": f"https://{GATEWAY}", "ANTHROPIC_AUTH_TOKEN": s["carol_litellm"],
                "DISABLE_TELEMETRY": "1"}}, 0o600)
    f.model("claude-opus-4-1", "claude-opus-4-1", "anthropic", GATEWAY, U, ["claude-code"], p)
    f.cred(s["carol_litellm"], "litellm-key", p)
    f.host(GATEWAY)


def opencode(f: Facts, s: dict[str, str]) -> None:
    p = f.write_json(f"{H}/.config/opencode/opencode.json", {
        "$schema": "https://opencode.ai/config.json",
        "model": "ollama/qwen3-coder:30b",
        "provider": {"ollama": {"npm": "@ai-sdk/openai-compatible", "name": "Ollama (local)",
                                "options": {"baseURL": "http://localhost:11434/v1"},
                                "models": {"qwen3-coder:30b": {"name": "Qwen3 Coder 30B"},
                                           "gpt-oss:20b": {"name": "GPT-OSS 20B"}}}},
        "mcp": {"sentry": {"type": "remote", "url": "https://mcp.sentry.dev/mcp", "enabled": True,
                           "headers": {"Authorization": "Bearer {env:SENTRY_TOKEN}"}}}})
    f.model("ollama/qwen3-coder:30b", "qwen3-coder-30b", "alibaba", SELF_HOSTED, U, ["opencode"], p)
    f.declared("gpt-oss:20b", "gpt-oss-20b", "ollama/gpt-oss:20b")
    f.mcp("sentry", "http", U, ["opencode"], p)
    f.host("localhost", required=False)


def pi(f: Facts, s: dict[str, str]) -> None:
    p = f.write_json(f"{H}/.pi/agent/settings.json", {"defaultProvider": "anthropic",
                                                      "defaultModel": "claude-opus-4-1",
                                                      "defaultThinkingLevel": "high"})
    f.model("claude-opus-4-1", "claude-opus-4-1", "anthropic", "direct", U, ["pi"], p)
    p = f.write_json(f"{H}/.pi/agent/auth.json", {"anthropic": {"type": "api_key", "key": s["carol_anthropic"]}},
                     0o600)
    f.cred(s["carol_anthropic"], "anthropic-api-key", p)


def aider(f: Facts, s: dict[str, str]) -> None:
    p = f.write(f"{H}/.aider.conf.yml", "model: azure/gpt-4.1\nweak-model: azure/gpt-4.1-mini\n"
                "auto-commits: false\ndark-mode: true\n")
    f.model("azure/gpt-4.1", "gpt-4.1", "openai", "azure", U, ["aider"], p)
    f.model("azure/gpt-4.1-mini", "gpt-4.1-mini", "openai", "azure", U, ["aider"], p)
    p = f.write(f"{H}/.env", "AZURE_API_BASE=https://carol-research.openai.azure.com\n"
                f"AZURE_API_KEY={s['carol_azure']}\nAZURE_API_VERSION=2025-04-01-preview\n# OPENAI_API_KEY=\n", 0o600)
    f.cred(s["carol_azure"], "azure-openai-key", p)
    f.commented_line(p, "# OPENAI_API_KEY=")
    f.host("carol-research.openai.azure.com")


def kimi(f: Facts, s: dict[str, str]) -> None:
    selected = "kimi-k2-turbo" if f.old else "gpt51-prod"
    p = f.write(f"{H}/.kimi/config.toml", f'''default_model = "{selected}"
default_thinking = false

[providers.moonshot]
type = "kimi"
base_url = "https://api.moonshot.ai/v1"
api_key = "{s['carol_moonshot']}"

[providers.acme]
type = "openai_legacy"
base_url = "{GATEWAY_URL}"
api_key = "{s['corp_gw']}"

[models.kimi-k2-turbo]
provider = "moonshot"
model = "kimi-k2-turbo-preview"
max_context_size = 262144

[models.gpt51-prod]
provider = "acme"
model = "gpt-5.1"
max_context_size = 400000
''', 0o600)
    if f.old:
        f.model("kimi-k2-turbo", "kimi-k2-turbo-preview", "moonshot", "direct", U, ["kimi-cli"], p,
                base_model="kimi-k2-turbo-preview")
        f.declared("gpt51-prod", "gpt-5.1")
    else:
        f.model("gpt51-prod", "gpt-5.1", "openai", GATEWAY, U, ["kimi-cli"], p, base_model="gpt-5.1")
        f.declared("kimi-k2-turbo", "kimi-k2-turbo-preview")
    f.cred(s["carol_moonshot"], "moonshot-api-key", p)
    f.cred(s["corp_gw"], "openai-api-key", p)
    f.host(GATEWAY)
    p = f.write_json(f"{H}/.kimi/mcp.json", {"mcpServers": {
        "context7": {"url": "https://mcp.context7.com/mcp", "transport": "http",
                     "headers": {"CONTEXT7_API_KEY": "${CONTEXT7_API_KEY}"}},
        "chrome-devtools": {"command": "npx", "args": ["chrome-devtools-mcp@latest"]}}})
    f.mcp("context7", "http", U, ["kimi-cli"], p)
    f.mcp("chrome-devtools", "stdio", U, ["kimi-cli"], p)


def vibe(f: Facts, s: dict[str, str]) -> None:
    p = f.write(f"{H}/.vibe/config.toml", f'''active_model = "devstral"

[[providers]]
name = "mistral"
api_base = "https://api.mistral.ai/v1"
api_key_env_var = "MISTRAL_API_KEY"

[[models]]
name = "devstral-2512"
provider = "mistral"
alias = "devstral"

[[models]]
name = "mistral-medium-latest"
provider = "mistral"
alias = "medium"

[[mcp_servers]]
name = "fetch"
transport = "stdio"
command = "uvx"
args = ["mcp-server-fetch"]

[[mcp_servers]]
name = "acme-kb"
transport = "streamable-http"
url = "https://{MCP_HOST}/kb/mcp"
headers = {{ "X-Team" = "research" }}
''')
    f.model("devstral", "devstral-2512", "mistral", "direct", U, ["mistral-vibe"], p, base_model="devstral-2512")
    f.declared("medium", "mistral-medium-latest")
    f.mcp("fetch", "stdio", U, ["mistral-vibe"], p)
    f.mcp("acme-kb", "http", U, ["mistral-vibe"], p)
    p = f.write(f"{H}/.vibe/.env", f"MISTRAL_API_KEY={s['carol_mistral']}\n", 0o600)
    f.cred(s["carol_mistral"], "mistral-api-key", p)


def llm(f: Facts, s: dict[str, str]) -> None:
    base = f"{H}/.config/io.datasette.llm"
    f.write(f"{base}/extra-openai-models.yaml", f"""- model_id: gw-mini
  model_name: gpt-4.1-mini
  api_base: "{GATEWAY_URL}"
  api_key_name: acme
  supports_tools: true
""")
    selected = "gpt-4.1-mini" if f.old else "gw-mini"
    p = f.write(f"{base}/default_model.txt", selected)
    if f.old:
        f.model("gpt-4.1-mini", "gpt-4.1-mini", "openai", "direct", U, ["llm"], p)
        f.declared("gw-mini")
    else:
        f.model("gw-mini", "gpt-4.1-mini", "openai", GATEWAY, U, ["llm"], p, base_model="gpt-4.1-mini")
        f.declared("gw-mini")   # also where extra-openai-models.yaml declares it
    p = f.write_json(f"{base}/keys.json", {"// Note": "This file stores secret API credentials. Do not share!",
                                           "acme": s["corp_gw"]}, 0o600)
    f.cred(s["corp_gw"], "openai-api-key", p)


def mini_swe_agent(f: Facts, s: dict[str, str]) -> None:
    p = f.write(f"{H}/.config/mini-swe-agent/.env", "MSWEA_CONFIGURED='true'\n"
                "MSWEA_MODEL_NAME='openrouter/qwen/qwen3-coder'\n"
                f"OPENROUTER_API_KEY='{s['carol_openrouter']}'\n", 0o600)
    f.model("openrouter/qwen/qwen3-coder", "qwen3-coder", "alibaba", "openrouter", U, ["mini-swe-agent"], p)
    f.cred(s["carol_openrouter"], "openrouter-api-key", p)


def roo(f: Facts, s: dict[str, str]) -> None:
    """Roo Code on VS Code's remote server: the settings file it imports at start (`autoImportSettingsPath`),
    its MCP list in the server's globalStorage."""
    f.write_json(f"{H}/.vscode-server/data/Machine/settings.json",
                 {"roo-cline.autoImportSettingsPath": f"{H}/roo-code-settings.json"})
    p = f.write_json(f"{H}/roo-code-settings.json", {
        "providerProfiles": {"currentApiConfigName": "azure", "apiConfigs": {"azure": {
            "apiProvider": "openai", "openAiBaseUrl": "https://carol-research.openai.azure.com/openai/deployments/gpt-4o",
            "openAiUseAzure": True, "azureApiVersion": "2025-04-01-preview", "openAiModelId": "gpt-4o",
            "openAiApiKey": s["carol_azure"], "id": "k3v9q2m1x8"}}, "modeApiConfigs": {"code": "k3v9q2m1x8"}},
        "globalSettings": {"mode": "code", "autoApprovalEnabled": False}}, 0o600)
    f.model("gpt-4o", "gpt-4o", "openai", "azure", U, ["roo-code"], p)
    f.cred(s["carol_azure"], "azure-openai-key", p)
    storage = f"{H}/.vscode-server/data/User/globalStorage/rooveterinaryinc.roo-cline"
    p = f.write_json(f"{storage}/settings/mcp_settings.json",
                     {"mcpServers": {"github": {"type": "streamable-http", "url": "https://api.githubcopilot.com/mcp/",
                                                "headers": {"Authorization": f"Bearer {s['carol_github']}"}}}})
    f.mcp("github", "http", U, ["roo-code"], p)
    f.cred(s["carol_github"], "github-token", p)


def auggie(f: Facts, s: dict[str, str]) -> None:
    p = f.write_json(f"{H}/.augment/settings.json", {"model": "sonnet4.5", "mcpServers": {
        "linear": {"type": "http", "url": "https://mcp.linear.app/mcp"},
        "git": {"command": "uvx", "args": ["mcp-server-git", "--repository", f"{H}/src/thesis"]}}})
    f.mcp("linear", "http", U, ["auggie"], p)
    f.mcp("git", "stdio", U, ["auggie"], p)
    # Augment's own model alias, served by Augment: no route of the vocabulary, scored by name only
    f.model("sonnet4.5", "claude-sonnet-4-5", "anthropic", [], U, ["auggie"], p)


def plant(f: Facts, s: dict[str, str]) -> None:
    for fn in (claude_code, opencode, pi, aider, kimi, vibe, llm, mini_swe_agent, roo, auggie):
        fn(f, s)

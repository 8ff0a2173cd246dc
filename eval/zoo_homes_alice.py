"""alice: a platform engineer on Bedrock, Azure and the in-house gateway, in VS Code on her desktop.

Each function writes one product's files as its documentation (and its installed code) lays them out, and
records what they select in `Facts`.
"""

from __future__ import annotations

import json

import common as c
from zoo_facts import GATEWAY, GATEWAY_URL, MCP_HOST, Facts

U = "alice"
H = f"/home/{U}"


def claude_code(f: Facts, s: dict[str, str]) -> None:
    settings = json.loads(c.sample("claude-code", "seika139.bedrock.settings.json"))
    settings["env"].update({"CLAUDE_CODE_USE_BEDROCK": "1", "AWS_REGION": "us-east-1", "AWS_PROFILE": "bedrock",
                            "ANTHROPIC_MODEL": "us.anthropic.claude-sonnet-4-5-20250929-v1:0"})
    settings["env"].pop("ANTHROPIC_SMALL_FAST_MODEL", None)
    p = f.write_json(f"{H}/.claude/settings.json", settings)
    # the real sample's per-tier models (ANTHROPIC_DEFAULT_*_MODEL) are selected too, as dev-machine scores them
    for m, canon in (("global.anthropic.claude-haiku-4-5-20251001-v1:0", "claude-haiku-4-5"),
                     ("global.anthropic.claude-opus-5", "claude-opus-5"),
                     ("global.anthropic.claude-sonnet-5", "claude-sonnet-5")):
        f.model(m, canon, "anthropic", "bedrock", U, ["claude-code"], p)
    f.model("us.anthropic.claude-sonnet-4-5-20250929-v1:0", "claude-sonnet-4-5", "anthropic", "bedrock", U,
            ["claude-code"], p)
    f.host("bedrock-runtime.us-east-1.amazonaws.com", required=False)
    dot = json.loads(c.sample("claude-code", "dennywu.claude.json"))
    dot["mcpServers"] = {
        "github": {"type": "stdio", "command": "npx", "args": ["-y", "@modelcontextprotocol/server-github"],
                   "env": {"GITHUB_PERSONAL_ACCESS_TOKEN": s["alice_github"]}},
        "sentry": {"type": "http", "url": "https://mcp.sentry.dev/mcp",
                   "headers": {"Authorization": "Bearer ${SENTRY_TOKEN}"}},
    }
    p = f.write_json(f"{H}/.claude.json", dot, 0o600)
    f.mcp("github", "stdio", U, ["claude-code"], p)
    f.mcp("sentry", "http", U, ["claude-code"], p)
    f.cred(s["alice_github"], "github-token", p)
    p = f.write(f"{H}/.aws/credentials", "[default]\nregion = us-east-1\n\n[bedrock]\n"
                f"aws_access_key_id = {s['alice_aws_id']}\naws_secret_access_key = {s['alice_aws_secret']}\n", 0o600)
    f.cred(s["alice_aws_secret"], "aws-secret-access-key", p)
    f.cred(s["alice_aws_id"], "aws-access-key-id", p)
    f.write(f"{H}/.aws/config", "[profile bedrock]\nregion = us-east-1\noutput = json\n")


def codex(f: Facts, s: dict[str, str]) -> None:
    p = f.write(f"{H}/.codex/config.toml", f'''model = "gpt-5.1"
model_provider = "acme"
approval_policy = "on-request"
# model_provider = "openai"

[model_providers.acme]
name = "ACME LLM gateway"
base_url = "{GATEWAY_URL}"
env_key = "CORP_GW_KEY"
wire_api = "responses"

[mcp_servers.docs]
url = "https://{MCP_HOST}/docs/mcp"
bearer_token_env_var = "CORP_GW_KEY"
''')
    f.model("gpt-5.1", "gpt-5.1", "openai", GATEWAY, U, ["codex"], p)
    f.mcp("docs", "http", U, ["codex"], p)
    f.host(GATEWAY)
    f.commented_line(p, '# model_provider = "openai"')


def cline(f: Facts, s: dict[str, str]) -> None:
    """~/.cline/data/settings: read by the Cline CLI and, as its docs say, by the editor extension too."""
    base = f"{H}/.cline/data/settings"
    p = f.write_json(f"{base}/providers.json", {
        "version": 1, "lastUsedProvider": "bedrock", "modes": {},
        "providers": {"bedrock": {"settings": {
            "provider": "bedrock", "model": "anthropic.claude-opus-4-1-20250805-v1:0",
            "aws": {"region": "us-east-1", "profile": "bedrock", "authentication": "profile",
                    "useCrossRegionInference": True}},
            "updatedAt": "2026-11-20T09:12:44.000Z", "tokenSource": "manual"}}}, 0o600)
    f.model("anthropic.claude-opus-4-1-20250805-v1:0", "claude-opus-4-1", "anthropic", "bedrock", U,
            ["cline", "cline-vscode"], p)
    servers = {"filesystem": {"command": "npx", "args": ["-y", "@modelcontextprotocol/server-filesystem",
                                                         f"{H}/src"], "disabled": False, "autoApprove": []}}
    if not f.old:
        servers["notion"] = {"type": "streamableHttp", "url": "https://mcp.notion.com/mcp",
                             "headers": {"Authorization": "Bearer ${NOTION_TOKEN}"}, "disabled": False}
    p = f.write_json(f"{base}/cline_mcp_settings.json", {"mcpServers": servers})
    f.mcp("filesystem", "stdio", U, ["cline", "cline-vscode"], p)
    if not f.old:
        f.mcp("notion", "http", U, ["cline", "cline-vscode"], p)


def continue_cli(f: Facts, s: dict[str, str]) -> None:
    p = f.write(f"{H}/.continue/config.yaml", f"""name: alice-work
version: 1.0.0
schema: v1
models:
  - name: corp-gpt-4.1
    provider: openai
    model: gpt-4.1
    apiBase: {GATEWAY_URL}
    apiKey: ${{{{ secrets.CORP_GW_KEY }}}}
    roles:
      - chat
      - edit
      - apply
  - name: azure-gpt-5-mini
    provider: azure
    model: gpt-5-mini
    apiBase: https://alice-eastus2.openai.azure.com
    apiKey: {s['alice_azure']}
    env:
      deployment: gpt5mini-prod
      apiVersion: 2025-04-01-preview
      apiType: azure-openai
    roles:
      - autocomplete
mcpServers:
  - name: playwright
    command: npx
    args:
      - "@playwright/mcp@latest"
  - name: acme-search
    type: streamable-http
    url: https://{MCP_HOST}/search/mcp
""")
    f.model("corp-gpt-4.1", "gpt-4.1", "openai", GATEWAY, U, ["continue-cli"], p, base_model="gpt-4.1")
    f.model("azure-gpt-5-mini", "gpt-5-mini", "openai", "azure", U, ["continue-cli"], p, base_model="gpt-5-mini")
    f.declared("gpt5mini-prod")   # the Azure deployment behind it: an alias of gpt-5-mini, fair to report
    f.mcp("playwright", "stdio", U, ["continue-cli"], p)
    f.mcp("acme-search", "http", U, ["continue-cli"], p)
    f.cred(s["alice_azure"], "azure-openai-key", p)
    f.host("alice-eastus2.openai.azure.com")
    # Continue reads `${{ secrets.X }}` from ~/.continue/.env: the gateway key under a name of the user's own
    p = f.write(f"{H}/.continue/.env", f"CORP_GW_KEY={s['corp_gw']}\n", 0o600)
    f.cred(s["corp_gw"], "openai-api-key", p)


def grok_cli(f: Facts, s: dict[str, str]) -> None:
    p = f.write_json(f"{H}/.grok/user-settings.json", {
        "apiKey": s["alice_xai"], "baseURL": "https://api.x.ai/v1", "defaultModel": "grok-code-fast-1",
        "models": ["grok-code-fast-1", "grok-4-latest", "grok-3-mini"], "settingsVersion": 2}, 0o600)
    f.model("grok-code-fast-1", "grok-code-fast-1", "xai", "direct", U, ["grok-cli"], p)
    f.declared("grok-4-latest", "grok-3-mini")
    f.cred(s["alice_xai"], "xai-api-key", p)
    # project settings: the MCP servers, each with a nested `transport`
    p = f.write_json(f"{H}/src/webapp/.grok/settings.json", {"model": "grok-code-fast-1", "mcpServers": {
        "linear": {"name": "linear", "transport": {"type": "sse", "url": "https://mcp.linear.app/sse"}},
        "fs": {"name": "fs", "transport": {"type": "stdio", "command": "npx",
                                           "args": ["-y", "@modelcontextprotocol/server-filesystem", f"{H}/src"],
                                           "env": {"NODE_ENV": "production"}}}}})
    f.mcp("linear", "sse", U, ["grok-cli"], p)
    f.mcp("fs", "stdio", U, ["grok-cli"], p)


def crush(f: Facts, s: dict[str, str]) -> None:
    cfg = json.loads(c.sample("crush-json", "mai0313.crush.json"))
    cfg["models"] = {"large": {"model": "claude-sonnet-4-5", "provider": "anthropic"},
                     "small": {"model": "gpt-4.1-mini", "provider": "openai"}}
    cfg["mcp"] = {"github": {"type": "http", "url": "https://api.githubcopilot.com/mcp/",
                             "headers": {"Authorization": "Bearer $GH_PAT"}},
                  "sqlite": {"type": "stdio", "command": "uvx", "args": ["mcp-server-sqlite", "--db-path",
                                                                        f"{H}/data/app.db"]}}
    p = f.write_json(f"{H}/.config/crush/crush.json", cfg)
    gw = "api.mai0313.com"   # the real sample's own LiteLLM gateway
    f.model("claude-sonnet-4-5", "claude-sonnet-4-5", "anthropic", gw, U, ["crush"], p)
    f.model("gpt-4.1-mini", "gpt-4.1-mini", "openai", gw, U, ["crush"], p)
    f.mcp("github", "http", U, ["crush"], p)
    f.mcp("sqlite", "stdio", U, ["crush"], p)
    f.host(gw)


def droid(f: Facts, s: dict[str, str]) -> None:
    p = f.write_json(f"{H}/.factory/config.json", {"custom_models": [{
        "model_display_name": "gw-mini", "model": "gpt-4.1-mini", "base_url": GATEWAY_URL,
        "api_key": s["corp_gw"], "provider": "generic-chat-completion-api", "max_tokens": 32768}]}, 0o600)
    f.model("gw-mini", "gpt-4.1-mini", "openai", GATEWAY, U, ["droid"], p, base_model="gpt-4.1-mini")
    f.cred(s["corp_gw"], "openai-api-key", p)
    p = f.write_json(f"{H}/.factory/mcp.json", {"mcpServers": {
        "sentry": {"type": "http", "url": "https://mcp.sentry.dev/mcp",
                   "headers": {"Authorization": f"Bearer {s['alice_sentry']}"}}}})
    f.mcp("sentry", "http", U, ["droid"], p)
    f.cred(s["alice_sentry"], "github-token", p)


def amp(f: Facts, s: dict[str, str]) -> None:
    p = f.write_json(f"{H}/.config/amp/settings.json", {
        "amp.url": "https://ampcode.com/",
        "amp.mcpServers": {
            "postgres": {"command": "npx", "args": ["-y", "@modelcontextprotocol/server-postgres"],
                         "env": {"DATABASE_URL": "postgresql://app@localhost:5432/app"}},
            "acme-docs": {"url": f"https://{MCP_HOST}/docs/mcp", "headers": {"X-Team": "platform"}}}})
    f.mcp("postgres", "stdio", U, ["amp"], p)
    f.mcp("acme-docs", "http", U, ["amp"], p)


def vscode(f: Facts, s: dict[str, str]) -> None:
    """VS Code's own MCP list (~/.config/Code/User/mcp.json, `servers`), the one Copilot Chat's agent uses."""
    p = f.write_json(f"{H}/.config/Code/User/mcp.json", {"servers": {
        "context7": {"type": "http", "url": "https://mcp.context7.com/mcp"},
        "git": {"type": "stdio", "command": "uvx", "args": ["mcp-server-git"]}}, "inputs": []})
    f.mcp("context7", "http", U, ["copilot-chat"], p)
    f.mcp("git", "stdio", U, ["copilot-chat"], p)
    f.write_json(f"{H}/.config/Code/User/settings.json", {
        "editor.fontSize": 13, "github.copilot.enable": {"*": True, "markdown": False},
        "chat.agent.enabled": True, "cline.telemetrySetting": "disabled"})
    p = f.write(f"{H}/.bashrc", "# ~/.bashrc\nexport PATH=\"$HOME/.npm-global/bin:$HOME/.local/bin:$PATH\"\n"
                "export AWS_PROFILE=bedrock\n# export CLAUDE_CODE_USE_VERTEX=1\n")
    f.commented_line(p, "# export CLAUDE_CODE_USE_VERTEX=1")


def plant(f: Facts, s: dict[str, str]) -> None:
    for fn in (claude_code, codex, cline, continue_cli, grok_cli, crush, droid, amp, vscode):
        fn(f, s)

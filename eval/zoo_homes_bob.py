"""bob: a data engineer on Google Cloud (Vertex), OpenRouter and a local Ollama, in Cursor; Python agents
installed with pipx."""

from __future__ import annotations

import json
import sqlite3

import common as c
from zoo_facts import MCP_HOST, SELF_HOSTED, Facts

U = "bob"
H = f"/home/{U}"


def gemini_cli(f: Facts, s: dict[str, str]) -> None:
    gem = json.loads(c.sample("gemini-cli-settings", "mai0313.gemini.settings.json"))
    gem["security"]["auth"]["selectedType"] = "vertex-ai"
    gem["model"]["name"] = "gemini-2.5-pro"
    gem["mcpServers"] = {
        "bigquery": {"command": "npx", "args": ["-y", "@ergut/mcp-bigquery-server", "--project-id", "bob-analytics"],
                     "env": {"GOOGLE_APPLICATION_CREDENTIALS":
                             f"{H}/.config/gcloud/application_default_credentials.json"}},
        "acme-docs": {"httpUrl": f"https://{MCP_HOST}/docs/mcp", "headers": {"X-Team": "data"}, "timeout": 30000}}
    p = f.write_json(f"{H}/.gemini/settings.json", gem)
    f.model("gemini-2.5-pro", "gemini-2.5-pro", "google", "vertex", U, ["gemini-cli"], p)
    f.mcp("bigquery", "stdio", U, ["gemini-cli"], p)
    f.mcp("acme-docs", "http", U, ["gemini-cli"], p)
    f.write(f"{H}/.gemini/.env", "GOOGLE_GENAI_USE_VERTEXAI=true\nGOOGLE_CLOUD_PROJECT=bob-analytics\n"
            "GOOGLE_CLOUD_LOCATION=us-central1\n")


def qwen_code(f: Facts, s: dict[str, str]) -> None:
    p = f.write_json(f"{H}/.qwen/settings.json", {
        "modelProviders": {"openai": [{"id": "qwen3-coder-plus", "name": "qwen3-coder-plus",
                                       "baseUrl": "https://dashscope-intl.aliyuncs.com/compatible-mode/v1",
                                       "envKey": "DASHSCOPE_API_KEY"}]},
        "env": {"DASHSCOPE_API_KEY": s["bob_dashscope"]},
        "security": {"auth": {"selectedType": "openai"}}, "model": {"name": "qwen3-coder-plus"}})
    f.model("qwen3-coder-plus", "qwen3-coder-plus", "alibaba", ["direct", "dashscope", "alibaba"], U, ["qwen-code"], p)
    f.cred(s["bob_dashscope"], "dashscope-api-key", p)
    f.host("dashscope-intl.aliyuncs.com")


def copilot_cli(f: Facts, s: dict[str, str]) -> None:
    p = f.write_json(f"{H}/.copilot/config.json", {"model": "claude-sonnet-4.5", "banner": "never",
                                                    "trusted_folders": [f"{H}/src"]})
    f.model("claude-sonnet-4.5", "claude-sonnet-4-5", "anthropic", ["github-copilot", "copilot", "github"], U,
            ["copilot-cli"], p)
    p = f.write_json(f"{H}/.copilot/mcp-config.json", {"mcpServers": {
        "playwright": {"type": "local", "command": "npx", "args": ["@playwright/mcp@latest"], "tools": ["*"]}}})
    f.mcp("playwright", "stdio", U, ["copilot-cli"], p)


def kilo_cli(f: Facts, s: dict[str, str]) -> None:
    p = f.write_json(f"{H}/.config/kilo/kilo.json", {
        "$schema": "https://app.kilo.ai/config.json",
        "model": "openrouter/anthropic/claude-sonnet-4.5",
        "provider": {"openrouter": {"options": {"apiKey": s["bob_openrouter"]}}},
        "mcp": {"jira": {"type": "remote", "url": f"https://{MCP_HOST}/jira/mcp",
                         "headers": {"Authorization": "Bearer {env:JIRA_TOKEN}"}},
                "fs": {"type": "local", "command": ["npx", "-y", "@modelcontextprotocol/server-filesystem", f"{H}/src"],
                       "environment": {"LOG_LEVEL": "warn"}}}})
    f.model("openrouter/anthropic/claude-sonnet-4.5", "claude-sonnet-4-5", "anthropic", "openrouter", U,
            ["kilo-code-cli"], p)
    f.mcp("jira", "http", U, ["kilo-code-cli"], p)
    f.mcp("fs", "stdio", U, ["kilo-code-cli"], p)
    f.cred(s["bob_openrouter"], "openrouter-api-key", p)


def kilo_extension(f: Facts, s: dict[str, str]) -> None:
    """Kilo Code in Cursor: its provider settings are the extension's globalState, which the editor keeps in
    the `ItemTable` of `globalStorage/state.vscdb` (as the real Cline sample shows), its MCP list in a file."""
    state = {"apiProvider": "vertex", "apiModelId": "claude-sonnet-4-5@20250929", "vertexProjectId": "bob-analytics",
             "vertexRegion": "us-east5", "mode": "code", "telemetrySetting": "disabled"}
    db_path = f"{H}/.config/Cursor/User/globalStorage/state.vscdb"
    target = f.root / db_path.lstrip("/")
    target.parent.mkdir(parents=True, exist_ok=True)
    if target.exists():
        target.unlink()
    con = sqlite3.connect(target)
    con.execute("CREATE TABLE ItemTable (key TEXT UNIQUE ON CONFLICT REPLACE, value BLOB)")
    con.executemany("INSERT INTO ItemTable VALUES (?, ?)", [
        ("kilocode.kilo-code", json.dumps(state, separators=(",", ":"))),
        ("workbench.panel.chat.numberOfVisibleViews", "1")])
    con.commit()
    con.close()
    f.model("claude-sonnet-4-5@20250929", "claude-sonnet-4-5", "anthropic", "vertex", U, ["kilo-code"], db_path)
    p = f.write_json(f"{H}/.config/Cursor/User/globalStorage/kilocode.kilo-code/settings/mcp_settings.json",
                     {"mcpServers": {"sqlite": {"command": "uvx", "args": ["mcp-server-sqlite", "--db-path",
                                                                          f"{H}/data/warehouse.db"]}}})
    f.mcp("sqlite", "stdio", U, ["kilo-code"], p)


def continue_both(f: Facts, s: dict[str, str]) -> None:
    """~/.continue/config.yaml: read by the Continue extension in Cursor and by the `cn` CLI alike."""
    p = f.write(f"{H}/.continue/config.yaml", """name: bob
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
      - edit
  - name: local-coder
    provider: ollama
    model: qwen2.5-coder:1.5b
    apiBase: http://localhost:11434
    roles:
      - autocomplete
mcpServers:
  - name: dbt
    command: uvx
    args:
      - dbt-mcp
    env:
      DBT_PROJECT_DIR: /home/bob/src/analytics
""")
    products = ["continue-vscode", "continue-cli"]
    f.model("gemini-2.5-flash", "gemini-2.5-flash", "google", "vertex", U, products, p)
    f.model("local-coder", "qwen2.5-coder:1.5b", "alibaba", SELF_HOSTED, U, products, p,
            base_model="qwen2.5-coder:1.5b")
    f.mcp("dbt", "stdio", U, products, p)
    f.host("localhost", required=False)


def qoder(f: Facts, s: dict[str, str]) -> None:
    p = f.write_json(f"{H}/.qoder.json", {"mcpServers": {
        "context7": {"type": "http", "url": "https://mcp.context7.com/mcp"}}})
    f.mcp("context7", "http", U, ["qoder-cli"], p)
    f.write_json(f"{H}/.qoder/settings.json", {"permissions": {"allow": ["Bash(git status)"]}})


def gptme(f: Facts, s: dict[str, str]) -> None:
    p = f.write(f"{H}/.config/gptme/config.toml", f"""[prompt]
about_user = "I am a data engineer working mostly in Python and SQL."

[env]
MODEL = "openrouter/anthropic/claude-sonnet-4.5"
OPENROUTER_API_KEY = "{s['bob_openrouter']}"
# a second key kept under a name of the user's own
LLM_FALLBACK_TOKEN = "{s['bob_anthropic_odd']}"

[mcp]
enabled = true
auto_start = true

[[mcp.servers]]
name = "fetch"
enabled = true
command = "uvx"
args = ["mcp-server-fetch"]

[[mcp.servers]]
name = "acme-kb"
enabled = true
url = "https://{MCP_HOST}/kb/mcp"
headers = {{ Authorization = "Bearer ${{ACME_KB_TOKEN}}" }}
""", 0o600)
    f.model("openrouter/anthropic/claude-sonnet-4.5", "claude-sonnet-4-5", "anthropic", "openrouter", U,
            ["gptme"], p)
    f.mcp("fetch", "stdio", U, ["gptme"], p)
    f.mcp("acme-kb", "http", U, ["gptme"], p)
    f.cred(s["bob_openrouter"], "openrouter-api-key", p)
    f.cred(s["bob_anthropic_odd"], "anthropic-api-key", p)


def open_interpreter(f: Facts, s: dict[str, str]) -> None:
    p = f.write(f"{H}/.config/open-interpreter/profiles/default.yaml", """# Open Interpreter default profile
llm:
  model: "ollama/qwen2.5-coder:14b"
  api_base: "http://localhost:11434"
  context_window: 32000
  max_tokens: 4096
  temperature: 0

offline: true
auto_run: false

version: 0.2.5
""")
    f.model("ollama/qwen2.5-coder:14b", "qwen2.5-coder-14b", "alibaba", SELF_HOSTED, U, ["open-interpreter"], p)


def openhands(f: Facts, s: dict[str, str]) -> None:
    p = f.write_json(f"{H}/.openhands/agent_settings.json", {
        "llm": {"model": "gemini/gemini-2.5-pro", "api_key": s["bob_gemini"], "usage_id": "agent",
                "temperature": 0.0},
        "condenser": {"kind": "LLMSummarizingCondenser", "max_size": 80, "keep_first": 4}}, 0o600)
    f.model("gemini/gemini-2.5-pro", "gemini-2.5-pro", "google", "direct", U, ["openhands"], p)
    f.cred(s["bob_gemini"], "google-api-key", p)
    p = f.write_json(f"{H}/.openhands/mcp.json", {"mcpServers": {
        "tavily": {"command": "npx", "args": ["-y", "tavily-mcp@latest"],
                   "env": {"TAVILY_API_KEY": "${TAVILY_API_KEY}"}},
        "acme-tickets": {"url": f"https://{MCP_HOST}/tickets/sse", "transport": "sse"}}})
    f.mcp("tavily", "stdio", U, ["openhands"], p)
    f.mcp("acme-tickets", "sse", U, ["openhands"], p)


def plant(f: Facts, s: dict[str, str]) -> None:
    for fn in (gemini_cli, qwen_code, copilot_cli, kilo_cli, kilo_extension, continue_both, qoder, gptme,
               open_interpreter, openhands):
        fn(f, s)

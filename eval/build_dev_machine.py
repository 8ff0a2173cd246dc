"""Corpus (b) `dev-machine` and (c) `dev-machine-old`: eight real agent CLIs installed as users install them,
three users whose homes hold each product's documented config files (real samples where one exists).

    python eval/build_dev_machine.py [--old] [--truth-only]

The truth file is written from what this script plants plus what it reads in the installed packages
(package.json versions, quoted model ids in each product's own bundle), before modelcensus runs.
"""

from __future__ import annotations

import argparse
import json
import re
from pathlib import Path
from typing import Any

import common as c
import sdk_inventory

# Pinned versions. NEW = latest on 2026-12-01; OLD = the same products about six months older.
NEW = {
    "@anthropic-ai/claude-code": "2.1.332",
    "@openai/codex": "0.171.0",
    "@google/gemini-cli": "0.61.0",
    "@github/copilot": "1.0.102",
    "opencode-ai": "1.18.33",
    "@qwen-code/qwen-code": "0.24.4",
    "@mariozechner/pi-coding-agent": "0.73.1",
}
OLD = {**NEW,
       "@anthropic-ai/claude-code": "2.1.160",   # 2026-06-02
       "@openai/codex": "0.137.0",               # 2026-06-04
       "@google/gemini-cli": "0.31.0",           # 2026-06-05
       "@github/copilot": "1.0.12"}              # 2026-06-05
AIDER = "0.86.2"

PRODUCTS = {  # product id -> npm package (aider is pypi)
    "claude-code": "@anthropic-ai/claude-code",
    "codex": "@openai/codex",
    "gemini-cli": "@google/gemini-cli",
    "copilot-cli": "@github/copilot",
    "opencode": "opencode-ai",
    "qwen-code": "@qwen-code/qwen-code",
    "pi": "@mariozechner/pi-coding-agent",
}
USERS = {"alice": 1000, "bob": 1001, "carol": 1002}
AIDER_TOOL = "/home/carol/.local/share/uv/tools/aider-chat"


def secrets() -> dict[str, str]:
    return {
        "alice_aws_id": c.fake_secret("aws-access-key-id", "alice-aws"),
        "alice_aws_secret": c.fake_secret("aws-secret", "alice-aws"),
        "alice_azure": c.fake_secret("azure-openai", "alice-azure"),
        "alice_github": c.fake_secret("github-pat", "alice-gh"),
        "bob_dashscope": c.fake_secret("dashscope", "bob-qwen"),
        "bob_sa_key_id": c.fake_secret("azure-openai", "bob-sa-id") + "0123456a",   # 40 hex
        "carol_openrouter": c.fake_secret("openrouter", "carol-or"),
        "carol_anthropic": c.fake_secret("anthropic", "carol-ant"),
    }


# ---------------------------------------------------------------- installation

def install(root: Path, old: bool) -> None:
    versions = OLD if old else NEW
    if not c.done(root, "npm"):
        c.npm_global(root / "usr", [f"{p}@{v}" for p, v in versions.items()])
        c.mark(root, "npm")
    if not c.done(root, "aider"):
        # uv tool layout: ~/.local/share/uv/tools/<tool> is a venv; uv does not compile bytecode.
        tool = root / AIDER_TOOL.lstrip("/")
        c.venv_install(tool, [f"aider-chat=={AIDER}"], compile_pyc=False)
        c.write(root, f"{AIDER_TOOL}/uv-receipt.toml",
                f'[tool]\nrequirements = [{{ name = "aider-chat", specifier = "=={AIDER}" }}]\n'
                'entrypoints = [\n    { name = "aider", install-path = "/home/carol/.local/bin/aider" },\n]\n')
        bin_dir = root / "home/carol/.local/bin"
        bin_dir.mkdir(parents=True, exist_ok=True)
        link = bin_dir / "aider"
        if not link.is_symlink():
            link.symlink_to(f"{AIDER_TOOL}/bin/aider")
        c.mark(root, "aider")


# ---------------------------------------------------------------- homes

def homes(root: Path, old: bool, s: dict[str, str], pem: str) -> dict[str, Any]:
    """Write every user config; return the truth facts they carry."""
    t: dict[str, Any] = {"wired": [], "acceptable_wired": [], "endpoints": [], "credentials": [],
                         "mcp_servers": [], "configs": {}, "kill_switches": [], "commented": [], "planted": []}

    def wired(model: str, canonical: str, vendor: Any, route: Any, user: str, product: str, path: str) -> None:
        t["wired"].append({"id": model, "canonical": canonical, "vendor": vendor, "route": route,
                           "user": user, "product": product, "path": path})
        conf = t["configs"].setdefault((product, user), {"models": [], "route": [], "mcp": []})
        conf["models"].append(model)
        conf["route"] += [r for r in c.as_list(route) if r not in conf["route"]]

    def mcp(name: str, user: str, product: str, path: str) -> None:
        t["mcp_servers"].append({"name": name, "user": user, "path": path})
        t["configs"].setdefault((product, user), {"models": [], "route": [], "mcp": []})["mcp"].append(name)

    def cred(secret: str, kind: str, path: str, alt: list[str] | None = None) -> None:
        t["credentials"].append({"sha256": c.sha256(secret), "type": kind, "path": path,
                                 "sha256_alt": alt or []})
        t["planted"].append(secret)

    # ---- alice: Claude Code on Bedrock (real settings sample), Codex on Azure OpenAI
    claude = json.loads(c.sample("claude-code", "seika139.bedrock.settings.json"))
    claude["env"]["ANTHROPIC_MODEL"] = "global.anthropic.claude-sonnet-5"
    claude["env"]["AWS_REGION"] = "us-west-2"
    claude["env"]["AWS_PROFILE"] = "bedrock"
    p = "/home/alice/.claude/settings.json"
    c.write_json(root, p, claude)
    for m, canon in (("global.anthropic.claude-haiku-4-5-20251001-v1:0", "claude-haiku-4-5"),
                     ("global.anthropic.claude-opus-5", "claude-opus-5"),
                     ("global.anthropic.claude-sonnet-5", "claude-sonnet-5")):
        wired(m, canon, "anthropic", "bedrock", "alice", "claude-code", p)
    t["endpoints"].append({"host": "bedrock-runtime.us-west-2.amazonaws.com", "wired": True, "required": False})

    dot = json.loads(c.sample("claude-code", "dennywu.claude.json"))
    dot["mcpServers"] = {
        "github": {"type": "stdio", "command": "npx", "args": ["-y", "@modelcontextprotocol/server-github"],
                   "env": {"GITHUB_PERSONAL_ACCESS_TOKEN": s["alice_github"]}},
        "context7": {"type": "http", "url": "https://mcp.context7.com/mcp"},
    }
    p = "/home/alice/.claude.json"
    c.write_json(root, p, dot, 0o600)
    mcp("github", "alice", "claude-code", p)
    mcp("context7", "alice", "claude-code", p)
    cred(s["alice_github"], "github-token", p)

    p = "/home/alice/.aws/credentials"
    c.write(root, p, "[default]\nregion = us-west-2\n\n[bedrock]\n"
            f"aws_access_key_id = {s['alice_aws_id']}\naws_secret_access_key = {s['alice_aws_secret']}\n", 0o600)
    cred(s["alice_aws_secret"], "aws-secret-access-key", p)
    cred(s["alice_aws_id"], "aws-access-key-id", p)
    c.write(root, "/home/alice/.aws/config", "[profile bedrock]\nregion = us-west-2\noutput = json\n")

    codex_model = "gpt-5.5" if old else "gpt-5.6-sol"
    p = "/home/alice/.codex/config.toml"
    c.write(root, p, f'''model = "{codex_model}"
model_provider = "azure"
model_reasoning_effort = "high"
approval_policy = "on-request"
# model = "gpt-4.1"

[model_providers.azure]
name = "Azure OpenAI"
base_url = "https://alice-eastus2.openai.azure.com/openai"
env_key = "AZURE_OPENAI_API_KEY"
query_params = {{ api-version = "2025-04-01-preview" }}
wire_api = "responses"

[mcp_servers.github]
command = "docker"
args = ["run", "-i", "--rm", "-e", "GITHUB_PERSONAL_ACCESS_TOKEN", "ghcr.io/github/github-mcp-server"]

[analytics]
enabled = false
''')
    wired(codex_model, codex_model, "openai", "azure", "alice", "codex", p)
    mcp("github", "alice", "codex", p)
    t["endpoints"].append({"host": "alice-eastus2.openai.azure.com", "wired": True, "required": True})
    t["commented"].append(c.commented(root, p, '# model = "gpt-4.1"'))
    p = "/home/alice/.bashrc"
    c.write(root, p, "# ~/.bashrc\nexport PATH=\"$HOME/.local/bin:$PATH\"\n"
            f"export AZURE_OPENAI_API_KEY={s['alice_azure']}\n"
            "export CLAUDE_CODE_USE_BEDROCK=1\n# export CLAUDE_CODE_USE_VERTEX=1\n")
    t["commented"].append(c.commented(root, p, "# export CLAUDE_CODE_USE_VERTEX=1"))
    cred(s["alice_azure"], "azure-openai-key", p)

    # ---- bob: Gemini CLI on Vertex AI (real settings sample), Qwen Code on DashScope, Copilot CLI
    gem = json.loads(c.sample("gemini-cli-settings", "mai0313.gemini.settings.json"))
    gem["security"]["auth"]["selectedType"] = "vertex-ai"
    gem["model"]["name"] = "gemini-3.1-pro-preview"
    gem["mcpServers"] = json.loads(c.sample("gemini-cli-settings", "thefermisea.gemini.settings.json"))["mcpServers"]
    p = "/home/bob/.gemini/settings.json"
    c.write_json(root, p, gem)
    wired("gemini-3.1-pro-preview", "gemini-3.1-pro-preview", "google", "vertex", "bob", "gemini-cli", p)
    mcp("pal", "bob", "gemini-cli", p)
    mcp("context7", "bob", "gemini-cli", p)
    sa_path = "/home/bob/.config/gcloud/bob-agents-sa.json"
    c.write(root, "/home/bob/.gemini/.env", "GOOGLE_GENAI_USE_VERTEXAI=true\nGOOGLE_CLOUD_PROJECT=bob-agents-prod\n"
            f"GOOGLE_CLOUD_LOCATION=global\nGOOGLE_APPLICATION_CREDENTIALS={sa_path}\n")
    sa = {"type": "service_account", "project_id": "bob-agents-prod", "private_key_id": s["bob_sa_key_id"],
          "private_key": pem, "client_email": "gemini-cli@bob-agents-prod.iam.gserviceaccount.com",
          "client_id": "104729385610293847561", "auth_uri": "https://accounts.google.com/o/oauth2/auth",
          "token_uri": "https://oauth2.googleapis.com/token",
          "auth_provider_x509_cert_url": "https://www.googleapis.com/oauth2/v1/certs",
          "client_x509_cert_url": "https://www.googleapis.com/robot/v1/metadata/x509/"
                                  "gemini-cli%40bob-agents-prod.iam.gserviceaccount.com",
          "universe_domain": "googleapis.com"}
    c.write_json(root, sa_path, sa, 0o600)
    body = "".join(line for line in pem.strip().splitlines() if not line.startswith("-----"))
    cred(pem.strip(), "gcp-service-account-private-key", sa_path, [c.sha256(pem), c.sha256(body)])
    cred(s["bob_sa_key_id"], "gcp-service-account-key-id", sa_path)

    p = "/home/bob/.qwen/settings.json"
    c.write_json(root, p, {
        "modelProviders": {"openai": [{"id": "qwen3-coder-plus", "name": "qwen3-coder-plus",
                                       "baseUrl": "https://dashscope-intl.aliyuncs.com/compatible-mode/v1",
                                       "description": "Qwen3-Coder via Dashscope", "envKey": "DASHSCOPE_API_KEY"}]},
        "env": {"DASHSCOPE_API_KEY": s["bob_dashscope"]},
        "security": {"auth": {"selectedType": "openai"}},
        "model": {"name": "qwen3-coder-plus"},
    })
    wired("qwen3-coder-plus", "qwen3-coder-plus", "alibaba", ["direct", "dashscope", "alibaba"], "bob", "qwen-code", p)
    t["endpoints"].append({"host": "dashscope-intl.aliyuncs.com", "wired": True, "required": True})
    cred(s["bob_dashscope"], "dashscope-api-key", p)

    cop = json.loads(c.sample("copilot-cli-settings", "mai0313.copilot.settings.json"))
    p = "/home/bob/.copilot/config.json"
    c.write_json(root, p, cop)
    wired("claude-sonnet-5", "claude-sonnet-5", "anthropic", ["github-copilot", "copilot", "github"], "bob",
          "copilot-cli", p)
    servers: dict[str, Any] = {"playwright": {"type": "local", "command": "npx", "args": ["@playwright/mcp@latest"],
                                              "tools": ["*"]}}
    if not old:
        servers["sentry"] = {"type": "http", "url": "https://mcp.sentry.dev/mcp", "tools": ["*"]}
    p = "/home/bob/.copilot/mcp-config.json"
    c.write_json(root, p, {"mcpServers": servers})
    for name in servers:
        mcp(name, "bob", "copilot-cli", p)

    # ---- carol: opencode (real JSONC sample), Claude Code on Vertex, Aider via OpenRouter (real sample), pi on Ollama
    text = c.sample("opencode-json", "eckii24.opencode.json")
    text = text.replace('"theme": "catppuccin",',
                        '"theme": "catppuccin",\n  "model": "anthropic/claude-sonnet-4-5",', 1)
    p = "/home/carol/.config/opencode/opencode.json"
    c.write(root, p, text)
    wired("anthropic/claude-sonnet-4-5", "claude-sonnet-4-5", "anthropic", "direct", "carol", "opencode", p)
    wired("github-copilot/claude-sonnet-4.5", "claude-sonnet-4-5", "anthropic", ["github-copilot", "copilot", "github"],
          "carol", "opencode", p)
    wired("github-copilot/claude-opus-4.5", "claude-opus-4-5", "anthropic", ["github-copilot", "copilot", "github"],
          "carol", "opencode", p)
    mcp("mcphub", "carol", "opencode", p)
    p = "/home/carol/.local/share/opencode/auth.json"
    c.write_json(root, p, {"anthropic": {"type": "api", "key": s["carol_anthropic"]}}, 0o600)
    cred(s["carol_anthropic"], "anthropic-api-key", p)

    cc = json.loads(c.sample("claude-code", "di-is.settings.json"))
    cc["env"].update({"CLAUDE_CODE_USE_VERTEX": "1", "CLOUD_ML_REGION": "us-east5",
                      "ANTHROPIC_VERTEX_PROJECT_ID": "carol-vertex-dev",
                      "ANTHROPIC_MODEL": "claude-sonnet-4-5@20250929"})
    p = "/home/carol/.claude/settings.json"
    c.write_json(root, p, cc)
    wired("claude-sonnet-4-5@20250929", "claude-sonnet-4-5", "anthropic", "vertex", "carol", "claude-code", p)
    t["endpoints"].append({"host": "us-east5-aiplatform.googleapis.com", "wired": True, "required": False})

    p = "/home/carol/.aider.conf.yml"
    c.write(root, p, c.sample("aider", "hypn4.aider.conf.yml"))
    wired("openrouter/nousresearch/hermes-3-llama-3.1-405b:free", "hermes-3-llama-3.1-405b",
          ["nousresearch", "meta"], "openrouter", "carol", "aider", p)
    p = "/home/carol/.env"
    c.write(root, p, f"OPENROUTER_API_KEY={s['carol_openrouter']}\n# OPENAI_API_KEY=\n")
    cred(s["carol_openrouter"], "openrouter-api-key", p)
    t["commented"].append(c.commented(root, p, "# OPENAI_API_KEY="))

    p = "/home/carol/.pi/agent/settings.json"
    c.write_json(root, p, {"defaultProvider": "ollama", "defaultModel": "qwen3-coder:30b",
                           "defaultThinkingLevel": "medium", "theme": "dark"})
    wired("qwen3-coder:30b", "qwen3-coder-30b", "alibaba", ["ollama", "self-hosted", "local"], "carol", "pi", p)
    c.write_json(root, "/home/carol/.pi/agent/models.json", {"providers": {"ollama": {
        "baseUrl": "http://localhost:11434/v1", "api": "openai-completions", "apiKey": "ollama",
        "models": [{"id": "qwen3-coder:30b", "name": "Qwen3 Coder 30B (local)", "contextWindow": 262144},
                   {"id": "gpt-oss:20b", "name": "GPT-OSS 20B (local)"}]}}})
    # Declared in the provider list but not selected: fine to report as wired, not required.
    t["acceptable_wired"] += ["gpt-oss:20b", "gpt-oss-20b"]
    t["endpoints"].append({"host": "localhost", "wired": True, "required": False})
    return t


# ---------------------------------------------------------------- inspection of installed products

def product_files(root: Path, product: str) -> list[Path]:
    """The product's own shipped code (bundle or platform binary), not its dependencies' node_modules."""
    if product == "aider":
        res = root / AIDER_TOOL.lstrip("/") / "lib/python3.11/site-packages/aider/resources"
        return sorted(res.glob("model-settings.yml"))
    pkg = root / "usr/lib/node_modules" / PRODUCTS[product]
    if product == "claude-code":
        return [p for p in (pkg / "node_modules/@anthropic-ai").glob("claude-code-linux-x64/claude")] or \
            [pkg / "cli.js"]
    if product == "codex":
        return sorted((pkg / "node_modules/@openai/codex-linux-x64/vendor").glob("*/bin/codex"))
    if product == "copilot-cli":
        return sorted((pkg / "node_modules/@github").glob("copilot-linux-x64/copilot")) + \
            sorted(pkg.glob("*.js"))
    if product == "opencode":
        return sorted((pkg / "node_modules").glob("opencode-linux-x64/bin/opencode"))
    if product in ("gemini-cli", "qwen-code"):
        # Its own code, not its tests: a `*.test.js` or `test-utils/` literal is a fixture, never a model it ships.
        own = [p for p in pkg.rglob("*.js") if not {"node_modules", "test-utils"} & set(p.relative_to(pkg).parts)
               and not p.name.endswith((".test.js", ".spec.js"))]
        # Older Gemini CLI releases keep the model list in their core package (catalogs/agents.toml says so too).
        core = pkg / "node_modules/@google/gemini-cli-core/dist/src/config/models.js"
        return sorted(own + ([core] if product == "gemini-cli" and core.is_file() else []))
    if product == "pi":
        return sorted(pkg.rglob("models.generated.js"))
    return []


# Quoted literals of a product's bundle that are not models it ships, judged by reading their context.
NOT_SHIPS = {
    # packages/core/src/test-utils/config.ts, bundled: DEFAULT_CONFIG_PARAMETERS of the test helpers
    "gemini-cli": {"gemini-9001-super-duper"},
    "qwen-code": {"gemini-9001-super-duper"},
}


def aider_ships(files: list[Path]) -> list[str]:
    names: set[str] = set()
    for f in files:
        for m in re.finditer(r"^- name: (\S+)\s*$", f.read_text(), re.M):
            names.add(m.group(1))
    return sorted(names)


def product_version(root: Path, product: str) -> str | None:
    if product == "aider":
        return c.dist_info_version(root / AIDER_TOOL.lstrip("/") / "lib/python3.11/site-packages", "aider-chat")
    return c.package_json_version(root / "usr/lib/node_modules" / PRODUCTS[product])


def truth(root: Path, name: str, old: bool, facts: dict[str, Any]) -> dict[str, Any]:
    agents = []
    catalogued = []
    for product in [*PRODUCTS, "aider"]:
        files = product_files(root, product)
        ships = aider_ships(files) if product == "aider" else c.shipped_ids(files)
        ships = [m for m in ships if m not in NOT_SHIPS.get(product, set())]
        for m in ships:
            catalogued.append({"id": m, "product": product})
        configs = []
        for (prod, user), conf in sorted(facts["configs"].items()):
            if prod == product:
                configs.append({"user": user, "models": conf["models"], "route": conf["route"],
                                "mcp_servers": conf["mcp"]})
        agents.append({"name": product, "version": product_version(root, product) or "",
                       "package": f"npm/{PRODUCTS[product]}" if product in PRODUCTS else "pypi/aider-chat",
                       "ships_files": [str("/" / f.relative_to(root)) for f in files],
                       "ships": ships, "configs": configs})
    sdks = sdk_inventory.scan(root)
    return {
        "corpus": name,
        "built_from": "eval/build_dev_machine.py" + (" --old" if old else ""),
        "wired": facts["wired"],
        "acceptable": {
            "wired": sorted(set(facts["acceptable_wired"])),
            # Product packages themselves, when reported as SDKs, are not wrong.
            "sdks": [f"npm:{p}" for p in PRODUCTS.values()] + ["pypi:aider-chat"],
            # Hosts a product's route implies (not written in a config, fine when reported as wired).
            "hosts": ["api.anthropic.com", "api.openai.com", "openrouter.ai", "api.githubcopilot.com",
                      "generativelanguage.googleapis.com", "aiplatform.googleapis.com",
                      "global-aiplatform.googleapis.com", "mcp.context7.com", "mcp.sentry.dev"],
            # Switches of the real samples that turn a product's traffic or feature off.
            "kill_switches": ["CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC", "CLAUDE_CODE_DISABLE_1M_CONTEXT",
                              "analytics.enabled"],
        },
        "catalogued": catalogued,
        "sdks": sdks,
        "endpoints": facts["endpoints"],
        "credentials": facts["credentials"],
        "kill_switches": facts["kill_switches"],
        "commented": facts["commented"],
        "mcp_servers": facts["mcp_servers"],
        "agents": agents,
    }


def build(old: bool, truth_only: bool = False) -> Path:
    name = "dev-machine-old" if old else "dev-machine"
    root = c.CACHE / name / "root"
    if not truth_only:
        root.mkdir(parents=True, exist_ok=True)
        install(root, old)
    c.system_files(root, USERS, "devbox")
    facts = homes(root, old, secrets(), c.rsa_pem(c.CACHE / "dev-machine"))
    data = truth(root, name, old, facts)
    header = (f"Truth of corpus {name}, written by eval/build_dev_machine.py from the files it plants and from\n"
              "inspection of the installed packages (never from modelcensus output). Regenerate: make eval.")
    c.write_truth(name, data, header, facts["planted"])
    print(f"eval: {name} built at {root}; truth at eval/truth/{name}.toml")
    return root


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--old", action="store_true", help="build dev-machine-old (products pinned ~6 months older)")
    ap.add_argument("--truth-only", action="store_true", help="rewrite configs and truth, install nothing")
    a = ap.parse_args()
    build(a.old, a.truth_only)


if __name__ == "__main__":
    main()

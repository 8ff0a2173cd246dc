"""What the agent-zoo builder plants, recorded as it plants it: the facts of the truth file.

One `Facts` collects, per write, the models a config selects (with route and, for an alias, the model it names),
the MCP servers (with transport), the credentials (by sha256) and the endpoints, each tied to the products that
read that file for that user.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import common as c

GATEWAY = "llm-gateway.acme-corp.net"          # an in-house LLM gateway no catalog knows
GATEWAY_URL = f"https://{GATEWAY}/v1"
MCP_HOST = "mcp.acme-corp.net"                 # an in-house MCP host
SELF_HOSTED = ["self-hosted", "ollama", "local"]   # the route names a local Ollama may fairly be given


@dataclass
class Facts:
    root: Path
    old: bool
    wired: list[dict[str, Any]] = field(default_factory=list)
    acceptable_wired: list[str] = field(default_factory=list)
    endpoints: list[dict[str, Any]] = field(default_factory=list)
    credentials: list[dict[str, Any]] = field(default_factory=list)
    mcp_servers: list[dict[str, Any]] = field(default_factory=list)
    commented: list[dict[str, Any]] = field(default_factory=list)
    planted: list[str] = field(default_factory=list)
    configs: dict[tuple[str, str], dict[str, Any]] = field(default_factory=dict)

    # ---- writing files
    def write(self, path: str, text: str, mode: int = 0o644) -> str:
        target = self.root / path.lstrip("/")
        if target.is_symlink() or target.exists():
            target.unlink()   # never write through a hard link shared with the other release's tree
        c.write(self.root, path, text, mode)
        return path

    def write_json(self, path: str, data: Any, mode: int = 0o644) -> str:
        return self.write(path, json.dumps(data, indent=2) + "\n", mode)

    # ---- recording facts
    def conf(self, product: str, user: str) -> dict[str, Any]:
        return self.configs.setdefault((product, user), {"models": [], "route": [], "mcp": [], "base_models": {},
                                                         "model_routes": {}, "files": []})

    def model(self, model: str, canonical: str, vendor: Any, route: Any, user: str, products: list[str],
              path: str, base_model: str = "") -> None:
        """A model the file selects for these products: wired, with its route (and the model an alias names)."""
        # a router's path form names the same model: `openrouter/anthropic/claude-sonnet-4.5` is also reported
        # fairly as `anthropic/claude-sonnet-4.5` or `claude-sonnet-4.5`, `ollama/qwen3-coder:30b` as `qwen3-coder:30b`
        parts = model.split("/")
        self.declared(*("/".join(parts[i:]) for i in range(1, len(parts))))
        if c.as_list(route):
            self.wired.append({"id": model, "canonical": canonical, "vendor": vendor, "route": route, "user": user,
                               "product": products[0], "path": path, "base_model": base_model})
        else:   # served by the product's own service (no route of the vocabulary): scored in its agent entry only
            self.declared(model)
        for product in products:
            conf = self.conf(product, user)
            if model not in conf["models"]:
                conf["models"].append(model)
            conf["route"] += [r for r in c.as_list(route) if r not in conf["route"]]
            conf["model_routes"][model] = c.as_list(route)
            if base_model:
                conf["base_models"][model] = base_model
            if path not in conf["files"]:
                conf["files"].append(path)

    def declared(self, *models: str) -> None:
        """Declared in a provider's model list but not selected: fine to report as wired, not required."""
        self.acceptable_wired += list(models)

    def mcp(self, name: str, transport: str, user: str, products: list[str], path: str) -> None:
        self.mcp_servers.append({"name": name, "user": user, "path": path, "transport": transport,
                                 "product": products[0]})
        for product in products:
            conf = self.conf(product, user)
            conf["mcp"].append(name)
            if path not in conf["files"]:
                conf["files"].append(path)

    def cred(self, secret: str, kind: str, path: str, alt: list[str] | None = None) -> None:
        self.credentials.append({"sha256": c.sha256(secret), "type": kind, "path": path, "sha256_alt": alt or []})
        self.planted.append(secret)

    def host(self, host: str, required: bool = True) -> None:
        if all(e["host"] != host for e in self.endpoints):
            self.endpoints.append({"host": host, "wired": True, "required": required})

    def commented_line(self, path: str, text: str) -> None:
        self.commented.append(c.commented(self.root, path, text))


def secrets() -> dict[str, str]:
    """Fake secrets of the real formats, deterministic (never live keys)."""
    f = c.fake_secret
    return {
        "corp_gw": f("openai-proj", "acme-gateway"),          # the corporate gateway's key: an OpenAI-format key
        "alice_aws_id": f("aws-access-key-id", "zoo-alice-aws"),
        "alice_aws_secret": f("aws-secret", "zoo-alice-aws"),
        "alice_github": f("github-pat", "zoo-alice-gh"),
        "alice_xai": f("xai", "zoo-alice-grok"),
        "alice_azure": f("azure-openai", "zoo-alice-azure"),
        "alice_sentry": f("github-pat", "zoo-alice-sentry-fine"),
        "bob_gemini": f("google-api-key", "zoo-bob-gemini"),
        "bob_dashscope": f("dashscope", "zoo-bob-qwen"),
        "bob_openrouter": f("openrouter", "zoo-bob-or"),
        "bob_anthropic_odd": f("anthropic", "zoo-bob-gptme"),
        "carol_anthropic": f("anthropic", "zoo-carol-pi"),
        "carol_moonshot": f("moonshot", "zoo-carol-kimi"),
        "carol_mistral": f("mistral", "zoo-carol-vibe"),
        "carol_openrouter": f("openrouter", "zoo-carol-mini"),
        "carol_azure": f("azure-openai", "zoo-carol-azure"),
        "carol_litellm": f("litellm-master", "zoo-carol-claude-gw"),
        "carol_github": f("github-pat", "zoo-carol-roo"),
    }

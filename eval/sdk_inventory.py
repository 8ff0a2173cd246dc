"""Which model SDKs a tree holds, by reading installed package metadata (package.json, *.dist-info/METADATA).

The list of names is the eval's own judgement of what a model SDK is (a client library of a model API,
a Vercel AI SDK provider, or an agent product's platform package), independent of catalogs/*.toml.
"""

from __future__ import annotations

import json
import os
import re
from pathlib import Path
from typing import Any

NPM_SDKS = {
    "openai", "@anthropic-ai/sdk", "@anthropic-ai/bedrock-sdk", "@anthropic-ai/vertex-sdk",
    "@anthropic-ai/foundry-sdk", "@anthropic-ai/claude-agent-sdk", "@google/genai", "@google/generative-ai",
    "@google-cloud/vertexai", "ai", "@mistralai/mistralai", "groq-sdk", "ollama", "cohere-ai",
    "@aws-sdk/client-bedrock-runtime", "@aws-sdk/client-bedrock", "@openrouter/ai-sdk-provider",
    "@azure/openai", "together-ai",
}
NPM_SDK_PATTERNS = (
    re.compile(r"^@ai-sdk/"),
    # Agent products' platform packages (issue 16 §7)
    re.compile(r"^@anthropic-ai/claude-code-linux-"), re.compile(r"^@openai/codex-linux-"),
    re.compile(r"^@github/copilot-linux-"), re.compile(r"^opencode-linux-"),
)
# The AI SDK's own framework packages: fine to report, not required (they call no model API themselves).
NOT_REQUIRED = {("npm", "@ai-sdk/provider"), ("npm", "@ai-sdk/provider-utils"), ("npm", "@ai-sdk/otel")}
PYPI_SDKS = {"openai", "anthropic", "litellm", "google-genai", "google-generativeai", "mistralai", "cohere",
             "groq", "together", "ollama", "google-cloud-aiplatform", "boto3-bedrock"}


def _norm(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()


def _is_npm_sdk(name: str) -> bool:
    return name in NPM_SDKS or any(p.match(name) for p in NPM_SDK_PATTERNS)


def scan(root: Path) -> list[dict[str, Any]]:
    """Every installed copy of a model SDK: ecosystem, name, version, environment (its install dir)."""
    found: dict[tuple[str, str, str], set[str]] = {}
    aliases: dict[tuple[str, str, str], str] = {}   # npm alias: the name its own package.json gives
    for dirpath, dirnames, _files in os.walk(root):
        d = Path(dirpath)
        if d.name == "node_modules":
            for entry in sorted(dirnames):
                cands = [d / entry]
                if entry.startswith("@"):
                    cands = sorted((d / entry).iterdir())
                for pkg in cands:
                    try:
                        meta = json.loads((pkg / "package.json").read_text())
                    except (OSError, ValueError):
                        continue
                    # The directory names the package as installed; an npm alias (`"x": "npm:y@v"`, how
                    # Codex pulls its platform package) has another name in its package.json.
                    name = str(pkg.relative_to(d))
                    version = meta.get("version")
                    if isinstance(version, str) and _is_npm_sdk(name):
                        key = ("npm", name, version)
                        found.setdefault(key, set()).add("/" + str(pkg.relative_to(root)))
                        if isinstance(meta.get("name"), str) and meta["name"] != name:
                            aliases[key] = meta["name"]
        if d.name.endswith("-packages") and d.parent.name.startswith("python"):
            for entry in dirnames:
                if not entry.endswith(".dist-info"):
                    continue
                dist, _, version = entry[: -len(".dist-info")].rpartition("-")
                if _norm(dist) in PYPI_SDKS:
                    key = ("pypi", _norm(dist), version)
                    found.setdefault(key, set()).add("/" + str(d.relative_to(root)))
        # Do not descend into package payloads that cannot hold further installs.
        dirnames[:] = [x for x in dirnames if x not in (".git", "__pycache__")]
    return [{"ecosystem": e, "name": n, "version": v, "environments": sorted(paths),
             "required": (e, n) not in NOT_REQUIRED, "alias": aliases.get((e, n, v), "")}
            for (e, n, v), paths in sorted(found.items())]

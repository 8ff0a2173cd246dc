"""Corpus (a) `debian-agent`: a Debian bookworm minbase rootfs (debootstrap) carrying "Halyard", an agent
daemon invented for this corpus, with real SDK installs and configs in the real shapes of
tests/data/configs/ (LiteLLM proxy, Azure ARM deployment list, Terraform azurerm_cognitive_deployment,
flagd flags, docker-compose env, ~/.aws/credentials, a GCP service-account JSON, systemd drop-ins).

    python eval/build_debian_agent.py [--truth-only]
"""

from __future__ import annotations

import argparse
import json
import shutil
from pathlib import Path
from typing import Any

import common as c
import sdk_inventory

SUITE = "bookworm"
MIRROR = "http://deb.debian.org/debian"
VENV_PKGS = ["openai==3.57.0", "anthropic==2.15.0", "litellm==1.110.2", "mistralai==3.7.0", "google-genai==3.6.1"]
USER_SITE_PKGS = ["openai==3.50.0", "anthropic==2.12.0"]
NPM_PKGS = ["openai@7.59.0", "@anthropic-ai/sdk@1.15.0", "ai@7.0.173", "@ai-sdk/openai@4.0.118",
            "@ai-sdk/anthropic@4.0.105"]
USER = "halyard"
USER_SITE = f"/home/{USER}/.local/lib/python3.11/site-packages"


def install(root: Path) -> None:
    if not c.done(root, "debootstrap"):
        if root.exists():
            shutil.rmtree(root)
        c.run(["debootstrap", "--variant=minbase", SUITE, str(root), MIRROR])
        c.mark(root, "debootstrap")
    if not c.done(root, "venv"):
        c.venv_install(root / "opt/halyard/venv", VENV_PKGS)
        c.mark(root, "venv")
    if not c.done(root, "usersite"):
        c.pip_target(root / USER_SITE.lstrip("/"), USER_SITE_PKGS)
        c.mark(root, "usersite")
    if not c.done(root, "npm"):
        c.npm_local(root / "opt/halyard/web", NPM_PKGS)
        c.mark(root, "npm")


def plant(root: Path) -> dict[str, Any]:
    t: dict[str, Any] = {"wired": [], "acceptable_wired": [], "endpoints": [], "credentials": [],
                         "mcp_servers": [], "kill_switches": [], "commented": [], "planted": []}
    s = {
        "openai": c.fake_secret("openai", "halyard-openai"),
        "anthropic": c.fake_secret("anthropic", "halyard-anthropic"),
        "mistral": c.fake_secret("mistral", "halyard-mistral"),
        "aws_id": c.fake_secret("aws-access-key-id", "halyard-aws"),
        "aws_secret": c.fake_secret("aws-secret", "halyard-aws"),
        "azure": c.fake_secret("azure-openai", "halyard-azure"),
        "master": c.fake_secret("litellm-master", "halyard-litellm"),
        "sa_id": c.fake_secret("azure-openai", "halyard-sa") + "9f3e21bc",
    }
    pem = c.rsa_pem(c.CACHE / "debian-agent")

    def wired(model: str, canonical: str, vendor: Any, route: Any, path: str) -> None:
        t["wired"].append({"id": model, "canonical": canonical, "vendor": vendor, "route": route,
                           "user": USER, "product": "halyard", "path": path})

    def cred(secret: str, kind: str, path: str, alt: list[str] | None = None) -> None:
        t["credentials"].append({"sha256": c.sha256(secret), "type": kind, "path": path, "sha256_alt": alt or []})
        t["planted"].append(secret)

    def switch(name: str, state: str, path: str, line_text: str) -> None:
        line = c.commented(root, path, line_text)["line"]
        t["kill_switches"].append({"name": name, "state": state, "path": path, "line": line})

    passwd = (root / "etc/passwd").read_text()
    if f"\n{USER}:" not in passwd:
        passwd += f"{USER}:x:998:998:Halyard agent:/home/{USER}:/usr/sbin/nologin\n"
        c.write(root, "/etc/passwd", passwd)
    c.write(root, "/etc/hostname", "halyard-01\n")

    # ---- systemd unit and drop-in (commented lines are not settings)
    c.write(root, "/etc/systemd/system/halyardd.service", """[Unit]
Description=Halyard agent daemon
After=network-online.target

[Service]
User=halyard
EnvironmentFile=/opt/halyard/.env
EnvironmentFile=-/etc/default/halyardd
ExecStart=/opt/halyard/venv/bin/python -m halyard.daemon --config /etc/halyard/halyard.toml
Restart=on-failure

[Install]
WantedBy=multi-user.target
""")
    p = "/etc/systemd/system/halyardd.service.d/override.conf"
    c.write(root, p, """[Service]
Environment=HALYARD_DISABLE_LLM=0
#Environment=HALYARD_DISABLE_LLM=1
# Environment=OPENAI_MODEL=gpt-4o-mini
Environment=HALYARD_GATEWAY_URL=http://127.0.0.1:4000
""")
    switch("HALYARD_DISABLE_LLM", "off", p, "Environment=HALYARD_DISABLE_LLM=0")
    t["commented"].append(c.commented(root, p, "#Environment=HALYARD_DISABLE_LLM=1"))
    t["commented"].append(c.commented(root, p, "# Environment=OPENAI_MODEL=gpt-4o-mini"))

    p = "/etc/default/halyardd"
    c.write(root, p, """# Defaults for halyardd, sourced by systemd (EnvironmentFile).
# Kill switch: set HALYARD_EMERGENCY_STOP=true to stop every model call at once.
HALYARD_EMERGENCY_STOP=false
NO_PROXY=localhost,127.0.0.1,169.254.169.254
#HALYARD_EMERGENCY_STOP=true
""")
    switch("HALYARD_EMERGENCY_STOP", "off", p, "HALYARD_EMERGENCY_STOP=false")
    t["commented"].append(c.commented(root, p, "#HALYARD_EMERGENCY_STOP=true"))
    t["not_switches"] = [{"name": "NO_PROXY", "path": p}]

    # ---- main TOML config: [runtime.kill_switch] table
    p = "/etc/halyard/halyard.toml"
    c.write(root, p, """# Halyard daemon configuration
[models]
primary = "claude-sonnet-5"
fallback = "gpt-5.5"
# primary = "claude-opus-4-1"

[runtime]
max_concurrency = 8

[runtime.kill_switch]
engaged = false
# engaged = true
reason = ""

[gateway]
url = "http://127.0.0.1:4000"
config = "/etc/halyard/gateway/litellm.yaml"
""")
    wired("claude-sonnet-5", "claude-sonnet-5", "anthropic", "direct", p)
    wired("gpt-5.5", "gpt-5.5", "openai", "direct", p)
    switch("runtime.kill_switch.engaged", "off", p, "engaged = false")
    t["commented"].append(c.commented(root, p, '# primary = "claude-opus-4-1"'))
    t["commented"].append(c.commented(root, p, "# engaged = true"))

    # ---- nested JSON kill switch
    p = "/etc/halyard/policy.json"
    c.write(root, p, json.dumps({"version": 3, "tenants": ["default"],
                                 "killSwitch": {"enabled": True, "reason": "incident-4411"},
                                 "limits": {"tokensPerMinute": 200000}}, indent=2) + "\n")
    switch("killSwitch.enabled", "on", p, '    "enabled": true,')

    # ---- flagd flags (OpenFeature): state + defaultVariant
    p = "/etc/halyard/flags.flagd.json"
    c.write(root, p, json.dumps({"$schema": "https://flagd.dev/schema/v0/flags.json", "flags": {
        "halyardLlmKillSwitch": {"description": "Stop all LLM calls of Halyard", "state": "ENABLED",
                                 "variants": {"on": True, "off": False}, "defaultVariant": "off"},
        "halyardClaudeFallback": {"description": "Use Claude when the primary provider fails", "state": "ENABLED",
                                  "variants": {"on": True, "off": False}, "defaultVariant": "on"},
    }}, indent=2) + "\n")
    switch("halyardLlmKillSwitch", "off", p, '    "halyardLlmKillSwitch": {')

    # ---- LiteLLM proxy config (real shape: model_list / litellm_params / general_settings)
    p = "/etc/halyard/gateway/litellm.yaml"
    c.write(root, p, f"""model_list:
  - model_name: halyard-default
    litellm_params:
      model: bedrock/us.anthropic.claude-sonnet-4-5-20250929-v1:0
      aws_region_name: us-east-1
  - model_name: halyard-fast
    litellm_params:
      model: azure/halyard-gpt55
      api_base: https://halyard-prod.openai.azure.com/
      api_version: "2025-04-01-preview"
      api_key: os.environ/AZURE_API_KEY
  - model_name: halyard-vision
    litellm_params:
      model: vertex_ai/gemini-3.5-flash
      vertex_project: halyard-prod
      vertex_location: us-central1
  - model_name: halyard-local
    litellm_params:
      model: ollama/qwen3-coder:30b
      api_base: http://127.0.0.1:11434

router_settings:
  fallbacks: [{{"halyard-fast": ["halyard-default"]}}]

litellm_settings:
  drop_params: true
  # success_callback: ["langfuse"]

general_settings:
  master_key: {s['master']}
""")
    wired("bedrock/us.anthropic.claude-sonnet-4-5-20250929-v1:0", "claude-sonnet-4-5", "anthropic", "bedrock", p)
    wired("vertex_ai/gemini-3.5-flash", "gemini-3.5-flash", "google", "vertex", p)
    wired("ollama/qwen3-coder:30b", "qwen3-coder-30b", "alibaba", ["ollama", "self-hosted", "local"], p)
    # azure/halyard-gpt55 is a deployment: its base model comes from the ARM list below.
    wired("azure/halyard-gpt55", "gpt-5.5", "openai", "azure", p)
    t["acceptable_wired"] += ["halyard-gpt55", "azure/halyard-gpt55", "halyard-embed"]
    cred(s["master"], "litellm-master-key", p)
    t["endpoints"] += [{"host": "halyard-prod.openai.azure.com", "wired": True, "required": True},
                       {"host": "127.0.0.1", "wired": True, "required": False}]

    # ---- Azure: ARM deployment list (az cognitiveservices account deployment list) and Terraform (verbatim)
    p = "/etc/halyard/azure/deployments.json"
    arm = json.loads(c.sample("azure-deployments-list", "arm.deployments-list.response.json"))
    proto = arm["value"][0]
    value = []
    for name, model, version, sku in (("halyard-gpt55", "gpt-5.5", "2026-04-23", "GlobalStandard"),
                                      ("halyard-embed", "text-embedding-3-large", "1", "Standard")):
        d = json.loads(json.dumps(proto))
        d["id"] = d["id"].replace("cs_cli_test_000002", "halyard-prod").replace("/dpy", f"/{name}")
        d["name"] = name
        d["sku"]["name"] = sku
        d["properties"]["model"].update({"name": model, "version": version})
        value.append(d)
    c.write(root, p, json.dumps({"value": value}) + "\n")
    wired("text-embedding-3-large", "text-embedding-3-large", "openai", "azure", p)
    p = "/etc/halyard/azure/models.tf"
    c.write(root, p, c.sample("azure-terraform", "briandenicola.models.tf"))
    for m in ("gpt-4o", "o1", "gpt-4.1"):
        wired(m, m, "openai", "azure", p)

    # ---- Bedrock settings
    p = "/etc/halyard/bedrock.json"
    c.write(root, p, json.dumps({"region": "us-east-1", "modelId": "us.anthropic.claude-opus-4-1-20250805-v1:0",
                                 "guardrailIdentifier": "gr-halyard", "maxTokens": 4096}, indent=2) + "\n")
    wired("us.anthropic.claude-opus-4-1-20250805-v1:0", "claude-opus-4-1", "anthropic", "bedrock", p)

    # ---- .env and docker-compose
    p = "/opt/halyard/.env"
    c.write(root, p, f"""OPENAI_API_KEY={s['openai']}
ANTHROPIC_API_KEY={s['anthropic']}
MISTRAL_API_KEY={s['mistral']}
AZURE_API_KEY={s['azure']}
HALYARD_MODEL=gpt-5.5
# HALYARD_MODEL=gpt-4o-mini
OPENAI_BASE_URL=https://api.openai.com/v1
""", 0o600)
    for k, kind in (("openai", "openai-api-key"), ("anthropic", "anthropic-api-key"), ("mistral", "mistral-api-key"),
                    ("azure", "azure-openai-key")):
        cred(s[k], kind, p)
    t["commented"].append(c.commented(root, p, "# HALYARD_MODEL=gpt-4o-mini"))
    t["endpoints"].append({"host": "api.openai.com", "wired": True, "required": True})

    p = "/opt/halyard/docker-compose.yml"
    c.write(root, p, """services:
  halyard:
    image: ghcr.io/halyard-labs/halyard:2.4.1
    env_file: .env
    environment:
      - LLM_MODEL=mistral-large-latest
      - LLM_BASE_URL=https://api.mistral.ai/v1
      - ANTHROPIC_API_KEY=${ANTHROPIC_API_KEY}
      - HALYARD_GATEWAY_URL=http://litellm:4000
    depends_on: [litellm]
  litellm:
    image: ghcr.io/berriai/litellm:main-v1.110.2
    command: ["--config", "/app/config.yaml", "--port", "4000"]
    volumes:
      - /etc/halyard/gateway/litellm.yaml:/app/config.yaml:ro
    environment:
      AZURE_API_KEY: ${AZURE_API_KEY}
      # LITELLM_LOG: DEBUG
""")
    wired("mistral-large-latest", "mistral-large-latest", "mistral", "direct", p)
    t["endpoints"].append({"host": "api.mistral.ai", "wired": True, "required": True})

    # ---- cloud credentials
    p = f"/home/{USER}/.aws/credentials"
    c.write(root, p, f"[default]\naws_access_key_id = {s['aws_id']}\naws_secret_access_key = {s['aws_secret']}\n"
            "region = us-east-1\n", 0o600)
    cred(s["aws_secret"], "aws-secret-access-key", p)
    cred(s["aws_id"], "aws-access-key-id", p)
    p = "/etc/halyard/gcp/service-account.json"
    c.write_json(root, p, {"type": "service_account", "project_id": "halyard-prod", "private_key_id": s["sa_id"],
                           "private_key": pem, "client_email": "halyardd@halyard-prod.iam.gserviceaccount.com",
                           "client_id": "118273645509182736455", "auth_uri": "https://accounts.google.com/o/oauth2/auth",
                           "token_uri": "https://oauth2.googleapis.com/token"}, 0o600)
    body = "".join(line for line in pem.strip().splitlines() if not line.startswith("-----"))
    cred(pem.strip(), "gcp-service-account-private-key", p, [c.sha256(pem), c.sha256(body)])
    cred(s["sa_id"], "gcp-service-account-key-id", p)

    # ---- the product's own source, calling the SDKs
    src = "/opt/halyard/lib/halyard"
    c.write(root, f"{src}/__init__.py", '__version__ = "2.4.1"\n')
    p = f"{src}/providers.py"
    c.write(root, p, '''"""Provider clients of the Halyard daemon."""
import os

import anthropic
import litellm
import openai
from google import genai
from mistralai import Mistral

ANTHROPIC_MODEL = "claude-sonnet-5"
OPENAI_MODEL = os.environ.get("HALYARD_MODEL", "gpt-5.5")


def ask_claude(prompt: str) -> str:
    client = anthropic.Anthropic()
    msg = client.messages.create(model=ANTHROPIC_MODEL, max_tokens=1024,
                                 messages=[{"role": "user", "content": prompt}])
    return msg.content[0].text


def ask_openai(prompt: str) -> str:
    client = openai.OpenAI()
    resp = client.responses.create(model=OPENAI_MODEL, input=prompt)
    return resp.output_text


def ask_gemini(prompt: str) -> str:
    client = genai.Client(vertexai=True, project="halyard-prod", location="us-central1")
    return client.models.generate_content(model="gemini-3.5-flash", contents=prompt).text


def ask_mistral(prompt: str) -> str:
    client = Mistral(api_key=os.environ["MISTRAL_API_KEY"])
    resp = client.chat.complete(model="mistral-large-latest", messages=[{"role": "user", "content": prompt}])
    return resp.choices[0].message.content


def ask_gateway(prompt: str) -> str:
    resp = litellm.completion(model="litellm_proxy/halyard-default", api_base="http://127.0.0.1:4000",
                              messages=[{"role": "user", "content": prompt}])
    return resp.choices[0].message.content
''')
    t["acceptable_wired"] += ["halyard-default", "litellm_proxy/halyard-default"]
    wired("claude-sonnet-5", "claude-sonnet-5", "anthropic", "direct", p)
    wired("gpt-5.5", "gpt-5.5", "openai", "direct", p)
    wired("gemini-3.5-flash", "gemini-3.5-flash", "google", "vertex", p)   # genai.Client(vertexai=True)
    wired("mistral-large-latest", "mistral-large-latest", "mistral", "direct", p)
    p = "/opt/halyard/web/src/chat.ts"
    c.write(root, p, '''import { generateText } from "ai";
import { openai } from "@ai-sdk/openai";
import { anthropic } from "@ai-sdk/anthropic";

export async function summarize(text: string) {
  const { text: out } = await generateText({ model: anthropic("claude-haiku-4-5"), prompt: text });
  return out;
}

export async function classify(text: string) {
  return generateText({ model: openai("gpt-5.5-mini"), prompt: text });
}
''')
    wired("claude-haiku-4-5", "claude-haiku-4-5", "anthropic", "direct", p)
    wired("gpt-5.5-mini", "gpt-5.5-mini", "openai", "direct", p)
    c.write_json(root, "/opt/halyard/web/package.json", {"name": "halyard-web", "version": "2.4.1", "private": True,
                                                          "dependencies": {n.rsplit("@", 1)[0]: n.rsplit("@", 1)[1]
                                                                           for n in NPM_PKGS}})
    return t


def build(truth_only: bool = False) -> Path:
    name = "debian-agent"
    root = c.CACHE / name / "root"
    if not truth_only:
        root.parent.mkdir(parents=True, exist_ok=True)
        install(root)
    t = plant(root)
    data = {
        "corpus": name,
        "built_from": "eval/build_debian_agent.py",
        "wired": t["wired"],
        "acceptable": {"wired": sorted(set(t["acceptable_wired"])),
                       "sdks": [], "hosts": ["api.anthropic.com", "bedrock-runtime.us-east-1.amazonaws.com",
                                             "us-central1-aiplatform.googleapis.com", "litellm", "localhost"],
                       "kill_switches": []},
        "catalogued": [],
        "sdks": sdk_inventory.scan(root),
        "endpoints": t["endpoints"],
        "credentials": t["credentials"],
        "kill_switches": t["kill_switches"],
        "not_switches": t["not_switches"],
        "commented": t["commented"],
        "mcp_servers": [],
        "agents": [],
    }
    header = ("Truth of corpus debian-agent, written by eval/build_debian_agent.py from the files it plants and\n"
              "the installed packages' metadata (never from modelcensus output). Product `halyard` is invented\n"
              "and not in catalogs/agents.toml: `agents` must stay empty without a user catalog.")
    c.write_truth(name, data, header, t["planted"])
    print(f"eval: {name} built at {root}; truth at eval/truth/{name}.toml")
    return root


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--truth-only", action="store_true")
    a = ap.parse_args()
    build(a.truth_only)


if __name__ == "__main__":
    main()

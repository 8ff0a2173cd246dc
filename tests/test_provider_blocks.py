"""Provider blocks and model records: routes in the README's vocabulary, aliases with their base model, and keys
of a catalogued format under any name. Shapes from the products' documented configs and real samples."""

from __future__ import annotations

import json
from pathlib import Path

from tests.conftest import ScanFn, entry, write

DATA = Path(__file__).parent / "data" / "configs"
GW_KEY = "sk-" + "CorpGw0Fake1" * 4  # the shape of a key a gateway issues (sk- + 48): no vendor words nearby

KIMI = """default_model = "gemini-vertex"

[models.gemini-vertex]
provider = "gcp"
model = "gemini-2.5-pro"
max_context_size = 1048576

[models.k2]
provider = "moonshot"
model = "kimi-k2-turbo-preview"
max_context_size = 262144

[providers.gcp]
type = "vertexai"
base_url = ""
api_key = ""

[providers.moonshot]
type = "kimi"
base_url = "https://api.moonshot.ai/v1"
api_key = ""
"""

VIBE = """active_model = "gw-devstral"

[[providers]]
name = "corp-gateway"
api_base = "https://llm-gw.corp.example/v1"
api_key_env_var = "CORP_GW_KEY"
backend = "generic"

[[models]]
name = "devstral-medium-2507"
provider = "corp-gateway"
alias = "gw-devstral"
"""

LLM_EXTRA = """- model_id: gw-mini
  model_name: gpt-4.1-mini
  api_base: "https://llm-gw.corp.example/v1"
  api_key_name: corpgw
"""

CONTINUE = """name: Corp
version: 1.0.0
schema: v1
models:
  - name: corp-gpt-4.1
    provider: openai
    model: gpt-4.1
    apiBase: https://llm-gw.corp.example/v1
  - name: Gemini Pro
    provider: gemini
    model: gemini-2.5-flash
  - name: local
    provider: ollama
    model: qwen3-coder:30b
    apiBase: http://localhost:11434
"""


def test_routes_come_from_blocks_never_from_the_products_provider_name(tmp_path: Path, scan_dir: ScanFn) -> None:
    write(tmp_path, "/home/bob/.kimi/config.toml", KIMI)
    write(tmp_path, "/home/bob/.vibe/config.toml", VIBE)
    write(tmp_path, "/home/bob/.config/io.datasette.llm/extra-openai-models.yaml", LLM_EXTRA)
    write(tmp_path, "/home/ann/.continue/config.yaml", CONTINUE)
    real = (DATA / "continue-config" / "forwall100.config.yaml").read_text()
    write(tmp_path, "/home/eve/.continue/config.yaml", real)
    _, doc = scan_dir(tmp_path)

    def via(name: str) -> tuple[str | None, str | None]:
        found = entry(doc, "models", name=name)
        return found["served_via"], found["base_model"]

    assert via("gemini-vertex") == ("vertex", "gemini-2.5-pro")  # provider `gcp` of type `vertexai`
    assert via("k2") == ("direct", "kimi-k2-turbo-preview")  # Moonshot's own API
    assert via("gw-devstral") == ("llm-gw.corp.example", "devstral-medium-2507")  # an uncatalogued gateway
    assert via("devstral-medium-2507")[0] == "llm-gw.corp.example"
    assert via("gw-mini") == ("llm-gw.corp.example", "gpt-4.1-mini")
    assert via("corp-gpt-4.1") == ("llm-gw.corp.example", "gpt-4.1")
    assert via("gemini-2.5-flash")[0] == "direct"  # provider `gemini`: Google's own API
    assert via("qwen3-coder:30b")[0] == "self-hosted"  # Ollama on this machine
    assert via("thudm/glm-4-32b")[0] == "openrouter"  # the real sample's apiBase
    routes = {m["served_via"] for m in doc["models"]}
    assert not routes & {"gcp", "corp-gateway", "vertexai", "gemini", "moonshot", "openai"}


def test_a_key_of_a_catalogued_format_under_any_name(tmp_path: Path, scan_dir: ScanFn) -> None:
    anthropic = "sk-ant-api03-" + "A1b2C3d4E5" * 9 + "Zz1" + "AA"
    write(tmp_path, "/home/bob/.vibe/.env", f"CORP_GW_KEY={GW_KEY}\nTEAM_LLM_TOKEN={anthropic}\nWORDS=sk-short\n")
    _, doc = scan_dir(tmp_path)
    found = {(c["type"], c["vendor"]) for c in doc["credentials"]}
    assert ("api-key", None) in found  # sk- + 48 names no vendor without its words nearby
    assert ("anthropic-api-key", "anthropic") in found
    assert all(GW_KEY not in c["redacted"] and anthropic not in c["redacted"] for c in doc["credentials"])


def test_a_name_of_a_familys_shape_is_the_alias_of_the_model_its_record_runs(tmp_path: Path, scan_dir: ScanFn) -> None:
    """Kimi CLI's `[models.kimi-k2-turbo]` runs `kimi-k2-turbo-preview`: the key has a Kimi id's shape, but no
    catalog lists it, and the record says what it runs. A router's own id ending alike in a package
    (`moonshotai/kimi-k2-turbo`) is no spelling of that alias."""
    write(tmp_path, "/home/carol/.kimi/config.toml",
          'default_model = "kimi-k2-turbo"\n\n[providers.moonshot]\ntype = "kimi"\n'
          'base_url = "https://api.moonshot.ai/v1"\n\n[models.kimi-k2-turbo]\nprovider = "moonshot"\n'
          'model = "kimi-k2-turbo-preview"\nmax_context_size = 262144\n')  # fmt: skip
    write(tmp_path, "/usr/lib/node_modules/router-table/dist/models.js",
          'export const M = {"moonshotai/kimi-k2-turbo": {id: "moonshotai/kimi-k2-turbo"}};\n')
    _, doc = scan_dir(tmp_path)
    turbo = entry(doc, "models", name="kimi-k2-turbo")
    assert (turbo["served_via"], turbo["base_model"], turbo["wired"]) == ("direct", "kimi-k2-turbo-preview", True)
    # The router's id is a spelling of the family id it writes, never given the alias's base.
    assert entry(doc, "models", name="moonshotai/kimi-k2-turbo")["base_model"] == "kimi-k2-turbo"
    # A listed id keeps being a model of its own (`kimi-k2-turbo-preview`), never an alias.
    assert entry(doc, "models", name="kimi-k2-turbo-preview")["base_model"] is None


def test_a_vendors_base_url_in_the_same_file_routes_its_models(tmp_path: Path, scan_dir: ScanFn) -> None:
    """`ANTHROPIC_BASE_URL` in a settings file's env block (Claude Code's documented gateway setup) moves the
    Anthropic models that file selects to that host; another vendor's model in it keeps its own route."""
    write(tmp_path, "/home/carol/.agentx/settings.json", json.dumps({
        "model": "claude-opus-4-1", "fallback": {"model": "gpt-5.1"},
        "env": {"ANTHROPIC_BASE_URL": "https://llm-gateway.acme-corp.net", "DISABLE_TELEMETRY": "1"}}))
    _, doc = scan_dir(tmp_path)
    assert entry(doc, "models", name="claude-opus-4-1")["served_via"] == "llm-gateway.acme-corp.net"
    assert entry(doc, "models", name="gpt-5.1")["served_via"] != "llm-gateway.acme-corp.net"

"""Z.ai (Zhipu AI) on the shapes machines wire it with: Claude Code pointed at its Anthropic-compatible endpoint, Zed's
OpenAI-compatible provider (a real home-manager file), and the vendor's MCP servers in an opencode config (real)."""

from __future__ import annotations

import json
from pathlib import Path

from tests.conftest import REPO, ScanFn, entry, write

DATA = REPO / "tests" / "data" / "configs"
# A well-formed fake: 32 hex, a dot, 16 letters and digits (the format keyformats.json gives Z.ai keys).
FAKE_KEY = "0123456789abcdef0123456789abcdef.FAKEfake0000FAKE"


def test_claude_code_on_zai_s_anthropic_endpoint_runs_glm_there(tmp_path: Path, scan_dir: ScanFn) -> None:
    # The block Z.ai's Claude Code guide and the public switchers (gcl-switcher, claude-code-switch) write.
    settings = {"env": {
        "ANTHROPIC_AUTH_TOKEN": FAKE_KEY,
        "ANTHROPIC_BASE_URL": "https://api.z.ai/api/anthropic",
        "API_TIMEOUT_MS": "3000000",
        "ANTHROPIC_DEFAULT_OPUS_MODEL": "glm-4.7",
        "ANTHROPIC_DEFAULT_SONNET_MODEL": "glm-4.7",
        "ANTHROPIC_DEFAULT_HAIKU_MODEL": "glm-4.5-air",
    }}
    write(tmp_path, "/home/dev/.claude/settings.json", json.dumps(settings, indent=2))
    _, doc = scan_dir(tmp_path)
    for name in ("glm-4.7", "glm-4.5-air"):
        model = entry(doc, "models", name=name)
        assert (model["vendor"], model["family"], model["served_via"], model["wired"]) == ("zai", "glm", "direct", True)
    gateway = entry(doc, "endpoints", host="api.z.ai")
    assert gateway["vendor"] == "zai"
    assert gateway["overrides"] == [{"vendor": "anthropic", "set_by": "ANTHROPIC_BASE_URL"}]
    assert FAKE_KEY not in json.dumps(doc)  # the token is reported redacted only
    # Held by Anthropic's variable, yet only api.z.ai ever receives it: Z.ai's key.
    assert [(c["type"], c["vendor"]) for c in doc["credentials"]] == [("zai-api-key", "zai")]


def test_a_key_goes_with_its_base_url_only_in_the_file_that_moves_it(tmp_path: Path, scan_dir: ScanFn) -> None:
    # An Anthropic-format key beside the moved base URL stays Anthropic's (sent to Z.ai by mistake, still
    # Anthropic's to rotate); a key of no format in another file that sets no base URL is left as named.
    anthropic_key = "sk-ant-api03-" + "FAKEfake" * 11 + "FAKEf" + "AA"  # 93 characters, then AA
    write(tmp_path, "/home/dev/.claude/settings.json", json.dumps({"env": {
        "ANTHROPIC_API_KEY": anthropic_key, "ANTHROPIC_BASE_URL": "https://api.z.ai/api/anthropic"}}))
    write(tmp_path, "/home/ops/.profile", f"export ANTHROPIC_AUTH_TOKEN={FAKE_KEY}\n")
    _, doc = scan_dir(tmp_path)
    got = sorted((c["type"], c["vendor"], c["locations"][0]["path"]) for c in doc["credentials"])
    assert got == [("anthropic-api-key", "anthropic", "/home/dev/.claude/settings.json"),
                   ("anthropic-api-key", "anthropic", "/home/ops/.profile")]


def test_a_zai_key_is_known_by_the_name_that_holds_it(tmp_path: Path, scan_dir: ScanFn) -> None:
    write(tmp_path, "/srv/app/run.sh", f"#!/bin/sh\nexport ZHIPUAI_API_KEY={FAKE_KEY}\nexec python -m app\n")
    write(tmp_path, "/srv/app/notes.txt", f"build id {FAKE_KEY}\n")  # the same shape under no such name: no key
    _, doc = scan_dir(tmp_path)
    found = [c for c in doc["credentials"] if c["vendor"] == "zai"]
    assert [(c["type"], [loc["path"] for loc in c["locations"]]) for c in found] == [
        ("zai-api-key", ["/srv/app/run.sh"])
    ]


def test_zed_s_openai_compatible_provider_routes_the_models_it_lists(tmp_path: Path, scan_dir: ScanFn) -> None:
    # Real: `language_models.openai_compatible.zai = { api_url = "https://api.z.ai/api/coding/paas/v4";
    # available_models = [ { name = "glm-5.1"; display_name = "GLM-5.1"; … } … ] }` in a home-manager module.
    write(tmp_path, "/home/ip/.config/home-manager/zed.nix", (DATA / "zed-settings/ipsavitsky.zed.nix").read_bytes())
    _, doc = scan_dir(tmp_path)
    for name in ("glm-5.1", "glm-4.7", "glm-5-turbo"):
        model = entry(doc, "models", name=name)
        assert (model["vendor"], model["served_via"]) == ("zai", "direct"), name
    ids = {f["id"] for f in doc["findings"]}
    assert "external-model-wired:zai:direct:glm-4.7" in ids
    # The display names in the same records (`display_name = "GLM-4.7"`) echo that wiring: no unstated route.
    assert "external-model-wired:zai:unstated route:glm-4.7" not in ids
    assert "endpoint-unlisted:api.z.ai" not in ids


def test_a_config_naming_the_vendor_s_mcp_servers_is_no_session(tmp_path: Path, scan_dir: ScanFn) -> None:
    # Real opencode.json with Z.ai's remote MCP servers (`https://open.bigmodel.cn/api/mcp/zread/mcp`): the vendor's
    # API host in a tool server's URL says nothing about who served a record, and the file holds no records.
    sample = (DATA / "opencode-json/dennywu.opencode.json").read_bytes()
    write(tmp_path, "/home/dw/.config/opencode/opencode.json", sample)
    _, doc = scan_dir(tmp_path)
    assert doc["sessions"] == []
    assert "open.bigmodel.cn" not in {e["host"] for e in doc["endpoints"]}
    assert {s["name"] for s in doc["mcp_servers"]} >= {"web-reader", "web-search-prime", "zread"}

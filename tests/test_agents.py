"""The `agents` section: installed agent products, what they ship, and how each user configures them.

Package manifests and configs are real files (tests/data/agents/SOURCE.txt); the trees around them are
laid out as `npm install -g` and the products' documentation place them.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as hs

from scanner import api
from scanner.catalog import Catalog
from scanner.catalog.loader import load_catalogs
from scanner.catalog.schema import parse_catalog
from scanner.catalog.specs import CatalogError
from scanner.detectors.agent_settings_files import AgentSettingsDetector
from scanner.diff.compare import diff_inventories
from scanner.fileview.view import FileView
from scanner.inventory.document import dumps, to_document
from scanner.inventory.load import from_document
from scanner.kinds.agents import AgentConfigEvidence
from scanner.model import FileMeta
from scanner.options import ScanOptions
from scanner.targets import Walker, WalkOptions
from scanner.targets.base import FileEntry
from tests.conftest import ScanFn, entry, validate_document, write

DATA = Path(__file__).parent / "data" / "agents"
NPM = DATA / "npm"
CONFIGS = DATA / "configs"
GLOBAL = "/usr/lib/node_modules"
PASSWD = (
    "root:x:0:0:root:/root:/bin/bash\nalice:x:1000:1000::/home/alice:/bin/bash\nrobert:x:1001:1001::/home/bob:/bin/sh\n"
)


def _install(root: Path, package: str, extra: dict[str, bytes] | None = None) -> None:
    write(root, f"{GLOBAL}/{package}/package.json", (NPM / package / "package.json").read_bytes())
    for rel, data in (extra or {}).items():
        write(root, f"{GLOBAL}/{package}/{rel}", data)


def _config(root: Path, inside: str, sample: str) -> None:
    write(root, inside, (CONFIGS / sample).read_bytes())


def _agent(doc: dict[str, Any], name: str) -> dict[str, Any]:
    return entry(doc, "agents", name=name)


def _user(agent: dict[str, Any], user: str) -> dict[str, Any]:
    return next(c for c in agent["configs"] if c["user"] == user)


@pytest.fixture
def machine(tmp_path: Path) -> Path:
    """A developer machine: three products installed globally with their platform packages, configs in homes."""
    write(tmp_path, "/etc/passwd", PASSWD)
    elf = b"\x7fELF\x02\x01\x01" + b"\0" * 64 + b'M=["claude-opus-4-1","claude-sonnet-4-5","claude-haiku-4-5"]\0'
    _install(tmp_path, "@anthropic-ai/claude-code", {"bin/claude.exe": elf})
    _install(tmp_path, "@anthropic-ai/claude-code-linux-x64", {"claude": elf})
    _install(tmp_path, "@openai/codex")
    _install(
        tmp_path, "@openai/codex-linux-x64", {"vendor/x86_64-unknown-linux-musl/bin/codex": b"\x7fELF\x02" + b"\0" * 60}
    )
    _install(
        tmp_path,
        "@google/gemini-cli",
        {"bundle/chunk-5FZXKDXH.js": (NPM / "@google/gemini-cli/models-excerpt.js").read_bytes()},
    )
    _config(tmp_path, "/home/alice/.claude/settings.json", "seika139.bedrock.settings.json")
    _config(tmp_path, "/home/bob/.claude/settings.json", "di-is.settings.json")
    _config(tmp_path, "/home/alice/.codex/config.toml", "mai0313.config.toml")
    _config(tmp_path, "/home/alice/.gemini/settings.json", "mai0313.gemini.settings.json")
    _config(tmp_path, "/home/bob/.gemini/settings.json", "thefermisea.gemini.settings.json")
    return tmp_path


def test_installs_platform_packages_and_versions(machine: Path, scan_dir: ScanFn) -> None:
    _, doc = scan_dir(machine)
    assert [(a["name"], a["version"], a["ecosystem"]) for a in doc["agents"]] == [
        ("claude-code", "2.1.197", "npm"),
        ("codex", "0.171.0", "npm"),
        ("gemini-cli", "0.61.0", "npm"),
    ]
    claude = _agent(doc, "claude-code")
    assert claude["install_path"] == f"{GLOBAL}/@anthropic-ai/claude-code"
    assert claude["binaries"] == [
        f"{GLOBAL}/@anthropic-ai/claude-code-linux-x64/claude",
        f"{GLOBAL}/@anthropic-ai/claude-code/bin/claude.exe",
    ]
    codex = _agent(doc, "codex")
    assert f"{GLOBAL}/@openai/codex-linux-x64/vendor/x86_64-unknown-linux-musl/bin/codex" in codex["binaries"]
    # Platform packages are reported with their installed version and environment (issue 16 §7). The codex one
    # is an npm alias whose manifest names the main package: it must not become a second codex version.
    sdks = {(s["name"], s["version"], s["environment"]) for s in doc["sdks"]}
    assert ("@anthropic-ai/claude-code-linux-x64", "2.1.197", GLOBAL) in sdks
    assert ("@openai/codex-linux-x64", "0.171.0-linux-x64", GLOBAL) in sdks
    assert ("@openai/codex", "0.171.0-linux-x64", GLOBAL) not in sdks
    assert entry(doc, "sdks", name="@openai/codex-linux-x64")["vendor"] == "openai"


def test_ships_are_package_models_never_wired(machine: Path, scan_dir: ScanFn) -> None:
    _, doc = scan_dir(machine)
    gemini = _agent(doc, "gemini-cli")
    # The ids models.ts declares (a bundle's prefix tests like "gemini-3" are not models it calls).
    for model in (
        "gemini-2.5-pro",
        "gemini-3-pro-preview",
        "gemini-3.1-pro-preview",
        "gemini-3-flash-preview",
        "gemini-3.1-flash-lite",
        "gemma-4-31b-it",
    ):
        assert model in gemini["ships"], model
    claude = _agent(doc, "claude-code")
    assert {"claude-opus-4-1", "claude-sonnet-4-5", "claude-haiku-4-5"} <= set(claude["ships"])
    for model in gemini["ships"] + claude["ships"]:
        shipped = entry(doc, "models", name=model)
        assert shipped["wired"] is False and {loc["context"] for loc in shipped["locations"]} == {"package"}


def test_claude_code_bedrock_route_from_settings_env(machine: Path, scan_dir: ScanFn) -> None:
    _, doc = scan_dir(machine)
    claude = _agent(doc, "claude-code")
    alice = _user(claude, "alice")
    assert alice["served_via"] == "bedrock"
    assert alice["models"] == [
        "opusplan",
        "global.anthropic.claude-opus-5",
        "global.anthropic.claude-sonnet-5",
        "global.anthropic.claude-haiku-4-5-20251001-v1:0",
    ]
    assert alice["files"] == ["/home/alice/.claude/settings.json"]
    model = entry(doc, "models", name="global.anthropic.claude-sonnet-5")
    assert model["wired"] is True and model["served_via"] == "bedrock"
    # robert (home /home/bob, named by the target's /etc/passwd) selects the `sonnet` alias, direct.
    robert = _user(claude, "robert")
    assert (robert["models"], robert["served_via"]) == (["sonnet"], "direct")


def test_codex_unselected_provider_is_not_the_route(machine: Path, scan_dir: ScanFn) -> None:
    # mai0313's model_provider line is commented out: [model_providers.oai] is defined, not selected.
    _, doc = scan_dir(machine)
    alice = _user(_agent(doc, "codex"), "alice")
    assert (alice["models"], alice["served_via"], alice["base_url"]) == (["gpt-5.6-sol"], "direct", None)


def test_codex_azure_provider(tmp_path: Path, scan_dir: ScanFn) -> None:
    _install(tmp_path, "@openai/codex")
    write(
        tmp_path,
        "/home/dev/.codex/config.toml",
        'model = "gpt-5-codex"\nmodel_provider = "azure"\n\n[model_providers.azure]\nname = "Azure"\n'
        'base_url = "https://contoso.openai.azure.com/openai"\nenv_key = "AZURE_OPENAI_API_KEY"\n'
        'wire_api = "responses"\n'
        '\n[model_providers.oai]\nbase_url = "https://gateway.example.com"\n',
    )
    _, doc = scan_dir(tmp_path)
    dev = _user(_agent(doc, "codex"), "dev")
    assert (dev["served_via"], dev["base_url"]) == ("azure", "https://contoso.openai.azure.com/openai")
    assert entry(doc, "models", name="gpt-5-codex")["served_via"] == "azure"


def test_gemini_cli_settings_and_vertex_env(machine: Path, scan_dir: ScanFn) -> None:
    write(
        machine, "/home/bob/.gemini/.env", "# Vertex AI\nGOOGLE_GENAI_USE_VERTEXAI=true\nGEMINI_MODEL=gemini-2.5-pro\n"
    )
    _, doc = scan_dir(machine)
    gemini = _agent(doc, "gemini-cli")
    alice = _user(gemini, "alice")
    assert (alice["models"], alice["served_via"]) == (["auto"], "direct")  # selectedType gemini-api-key
    robert = _user(gemini, "robert")
    assert robert["mcp_servers"] == ["context7", "pal"]
    assert (robert["models"], robert["served_via"]) == (["gemini-2.5-pro"], "vertex")
    assert robert["files"] == ["/home/bob/.gemini/.env", "/home/bob/.gemini/settings.json"]


def test_gemini_selected_type_vertex(tmp_path: Path, scan_dir: ScanFn) -> None:
    _install(tmp_path, "@google/gemini-cli")
    write(
        tmp_path,
        "/root/.gemini/settings.json",
        json.dumps({"model": {"name": "gemini-2.5-flash"}, "security": {"auth": {"selectedType": "vertex-ai"}}}),
    )
    _, doc = scan_dir(tmp_path)
    root = _user(_agent(doc, "gemini-cli"), "root")
    assert (root["models"], root["served_via"]) == (["gemini-2.5-flash"], "vertex")


def test_copilot_opencode_aider_shapes(tmp_path: Path, scan_dir: ScanFn) -> None:
    _config(tmp_path, "/home/dev/.copilot/settings.json", "mai0313.copilot.settings.json")
    write(
        tmp_path,
        "/home/dev/.copilot/mcp-config.json",
        json.dumps({"mcpServers": {"github": {"type": "http", "url": "https://api.githubcopilot.com/mcp/"}}}),
    )
    _config(tmp_path, "/home/dev/.config/opencode/opencode.json", "eckii24.opencode.json")
    _config(tmp_path, "/home/ops/.config/opencode/opencode.json", "dennywu.opencode.json")
    _config(tmp_path, "/home/dev/.aider.conf.yml", "hypn4.aider.conf.yml")
    _, doc = scan_dir(tmp_path)
    copilot = _user(_agent(doc, "copilot-cli"), "dev")
    assert (copilot["models"], copilot["served_via"], copilot["mcp_servers"]) == (
        ["claude-sonnet-5"],
        "github-copilot",
        ["github"],
    )
    opencode = _agent(doc, "opencode")
    assert opencode["install_path"] is None and opencode["version"] is None  # configured, not installed
    dev = _user(opencode, "dev")
    assert dev["models"] == ["github-copilot/claude-sonnet-4.5", "github-copilot/claude-opus-4.5"]
    assert dev["mcp_servers"] == ["mcphub"]
    ops = _user(opencode, "ops")
    assert {"filesystem", "web-reader", "zread"} <= set(ops["mcp_servers"])
    # opencode's MCP servers are MCP servers of the inventory too (list commands, local/remote types).
    fs = entry(doc, "mcp_servers", name="filesystem")
    assert (fs["transport"], fs["command"]) == ("stdio", "bun x @modelcontextprotocol/server-filesystem $REPO")
    assert entry(doc, "mcp_servers", name="web-reader")["transport"] == "http"
    aider = _user(_agent(doc, "aider"), "dev")
    assert aider["models"] == ["openrouter/nousresearch/hermes-3-llama-3.1-405b:free"]
    assert aider["served_via"] == "openrouter"


def test_credentials_by_hash_only(tmp_path: Path, scan_dir: ScanFn) -> None:
    secret = "sk-ant-api03-" + "Zq9" * 30 + "AA"
    config = json.loads((CONFIGS / "mai0313.opencode.json").read_text(encoding="utf-8").replace(",\n  ]", "\n  ]"))
    config["provider"]["anthropic"]["options"]["apiKey"] = secret  # where the sample keeps {env:OPENAI_API_KEY}
    config["model"] = "anthropic/claude-sonnet-4-5"
    write(tmp_path, "/home/dev/.config/opencode/opencode.json", json.dumps(config, indent=2))
    inv, doc = scan_dir(tmp_path)
    dev = _user(_agent(doc, "opencode"), "dev")
    assert len(dev["credentials"]) == 1 and len(dev["credentials"][0]) == 64
    assert dev["credentials"][0] in {c["sha256"] for c in doc["credentials"]}
    assert dev["base_url"] == "https://api.mai0313.com" and dev["served_via"] == "direct"
    for fmt in ("json", "table", "markdown", "html", "sarif", "cyclonedx"):
        from scanner.render import render

        assert secret not in render(fmt, inv) and secret[-20:] not in render(fmt, inv), fmt


def test_user_catalog_adds_a_product_without_code(tmp_path: Path) -> None:
    catalog_file = tmp_path / "muse.toml"
    catalog_file.write_text(
        """
[catalog]
name = "muse-agents"
version = "1"

[[agents]]
id = "muse-agent"
name = "Muse Agent"
vendor = "muse"
npm = ["@muse/agent"]
binaries = ["muse"]

[[agents.settings]]
path = "~/.muse/config.json"
format = "json"
model = ["llm.model"]
base_url = ["llm.endpoint"]
mcp = ["tools.mcp"]

[[agents.routes]]
key = "llm.provider"
equals = ["bedrock"]
route = "bedrock"
""",
        encoding="utf-8",
    )
    root = tmp_path / "vm"
    write(
        root,
        "/opt/muse/node_modules/@muse/agent/package.json",
        json.dumps({"name": "@muse/agent", "version": "3.1.4", "bin": {"muse": "./dist/muse.js"}}),
    )
    write(
        root,
        "/home/kim/.muse/config.json",
        json.dumps(
            {
                "llm": {"model": "muse-3", "provider": "bedrock"},
                "tools": {"mcp": {"search": {"url": "https://s.example"}}},
            }
        ),
    )
    catalog = Catalog(load_catalogs([catalog_file]))
    inv = api.scan(Walker(str(root), WalkOptions(False, False)), api.ScanRequest(ScanOptions()), catalog)
    doc = json.loads(dumps(inv))
    validate_document(doc)
    muse = _agent(doc, "muse-agent")
    assert (muse["product"], muse["version"], muse["binaries"]) == (
        "Muse Agent",
        "3.1.4",
        ["/opt/muse/node_modules/@muse/agent/dist/muse.js"],
    )
    assert muse["configs"] == [
        {
            "user": "kim",
            "models": ["muse-3"],
            "served_via": "bedrock",
            "base_url": None,
            "mcp_servers": ["search"],
            "credentials": [],
            "files": ["/home/kim/.muse/config.json"],
        }
    ]


def test_round_trip_and_self_diff(machine: Path, scan_dir: ScanFn) -> None:
    inv, doc = scan_dir(machine)
    back = from_document(doc)
    assert back.agents == inv.agents
    assert to_document(back)["agents"] == doc["agents"]
    assert diff_inventories(inv, back).changes == ()


def test_diff_reports_a_version_change(machine: Path, scan_dir: ScanFn) -> None:
    old, _ = scan_dir(machine)
    newer = json.loads((NPM / "@openai/codex/package.json").read_text(encoding="utf-8"))
    newer["version"] = "0.172.0"
    write(machine, f"{GLOBAL}/@openai/codex/package.json", json.dumps(newer))
    new, _ = scan_dir(machine)
    changes = [c for c in diff_inventories(old, new).changes if c.section == "agents"]
    assert [(c.key, c.field, c.old, c.new) for c in changes] == [
        (f"codex@{GLOBAL}/@openai/codex", "version", "0.171.0", "0.172.0")
    ]


def test_broken_settings_file_is_a_recorded_skip(tmp_path: Path, scan_dir: ScanFn) -> None:
    write(tmp_path, "/home/dev/.codex/config.toml", 'model = "gpt-5\n[unterminated')
    _, doc = scan_dir(tmp_path)
    assert any(s["reason"] == "parse-error" and s["detail"].startswith("agents: codex") for s in doc["skipped"])
    assert doc["agents"] == []


@pytest.mark.parametrize(
    ("row", "problem"),
    [
        ({"id": "x", "name": "X"}, "names no package"),
        ({"id": "X Y", "name": "X", "npm": ["x"]}, "lowercase slug"),
        ({"id": "x", "name": "X", "npm": ["x"], "settings": [{"path": "~/.x.json", "format": "ini"}]}, "format"),
        ({"id": "x", "name": "X", "npm": ["x"], "ships": ["/abs/file"]}, "relative"),
        ({"id": "x", "name": "X", "npm": ["x"], "routes": [{"key": "a", "route": "bedrock"}]}, "equals"),
        (
            {"id": "x", "name": "X", "npm": ["x"], "settings": [{"path": "~/.x", "format": "json", "modle": ["m"]}]},
            "unknown key",
        ),
    ],
)
def test_catalog_rejects_bad_products(row: dict[str, Any], problem: str) -> None:
    with pytest.raises(CatalogError, match=problem):
        parse_catalog({"catalog": {"name": "t", "version": "1"}, "agents": [row]}, "t.toml")


def test_aider_from_a_real_wheel(tmp_path: Path, scan_dir: ScanFn) -> None:
    # As `uv tool install aider-chat` lays it out: a venv with the console script beside lib/.
    venv = "/home/dev/.local/share/uv/tools/aider-chat"
    site = f"{venv}/lib/python3.12/site-packages"
    write(tmp_path, f"{site}/aider_chat-0.86.2.dist-info/METADATA", (DATA / "pypi/METADATA").read_bytes())
    write(tmp_path, f"{site}/aider/resources/model-metadata.json", (DATA / "pypi/model-metadata.json").read_bytes())
    write(tmp_path, f"{site}/aider/resources/model-settings.yml", (DATA / "pypi/model-settings.yml").read_bytes())
    write(
        tmp_path, f"{site}/openai-2.20.0.dist-info/METADATA", "Metadata-Version: 2.3\nName: openai\nVersion: 2.20.0\n"
    )
    write(
        tmp_path,
        f"{venv}/bin/aider",
        "#!/home/dev/.local/share/uv/tools/aider-chat/bin/python\nfrom aider.main import main\n",
    )
    write(tmp_path, "/home/dev/.aider.conf.yml", "model: sonnet\nopenai-api-base: https://llm.example.com/v1\n")
    _, doc = scan_dir(tmp_path)
    aider = _agent(doc, "aider")
    assert (aider["version"], aider["ecosystem"], aider["install_path"]) == ("0.86.2", "pypi", site)
    assert aider["binaries"] == [f"{venv}/bin/aider"]
    assert {"ecosystem": "pypi", "name": "openai", "version": "2.20.0"} in aider["sdks"]
    # The `- name:` list of model-settings.yml, whole: route prefixes and ids no catalog knows stay as written;
    # model-metadata.json (a price overlay) and the weak/editor model fields are no model list.
    assert "deepseek/deepseek-reasoner" in aider["ships"]
    assert "bedrock_converse/eu.anthropic.claude-opus-4-20250514-v1:0" in aider["ships"]
    assert "openrouter/openrouter/quasar-alpha" in aider["ships"]
    assert "deepseek-reasoner" not in aider["ships"]
    dev = _user(aider, "dev")
    assert (dev["models"], dev["base_url"]) == (["sonnet"], "https://llm.example.com/v1")
    assert dev["served_via"] == "llm.example.com"  # a gateway no catalog knows: named by its host


_SCALARS = hs.one_of(hs.text(max_size=40), hs.integers(), hs.booleans(), hs.none())
_KEYS = hs.sampled_from(
    [
        "model",
        "env",
        "ANTHROPIC_MODEL",
        "CLAUDE_CODE_USE_BEDROCK",
        "mcpServers",
        "x",
        "{model}",
        "ANTHROPIC_API_KEY",
        "*",
        ".",
        "projects",
    ]
) | hs.text(max_size=8)
_DOCS = hs.recursive(
    _SCALARS, lambda inner: hs.lists(inner, max_size=4) | hs.dictionaries(_KEYS, inner, max_size=5), max_leaves=30
)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(doc=_DOCS, raw=hs.binary(max_size=200))
def test_settings_of_any_shape_never_raise(catalog: Catalog, doc: Any, raw: bytes) -> None:
    detector = AgentSettingsDetector()
    for data in (json.dumps(doc).encode(), raw):
        entry_ = FileEntry("/home/u/.claude/settings.json", len(data), 0o100644, 1000, 1000)
        view = FileView(entry_, data, catalog, lambda e: FileMeta("0644", "u:u"), lambda p, n: None)
        if not detector.needs.selects(view):
            continue
        out = list(detector.extract(view))
        for ev in out:
            if isinstance(ev, AgentConfigEvidence):
                assert all(m in data.decode("utf-8", "replace") or "\\" in json.dumps(m) for m in ev.models)
                assert all(len(h) == 64 for h in ev.credentials)


def test_codex_profile_selects_model_and_provider(tmp_path: Path, scan_dir: ScanFn) -> None:
    # Only the profile `profile` names is selected; another profile's model is not this user's selection.
    write(
        tmp_path,
        "/home/dev/.codex/config.toml",
        'profile = "work"\n\n[profiles.work]\nmodel = "gpt-5.5"\nmodel_provider = "azure"\n\n'
        '[profiles.play]\nmodel = "gpt-5.6-luna"\n\n'
        '[model_providers.azure]\nbase_url = "https://contoso.openai.azure.com/openai"\n',
    )
    _, doc = scan_dir(tmp_path)
    dev = _user(_agent(doc, "codex"), "dev")
    assert (dev["models"], dev["served_via"], dev["base_url"]) == (
        ["gpt-5.5"],
        "azure",
        "https://contoso.openai.azure.com/openai",
    )


def test_npm_global_nests_platform_packages_and_bundled_sdks(tmp_path: Path, scan_dir: ScanFn) -> None:
    # `npm install -g` puts a product's own dependencies under its directory: they belong to it.
    codex = f"{GLOBAL}/@openai/codex"
    write(tmp_path, f"{codex}/package.json", (NPM / "@openai/codex/package.json").read_bytes())
    write(
        tmp_path,
        f"{codex}/node_modules/@openai/codex-linux-x64/package.json",
        (NPM / "@openai/codex-linux-x64/package.json").read_bytes(),
    )
    gemini = f"{GLOBAL}/@google/gemini-cli"
    write(tmp_path, f"{gemini}/package.json", (NPM / "@google/gemini-cli/package.json").read_bytes())
    write(
        tmp_path,
        f"{gemini}/node_modules/@google/genai/package.json",
        json.dumps({"name": "@google/genai", "version": "1.30.0"}),
    )
    write(
        tmp_path,
        "/srv/app/node_modules/@google/genai/package.json",
        json.dumps({"name": "@google/genai", "version": "1.9.0"}),
    )  # another project's: not the product's
    _, doc = scan_dir(tmp_path)
    assert [a["install_path"] for a in doc["agents"]] == [codex, gemini]
    assert _agent(doc, "codex")["locations"][0]["path"] == f"{codex}/node_modules/@openai/codex-linux-x64/package.json"
    assert _agent(doc, "gemini-cli")["sdks"] == [{"ecosystem": "npm", "name": "@google/genai", "version": "1.30.0"}]
    platform = entry(doc, "sdks", name="@openai/codex-linux-x64")
    assert (platform["version"], platform["environment"]) == ("0.171.0-linux-x64", f"{codex}/node_modules")


def test_a_secret_in_a_model_or_server_name_never_shows(tmp_path: Path, scan_dir: ScanFn) -> None:
    secret = "sk-ant-api03-" + "Kx7" * 31 + "AA"
    write(
        tmp_path,
        "/home/dev/.claude/settings.json",
        json.dumps({"model": secret, "env": {"ANTHROPIC_MODEL": "claude-sonnet-4-5"}}),
    )
    write(tmp_path, "/home/dev/.claude.json", json.dumps({"mcpServers": {secret: {"command": "x"}}}))
    inv, doc = scan_dir(tmp_path)
    dev = _user(_agent(doc, "claude-code"), "dev")
    assert dev["models"] == ["claude-sonnet-4-5"]
    assert secret not in dumps(inv) and secret[-12:] not in json.dumps(doc["agents"])


def test_claude_code_bedrock_from_shell_exports(tmp_path: Path, scan_dir: ScanFn) -> None:
    # The exports a shell rc makes for Claude Code (real dotfile, placed as ~/.bashrc).
    _config(tmp_path, "/home/dev/.bashrc", "seika139.11_claude_envs.bash")
    _, doc = scan_dir(tmp_path)
    dev = _user(_agent(doc, "claude-code"), "dev")
    assert dev["served_via"] == "bedrock"
    assert dev["models"] == [
        "global.anthropic.claude-opus-4-6-v1",
        "global.anthropic.claude-sonnet-4-5-20250929-v1:0",
    ]


def test_a_platform_package_alone_is_no_install(tmp_path: Path, scan_dir: ScanFn) -> None:
    # A project that depends on pi's model library (or a stray platform package) has no agent product.
    write(
        tmp_path,
        "/srv/app/node_modules/@mariozechner/pi-ai/package.json",
        json.dumps({"name": "@mariozechner/pi-ai", "version": "0.73.1"}),
    )
    write(
        tmp_path,
        "/srv/app/node_modules/@mariozechner/pi-ai/dist/models.generated.js",
        'export const MODELS = {"anthropic": {"claude-sonnet-4-5": {id: "claude-sonnet-4-5"}}};\n',
    )
    _install(tmp_path, "@anthropic-ai/claude-code-linux-x64")
    _, doc = scan_dir(tmp_path)
    assert doc["agents"] == []
    assert entry(doc, "sdks", name="@anthropic-ai/claude-code-linux-x64")["version"] == "2.1.197"


def test_a_products_own_library_is_its_bundled_sdk_not_an_sdk_install(tmp_path: Path, scan_dir: ScanFn) -> None:
    # pi as `npm install -g` lays it out (real manifests): its own LLM library pi-ai and a vendor SDK in its
    # node_modules. pi-ai is part of the product (its model list is pi's `ships`), listed in the agent's sdks;
    # @anthropic-ai/sdk is an SDK install of its own as well.
    pi = f"{GLOBAL}/@mariozechner/pi-coding-agent"
    write(tmp_path, f"{pi}/package.json", (NPM / "@mariozechner/pi-coding-agent/package.json").read_bytes())
    write(tmp_path, f"{pi}/node_modules/@mariozechner/pi-ai/package.json",
          (NPM / "@mariozechner/pi-ai/package.json").read_bytes())
    write(tmp_path, f"{pi}/node_modules/@mariozechner/pi-ai/dist/models.generated.js",
          'export const MODELS = {"anthropic": {"claude-sonnet-4-5": {id: "claude-sonnet-4-5"}}};\n')
    write(tmp_path, f"{pi}/node_modules/@anthropic-ai/sdk/package.json",
          (NPM / "@anthropic-ai/sdk/package.json").read_bytes())
    _, doc = scan_dir(tmp_path)
    agent = _agent(doc, "pi")
    assert agent["version"] == "0.73.1"
    assert "claude-sonnet-4-5" in agent["ships"]
    assert {"ecosystem": "npm", "name": "@mariozechner/pi-ai", "version": "0.73.1"} in agent["sdks"]
    assert {"ecosystem": "npm", "name": "@anthropic-ai/sdk", "version": "0.91.1"} in agent["sdks"]
    names = {s["name"] for s in doc["sdks"]}
    assert "@mariozechner/pi-ai" not in names and "@anthropic-ai/sdk" in names


def test_claude_code_native_install_keeps_the_newest_version(tmp_path: Path, scan_dir: ScanFn) -> None:
    # The native installer keeps each version as an executable named by it; the newest is the install.
    versions = "/home/dev/.local/share/claude/versions"
    write(tmp_path, f"{versions}/2.1.9", b"\x7fELF\x02\x01\x01" + b"\0" * 64 + b'["claude-opus-4-1"]')
    write(
        tmp_path,
        f"{versions}/2.1.197",
        b"\x7fELF\x02\x01\x01" + b"\0" * 64 + b'["claude-opus-4-7","claude-sonnet-4-6"]',
    )
    _, doc = scan_dir(tmp_path)
    claude = _agent(doc, "claude-code")
    assert (claude["version"], claude["ecosystem"], claude["install_path"]) == ("2.1.197", "binary", versions)
    assert claude["binaries"] == [f"{versions}/2.1.197"]
    assert claude["ships"] == ["claude-opus-4-7", "claude-sonnet-4-6"]
    for model in claude["ships"]:  # the product's own executable: shipped, not wired
        assert entry(doc, "models", name=model)["wired"] is False


def test_opencode_install_script_binary(tmp_path: Path, scan_dir: ScanFn) -> None:
    # opencode.ai/install puts one executable in ~/.opencode/bin; its name says no version.
    write(tmp_path, "/home/dev/.opencode/bin/opencode", b"\x7fELF\x02\x01\x01" + b"\0" * 64 + b'm="gpt-5.5"')
    _, doc = scan_dir(tmp_path)
    opencode = _agent(doc, "opencode")
    assert (opencode["version"], opencode["ecosystem"], opencode["install_path"]) == (
        None,
        "binary",
        "/home/dev/.opencode/bin",
    )
    assert opencode["ships"] == ["gpt-5.5"]


def test_ships_past_the_read_cap_come_from_every_window(machine: Path, scan_dir: ScanFn) -> None:
    """A product's model list can sit hundreds of MB into its executable: every window of it gives its ids."""
    big = machine / "usr/lib/node_modules/@anthropic-ai/claude-code-linux-x64/claude"
    head = b"\x7fELF\x02\x01\x01" + b"\0" * 64 + b'["claude-opus-4-1"]'
    big.write_bytes(head + b"\0" * (3 << 20) + b'["claude-opus-4-8","claude-haiku-4-5"]' + b"\0" * 1024)
    _, doc = scan_dir(machine, max_file_size=1 << 20)
    ships = set(_agent(doc, "claude-code")["ships"])
    assert {"claude-opus-4-1", "claude-opus-4-8", "claude-haiku-4-5"} <= ships


def test_claude_code_aliases_resolve_to_their_base_model(machine: Path, scan_dir: ScanFn) -> None:
    # alice (seika139): "model": "opusplan" with ANTHROPIC_DEFAULT_SONNET_MODEL set: outside plan mode opusplan runs
    # the sonnet model, so that is its base. robert (di-is): "sonnet", no override: the release's built-in sonnet.
    _, doc = scan_dir(machine)
    opusplan = entry(doc, "models", name="opusplan")
    assert (opusplan["base_model"], opusplan["vendor"]) == ("global.anthropic.claude-sonnet-5", "anthropic")
    sonnet = entry(doc, "models", name="sonnet")
    assert (sonnet["base_model"], sonnet["vendor"], sonnet["family"]) == ("claude-sonnet-4-6", "anthropic", "claude")


def test_gemini_cli_s_own_aliases_resolve_to_the_model_it_runs(tmp_path: Path, scan_dir: ScanFn) -> None:
    # The real mai0313 settings: `"model": {"name": "auto"}`. Gemini CLI 0.61.0's resolveModel runs
    # gemini-3-pro-preview for `auto` (with preview access, its default); no catalog model is named `auto`.
    _config(tmp_path, "/home/mai/.gemini/settings.json", "mai0313.gemini.settings.json")
    _, doc = scan_dir(tmp_path)
    auto = entry(doc, "models", name="auto")
    assert (auto["base_model"], auto["vendor"], auto["wired"]) == ("gemini-3-pro-preview", "google", True)
    assert "model id(s) no catalog knows" not in json.dumps(doc["findings"])


def test_claude_code_model_setting_under_anthropic_model_is_not_wiring(tmp_path: Path, scan_dir: ScanFn) -> None:
    # env.ANTHROPIC_MODEL beats settings `model` (Claude Code: "ANTHROPIC_MODEL is set to … new sessions use that"):
    # the real seika139 file with that env var added selects the env's model; `opusplan` is read by no one.
    settings = json.loads((CONFIGS / "seika139.bedrock.settings.json").read_text())
    settings["env"]["ANTHROPIC_MODEL"] = "global.anthropic.claude-sonnet-5"
    write(tmp_path, "/home/alice/.claude/settings.json", json.dumps(settings, indent=2))
    _, doc = scan_dir(tmp_path)
    alice = _user(_agent(doc, "claude-code"), "alice")
    assert "opusplan" not in alice["models"] and alice["models"][0] == "global.anthropic.claude-sonnet-5"
    assert "opusplan" not in {m["name"] for m in doc["models"] if m["wired"]}


def test_provider_prefixes_name_vendor_and_route(tmp_path: Path, scan_dir: ScanFn) -> None:
    # opencode `github-copilot/claude-sonnet-4.5` (eckii24): Anthropic's model through the Copilot subscription;
    # aider `openrouter/nousresearch/hermes-3-llama-3.1-405b:free` (hypn4): Nous Research's model via OpenRouter.
    _config(tmp_path, "/home/dev/.config/opencode/opencode.json", "eckii24.opencode.json")
    _config(tmp_path, "/home/dev/.aider.conf.yml", "hypn4.aider.conf.yml")
    _, doc = scan_dir(tmp_path)
    for name, canonical in (("github-copilot/claude-sonnet-4.5", "claude-sonnet-4-5"),
                            ("github-copilot/claude-opus-4.5", "claude-opus-4-5")):  # fmt: skip
        m = entry(doc, "models", name=name)
        got = (m["canonical"], m["vendor"], m["served_via"], m["wired"])
        assert got == (canonical, "anthropic", "github-copilot", True)
    hermes = entry(doc, "models", name="openrouter/nousresearch/hermes-3-llama-3.1-405b:free")
    assert (hermes["vendor"], hermes["served_via"]) == ("nousresearch", "openrouter")


def test_pi_ollama_provider_is_self_hosted(tmp_path: Path, scan_dir: ScanFn) -> None:
    # pi docs (~/.pi/agent/settings.json defaultProvider/defaultModel; models.json providers.<id>.baseUrl): a local
    # Ollama provider. No public sample of these files exists; the shape is the documented one.
    write(tmp_path, "/home/carol/.pi/agent/settings.json",
          json.dumps({"defaultProvider": "ollama", "defaultModel": "qwen3-coder:30b", "theme": "dark"}))  # fmt: skip
    write(tmp_path, "/home/carol/.pi/agent/models.json", json.dumps({"providers": {"ollama": {
        "baseUrl": "http://localhost:11434/v1", "api": "openai-completions",
        "models": [{"id": "qwen3-coder:30b", "name": "Qwen3 Coder 30B (local)"}]}}}))  # fmt: skip
    _, doc = scan_dir(tmp_path)
    carol = _user(_agent(doc, "pi"), "carol")
    assert (carol["models"], carol["served_via"]) == (["qwen3-coder:30b"], "self-hosted")
    model = entry(doc, "models", name="qwen3-coder:30b")
    assert (model["vendor"], model["served_via"]) == ("alibaba", "self-hosted")


def test_a_native_install_in_a_version_folder_is_one_install_in_every_window(tmp_path: Path, scan_dir: ScanFn) -> None:
    """cursor-agent keeps each version in a folder named by it: the head and every later window of its executable
    name the same install, so the model list past the read cap is that install's."""
    versions = "/home/dev/.local/share/cursor-agent/versions"
    head = b"\x7fELF\x02\x01\x01" + b"\0" * 64 + b'["gpt-5.5"]'
    write(tmp_path, f"{versions}/2025.11.25-d5b3271/cursor-agent",
          head + b"\0" * (3 << 20) + b'["claude-opus-4-8","claude-haiku-4-5"]' + b"\0" * 1024)  # fmt: skip
    _, doc = scan_dir(tmp_path, max_file_size=1 << 20)
    installs = [a for a in doc["agents"] if a["name"] == "cursor-agent"]
    assert [(a["version"], a["install_path"]) for a in installs] == [("2025.11.25-d5b3271", versions)]
    assert {"gpt-5.5", "claude-opus-4-8", "claude-haiku-4-5"} <= set(installs[0]["ships"])


def test_a_settings_file_past_the_item_budget_is_read_up_to_the_cut(tmp_path: Path, scan_dir: ScanFn) -> None:
    """A long-used `~/.claude.json` holds every project's history: past the parsers' item budget its settings up to
    the cut are still the user's, and the cut is recorded once, never a detector's error."""
    projects = {f"/srv/p{i}": {"history": [{"display": "fix it"}] * 3} for i in range(40_000)}
    doc = {"model": "claude-opus-4-7", "mcpServers": {"gh": {"command": "npx", "args": ["-y", "gh-mcp"]}},
           "projects": projects}  # fmt: skip
    write(tmp_path, "/home/dev/.claude.json", json.dumps(doc))
    _, out = scan_dir(tmp_path)
    config = _user(_agent(out, "claude-code"), "dev")
    assert config["mcp_servers"] == ["gh"]
    skips = [(s["reason"], s["detail"].split(":")[0]) for s in out["skipped"] if s["path"] == "/home/dev/.claude.json"]
    assert skips == [("budget-exceeded", "JSON")]

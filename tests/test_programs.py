"""Agent products no catalog knows: a program with a command that calls models, named by its own metadata, with
the configs the generic readers find in the folders of its name. Real package metadata (tests/data/programs)."""

from __future__ import annotations

import dataclasses
import json
import shutil
from pathlib import Path

from scanner import api
from scanner.catalog import Catalog
from scanner.catalog.loader import load_catalogs
from scanner.inventory.document import dumps
from scanner.options import ScanOptions
from scanner.targets import Walker, WalkOptions
from tests.conftest import ScanFn, entry, validate_document, write

DATA = Path(__file__).parent / "data" / "programs"
NPM = "/usr/lib/node_modules"
UV = "/home/bob/.local/share/uv/tools"


def _copy(root: Path, inside: str, src: Path) -> None:
    dest = root / inside.lstrip("/")
    dest.parent.mkdir(parents=True, exist_ok=True)
    shutil.copytree(src, dest) if src.is_dir() else shutil.copy(src, dest)


def _tree(root: Path) -> None:
    _copy(root, f"{NPM}/@vibe-kit/grok-cli/package.json", DATA / "npm/grok-cli/package.json")
    write(root, f"{NPM}/@vibe-kit/grok-cli/dist/index.js", "#!/usr/bin/env node\nimport OpenAI from 'openai';\n")
    write(root, f"{NPM}/@vibe-kit/grok-cli/node_modules/openai/package.json",
          json.dumps({"name": "openai", "version": "5.10.1"}))  # fmt: skip
    site = f"{UV}/kimi-cli/lib/python3.12/site-packages"
    _copy(root, f"{site}/kimi_cli-1.52.0.dist-info", DATA / "pypi/kimi_cli-1.52.0.dist-info")
    _copy(root, f"{site}/kimi_cli/auth/platforms.py", DATA / "pypi/kimi_cli/auth/platforms.py")
    llm_site = f"{UV}/llm/lib/python3.11/site-packages"
    _copy(root, f"{llm_site}/llm-0.36.dist-info", DATA / "pypi/llm-0.36.dist-info")
    # Documented configs: Grok CLI's user settings and MCP list, Kimi CLI's config.toml.
    write(root, "/home/alice/.grok/user-settings.json", json.dumps(
        {"apiKey": "xai-" + "K7m2" * 20, "baseURL": "https://api.x.ai/v1", "defaultModel": "grok-code-fast-1"}))
    write(root, "/home/alice/.grok/settings.json", json.dumps({"mcpServers": {
        "linear": {"name": "linear", "transport": {"type": "sse", "url": "https://mcp.linear.app/sse"}}}}))
    write(root, "/home/bob/.kimi/config.toml",
          'default_model = "k2"\n\n[models.k2]\nprovider = "moonshot"\nmodel = "kimi-k2-turbo-preview"\n'
          'max_context_size = 262144\n\n[providers.moonshot]\ntype = "kimi"\nbase_url = "https://api.moonshot.ai/v1"\n'
          'api_key = ""\n')  # fmt: skip


def catalog_without(*product_ids: str) -> Catalog:
    """The built-in catalogs with some agent products left out: what the generic path alone makes of them."""
    files = [dataclasses.replace(f, agents=tuple(a for a in f.agents if a.id not in product_ids))
             for f in load_catalogs()]  # fmt: skip
    return Catalog(files)


def scan_with(catalog: Catalog, root: Path) -> dict[str, object]:
    inv = api.scan(Walker(str(root), WalkOptions(False, False)), api.ScanRequest(ScanOptions()), catalog)
    doc: dict[str, object] = json.loads(dumps(inv))
    validate_document(doc)
    return doc


def test_unknown_products_get_an_entry_from_their_own_metadata(tmp_path: Path) -> None:
    _tree(tmp_path)
    doc = scan_with(catalog_without("grok-cli", "kimi-cli", "llm"), tmp_path)
    agents = {a["name"]: a for a in doc["agents"]}  # type: ignore[attr-defined]
    grok = agents["@vibe-kit/grok-cli"]
    assert (grok["catalog"], grok["version"], grok["ecosystem"]) == ("unknown", "0.0.34", "npm")
    assert grok["binaries"] == [f"{NPM}/@vibe-kit/grok-cli/dist/index.js"]
    assert "declares LLM SDK openai" in grok["evidence"] and "installed as a tool" in grok["evidence"]
    (alice,) = grok["configs"]
    assert (alice["user"], alice["models"], alice["served_via"], alice["mcp_servers"]) == (
        "alice", ["grok-code-fast-1"], "direct", ["linear"])  # fmt: skip
    assert len(alice["credentials"]) == 1

    kimi = agents["kimi-cli"]
    assert (kimi["catalog"], kimi["version"], kimi["ecosystem"]) == ("unknown", "1.52.0", "pypi")
    assert kimi["binaries"] == [f"{UV}/kimi-cli/bin/kimi", f"{UV}/kimi-cli/bin/kimi-cli"]
    assert any(e.startswith("provider hosts in its own code: ") and "api.moonshot.ai" in e for e in kimi["evidence"])
    (bob,) = kimi["configs"]
    assert (bob["models"], bob["served_via"]) == (["k2", "kimi-k2-turbo-preview"], "direct")

    llm = agents["llm"]  # declares openai; its config folder (io.datasette.llm) is not of its name
    assert llm["version"] == "0.36" and llm["configs"] == [] and "declares LLM SDK openai" in llm["evidence"]


def test_programs_that_call_no_model_or_are_not_tools_are_no_agents(tmp_path: Path, scan_dir: ScanFn) -> None:
    write(tmp_path, f"{NPM}/prettier/package.json", json.dumps(
        {"name": "prettier", "version": "3.6.2", "bin": {"prettier": "bin/prettier.cjs"}}))  # fmt: skip
    # Declares an SDK but sits in an application's node_modules with no folder of its name: a dependency.
    write(tmp_path, "/srv/app/node_modules/summarize/package.json", json.dumps(
        {"name": "summarize", "version": "1.0.0", "bin": "cli.js", "dependencies": {"openai": "^5"}}))
    # The SDK itself has a command (`openai`): it is an SDK, never an agent product.
    write(tmp_path, f"{NPM}/openai/package.json", json.dumps(
        {"name": "openai", "version": "5.10.1", "bin": {"openai": "bin/cli"}}))
    # A user site is shared: idna's command beside an SDK the user installed there calls no model.
    site = "/home/halyard/.local/lib/python3.11/site-packages"
    for dist in ("idna-3.20.dist-info", "anthropic-2.12.0.dist-info"):
        _copy(tmp_path, f"{site}/{dist}", DATA / "pypi" / dist)
    _, doc = scan_dir(tmp_path)
    assert doc["agents"] == []
    assert {(s["name"], s["version"]) for s in doc["sdks"]} >= {("anthropic", "2.12.0")}


def test_a_catalogued_product_is_known(tmp_path: Path, scan_dir: ScanFn) -> None:
    _tree(tmp_path)
    _, doc = scan_dir(tmp_path)
    agents = {a["name"]: a for a in doc["agents"]}
    assert {"grok-cli", "kimi-cli", "llm"} <= set(agents) and "@vibe-kit/grok-cli" not in agents
    assert all(a["catalog"] == "known" and a["evidence"] == [] for a in agents.values())
    kimi = agents["kimi-cli"]
    assert (kimi["version"], kimi["configs"][0]["models"], kimi["configs"][0]["served_via"]) == (
        "1.52.0", ["k2"], "direct")  # fmt: skip


def test_a_bundle_that_names_models_calls_them(tmp_path: Path) -> None:
    """auggie bundles its client: no SDK to declare, no vendor host (it calls its own backend), but its bundle's
    model table names catalogued ids. With a config folder of its scope's name, it is an agent product."""
    pkg = f"{NPM}/@augmentcode/auggie"
    _copy(tmp_path, f"{pkg}/package.json", DATA / "npm/auggie/package.json")
    write(tmp_path, f"{pkg}/augment.mjs",
          'const MODELS={"claude-sonnet-4-6":{ctx:200000},"claude-haiku-4-5":{ctx:200000}};\n')  # fmt: skip
    write(tmp_path, "/home/carol/.augment/settings.json", json.dumps({"mcpServers": {
        "context7": {"type": "http", "url": "https://mcp.context7.com/mcp"}}}))
    doc = scan_with(catalog_without("augment"), tmp_path)
    (auggie,) = doc["agents"]  # type: ignore[misc]
    assert (auggie["name"], auggie["version"], auggie["catalog"]) == ("@augmentcode/auggie", "0.36.0", "unknown")
    assert "model ids in its own code: claude-haiku-4-5, claude-sonnet-4-6" in auggie["evidence"]
    assert auggie["configs"][0]["mcp_servers"] == ["context7"]


def test_hosts_anywhere_in_a_native_executable(tmp_path: Path) -> None:
    """A native executable compiles its API hosts in wherever its linker put them (Claude Code's sit 160 MB into
    400): every window of it is read for them, not its head only."""
    pkg = f"{NPM}/agentx"
    write(tmp_path, f"{pkg}/package.json",
          json.dumps({"name": "agentx", "version": "2.0.1", "bin": {"agentx": "bin/agentx"}}))
    body = bytearray(b"\x7fELF\x02\x01\x01" + b"\x00" * (3 << 20))
    body[-4096:-4096 + 40] = b"\x00https://api.anthropic.com/v1/messages\x00"
    write(tmp_path, f"{pkg}/bin/agentx", bytes(body))
    inv = api.scan(Walker(str(tmp_path), WalkOptions(False, False)),
                   api.ScanRequest(ScanOptions(window_size=1 << 20, max_file_size=1 << 20)), catalog_without())
    (agent,) = json.loads(dumps(inv))["agents"]
    assert (agent["name"], agent["catalog"]) == ("agentx", "unknown")
    assert "provider hosts in its own code: api.anthropic.com" in agent["evidence"]


def test_an_editor_extension_no_catalog_knows(tmp_path: Path) -> None:
    """Cline's real manifest: an extension contributing commands to its editor and declaring LLM SDKs is an agent
    product of unknown kind, named by its id, with its editor; its globalStorage folder is its config folder."""
    ext = "/home/alice/.vscode/extensions/saoudrizwan.claude-dev-4.1.13"
    _copy(tmp_path, f"{ext}/package.json", DATA / "vscode/cline/package.json")
    storage = "/home/alice/.config/Code/User/globalStorage/saoudrizwan.claude-dev/settings/cline_mcp_settings.json"
    write(tmp_path, storage, json.dumps({"mcpServers": {"notion": {"type": "streamableHttp",
                                                                   "url": "https://mcp.notion.com/mcp"}}}))
    write(tmp_path, "/home/alice/.vscode/extensions/ms-python.python-2026.1.0/package.json", json.dumps(
        {"publisher": "ms-python", "name": "python", "version": "2026.1.0",
         "contributes": {"commands": [{"command": "python.runFile", "title": "Run"}]}}))  # calls no model
    doc = scan_with(catalog_without("cline"), tmp_path)
    (cline,) = doc["agents"]  # type: ignore[misc]
    assert (cline["name"], cline["version"], cline["catalog"], cline["editor"], cline["install_path"]) == (
        "saoudrizwan.claude-dev", "4.1.13", "unknown", "vscode", ext)  # fmt: skip
    assert "installed in vscode's extensions" in cline["evidence"]
    assert any(e.startswith("declares LLM SDK ") for e in cline["evidence"])
    (alice,) = cline["configs"]
    assert (alice["user"], alice["mcp_servers"]) == ("alice", ["notion"])
    # Files of an extension are an installed package's: its manifest's example ids are no wiring.
    assert not [m for m in doc["models"] if m["wired"]]  # type: ignore[attr-defined]


def test_a_folder_named_after_the_programs_repository(tmp_path: Path) -> None:
    """Factory's `droid` package (repository Factory-AI/factory) keeps its settings in `~/.factory`: the
    repository's name names the folder when neither the package nor its command does."""
    pkg = "/home/alice/.npm-global/lib/node_modules/droid"
    _copy(tmp_path, f"{pkg}/package.json", DATA / "npm/droid/package.json")
    write(tmp_path, f"{pkg}/bin/droid", b"\x7fELF\x02\x01\x01\x00https://api.openai.com/v1\x00")
    write(tmp_path, "/home/alice/.factory/config.json", json.dumps({"custom_models": [
        {"model_display_name": "gw-mini", "model": "gpt-4.1-mini", "base_url": "https://llm-gateway.acme-corp.net/v1",
         "provider": "generic-chat-completion-api"}]}))  # fmt: skip
    doc = scan_with(catalog_without("factory-droid"), tmp_path)
    (droid,) = doc["agents"]  # type: ignore[misc]
    assert (droid["name"], droid["version"], droid["catalog"]) == ("droid", "0.215.0", "unknown")
    (alice,) = droid["configs"]
    assert "gw-mini" in alice["models"] and alice["files"] == ["/home/alice/.factory/config.json"]
    gw = next(m for m in doc["models"] if m["name"] == "gw-mini")  # type: ignore[attr-defined]
    assert (gw["base_model"], gw["served_via"]) == ("gpt-4.1-mini", "llm-gateway.acme-corp.net")


def test_each_programs_config_keeps_the_route_its_own_files_state(tmp_path: Path) -> None:
    """Two programs select the same id, one through a gateway (its settings' `ANTHROPIC_BASE_URL`), one on the
    vendor's API: the models section gives the id one route, each program's config the route of its own files."""
    for name in ("agenta", "agentb"):
        write(tmp_path, f"{NPM}/{name}/package.json", json.dumps({
            "name": name, "version": "1.0.0", "bin": {name: "cli.js"}, "dependencies": {"@anthropic-ai/sdk": "^0.60"}}))
    write(tmp_path, "/home/carol/.agenta/settings.json", json.dumps(
        {"model": "claude-opus-4-1", "env": {"ANTHROPIC_BASE_URL": "https://llm-gateway.acme-corp.net"}}))
    write(tmp_path, "/home/carol/.agentb/settings.json",
          json.dumps({"provider": "anthropic", "model": "claude-opus-4-1"}))
    doc = scan_with(catalog_without(), tmp_path)
    routes = {a["name"]: a["configs"][0]["served_via"] for a in doc["agents"]}  # type: ignore[attr-defined]
    assert routes == {"agenta": "llm-gateway.acme-corp.net", "agentb": "direct"}


def test_llm_routes_the_model_it_selects_not_another_records(tmp_path: Path, scan_dir: ScanFn) -> None:
    """llm's `extra-openai-models.yaml` gives one model its own endpoint: while the default model is a built-in
    OpenAI one, llm calls OpenAI's API; once it selects that record's alias, the record's gateway."""
    site = f"{UV}/llm/lib/python3.11/site-packages"
    _copy(tmp_path, f"{site}/llm-0.36.dist-info", DATA / "pypi/llm-0.36.dist-info")
    conf = "/home/carol/.config/io.datasette.llm"
    write(tmp_path, f"{conf}/extra-openai-models.yaml",
          '- model_id: gw-mini\n  model_name: gpt-4.1-mini\n  api_base: "https://llm-gateway.acme-corp.net/v1"\n')
    write(tmp_path, f"{conf}/default_model.txt", "gpt-4.1-mini\n")
    _, doc = scan_dir(tmp_path)
    (carol,) = entry(doc, "agents", name="llm")["configs"]
    assert (carol["models"], carol["served_via"]) == (["gpt-4.1-mini"], "direct")
    write(tmp_path, f"{conf}/default_model.txt", "gw-mini\n")
    _, doc = scan_dir(tmp_path)
    (carol,) = entry(doc, "agents", name="llm")["configs"]
    assert (carol["models"], carol["served_via"]) == (["gw-mini"], "llm-gateway.acme-corp.net")


def test_a_command_file_that_climbs_out_of_its_package_is_no_entry_point(tmp_path: Path) -> None:
    """A manifest's `bin` may name any path: one that leaves the package dir (`../`) names no file of the package."""
    write(tmp_path, f"{NPM}/chatter/package.json", json.dumps(
        {"name": "chatter", "version": "1.0.0", "dependencies": {"openai": "^5"},
         "bin": {"chatter": "./dist/cli.js", "escape": "../../../etc/passwd", "dot": "./"}}))  # fmt: skip
    doc = scan_with(catalog_without(), tmp_path)
    (chatter,) = doc["agents"]  # type: ignore[misc]
    assert chatter["binaries"] == [f"{NPM}/chatter/dist/cli.js"]

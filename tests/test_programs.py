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
from scanner.targets import DirectoryTarget, WalkOptions
from tests.conftest import ScanFn, validate_document, write

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
    inv = api.scan(DirectoryTarget(str(root), WalkOptions(False, False)), api.ScanRequest(ScanOptions()), catalog)
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
    _, doc = scan_dir(tmp_path)
    assert doc["agents"] == []


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

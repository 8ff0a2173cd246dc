"""One answer per release: a model in several spellings is one model in `diff`, and a deployment-shaped string
that nothing selects (`azure/aks` in a CLI's bundle) is no model."""

from __future__ import annotations

from pathlib import Path

from scanner.diff.changes import ChangeKind
from scanner.diff.compare import diff_inventories
from scanner.findings.modelkey import is_alias
from tests.conftest import ScanFn, write

BUNDLE = (
    b'const SERVICES={aks:"azure/aks",devops:"azure/devops",web:"azure/app-service"};\n'
    b'const MODELS=["gpt-5.5","azure/gpt-5.6-sol"];\n'
)


def test_a_new_spelling_is_a_change_of_the_model(tmp_path: Path, scan_dir: ScanFn) -> None:
    write(tmp_path / "old", "/etc/agent/config.yaml", "model: claude-opus-4-7\n")
    write(tmp_path / "new", "/etc/agent/config.yaml", "model: claude-opus-4-7\n")
    write(tmp_path / "new", "/etc/agent/bedrock.yaml", "model: us.anthropic.claude-opus-4-7-v1:0\n")
    old, _ = scan_dir(tmp_path / "old")
    new, _ = scan_dir(tmp_path / "new")
    changes = diff_inventories(old, new).changes
    models = [c for c in changes if c.section == "models"]
    assert not [c for c in models if c.kind is ChangeKind.ADDED]
    spelling = next(c for c in models if c.field == "spelling")
    assert spelling.key == "claude-opus-4-7"
    assert (spelling.old, spelling.new) == ("claude-opus-4-7", ["claude-opus-4-7", "us.anthropic.claude-opus-4-7-v1:0"])
    back = diff_inventories(new, old).changes
    assert {c.id for c in back} == {c.id for c in changes}


def test_deployment_shapes_in_code_are_no_models(tmp_path: Path, scan_dir: ScanFn) -> None:
    write(tmp_path, "/usr/lib/node_modules/@acme/cli/dist/index.js", BUNDLE)
    write(tmp_path, "/opt/tool/bin/tool", b"\x7fELF\x02\x01\x01" + b"\x00" * 64 + b"azure/aks\x00azure/devops\x00")
    write(tmp_path, "/etc/agent/models.yaml", "deployment: azure/prod-gpt\n")  # a setting selects this one
    _, doc = scan_dir(tmp_path)
    names = {m["name"] for m in doc["models"]}
    assert not names & {"azure/aks", "azure/devops", "azure/app-service"}
    assert {"gpt-5.5", "azure/gpt-5.6-sol", "azure/prod-gpt"} <= names


def test_an_install_moved_to_its_next_releases_folder_is_an_upgrade(tmp_path: Path, scan_dir: ScanFn) -> None:
    """An editor unpacks each release of an extension in a folder of its version: the upgrade is the same install
    with a new version, and what its manifest declares, unchanged, is no change at all."""
    manifest = ('{"publisher": "saoudrizwan", "name": "claude-dev", "version": "%s", "engines": {"vscode": "^1.84"},'
                ' "dependencies": {"openai": "^6.2.0", "@anthropic-ai/sdk": "^0.60.0"}}')
    for side, version in (("old", "4.1.12"), ("new", "4.1.13")):
        write(tmp_path / side, f"/home/alice/.vscode/extensions/saoudrizwan.claude-dev-{version}/package.json",
              manifest % version)  # fmt: skip
    old, _ = scan_dir(tmp_path / "old")
    new, _ = scan_dir(tmp_path / "new")
    changes = diff_inventories(old, new).changes
    assert [(c.section, c.kind, c.field, c.old, c.new) for c in changes] == [
        ("agents", ChangeKind.CHANGED, "version", "4.1.12", "4.1.13")]  # fmt: skip
    assert changes[0].key == "cline@/home/alice/.vscode/extensions/saoudrizwan.claude-dev-*"
    assert {c.id for c in diff_inventories(new, old).changes} == {c.id for c in changes}


def test_a_providers_path_before_a_family_id_is_a_spelling(tmp_path: Path, scan_dir: ScanFn) -> None:
    """An id no catalog lists but of a known family, written behind a provider's path (`qwen/qwen3.6-27b:thinking`,
    `accounts/fireworks/routers/kimi-k2p6-fast`), is that model: a new spelling is no added model, and no alias."""
    write(tmp_path / "old", "/etc/agent/config.yaml", "models: [qwen3.6-27b:thinking, kimi-k2p6-fast]\n")
    write(tmp_path / "new", "/etc/agent/config.yaml",
          "models: [qwen/qwen3.6-27b:thinking, accounts/fireworks/routers/kimi-k2p6-fast]\n")
    old, _ = scan_dir(tmp_path / "old")
    new, doc = scan_dir(tmp_path / "new")
    assert {m["name"]: m["base_model"] for m in doc["models"]} == {
        "qwen/qwen3.6-27b:thinking": "qwen3.6-27b", "accounts/fireworks/routers/kimi-k2p6-fast": "kimi-k2p6-fast"}
    assert not [m for m in new.models if is_alias(m)]
    changes = [c for c in diff_inventories(old, new).changes if c.section == "models"]
    assert {c.kind for c in changes} == {ChangeKind.CHANGED}  # the route each new spelling states, no new model
    assert {(c.key, c.new) for c in changes if c.field == "spelling"} == {
        ("qwen3.6-27b:thinking", "qwen/qwen3.6-27b:thinking"),
        ("kimi-k2p6-fast", "accounts/fireworks/routers/kimi-k2p6-fast")}

"""Editor extensions as agent products: found in each editor's extensions folder, with the editor they live in,
and configured from the editor's state (`state.vscdb`, the real VSCodium sample) and globalStorage files."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

from tests.conftest import ScanFn, write

STATE = Path(__file__).parent / "data" / "configs" / "cline-vscode-state" / "state.vscdb"


def _manifest(publisher: str, name: str, version: str) -> str:
    # The fields of a VS Code extension manifest that name it (publisher, name, version, engines).
    return json.dumps({"name": name, "displayName": name, "publisher": publisher, "version": version,
                       "engines": {"vscode": "^1.84.0"}, "main": "./dist/extension.js"})  # fmt: skip


def test_extensions_per_editor_with_their_state(tmp_path: Path, scan_dir: ScanFn) -> None:
    write(tmp_path, "/home/dev/.vscode/extensions/saoudrizwan.claude-dev-3.17.0/package.json",
          _manifest("saoudrizwan", "claude-dev", "3.17.0"))  # fmt: skip
    write(tmp_path, "/home/dev/.cursor/extensions/continue.continue-1.2.10-linux-x64/package.json",
          _manifest("Continue", "continue", "1.2.10"))  # fmt: skip
    write(tmp_path, "/home/dev/.vscode-server/extensions/github.copilot-chat-0.33.1/package.json",
          _manifest("GitHub", "copilot-chat", "0.33.1"))  # fmt: skip
    write(tmp_path, "/home/dev/.windsurf/extensions/ms-python.python-2026.1.0/package.json",
          _manifest("ms-python", "python", "2026.1.0"))  # an extension that is no agent product  # fmt: skip
    state = tmp_path / "home/dev/.config/VSCodium/User/globalStorage/state.vscdb"
    state.parent.mkdir(parents=True)
    shutil.copy(STATE, state)
    _, doc = scan_dir(tmp_path)
    agents = {(a["name"], a["editor"]): a for a in doc["agents"]}
    cline = agents[("cline", "vscode")]
    assert (cline["ecosystem"], cline["version"], cline["install_path"]) == (
        "vscode", "3.17.0", "/home/dev/.vscode/extensions/saoudrizwan.claude-dev-3.17.0")  # fmt: skip
    (dev,) = cline["configs"]  # Cline's row of the editor state: OpenRouter, the model it selected
    assert (dev["models"], dev["served_via"]) == (["google/gemini-2.5-flash-preview"], "openrouter")
    assert agents[("continue", "cursor")]["version"] == "1.2.10"
    assert agents[("github-copilot", "vscode-server")]["version"] == "0.33.1"
    assert not any(a["name"] == "ms-python.python" for a in doc["agents"])
    model = next(m for m in doc["models"] if m["name"] == "google/gemini-2.5-flash-preview")
    assert model["wired"] and model["served_via"] == "openrouter"
    assert "v10" not in json.dumps(doc)  # the encrypted secret row is never read


def test_a_state_file_that_is_no_sqlite_is_a_recorded_skip(tmp_path: Path, scan_dir: ScanFn) -> None:
    write(tmp_path, "/home/dev/.config/Code/User/globalStorage/state.vscdb", b"SQLite format 3\x00" + b"\xff" * 600)
    _, doc = scan_dir(tmp_path)
    skips = [s for s in doc["skipped"] if s["path"].endswith("state.vscdb")]
    assert skips and all(s["reason"] == "parse-error" and "state store" in s["detail"] for s in skips)
    assert doc["agents"] == []


def test_a_native_install_named_by_its_version_folder(tmp_path: Path, scan_dir: ScanFn) -> None:
    """cursor-agent's installer keeps each version in a folder of its name: one install, the newest version."""
    for version in ("2025.10.02-abc1234", "2025.11.25-d5b3271"):
        write(tmp_path, f"/home/dev/.local/share/cursor-agent/versions/{version}/cursor-agent", b"\x7fELF\x02\x01\x01")
    write(tmp_path, "/home/dev/.cursor/cli-config.json", json.dumps({"model": {"modelId": "gpt-5.5"}}))
    _, doc = scan_dir(tmp_path)
    (agent,) = [a for a in doc["agents"] if a["name"] == "cursor-agent"]
    assert (agent["version"], agent["install_path"]) == (
        "2025.11.25-d5b3271", "/home/dev/.local/share/cursor-agent/versions")  # fmt: skip
    assert (agent["configs"][0]["models"], agent["configs"][0]["served_via"]) == (["gpt-5.5"], "cursor")

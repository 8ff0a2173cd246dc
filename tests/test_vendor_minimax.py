"""MiniMax on the shape machines wire it with: Claude Code pointed at its Anthropic-compatible endpoint (the block
MiniMax's Claude Code guide and public switchers write), and a key under its variable."""

from __future__ import annotations

import json
from pathlib import Path

from tests.conftest import ScanFn, entry, write

# A well-formed fake of the format keyformats.json gives MiniMax keys (sk-api- + 119).
FAKE_KEY = "sk-api-" + "FAKE0000fake0000" * 7 + "FAKE000"


def test_claude_code_on_minimax_runs_minimax_models_there(tmp_path: Path, scan_dir: ScanFn) -> None:
    settings = {"env": {
        "ANTHROPIC_BASE_URL": "https://api.minimax.io/anthropic",
        "ANTHROPIC_AUTH_TOKEN": FAKE_KEY,
        "ANTHROPIC_MODEL": "MiniMax-M2.5",
        "ANTHROPIC_SMALL_FAST_MODEL": "MiniMax-M2.5-lightning",
    }}
    write(tmp_path, "/home/dev/.claude/settings.json", json.dumps(settings, indent=2))
    write(tmp_path, "/home/dev/.profile", f"export MINIMAX_API_KEY={FAKE_KEY}\n")
    _, doc = scan_dir(tmp_path)
    for name in ("MiniMax-M2.5", "MiniMax-M2.5-lightning"):
        model = entry(doc, "models", name=name)
        assert (model["vendor"], model["family"], model["served_via"]) == ("minimax", "minimax", "direct"), name
    gateway = entry(doc, "endpoints", host="api.minimax.io")
    assert gateway["vendor"] == "minimax"
    assert gateway["overrides"] == [{"vendor": "anthropic", "set_by": "ANTHROPIC_BASE_URL"}]
    assert "minimax-api-key" in {c["type"] for c in doc["credentials"]}
    assert FAKE_KEY not in json.dumps(doc)

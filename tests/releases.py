"""Two releases of sample_vm for the diff tests: OLD is a copy, NEW is a copy with one of each kind of change.

The changes are made on real files, as a release would make them; each is listed in RELEASE_CHANGES so the
tests can say which change they expect and that nothing else appears.
"""

from __future__ import annotations

import shutil
from pathlib import Path

from tests.conftest import SAMPLE_VM

SITE = "opt/jarvis/venv/lib/python3.11/site-packages"
ROTATED_KEY = "sk-proj-" + ("ROTATED1" * 10)[:74] + "T3BlbkFJ" + "NEWKEYNEWKEY" * 6 + "AB"


def copy_release(dest: Path) -> Path:
    # Symlinks are copied as links, so both releases keep /opt/jarvis/current and active-models.yaml.
    shutil.copytree(SAMPLE_VM, dest, symlinks=True)
    return dest


def _edit(path: Path, old: str, new: str) -> None:
    text = path.read_text(encoding="utf-8")
    assert old in text, f"{path}: {old!r} not found (sample_vm changed?)"
    path.write_text(text.replace(old, new, 1), encoding="utf-8")


def make_next_release(root: Path) -> Path:
    """Turn a copy of sample_vm into its next release."""
    models = root / "etc/jarvis/models.yaml"
    # add a model
    _edit(models, "  # --- Kimi ---\n", "  - id: gemini-3.8-flash\n    model: gemini-3.8-flash\n    provider: google\n"
          "    route: google\n\n  # --- Kimi ---\n")
    # retire one (muse-1.0 is named only here)
    _edit(models, "  - id: muse-1.0\n    model: muse-1.0\n    provider: jarvis\n    route: jarvis-router\n"
          "    status: retired\n", "")
    # bump the SDK version in its dist-info
    old_info, new_info = root / SITE / "openai-3.57.0.dist-info", root / SITE / "openai-3.58.1.dist-info"
    old_info.rename(new_info)
    _edit(new_info / "METADATA", "Version: 3.57.0", "Version: 3.58.1")
    # flip the kill switch (on -> off)
    _edit(root / "etc/jarvis/daemon.toml", "kill_switch = true", "kill_switch = false")
    # rotate a key
    (root / "etc/inference-proxy/keys/openai.key").write_text(ROTATED_KEY + "\n", encoding="utf-8")
    # move a config file: the same content at another path is not a change
    codex = root / "etc/codex"
    codex.mkdir(parents=True)
    (root / "home/agent/.codex/config.toml").rename(codex / "config.toml")
    # change an Azure deployment's base model (the deployment map and the LiteLLM proxy say it together)
    _edit(root / "etc/jarvis/azure.yaml", "muse-special: gpt-5.5", "muse-special: gpt-5.6-terra")
    _edit(root / "etc/litellm/config.yaml", "base_model: gpt-5.5", "base_model: gpt-5.6-terra")
    return root

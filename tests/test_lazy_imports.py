"""A scan loads only what its command and format use: a JSON report never imports the CycloneDX library, the
other formats' renderers or the table renderer; a scan never imports psutil (a live audit's), the container image
reader (a directory is no image) or the inventory reader and comparison (`diff`'s). Checked in a fresh
interpreter, as the command line runs."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

_PROBE = """
import json, sys
from scanner.cli import app
try:
    app(sys.argv[1:], standalone_mode=False)
except SystemExit:
    pass
print(json.dumps(sorted(sys.modules)))
"""


def _modules_after(*args: str) -> set[str]:
    root = Path(__file__).resolve().parent.parent
    done = subprocess.run([sys.executable, "-c", _PROBE, *args], capture_output=True, text=True, check=True,
                          cwd=root, env={**os.environ, "PYTHONPATH": str(root)})
    return set(json.loads(done.stdout.splitlines()[-1]))


def test_json_scan_loads_only_the_json_renderer(tmp_path: Path) -> None:
    tree = tmp_path / "vm"
    (tree / "etc").mkdir(parents=True)
    (tree / "etc" / "agent.env").write_text("OPENAI_MODEL=gpt-4o\n")
    out = tmp_path / "report.json"
    loaded = _modules_after("scan", str(tree), "-f", "json", "-q", "-o", str(out), "--jobs", "1")
    assert json.loads(out.read_text())["schema"].startswith("modelcensus/inventory")
    assert "scanner.render.json" in loaded
    unused = {"scanner.render.cyclonedx", "scanner.render.html", "scanner.render.spdx", "scanner.render.sarif",
              "scanner.render.markdown", "scanner.render.table", "cyclonedx", "psutil", "scanner.live.snapshot",
              "scanner.targets.container", "scanner.targets.memfs", "scanner.diff.compare",
              "scanner.inventory.load"}
    assert not unused & loaded


def test_cyclonedx_scan_loads_its_renderer(tmp_path: Path) -> None:
    tree = tmp_path / "vm"
    tree.mkdir()
    out = tmp_path / "bom.json"
    loaded = _modules_after("scan", str(tree), "-f", "cyclonedx", "-q", "-o", str(out), "--jobs", "1")
    assert {"scanner.render.cyclonedx", "cyclonedx"} <= loaded
    assert json.loads(out.read_text())["bomFormat"] == "CycloneDX"


def test_a_format_whose_library_is_missing_fails_before_the_scan(tmp_path: Path) -> None:
    """The renderer is loaded when the format is chosen: a missing library is one line, before any file is read."""
    root = Path(__file__).resolve().parent.parent
    hidden = "import sys; sys.modules['cyclonedx'] = None\n" + _PROBE
    missing = tmp_path / "no-such-tree"
    env = {**os.environ, "PYTHONPATH": str(root)}
    done = subprocess.run([sys.executable, "-c", hidden, "scan", str(missing), "-f", "cyclonedx", "-q"],
                          capture_output=True, text=True, check=True, cwd=root, env=env)
    assert "the cyclonedx format cannot be loaded" in done.stderr
    assert "no such" not in done.stderr and "Traceback" not in done.stderr

"""A scan loads only what its command and format use: a JSON report never imports the CycloneDX library, the
other formats' renderers or the table renderer; a scan never imports psutil or the process snapshot (a live
audit's), the container image reader (a directory is no image) or the inventory reader, comparison and change
renderers (`diff`'s). Checked in a fresh interpreter, as the command line runs."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

_ROOT = Path(__file__).resolve().parent.parent
_PROBE = """
import json, sys
from scanner.cli import app
try:
    code = app(sys.argv[1:], standalone_mode=False)
except SystemExit as exc:
    code = exc.code
print(json.dumps({"exit": code or 0, "modules": sorted(sys.modules)}))
"""
# Packages a JSON scan of a directory needs little of: every module in them but those the scan uses stays unloaded,
# one added later too.
_LAZY_PACKAGES = ("render", "live", "diff", "diffrender", "targets/container")
_JSON_SCAN_USES = {"scanner.render", "scanner.render.json", "scanner.render._view", "scanner.render._incomplete",
                   "scanner.live", "scanner.live.environ", "scanner.live.scope", "scanner.diff", "scanner.diff.changes",
                   "scanner.diffrender"}
# Single modules of packages the scan uses most of, and libraries.
_JSON_SCAN_NEVER = {"cyclonedx", "psutil", "scanner.targets.memfs", "scanner.inventory.load"}


def _modules_under(folder: str) -> set[str]:
    return {".".join(p.relative_to(_ROOT).with_suffix("").parts).removesuffix(".__init__")
            for p in (_ROOT / "scanner" / folder).rglob("*.py")}


def _probe(*args: str, prelude: str = "") -> tuple[object, set[str], str]:
    """The command line run in a fresh interpreter: (its exit code, the modules it loaded, its stderr)."""
    done = subprocess.run([sys.executable, "-c", prelude + _PROBE, *args], capture_output=True, text=True,
                          cwd=_ROOT, env={**os.environ, "PYTHONPATH": str(_ROOT)})
    assert done.returncode == 0, f"the probe itself failed (exit {done.returncode}):\n{done.stderr}"
    last = json.loads(done.stdout.splitlines()[-1])
    return last["exit"], set(last["modules"]), done.stderr


def _modules_after(*args: str) -> set[str]:
    code, loaded, stderr = _probe(*args)
    assert code == 0, f"the command exited {code}:\n{stderr}"
    return loaded


def test_json_scan_loads_only_the_json_renderer(tmp_path: Path) -> None:
    tree = tmp_path / "vm"
    (tree / "etc").mkdir(parents=True)
    (tree / "etc" / "agent.env").write_text("OPENAI_MODEL=gpt-4o\n")
    out = tmp_path / "report.json"
    loaded = _modules_after("scan", str(tree), "-f", "json", "-q", "-o", str(out), "--jobs", "1")
    assert json.loads(out.read_text())["schema"].startswith("modelcensus/inventory")
    assert "scanner.render.json" in loaded
    unused = (set().union(*map(_modules_under, _LAZY_PACKAGES)) - _JSON_SCAN_USES) | _JSON_SCAN_NEVER
    assert {"scanner.render.table", "scanner.live.snapshot", "scanner.diff.compare"} <= unused
    assert not unused & loaded, sorted(unused & loaded)


def test_cyclonedx_scan_loads_its_renderer(tmp_path: Path) -> None:
    tree = tmp_path / "vm"
    tree.mkdir()
    out = tmp_path / "bom.json"
    loaded = _modules_after("scan", str(tree), "-f", "cyclonedx", "-q", "-o", str(out), "--jobs", "1")
    assert {"scanner.render.cyclonedx", "cyclonedx"} <= loaded
    assert json.loads(out.read_text())["bomFormat"] == "CycloneDX"


def test_a_format_whose_library_is_missing_fails_before_the_scan(tmp_path: Path) -> None:
    """The renderer is loaded when the format is chosen: a missing library is one line, before any file is read."""
    missing = tmp_path / "no-such-tree"
    code, _, stderr = _probe("scan", str(missing), "-f", "cyclonedx", "-q",
                             prelude="import sys; sys.modules['cyclonedx'] = None\n")
    assert code == 2, stderr
    assert "the cyclonedx format cannot be loaded" in stderr
    assert "no such" not in stderr and "Traceback" not in stderr

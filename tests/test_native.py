"""The mypyc build of the session modules: which build runs is told, and the sources can always be forced."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from scanner import native
from scanner.cli import version_text

REPO = Path(__file__).resolve().parent.parent


def test_sources_finder_loads_the_py_file_of_a_compiled_module_only() -> None:
    finder = native._Sources()
    spec = finder.find_spec("scanner.sessions.shape")
    assert spec is not None and spec.origin == str(REPO / "scanner/sessions/shape.py")
    assert finder.find_spec("scanner.cli") is None


def test_every_compiled_module_has_its_source() -> None:
    assert all(native.source_of(m).is_file() for m in native.COMPILED)


def test_version_says_which_build_runs() -> None:
    first = version_text().splitlines()[0]
    assert "(compiled (mypyc" in first or "(pure Python" in first


def test_pure_python_can_be_forced() -> None:
    code = "import scanner.sessions.shape as s; from scanner import native; print(native.build(), s.__file__)"
    env = {**os.environ, "MODELCENSUS_PURE": "1", "PYTHONPATH": str(REPO)}
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True).stdout
    assert out.startswith("pure Python") and out.strip().endswith("shape.py")

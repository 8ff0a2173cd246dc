"""Every script `make bench` and the README name loads: its imports of the other scripts resolve (a helper moved
from one bench module to another once left `make bench` failing at its images step)."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

import pytest

SCRIPTS = Path(__file__).resolve().parent.parent / "scripts"


@pytest.mark.parametrize("path", sorted(SCRIPTS.glob("*.py")), ids=lambda p: p.name)
def test_each_script_loads_with_a_main(path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.syspath_prepend(str(SCRIPTS))
    spec = importlib.util.spec_from_file_location(f"script_{path.stem}", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    monkeypatch.setitem(sys.modules, spec.name, module)
    spec.loader.exec_module(module)  # scripts run their work under `if __name__ == "__main__"` only
    assert callable(getattr(module, "main", None)) or path.stem in _LIBRARIES, f"{path.name} has no main()"


# Modules the bench scripts share, with no command of their own.
_LIBRARIES = {"bench_measure", "bench_tree", "sizes"}

"""Compile the hot session modules (scanner/native.py: COMPILED) with mypyc, in place beside their sources.

    python scripts/build_native.py [--clean]

Never fails a build: without mypyc or a C compiler it says so and the modules stay pure Python. The extensions
(and mypyc's shared library at the repository's top) are ignored by git; `--clean` removes them. The build runs
in a scratch directory: setuptools would otherwise read this project's pyproject.toml, and its C and object
files stay out of the tree. It records each source's hash (scanner/_native.json) so a stale build is not loaded.
"""

from __future__ import annotations

import json
import os
import shutil
import sys
import sysconfig
import tempfile
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from scanner import native  # noqa: E402


def built_files() -> list[Path]:
    """Every extension of a compiled module, mypyc's shared libraries and the manifest."""
    out = [p for p in REPO.glob("*__mypyc*") if p.is_file()]
    for module in native.COMPILED:
        stem = native.source_of(module).with_suffix("")
        out += [p for p in stem.parent.glob(stem.name + ".*") if p.suffix in (".so", ".pyd")]
    return out + [native.MANIFEST] * native.MANIFEST.is_file()


def clean() -> None:
    for path in built_files():
        path.unlink()


def compiler() -> str | None:
    """The C compiler setuptools would call, when it is installed."""
    cc = (sysconfig.get_config_var("CC") or "cc").split()[0]
    return shutil.which(cc) or shutil.which(os.environ.get("CC", "cc"))


def build() -> bool:
    try:
        from mypyc.build import mypycify
        from setuptools import Distribution
    except ImportError as exc:
        print(f"build_native: pure Python ({exc.name} not installed)")
        return False
    if compiler() is None:
        print("build_native: pure Python (no C compiler)")
        return False
    clean()
    sources = [str(native.source_of(m)) for m in native.COMPILED]
    here = os.getcwd()
    with tempfile.TemporaryDirectory() as scratch:
        try:
            os.chdir(scratch)
            modules = mypycify(sources, opt_level="3")
            dist = Distribution({"name": "modelcensus-native", "ext_modules": modules})
            lib = Path(scratch, "lib")
            dist.script_args = ["build_ext", f"--build-lib={lib}", f"--build-temp={scratch}/temp"]
            dist.parse_command_line()
            dist.run_commands()
            for built in lib.rglob("*"):
                if built.suffix in (".so", ".pyd"):
                    shutil.copy2(built, REPO / built.relative_to(lib))
        except (Exception, SystemExit) as exc:  # noqa: BLE001 - a failed compile leaves pure Python
            os.chdir(here)
            clean()
            print(f"build_native: pure Python (compile failed: {exc})")
            return False
        os.chdir(here)
    native.MANIFEST.write_text(json.dumps({m: native.digest(native.source_of(m)) for m in native.COMPILED}))
    print(f"build_native: compiled {len(native.COMPILED)} session modules")
    return True


def main() -> None:
    if "--clean" in sys.argv[1:]:
        clean()
    else:
        build()


if __name__ == "__main__":
    main()

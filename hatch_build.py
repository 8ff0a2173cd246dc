"""The wheel's build hook: the session modules of scanner/native.py compiled with mypyc when the build has mypyc,
setuptools and a C compiler (`pip wheel --no-build-isolation .` from the dev venv), a pure-Python wheel otherwise.
Editable installs stay pure here: `make native` compiles in place."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

from hatchling.builders.hooks.plugin.interface import BuildHookInterface


class NativeBuildHook(BuildHookInterface):  # type: ignore[type-arg]
    def initialize(self, version: str, build_data: dict[str, Any]) -> None:
        if version == "editable":
            return
        sys.path.insert(0, str(Path(self.root) / "scripts"))
        import build_native

        if not build_native.build():
            return
        build_data["pure_python"] = False
        build_data["infer_tag"] = True  # the wheel names the interpreter and platform the extensions are for
        for path in build_native.built_files():
            build_data["force_include"][str(path)] = str(path.relative_to(build_native.REPO))

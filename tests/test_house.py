"""The house's size and naming rules: modules <= 400 lines, functions <= 60, the builder <= 200 lines and the
pipeline <= 150 (scripts/sizes.py), and no two classes or modules with one name.

What is over a limit today is listed below with its size: the lists only shrink. A new offender, or a listed one
that grows, fails here by name.
"""

from __future__ import annotations

import ast
import importlib.util
from collections import Counter, defaultdict
from types import ModuleType

from tests.conftest import REPO

# Over the limits today; each cut removes its line.
MODULES_OVER: dict[str, int] = {}
FUNCTIONS_OVER = {
}
# Classes that share a name today (none: keep it so).
CLASSES_TWICE: set[str] = set()
# Module names that are a family on purpose: a package's contract (`base`), the format registries of render/ and
# diffrender/ (keyed by module name); and the commands of cli/, one module per command named by it (below).
MODULE_FAMILIES = {"__init__.py", "base.py", "json.py", "markdown.py", "table.py"}
# Named twice today (none: keep it so).
MODULES_TWICE: dict[str, set[str]] = {}


def _sizes() -> ModuleType:
    spec = importlib.util.spec_from_file_location("sizes", REPO / "scripts" / "sizes.py")
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_no_module_or_function_grows_past_the_limits() -> None:
    found = _sizes().offenders(REPO)
    assert not found["caps"], f"builder.py must stay <= 200 lines and pipeline.py <= 150: {found['caps']}"
    assert not found["unparsable"], found["unparsable"]
    for rel, lines in found["modules"]:
        assert rel in MODULES_OVER, f"{rel} is {lines} lines (the limit is 400): split it"
        assert lines <= MODULES_OVER[rel], f"{rel} grew to {lines} lines; it was {MODULES_OVER[rel]}"
    for where, _, lines in found["functions"]:
        assert where in FUNCTIONS_OVER, f"{where} is {lines} lines (the limit is 60): cut it"
        assert lines <= FUNCTIONS_OVER[where], f"{where} grew to {lines} lines; it was {FUNCTIONS_OVER[where]}"


def test_no_two_classes_share_a_name() -> None:
    names = Counter(  # nested and private classes too: a name says what a thing is wherever it is defined
        node.name
        for path in (REPO / "scanner").rglob("*.py")
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8")))
        if isinstance(node, ast.ClassDef)
    )
    twice = {name for name, n in names.items() if n > 1}
    assert twice <= CLASSES_TWICE, f"classes named twice: {sorted(twice - CLASSES_TWICE)}"


def _command_modules() -> set[str]:
    """The modules of cli/ that are a command of the command line (`cli/scan.py` is `modelcensus scan`)."""
    from scanner.cli import app

    names = {c.name for c in app.registered_commands} | {g.name for g in app.registered_groups}
    return {f"scanner/cli/{name}.py" for name in names if name and (REPO / "scanner/cli" / f"{name}.py").exists()}


def test_module_names_repeat_only_in_their_families() -> None:
    commands = _command_modules()
    assert {"scanner/cli/scan.py", "scanner/cli/sessions.py", "scanner/cli/fleet.py"} <= commands
    holders: dict[str, set[str]] = defaultdict(set)
    for path in (REPO / "scanner").rglob("*.py"):
        rel = path.relative_to(REPO).as_posix()
        if rel not in commands and path.name not in MODULE_FAMILIES:
            holders[path.name].add(rel)
    twice = {name: sorted(paths) for name, paths in holders.items()
             if len(paths) > 1 and not paths <= MODULES_TWICE.get(name, set())}
    assert not twice, f"modules named twice (rename one so its name says what it is): {twice}"

#!/usr/bin/env python3
"""Size limits of the house: modules <= 400 lines, functions <= 60 lines, plus named caps
(scanner/inventory/builder.py <= 200, scanner/pipeline.py <= 150).

Usage:  scripts/sizes.py [REPO]            report every offender, exit 1 if any
        scripts/sizes.py [REPO] --quiet    only the exit status and a one-line count
        scripts/sizes.py [REPO] --json     machine-readable offenders

A module's size is its physical line count (wc -l). A function's size runs from its first decorator (or `def`)
to its last line (ast end_lineno), nested functions and methods counted on their own as well as inside their
parent. Only scanner/**/*.py is measured (tests, eval and scripts are not part of the house's limits).
tests/test_house.py imports `offenders`: no new offender, and no listed one growing.
"""
from __future__ import annotations

import ast
import json
import sys
from pathlib import Path

MAX_MODULE = 400
MAX_FUNCTION = 60
NAMED_CAPS = {"scanner/inventory/builder.py": 200, "scanner/pipeline.py": 150}


def _functions(tree: ast.AST):
    """(qualified name, first line, last line) of every def/async def, nested ones included."""
    out = []

    def visit(node: ast.AST, prefix: str) -> None:
        for child in ast.iter_child_nodes(node):
            if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef)):
                first = min([child.lineno] + [d.lineno for d in child.decorator_list])
                name = f"{prefix}{child.name}"
                out.append((name, first, child.end_lineno or child.lineno))
                visit(child, name + ".")
            elif isinstance(child, ast.ClassDef):
                visit(child, f"{prefix}{child.name}.")
            else:
                visit(child, prefix)

    visit(tree, "")
    return out


def offenders(repo: Path) -> dict[str, list]:
    modules, functions, caps, unparsable = [], [], [], []
    for path in sorted((repo / "scanner").rglob("*.py")):
        rel = path.relative_to(repo).as_posix()
        text = path.read_text(encoding="utf-8")
        lines = text.count("\n") + (0 if text.endswith("\n") or not text else 1)
        if lines > MAX_MODULE:
            modules.append((rel, lines))
        cap = NAMED_CAPS.get(rel)
        if cap is not None and lines > cap:
            caps.append((rel, lines, cap))
        try:
            tree = ast.parse(text, rel)
        except SyntaxError as exc:  # a file mid-merge (conflict markers): say so, never pass it silently
            unparsable.append((rel, exc.lineno or 0))
            continue
        for name, first, last in _functions(tree):
            size = last - first + 1
            if size > MAX_FUNCTION:
                functions.append((f"{rel}:{name}", first, size))
    for rel, cap in NAMED_CAPS.items():
        if not (repo / rel).exists():
            caps.append((rel, 0, cap))  # moved away: the cap names a file that must exist
    return {"modules": sorted(modules, key=lambda m: -m[1]), "functions": sorted(functions, key=lambda f: -f[2]),
            "caps": caps, "unparsable": unparsable}


def main(argv: list[str]) -> int:
    args = [a for a in argv if not a.startswith("--")]
    repo = Path(args[0] if args else ".").resolve()
    found = offenders(repo)
    total = sum(len(v) for v in found.values())
    if "--json" in argv:
        print(json.dumps(found, indent=1))
    elif "--quiet" in argv:
        print(f"{total} size offender(s) in {repo}")
    else:
        print(f"modules over {MAX_MODULE} lines ({len(found['modules'])}):")
        for rel, n in found["modules"]:
            print(f"  {n:5d}  {rel}")
        print(f"functions over {MAX_FUNCTION} lines ({len(found['functions'])}):")
        for where, line, n in found["functions"]:
            print(f"  {n:5d}  {where}  (line {line})")
        for rel, line in found["unparsable"]:
            print(f"  not Python (line {line}): {rel}")
        print(f"named caps ({len(found['caps'])}):")
        for rel, n, cap in found["caps"]:
            print(f"  {n:5d} > {cap}  {rel}" if n else f"  missing  {rel} (cap {cap})")
    return 1 if total else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

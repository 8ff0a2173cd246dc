"""Compile the shipped catalogs' search rules ahead of any scan, in place (`scanner/_rules/`, ignored by git).

    python scripts/build_rules.py [--clean]

Each set of patterns a scan may compile (`catalog.matcher.rule_sets`) is compiled by YARA-X and kept under the
hash of its source (`scanner/catalog/prebuilt.py`); a scan loads it in the stead of compiling (~0.4 s of start-up
to ~20 ms). Sets kept for an older catalog are removed. Never fails a build: a set that will not compile or keep
is compiled by each scan, as without this step.
"""

from __future__ import annotations

import sys
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from scanner.catalog import load, prebuilt  # noqa: E402
from scanner.catalog.matcher import compile_set, rule_sets  # noqa: E402


def clean() -> None:
    for path in prebuilt.RULES_DIR.glob(f"*{prebuilt.SUFFIX}"):
        path.unlink()


def build() -> int:
    rules = load().search_rules()
    kept: set[Path] = set()
    for numbers in rule_sets(rules):
        source, compiled = compile_set(rules, numbers)
        kept.add(prebuilt.save(source, compiled))
    for path in prebuilt.RULES_DIR.glob(f"*{prebuilt.SUFFIX}"):
        if path not in kept:
            path.unlink()  # an older catalog's
    return len(kept)


def main() -> None:
    if "--clean" in sys.argv[1:]:
        clean()
        return
    try:
        count = build()
    except Exception as exc:  # never fails the install: each scan compiles its rules instead
        print(f"search rules not compiled ahead ({type(exc).__name__}: {exc}); each scan compiles them")
        return
    print(f"search rules compiled ahead: {count} sets in {prebuilt.RULES_DIR.relative_to(REPO)}")


if __name__ == "__main__":
    main()

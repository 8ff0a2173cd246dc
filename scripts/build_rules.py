"""Parse the shipped catalogs and compile their search rules ahead of any scan, in place (`scanner/_rules/`,
ignored by git).

    python scripts/build_rules.py          (`make clean` removes what it made)

The catalogs are parsed and kept with what they were parsed from and by; each set of patterns a scan may
compile (`catalog.matcher.rule_sets`) is compiled by YARA-X and kept under the hash of its source
(`scanner/catalog/prebuilt.py`). A scan loads them in the stead of parsing and compiling (~0.7 s of start-up to
~30 ms). Sets kept for an older catalog are removed. Never fails a build: what will not keep is parsed or
compiled by each scan, as without this step.
"""

from __future__ import annotations

import sys
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from scanner.catalog import Catalog, prebuilt  # noqa: E402
from scanner.catalog.loader import builtin_dir, catalog_paths, read_builtin  # noqa: E402
from scanner.catalog.matcher import compile_set, rule_sets, set_source  # noqa: E402


def build() -> int:
    paths = catalog_paths(builtin_dir())
    rules = Catalog(prebuilt.keep_parsed(paths, lambda: read_builtin(paths))).search_rules()
    kept: set[Path] = set()
    for numbers in rule_sets(rules):
        source = set_source(rules, numbers)
        kept.add(prebuilt.keep_rules(source, compile_set(rules, numbers, source)))
    for path in prebuilt.RULES_DIR.glob(f"*{prebuilt.SUFFIX}"):
        if path not in kept:
            path.unlink()  # an older catalog's
    return len(kept)


def main() -> None:
    try:
        count = build()
    except Exception as exc:  # never fails the install: each scan compiles its rules instead
        print(f"search rules not compiled ahead ({type(exc).__name__}: {exc}); each scan compiles them")
        return
    print(f"catalogs parsed and search rules compiled ahead: {count} rule sets in "
          f"{prebuilt.RULES_DIR.relative_to(REPO)}")


if __name__ == "__main__":
    main()

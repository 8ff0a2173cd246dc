"""Finding and loading catalog files, and checking them (schema, patterns, examples)."""

from __future__ import annotations

import re
import sys
from collections.abc import Iterable
from pathlib import Path

from scanner.catalog import prebuilt
from scanner.catalog.globs import glob_regex
from scanner.catalog.matcher import searchable
from scanner.catalog.regexwidth import longest
from scanner.catalog.schema import parse_catalog
from scanner.catalog.sections import declared
from scanner.catalog.specs import CatalogError, CatalogFile, Examples, Family
from scanner.vocab import PSEUDO_VENDORS

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover
    import tomli as tomllib

BUILTIN_ORIGIN = "builtin"


def builtin_dir() -> Path:
    """The catalogs shipped with modelcensus: inside the wheel, or the repository's `catalogs/`."""
    here = Path(__file__).resolve().parent.parent
    packaged = here / "_catalogs"
    return packaged if packaged.is_dir() else here.parent / "catalogs"


def catalog_paths(location: Path) -> list[Path]:
    if location.is_dir():
        return sorted(location.glob("*.toml"))
    if location.is_file():
        return [location]
    raise CatalogError(f"{location}: no such catalog file or directory")


def load_file(path: Path, origin: str) -> CatalogFile:
    try:
        with path.open("rb") as fh:
            data = tomllib.load(fh)
    except tomllib.TOMLDecodeError as exc:
        raise CatalogError(f"{path}: not valid TOML: {exc}") from None
    except OSError as exc:
        raise CatalogError(f"{path}: cannot read: {exc.strerror}") from None
    return parse_catalog(data, origin)


def builtin_catalogs() -> list[CatalogFile]:
    """The shipped catalogs, as the install parsed them ahead (`prebuilt`), else read now."""
    paths = catalog_paths(builtin_dir())
    return _parsed_ahead(paths) or read_builtin(paths)


def parsed_ahead() -> bool:
    """Whether the shipped catalogs load as the install parsed them (for `modelcensus version`)."""
    return _parsed_ahead(catalog_paths(builtin_dir())) is not None


def _parsed_ahead(paths: list[Path]) -> list[CatalogFile] | None:
    kept = prebuilt.parsed(paths)
    if isinstance(kept, list) and kept and all(isinstance(f, CatalogFile) for f in kept):
        return kept
    return None


def read_builtin(paths: list[Path]) -> list[CatalogFile]:
    return [load_file(p, BUILTIN_ORIGIN) for p in paths]


def load_catalogs(extra: Iterable[Path] = (), builtin: bool = True) -> list[CatalogFile]:
    """The built-in catalogs, then each user catalog; names must be unique."""
    files: list[CatalogFile] = []
    if builtin:
        files += builtin_catalogs()
    for location in extra:
        files += [load_file(p, str(p)) for p in catalog_paths(location)]
    seen: dict[str, str] = {}
    for cat in files:
        if cat.name in seen:
            raise CatalogError(f"catalog name {cat.name!r} is defined twice ({seen[cat.name]}, {cat.origin})")
        seen[cat.name] = cat.origin
    return files


# --- example and pattern checks ----------------------------------------------------------------


def searchable_patterns(cat: CatalogFile) -> list[tuple[str, str]]:
    """(label, pattern) of every pattern that is searched for in bytes."""
    out = [(f"family {f.id}", f.pattern) for f in cat.families]
    out += [(f"hosted form {h.route} {h.form}", h.find) for h in cat.hosted_forms if h.find]
    out += [(f"host {h.pattern}", h.pattern) for h in cat.hosts]
    out += [(f"credential {c.type}", c.pattern) for c in cat.credentials]
    out += [(f"kill switch {k.pattern}", k.pattern) for k in cat.kill_switches]
    out += [(f"source signature {s.name}", s.pattern) for s in cat.source_signatures]
    out += [(f"code path {c.pattern}", searchable(c.pattern)) for c in cat.code_paths]
    return out


def _family_lengths(origin: str, f: Family) -> list[str]:
    """A family's pattern bounds its ids' length (or states one), and no example is longer."""
    problems = []
    if f.max_length is None and longest(f.pattern) is None:
        problems.append(f"{origin}: family {f.id}: the pattern bounds no id length: state max_length")
    return problems + [
        f"{origin}: family {f.id}: example {s!r} is longer than the family's longest id ({f.longest})"
        for s in f.examples.match
        if len(s) > f.longest
    ]


def check_examples(cat: CatalogFile) -> list[str]:
    """Every way the catalog's patterns disagree with their own examples; empty when all is well."""
    problems: list[str] = []

    def check(label: str, pattern: str, ex: Examples, whole: bool = False) -> None:
        try:
            rx = re.compile(pattern)
        except re.error as exc:
            problems.append(f"{cat.origin}: {label}: bad regex: {exc}")
            return
        if not ex.match:
            problems.append(f"{cat.origin}: {label}: no `match` examples")
        for s in ex.match:
            if not rx.fullmatch(s):
                problems.append(f"{cat.origin}: {label}: does not match example {s!r}")
        for s in ex.no_match:
            hit = rx.fullmatch(s) if whole else rx.search(s)
            if hit:
                problems.append(f"{cat.origin}: {label}: matches no_match example {s!r}")

    for f in cat.families:
        check(f"family {f.id}", f.pattern, f.examples)
        problems += _family_lengths(cat.origin, f)
    for h in cat.hosted_forms:
        check(f"hosted form {h.route} {h.form}", h.form, h.examples, whole=True)
        if h.find:
            for s in h.examples.match:
                if not re.search(h.find, s):
                    problems.append(f"{cat.origin}: hosted form {h.form}: find does not locate {s!r}")
    for hs in cat.hosts:
        check(f"host {hs.pattern}", hs.pattern, hs.examples)
    for c in cat.credentials:
        check(f"credential {c.type}", c.pattern, c.examples)
    for k in cat.kill_switches:
        check(f"kill switch {k.pattern}", k.pattern, k.examples)
    for fp in cat.fingerprints:
        # Fingerprints are matched against whole values (never searched for in bytes): fullmatch both ways.
        check(f"fingerprint {fp.id}", fp.pattern, fp.examples, whole=True)
    for p in cat.processes:
        check(f"process {p.role} {p.pattern}", p.pattern, p.examples)
    for t in cat.tasks:
        check(f"task {t.task} {t.pattern}", t.pattern, t.examples, whole=True)
    for cp in cat.code_paths:
        check(f"code path {cp.pattern}", cp.pattern, cp.examples)
    for sig in cat.source_signatures:
        check(f"source signature {sig.name}", sig.pattern, sig.examples)
    if cat.placeholders:
        check("placeholders", cat.placeholders.pattern, cat.placeholders.examples)
    for ac in cat.agent_configs:
        # Path globs are matched against whole inside paths, never searched for: both ways whole.
        check(f"agent config {ac.tool} {ac.path}", glob_regex(ac.path).pattern, ac.examples, whole=True)
        for s in (*ac.examples.match, *ac.examples.no_match):
            if not s.startswith("/"):
                problems.append(f"{cat.origin}: agent config {ac.tool}: example {s!r} is not an absolute path")
    for section in declared():
        if section.name in cat.sections:
            problems += section.check_examples(cat.origin, cat.sections[section.name])
    return problems


def check_references(files: list[CatalogFile]) -> list[str]:
    """Cross-file consistency: model families exist, ids and aliases are not claimed twice."""
    problems: list[str] = []
    families = {f.id for cat in files for f in cat.families}
    vendors = {vid for cat in files for vid, _ in cat.vendors} | set(PSEUDO_VENDORS)
    for cat in files:
        for fp in cat.fingerprints:
            for vendor in (fp.vendor, *fp.candidates):
                if vendor not in vendors:
                    problems.append(f"{cat.origin}: fingerprint {fp.id}: unknown vendor {vendor!r}")
    for cat in files:
        for section in declared():
            for what, family in section.families(cat.sections[section.name]) if section.name in cat.sections else ():
                if family not in families:
                    problems.append(f"{cat.origin}: {what}: unknown family {family!r}")
    owner: dict[str, str] = {}
    for cat in files:
        for m in cat.models:
            if m.family not in families:
                problems.append(f"{cat.origin}: model {m.id}: unknown family {m.family!r}")
            for name in (m.id, *m.aliases):
                key = name.lower()
                if key in owner and owner[key] != m.id:
                    problems.append(f"{cat.origin}: {name!r} names both {owner[key]} and {m.id}")
                owner.setdefault(key, m.id)
    return problems

"""Declared dependencies pinned by lockfiles and module files: exact versions a build resolves to.

package-lock.json, pnpm-lock.yaml, poetry.lock, uv.lock, Cargo.lock, go.mod / go.sum and Gemfile.lock.
Like the `manifests` detector these are declared (`installed: false`); the version is the pinned one.
"""

from __future__ import annotations

import json
import re
import sys
from collections.abc import Iterator

from scanner.detectors.contract import Files, Needs
from scanner.fileview.view import FileView
from scanner.formats import jsonsize
from scanner.formats.config import first_line
from scanner.kinds import Evidence
from scanner.kinds.sdks import SdkEvidence
from scanner.model import Context, Skip, SkipReason

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover
    import tomli as tomllib

_TOML_LOCKS = {"poetry.lock": "pypi", "uv.lock": "pypi", "cargo.lock": "cargo"}
_PNPM_KEY = re.compile(r"^\s{2}'?/?(@?[^@\s'/]+(?:/[^@\s']+)?)@(\d[^(:'\s]*)")
_GO_REQ = re.compile(r"^\s*(?:require\s+)?([a-z0-9.\-]+(?:/[A-Za-z0-9._~\-]+)+)\s+(v\d[^\s/]*)")
_GEM_SPEC = re.compile(r"^ {4}([A-Za-z0-9_.\-]+) \(([^)]+)\)$")
# (name, version, where): its line, or the text that locates it, found only for the pins a catalog knows (a
# search per pin of a 60,000-package lockfile was minutes of rescanning the same text).
Pin = tuple[str, str, int | str | None]
_MAX_LOCKFILE = 32 << 20
_NAMES = ("package-lock.json", "npm-shrinkwrap.json", "pnpm-lock.yaml", "poetry.lock", "uv.lock", "cargo.lock",
          "go.mod", "go.sum", "gemfile.lock")  # fmt: skip  # the parsers' keys (`_PARSERS`), in lower case


class LockfileDetector:
    name = "lockfiles"
    description = "Pinned SDK versions in package-lock, pnpm-lock, poetry/uv/Cargo locks, go.mod/go.sum, Gemfile.lock"
    needs = Needs((Files(names=_NAMES, fold_case=True, not_in=frozenset({Context.PACKAGE, Context.BINARY})),))

    def extract(self, view: FileView) -> Iterator[Evidence | Skip]:
        if view.entry.size > _MAX_LOCKFILE:
            detail = f"lockfile not parsed: {view.entry.size} bytes, over {_MAX_LOCKFILE >> 20} MiB"
            yield Skip(view.path, SkipReason.CAP_REACHED, detail)
            return
        ecosystem, parse = _PARSERS[view.name.lower()]
        refused = jsonsize.too_big(view.data) if parse is _package_lock else None
        if refused:
            yield Skip(view.path, SkipReason.BUDGET_EXCEEDED, f"lockfile: {refused}")
            return
        seen: set[tuple[str, str]] = set()
        for pkg, version, where in parse(view.text):
            spec = view.catalog.sdk(ecosystem, pkg)
            if spec is None or (spec.name, version) in seen:
                continue
            seen.add((spec.name, version))
            line = first_line(view.text, where) if isinstance(where, str) else where
            yield SdkEvidence(
                ecosystem, spec.name, version or None, False, view.path, view.location(line, Context.CONFIG)
            )


def _package_lock(text: str) -> list[Pin]:
    try:
        doc = json.loads(text.lstrip("\ufeff"))
    except (ValueError, RecursionError):
        return []
    out: list[Pin] = []
    packages = doc.get("packages") if isinstance(doc, dict) else None
    if isinstance(packages, dict):  # lockfile v2/v3: "node_modules/<name>" (nested paths too)
        for key, meta in packages.items():
            if "node_modules/" in key and isinstance(meta, dict) and isinstance(meta.get("version"), str):
                name = key.rsplit("node_modules/", 1)[1]
                out.append((name, meta["version"], f'"{key}"'))
    deps = doc.get("dependencies") if isinstance(doc, dict) else None
    if not out and isinstance(deps, dict):  # lockfile v1
        for name, meta in deps.items():
            if isinstance(meta, dict) and isinstance(meta.get("version"), str):
                out.append((name, meta["version"], f'"{name}"'))
    return out


def _pnpm_lock(text: str) -> list[Pin]:
    # Keys under `packages:` are `/name@version` (v5/v6) or `name@version` (v9); read line by line so a
    # huge lockfile is never built into a YAML tree.
    out: list[Pin] = []
    in_packages = False
    for n, line in enumerate(text.splitlines(), 1):
        if not line.strip():
            continue
        if not line.startswith(" "):
            in_packages = line.rstrip() in ("packages:", "snapshots:")
            continue
        m = _PNPM_KEY.match(line) if in_packages else None
        if m:
            out.append((m.group(1), m.group(2), n))
    return out


def _toml_packages(text: str) -> list[Pin]:
    try:
        doc = tomllib.loads(text)
    except tomllib.TOMLDecodeError:
        return []
    out: list[Pin] = []
    for pkg in doc.get("package") or []:
        if isinstance(pkg, dict) and isinstance(pkg.get("name"), str):
            version = str(pkg.get("version") or "")
            out.append((pkg["name"], version, f'name = "{pkg["name"]}"'))
    return out


def _go_mod(text: str) -> list[Pin]:
    out: list[Pin] = []
    for n, line in enumerate(text.splitlines(), 1):
        m = _GO_REQ.match(line)
        if m and not line.lstrip().startswith(("module", "go ", "replace", "//")):
            out.append((m.group(1), m.group(2), n))
    return out


def _go_sum(text: str) -> list[Pin]:
    out: list[Pin] = []
    for n, line in enumerate(text.splitlines(), 1):
        fields = line.split()
        if len(fields) == 3:
            out.append((fields[0], fields[1].removesuffix("/go.mod"), n))
    return out


def _gemfile_lock(text: str) -> list[Pin]:
    return [(m.group(1), m.group(2), n) for n, line in enumerate(text.splitlines(), 1) if (m := _GEM_SPEC.match(line))]


_PARSERS = {
    "package-lock.json": ("npm", _package_lock),
    "npm-shrinkwrap.json": ("npm", _package_lock),
    "pnpm-lock.yaml": ("npm", _pnpm_lock),
    "poetry.lock": ("pypi", _toml_packages),
    "uv.lock": ("pypi", _toml_packages),
    "cargo.lock": ("cargo", _toml_packages),
    "go.mod": ("go", _go_mod),
    "go.sum": ("go", _go_sum),
    "gemfile.lock": ("gem", _gemfile_lock),
}


DETECTOR = LockfileDetector()

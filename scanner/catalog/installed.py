"""Agent catalog entries checked against real installed packages (`catalogs validate --installed ROOT`).

For every npm package (`node_modules/**/package.json`) and PyPI distribution (`*.dist-info`) under ROOT that an
`[[agents]]` entry names, what the package itself declares must be what the entry says: each command it installs
(npm `bin`, PyPI `console_scripts`) is one of the entry's `binaries`, and each platform package it declares
(an optional dependency for an OS and CPU) matches one of its `platform_packages`. An editor extension
(`<editor>/extensions/<publisher>.<name>-<version>/package.json`) is checked by its id: the entry's state paths
under `globalStorage/` name the folder the editor keeps for it, the id in lower case. The report also says which
entries no installed package checked.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

from scanner.catalog.globs import glob_regex
from scanner.catalog.index import Catalog
from scanner.formats.entry_points import script_names
from scanner.formats.package_manifests import read_npm_manifest, read_pypi_metadata

_PLATFORM_WORD = re.compile(r"(?:^|[-/])(?:linux|darwin|win32|windows|macos)(?:-|$)")
_MAX_PACKAGES = 20_000
_MAX_BYTES = 1 << 20


@dataclass
class InstalledCheck:
    problems: list[str] = field(default_factory=list)
    checked: set[str] = field(default_factory=set)  # product ids an installed package checked


def check_installed(catalog: Catalog, root: Path) -> InstalledCheck:
    out = InstalledCheck()
    for ecosystem, name, commands, optional, where in _packages(root):
        found = catalog.product_package(ecosystem, name)
        if found is None or found[1]:
            continue  # not an agent product's main package (a platform package or library is checked via it)
        product = found[0]
        out.checked.add(product.id)
        label = f"{product.id}: {ecosystem} {name} ({where})"
        if ecosystem == "vscode":
            out.problems += _storage_problems(label, name, [f.path for f in product.settings])
            continue
        for command in sorted(set(commands) - set(product.binaries)):
            out.problems.append(f"{label}: installs command {command!r}, not in binaries {list(product.binaries)}")
        platform_rx = [glob_regex("/" + g) for g in product.platform_packages]
        for dep in sorted(d for d in optional if _PLATFORM_WORD.search(d.rsplit("/", 1)[-1]) and _own(d, name)):
            if not any(rx.fullmatch("/" + dep) for rx in platform_rx):
                out.problems.append(f"{label}: platform package {dep!r} matches no platform_packages")
    return out


def _storage_problems(label: str, extension_id: str, paths: list[str]) -> list[str]:
    """An editor keeps an extension's global state in `globalStorage/<publisher.name>` with the id lower-cased: a
    path spelling that folder otherwise would never match on a real machine."""
    folder = extension_id.lower()
    return [f"{label}: state path {path!r} names {seg!r}; the editor's folder is {folder!r}"
            for path in paths for seg in _after_storage(path) if seg.lower() == folder and seg != folder]


def _after_storage(path: str) -> list[str]:
    parts = path.split("/")
    return [parts[i + 1] for i, seg in enumerate(parts[:-1]) if seg == "globalStorage"]


def _own(dep: str, name: str) -> bool:
    """A dependency of the product's own naming (its scope, or its name as a prefix): not a library's
    prebuilt binaries (`@img/sharp-linux-x64`)."""
    scope = name.split("/", 1)[0] if name.startswith("@") else "@" + name
    return dep.startswith(name + "-") or dep.startswith(scope + "/")


def _packages(root: Path) -> Iterator[tuple[str, str, list[str], list[str], str]]:
    """(ecosystem, name, commands, optional dependencies, path) of each package installed under root."""
    seen = 0
    for manifest in sorted(root.rglob("node_modules/**/package.json")):
        rel = manifest.relative_to(root).as_posix()
        parts = rel.rsplit("node_modules/", 1)[-1].split("/")
        if len(parts) != (3 if parts[0].startswith("@") else 2) or seen >= _MAX_PACKAGES:
            continue  # a file deeper inside a package, not its manifest
        seen += 1
        try:
            npm = read_npm_manifest(manifest.read_bytes()[:_MAX_BYTES])
        except OSError:
            continue
        if npm is None or npm.name is None:
            continue
        optional = list(npm.dependencies(("optionalDependencies",)))
        yield "npm", npm.name, list(npm.bins()), optional, "/" + rel
    for metadata in sorted(root.rglob("*.dist-info/METADATA")):
        try:  # an unreadable package is left out, as an unreadable npm manifest is
            name = read_pypi_metadata(metadata.read_bytes()).name
            entry_points = metadata.parent / "entry_points.txt"
            text = entry_points.read_text("utf-8", "replace") if entry_points.is_file() else ""
        except OSError:
            continue
        if not name:
            continue
        yield "pypi", name, list(script_names(text)), [], "/" + metadata.relative_to(root).as_posix()
    yield from _extensions(root)


def _extensions(root: Path) -> Iterator[tuple[str, str, list[str], list[str], str]]:
    """("vscode", `publisher.name`, ...) of each editor extension unpacked under root: a folder of an
    `extensions` directory whose manifest names its publisher and the editor engine it runs in."""
    for manifest in sorted(root.rglob("extensions/*/package.json")):
        try:
            npm = read_npm_manifest(manifest.read_bytes()[:_MAX_BYTES])
        except OSError:
            continue
        engines = npm.doc.get("engines") if npm is not None else None
        if npm is None or not isinstance(engines, dict) or "vscode" not in engines:
            continue
        publisher, name = npm.text("publisher"), npm.name
        if publisher is not None and name is not None:
            yield "vscode", f"{publisher}.{name}", [], [], "/" + manifest.relative_to(root).as_posix()

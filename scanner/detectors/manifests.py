"""Declared dependencies: requirements files, pyproject.toml, package.json outside node_modules.

A pin is what a project asks for, not what is installed: these are reported with `installed: false`.
"""

from __future__ import annotations

import json
import re
import sys
from collections.abc import Iterator
from typing import Any

from scanner.detectors.base import Reading
from scanner.fileview.view import FileView
from scanner.kinds import Evidence
from scanner.kinds.sdks import SdkEvidence
from scanner.model import Context, Skip, SkipReason

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover
    import tomli as tomllib

_REQ = re.compile(r"^\s*([A-Za-z0-9][A-Za-z0-9._\-]*)\s*(?:\[[^\]]*\])?\s*([^;#]*)")
_REQ_NAME = re.compile(r"^requirements.*\.(?:txt|in)$|^constraints.*\.txt$")
_NPM_SECTIONS = ("dependencies", "devDependencies", "peerDependencies", "optionalDependencies")
_MAX_MANIFEST = 4 << 20


class ManifestDetector:
    name = "manifests"
    description = "Declared (not installed) SDK dependencies in requirements*.txt, pyproject.toml, package.json"
    reading = Reading.WHOLE

    def wants(self, view: FileView) -> bool:
        if view.context in (Context.PACKAGE, Context.BINARY):
            return False
        name = view.name.lower()
        return bool(_REQ_NAME.match(name)) or name in ("pyproject.toml", "package.json")

    def extract(self, view: FileView) -> Iterator[Evidence | Skip]:
        if view.entry.size > _MAX_MANIFEST:
            detail = f"manifest not parsed: {view.entry.size} bytes, over {_MAX_MANIFEST >> 20} MiB"
            yield Skip(view.path, SkipReason.CAP_REACHED, detail)
            return
        name = view.name.lower()
        if name == "package.json":
            pins = _package_json(view.text)
            ecosystem = "npm"
        elif name == "pyproject.toml":
            pins = _pyproject(view.text)
            ecosystem = "pypi"
        else:
            pins = _requirements(view.text)
            ecosystem = "pypi"
        for pkg, spec_text, line in pins:
            spec = view.catalog.sdk(ecosystem, pkg)
            if spec is None:
                continue
            loc = view.location(line, Context.CONFIG)
            yield SdkEvidence(ecosystem, spec.name, spec_text or None, False, view.path, loc)


def _requirements(text: str) -> list[tuple[str, str, int | None]]:
    out: list[tuple[str, str, int | None]] = []
    for n, line in enumerate(text.splitlines(), 1):
        if line.lstrip().startswith(("#", "-")):
            continue
        m = _REQ.match(line)
        if m:
            out.append((m.group(1), m.group(2).strip(), n))
    return out


def _line_of(text: str, needle: str) -> int | None:
    pos = text.find(needle)
    return text.count("\n", 0, pos) + 1 if pos != -1 else None


def _pyproject(text: str) -> list[tuple[str, str, int | None]]:
    try:
        doc = tomllib.loads(text)
    except tomllib.TOMLDecodeError:
        return []
    project: dict[str, Any] = doc.get("project") or {}
    reqs: list[str] = list(project.get("dependencies") or [])
    for extra in (project.get("optional-dependencies") or {}).values():
        reqs += list(extra)
    out: list[tuple[str, str, int | None]] = []
    for req in reqs:
        m = _REQ.match(str(req))
        if m:
            out.append((m.group(1), m.group(2).strip(), _line_of(text, str(req))))
    poetry = ((doc.get("tool") or {}).get("poetry") or {}).get("dependencies") or {}
    for pkg, ver in poetry.items():
        out.append((pkg, ver if isinstance(ver, str) else "", _line_of(text, pkg)))
    return out


def _package_json(text: str) -> list[tuple[str, str, int | None]]:
    try:
        doc = json.loads(text.lstrip("\ufeff"))
    except (json.JSONDecodeError, RecursionError):
        return []
    out: list[tuple[str, str, int | None]] = []
    if not isinstance(doc, dict):
        return out
    for section in _NPM_SECTIONS:
        deps = doc.get(section)
        if isinstance(deps, dict):
            for pkg, ver in deps.items():
                out.append((pkg, ver if isinstance(ver, str) else "", _line_of(text, f'"{pkg}"')))
    return out

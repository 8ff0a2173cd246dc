"""npm and PyPI package manifests, read in this one place: an npm `package.json` (installed or a project's), a
PyPI `METADATA` / `PKG-INFO`, and the dependencies a project declares (`requirements*.txt`, `pyproject.toml`,
`package.json`). Bounded and pure: a document too big to build is refused, a broken one is None."""

from __future__ import annotations

import json
import re
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from email.parser import BytesHeaderParser
from typing import Any

from scanner.formats import jsonsize
from scanner.formats.config import first_line

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover
    import tomli as tomllib

_HEADER = BytesHeaderParser()
_MAX_METADATA = 1 << 20  # bytes of a METADATA's headers read
# A requirement's name and specifier (`openai[extras] >=1.0 ; python_version < "3.9"`).
_REQ = re.compile(r"^\s*([A-Za-z0-9][A-Za-z0-9._\-]*)\s*(?:\[[^\]]*\])?\s*([^;#]*)")
_REQUIRES = re.compile(r"^\s*([A-Za-z0-9][A-Za-z0-9._-]*)")
RUNTIME_DEPENDENCIES = ("dependencies", "optionalDependencies", "peerDependencies")
_DECLARED = ("dependencies", "devDependencies", "peerDependencies", "optionalDependencies")
# (name, specifier, line): what a project asks for.
Pin = tuple[str, str, int | None]


@dataclass(frozen=True)
class NpmManifest:
    """An npm `package.json` (or an editor extension's, which has npm's shape), its fields read by type."""

    doc: dict[str, Any]

    def text(self, key: str) -> str | None:
        value = self.doc.get(key)
        return value if isinstance(value, str) else None

    @property
    def name(self) -> str | None:
        return self.text("name")

    @property
    def version(self) -> str | None:
        return self.text("version")

    @property
    def extension_id(self) -> str | None:
        """An editor extension's id, `publisher.name` in lower case; None without both."""
        publisher, name = self.text("publisher"), self.name
        return f"{publisher}.{name}".lower() if publisher is not None and name is not None else None

    def bins(self) -> dict[str, str]:
        """Its commands and their files: `"bin": "cli.js"` (named by the package) or `"bin": {"claude": "…"}`."""
        bins = self.doc.get("bin")
        if isinstance(bins, str):
            return {(self.name or "").rsplit("/", 1)[-1]: bins}
        if isinstance(bins, dict):
            return {str(k): v for k, v in bins.items() if isinstance(v, str)}
        return {}

    def dependencies(self, sections: tuple[str, ...] = RUNTIME_DEPENDENCIES) -> dict[str, str]:
        """The packages its `sections` name, with their specifier ("" when not a string)."""
        out: dict[str, str] = {}
        for section in sections:
            deps = self.doc.get(section)
            if isinstance(deps, dict):
                for pkg, spec in deps.items():
                    out.setdefault(str(pkg), spec if isinstance(spec, str) else "")
        return out

    def bundled(self) -> tuple[str, ...]:
        listed = self.doc.get("bundleDependencies")
        return tuple(x for x in listed if isinstance(x, str)) if isinstance(listed, list) else ()

    def commands(self) -> tuple[str, ...]:
        """The command ids an editor extension contributes (`contributes.commands[].command`)."""
        contributes = self.doc.get("contributes")
        listed = contributes.get("commands") if isinstance(contributes, dict) else None
        if not isinstance(listed, list):
            return ()
        return tuple(sorted({str(c["command"]) for c in listed
                             if isinstance(c, dict) and isinstance(c.get("command"), str)}))  # fmt: skip


def read_npm_manifest(data: bytes) -> NpmManifest | None:
    """The manifest in `data`; None when it is no JSON object or too big to build (`jsonsize`)."""
    if jsonsize.too_big(data):
        return None
    try:
        doc = json.loads(data.decode("utf-8-sig", "replace"))
    except (ValueError, RecursionError):
        return None
    return NpmManifest(doc) if isinstance(doc, dict) else None


@dataclass(frozen=True)
class PypiMetadata:
    """A PyPI distribution's `METADATA` / `PKG-INFO` headers."""

    name: str | None
    version: str | None
    requires: tuple[str, ...]  # the distributions it always requires (`Requires-Dist` without an extra)


def read_pypi_metadata(data: bytes) -> PypiMetadata:
    headers = _HEADER.parsebytes(data[:_MAX_METADATA])
    name, version = headers.get("Name"), headers.get("Version")
    requires = set()
    for req in headers.get_all("Requires-Dist") or []:
        m = _REQUIRES.match(str(req))
        if m and "extra ==" not in str(req):
            requires.add(m.group(1))
    return PypiMetadata(str(name) if name else None, str(version) if version else None, tuple(sorted(requires)))


def requirement_pins(text: str) -> list[Pin]:
    """A `requirements*.txt`'s pins (options and comments left out)."""
    out: list[Pin] = []
    for n, line in enumerate(text.splitlines(), 1):
        if line.lstrip().startswith(("#", "-")):
            continue
        m = _REQ.match(line)
        if m:
            out.append((m.group(1), m.group(2).strip(), n))
    return out


def pyproject_pins(text: str) -> list[Pin]:
    """A `pyproject.toml`'s dependencies: PEP 621's (optional ones too) and Poetry's."""
    try:
        doc = tomllib.loads(text)
    except tomllib.TOMLDecodeError:
        return []
    project = _table(doc, "project")
    reqs = _strings(project.get("dependencies"))
    for extra in _table(project, "optional-dependencies").values():
        reqs += _strings(extra)
    out: list[Pin] = []
    for req in reqs:
        m = _REQ.match(req)
        if m:
            out.append((m.group(1), m.group(2).strip(), first_line(text, req)))
    for pkg, ver in _table(_table(_table(doc, "tool"), "poetry"), "dependencies").items():
        out.append((pkg, ver if isinstance(ver, str) else "", first_line(text, pkg)))
    return out


def _table(doc: dict[str, Any], key: str) -> dict[str, Any]:
    """A TOML table under `key`; empty when the key holds anything else (`project = 1`)."""
    value = doc.get(key)
    return value if isinstance(value, dict) else {}


def _strings(value: Any) -> list[str]:
    """The strings of a TOML array; none when it is anything else (a string is no list of requirements)."""
    return [v for v in value if isinstance(v, str)] if isinstance(value, list) else []


def npm_pins(manifest: NpmManifest, text: str) -> Iterator[Pin]:
    """A project's `package.json` dependencies, dev ones too, each with its line in `text`."""
    for section in _DECLARED:
        for pkg, spec in manifest.dependencies((section,)).items():
            yield pkg, spec, first_line(text, f'"{pkg}"')

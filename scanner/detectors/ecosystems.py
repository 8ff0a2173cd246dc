"""Installed packages of the other ecosystems: conda, Java jars, Ruby gems, NuGet and Cargo installs.

Python dist-info and npm node_modules are the `packages` detector's. Here: `conda-meta/*.json`, Maven
`pom.properties` inside jars (the zip's directory is read, bounded), `specifications/*.gemspec`, NuGet
`*.nuspec` and `project.assets.json`, and cargo's `.crates2.json`. Only packages a catalog knows as an
LLM SDK are reported, with the directory or archive that holds them as their environment.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator

from scanner.detectors.contract import Files, Needs, Reading
from scanner.fileview.view import FileView
from scanner.formats import jsonsize, ziparchive
from scanner.formats.positional import PositionalFile
from scanner.formats.ziparchive import ProblemKind, ZipProblem
from scanner.kinds import Evidence
from scanner.kinds.sdks import SdkEvidence
from scanner.model import Context, Skip, SkipReason
from scanner.textsafe import display_path

_MAX_POM_BYTES = 64 << 10
_POM = re.compile(r"^META-INF/maven/[^/]+/[^/]+/pom\.properties$")
_GEMSPEC = re.compile(r"^(?P<name>.+)-(?P<version>\d[^-]*)\.gemspec$")
_NUSPEC_FIELD = re.compile(r"<(id|version)>\s*([^<\s]{1,200})\s*</\1>", re.IGNORECASE)
_CRATES2_KEY = re.compile(r"^(?P<name>\S+) (?P<version>\S+) \(")


class EcosystemDetector:
    name = "ecosystems"
    description = "Installed conda, Maven (jars), RubyGems, NuGet and Cargo packages that are LLM SDKs"
    # A big jar is read in place: its head is one window, its directory read positionally.
    needs = Needs((
        Files(names=("*.json",), parents=("conda-meta",)),
        Files(names=("*.jar", "*.war", "*.ear"), magics=(b"PK\x03\x04",)),
        Files(names=("*.gemspec",), under=("specifications",)),
        Files(names=("*.nuspec", "project.assets.json", ".crates2.json")),
    ), Reading.POSITIONAL)  # fmt: skip

    def extract(self, view: FileView) -> Iterator[Evidence | Skip]:
        name = view.name
        if name.endswith((".jar", ".war", ".ear")):
            problems: list[ZipProblem] = []
            found = _jar(_archive(view), problems)
            yield from (Skip(view.path, _SKIP_OF[p.kind], p.detail) for p in problems)
            ecosystem, env = "maven", view.path
        elif name.endswith(".gemspec"):
            m = _GEMSPEC.match(name)
            found = [(m.group("name"), m.group("version"))] if m else []
            ecosystem, env = "gem", display_path(view.entry.path.rsplit("/", 1)[0])
        elif name.endswith(".nuspec"):
            fields = {k.lower(): v for k, v in _NUSPEC_FIELD.findall(view.text[:_MAX_POM_BYTES])}
            found = [(fields["id"], fields["version"])] if "id" in fields and "version" in fields else []
            ecosystem, env = "nuget", display_path(view.entry.path.rsplit("/", 1)[0])
        else:
            refused = jsonsize.too_big(view.data)
            if refused:
                yield Skip(view.path, SkipReason.BUDGET_EXCEEDED, refused)
            doc = None if refused else _json(view)
            if name == "project.assets.json":
                found, ecosystem = _assets(doc), "nuget"
            elif name == ".crates2.json":
                found, ecosystem = _crates2(doc), "cargo"
            else:
                found, ecosystem = _conda(doc), "pypi"
            env = display_path(view.entry.path.rsplit("/", 1)[0])
        location = view.location(None, Context.PACKAGE)
        for pkg, version in sorted(set(found)):
            spec = view.catalog.sdk(ecosystem, pkg)
            if spec is not None:
                yield SdkEvidence(ecosystem, spec.name, version or None, True, env, location)


def _json(view: FileView) -> object:
    try:
        return json.loads(view.data.decode("utf-8-sig", "replace"))
    except (ValueError, RecursionError):
        return None


def _conda(doc: object) -> list[tuple[str, str]]:
    # conda package names follow PyPI's for the SDKs (openai, anthropic, litellm); matched as PyPI names.
    if isinstance(doc, dict) and isinstance(doc.get("name"), str) and isinstance(doc.get("version"), str):
        return [(doc["name"], doc["version"])]
    return []


def _assets(doc: object) -> list[tuple[str, str]]:
    libraries = doc.get("libraries") if isinstance(doc, dict) else None
    if not isinstance(libraries, dict):
        return []
    pairs = (key.split("/", 1) for key in libraries if isinstance(key, str) and key.count("/") == 1)
    return [(name, version) for name, version in pairs]


def _crates2(doc: object) -> list[tuple[str, str]]:
    installs = doc.get("installs") if isinstance(doc, dict) else None
    if not isinstance(installs, dict):
        return []
    return [(m.group("name"), m.group("version")) for key in installs if (m := _CRATES2_KEY.match(str(key)))]


_SKIP_OF = {
    ProblemKind.UNREADABLE: SkipReason.PARSE_ERROR,
    ProblemKind.LIMIT: SkipReason.DECOMPRESSION_LIMIT,
    ProblemKind.CAP: SkipReason.CAP_REACHED,
}


def _archive(view: FileView) -> ziparchive.Source:
    """The jar whole when the view holds all of it; past one window, read in place (its directory at the end)."""
    window = view.window
    if window is None or window.read is None:
        return view.data
    return PositionalFile(window.read, view.entry.size)


def _jar(data: ziparchive.Source, problems: list[ZipProblem]) -> list[tuple[str, str]]:
    """Maven coordinates from every `pom.properties` in the archive, each member read bounded."""
    found: list[tuple[str, str]] = []
    for member in ziparchive.members(data, lambda n: _POM.match(n) is not None, problems, _MAX_POM_BYTES):
        text = member.data.decode("utf-8", "replace")
        props = dict(line.split("=", 1) for line in text.splitlines() if "=" in line and not line.startswith("#"))
        group, artifact = props.get("groupId", "").strip(), props.get("artifactId", "").strip()
        if group and artifact:
            found.append((f"{group}:{artifact}", props.get("version", "").strip()))
    return found


DETECTOR = EcosystemDetector()

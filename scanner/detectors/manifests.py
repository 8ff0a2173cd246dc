"""Declared dependencies: requirements files, pyproject.toml, package.json outside node_modules.

A pin is what a project asks for, not what is installed: these are reported with `installed: false`.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator

from scanner.detectors.contract import Files, Needs
from scanner.fileview.view import FileView
from scanner.formats import jsonsize
from scanner.formats.package_manifests import Pin, npm_pins, pyproject_pins, requirement_pins
from scanner.kinds import Evidence
from scanner.kinds.sdks import SdkEvidence
from scanner.model import Context, Skip, SkipReason

_MAX_MANIFEST = 4 << 20


class ManifestDetector:
    name = "manifests"
    description = "Declared (not installed) SDK dependencies in requirements*.txt, pyproject.toml, package.json"
    needs = Needs((Files(
        names=("requirements*.txt", "requirements*.in", "constraints*.txt", "pyproject.toml", "package.json"),
        fold_case=True, not_in=frozenset({Context.PACKAGE, Context.BINARY}),
    ),))  # fmt: skip

    def extract(self, view: FileView) -> Iterator[Evidence | Skip]:
        if view.entry.size > _MAX_MANIFEST:
            detail = f"manifest not parsed: {view.entry.size} bytes, over {_MAX_MANIFEST >> 20} MiB"
            yield Skip(view.path, SkipReason.CAP_REACHED, detail)
            return
        name = view.name.lower()
        pins: Iterable[Pin]
        if name == "package.json":
            refused = jsonsize.too_big(view.data)
            if refused:
                yield Skip(view.path, SkipReason.BUDGET_EXCEEDED, f"manifest: {refused}")
            manifest = view.npm_manifest
            pins = npm_pins(manifest, view.text) if manifest is not None else ()
            ecosystem = "npm"
        elif name == "pyproject.toml":
            pins = pyproject_pins(view.text)
            ecosystem = "pypi"
        else:
            pins = requirement_pins(view.text)
            ecosystem = "pypi"
        for pkg, spec_text, line in pins:
            spec = view.catalog.sdk(ecosystem, pkg)
            if spec is None:
                continue
            loc = view.location(line, Context.CONFIG)
            yield SdkEvidence(ecosystem, spec.name, spec_text or None, False, view.path, loc)


DETECTOR = ManifestDetector()

"""Agent products' installs (catalogs/agents.toml `[[agents]]`), from their packages' manifests.

An npm `package.json` in `node_modules` (the main package, or a platform package that carries the native binary:
`@openai/codex-linux-x64`), a PyPI `METADATA`, or an editor extension's `package.json`: the product, its version,
where it is installed, its entry points and the packages it depends on. Which package is which product is
catalog data: a user catalog adds a product without code.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from scanner.detectors.contract import Files, Needs
from scanner.fileview.view import FileView
from scanner.formats.install_paths import EXTENSION_MANIFEST, NODE_MODULES, join_inside, npm_package_of
from scanner.kinds import Evidence
from scanner.kinds.agents import AgentPackageEvidence
from scanner.kinds.sdks import SdkEvidence
from scanner.model import Context
from scanner.textsafe import display_path

_METADATA = ("METADATA", "PKG-INFO")
_DIST_DIRS = (".dist-info", ".egg-info")


class AgentPackageDetector:
    name = "agent_packages"
    description = "Agent products installed as npm or PyPI packages or editor extensions, from their manifests"
    needs = Needs((
        Files(names=("package.json",), under=("node_modules",)),
        Files(names=_METADATA, parents=("*.dist-info", "*.egg-info")),
        Files(names=("package.json",), accept=lambda view: EXTENSION_MANIFEST.search(view.entry.path) is not None),
    ))  # fmt: skip

    def extract(self, view: FileView) -> Iterator[Evidence]:
        path = view.entry.path
        if (extension := EXTENSION_MANIFEST.search(path)) is not None:
            yield from _extension(view, extension)
        elif view.name == "package.json" and NODE_MODULES in path:
            yield from _npm(view)
        elif view.name in _METADATA and path.rsplit("/", 2)[-2].endswith(_DIST_DIRS):
            yield from _pypi(view)


def _npm(view: FileView) -> Iterator[Evidence]:
    where = npm_package_of(view.entry.path)
    manifest = view.npm_manifest
    if where is None or where[2] != "/package.json" or manifest is None:
        return
    dir_name, pkg_dir, _ = where
    name = manifest.name if manifest.name is not None else dir_name
    # An npm alias (`"@openai/codex-linux-x64": "npm:@openai/codex@0.171.0-linux-x64"`) installs under
    # the alias's directory with the target's name: the directory says which package it is.
    found = view.catalog.product_package("npm", dir_name) or view.catalog.product_package("npm", name)
    if found is None:
        return
    product, platform = found
    version = manifest.version
    env = display_path(pkg_dir[: pkg_dir.rindex(NODE_MODULES) + len(NODE_MODULES) - 1])
    files = (join_inside(pkg_dir, e) for e in manifest.bins().values())
    entry_points = tuple(sorted({display_path(p) for p in files if p}))
    deps = {*manifest.dependencies(), *manifest.bundled()}
    loc = view.location(None, Context.PACKAGE)
    yield AgentPackageEvidence(
        product.id, "npm", dir_name, version, display_path(pkg_dir), env, platform, entry_points,
        tuple(sorted(deps)), loc,
    )  # fmt: skip
    if platform and not view.catalog.is_product_library(dir_name):
        yield SdkEvidence("npm", dir_name, version, True, env, loc)


def _extension(view: FileView, where: re.Match[str]) -> Iterator[Evidence]:
    """An editor extension of an agent product (`saoudrizwan.claude-dev`): its id is `publisher.name` of its
    manifest, its editor the folder the extensions sit in."""
    manifest = view.npm_manifest
    ext_id = manifest.extension_id if manifest is not None else None
    found = view.catalog.product_package("vscode", ext_id) if ext_id is not None else None
    if manifest is None or ext_id is None or found is None:
        return
    ext_dir = view.entry.path.rsplit("/", 1)[0]
    yield AgentPackageEvidence(
        found[0].id, "vscode", ext_id, manifest.version, display_path(ext_dir),
        display_path(ext_dir.rsplit("/", 1)[0]), False, (), (), view.location(None, Context.PACKAGE),
        where.group("editor"),
    )  # fmt: skip


def _pypi(view: FileView) -> Iterator[Evidence]:
    meta = view.pypi_metadata
    found = view.catalog.product_package("pypi", meta.name) if meta.name else None
    if found is None or meta.name is None:
        return
    product, _ = found
    shown = display_path(view.entry.path.rsplit("/", 2)[0])
    yield AgentPackageEvidence(
        product.id, "pypi", meta.name, meta.version, shown, shown, False, (), meta.requires,
        view.location(None, Context.PACKAGE),
    )  # fmt: skip


DETECTOR = AgentPackageDetector()

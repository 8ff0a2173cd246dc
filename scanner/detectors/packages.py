"""Installed packages: Python dist-info / egg-info metadata and npm `node_modules` manifests.

Only packages a catalog knows as an LLM SDK are reported; the environment is the directory that holds
them (a site-packages or node_modules), so the same SDK in two venvs is two entries.
"""

from __future__ import annotations

from collections.abc import Iterator

from scanner.detectors.contract import Files, Needs
from scanner.fileview.view import FileView
from scanner.formats import jsonsize
from scanner.formats.install_paths import npm_package_of
from scanner.kinds import Evidence
from scanner.kinds.sdks import SdkEvidence
from scanner.model import Context, Skip, SkipReason
from scanner.textsafe import display_path


def _parent(path: str, levels: int = 1) -> str:
    for _ in range(levels):
        path = path.rsplit("/", 1)[0] or "/"
    return path


class InstalledPackageDetector:
    name = "packages"
    description = "Installed Python (dist-info, egg-info) and npm (node_modules) packages that are LLM SDKs"
    needs = Needs((
        Files(names=("METADATA", "PKG-INFO"), parents=("*.dist-info", "*.egg-info")),
        Files(names=("*.egg-info",), max_size=(1 << 20) - 1),  # an egg-info file rather than a directory
        Files(names=("package.json",), under=("node_modules",)),
    ))  # fmt: skip

    def extract(self, view: FileView) -> Iterator[Evidence | Skip]:
        if view.name == "package.json":
            refused = jsonsize.too_big(view.data)
            if refused:
                yield Skip(view.path, SkipReason.BUDGET_EXCEEDED, refused)
                return
            yield from self._npm(view)
        else:
            yield from self._python(view)

    def _python(self, view: FileView) -> Iterator[Evidence]:
        meta = view.pypi_metadata
        if not meta.name:
            return
        spec = view.catalog.sdk("pypi", meta.name)
        if spec is None:
            return
        levels = 1 if view.entry.path.endswith(".egg-info") else 2
        env = display_path(_parent(view.entry.path, levels))
        yield SdkEvidence("pypi", spec.name, meta.version, True, env, view.location(None))

    def _npm(self, view: FileView) -> Iterator[Evidence]:
        manifest = view.npm_manifest
        name = manifest.name if manifest is not None else None
        if manifest is None or name is None:
            return
        spec = view.catalog.sdk("npm", name)
        if spec is None:
            return
        path = view.entry.path
        if _aliased_platform_package(view, path, name):
            return
        store = path.find("/node_modules/.pnpm/")
        # pnpm keeps packages in node_modules/.pnpm/<name>@<version>/node_modules/: the project's
        # node_modules is the environment, not the store's inner folder.
        end = store if store != -1 else path.rindex("/node_modules/")
        env = display_path(path[: end + len("/node_modules")])
        yield SdkEvidence("npm", spec.name, manifest.version, True, env, view.location(None, Context.PACKAGE))


def _aliased_platform_package(view: FileView, path: str, name: str) -> bool:
    """An npm alias install (`@openai/codex-linux-x64` -> `npm:@openai/codex@0.171.0-linux-x64`) of an agent
    product's platform package: its manifest names the main package, its directory the platform one. The
    agent_packages detector reports it under the directory's name; here it would be a second, false version."""
    where = npm_package_of(path)
    if where is None or where[0] == name:
        return False
    found = view.catalog.product_package("npm", where[0])
    return found is not None and found[1]


DETECTOR = InstalledPackageDetector()

"""Files inside an agent product's package: its executables and its model lists (`binaries`, `ships` of
catalogs/agents.toml `[[agents]]`).

A file of a product's npm package (`node_modules/<pkg>/…`), of a site-packages a PyPI product ships into, or a
Python product's console script: an executable the catalog names, or a file that holds the product's model list.
The catalogued model ids in a model list are what the product can call, not what it is wired to. A product's
model list can sit 300 MB into its executable: later windows of the file give their ids too.
"""

from __future__ import annotations

from collections.abc import Iterator

from scanner.catalog.specs import AgentProduct
from scanner.configs.model_lists import model_list
from scanner.detectors.contract import Files, Needs, Reading
from scanner.fileview.view import FileView
from scanner.formats.install_paths import NODE_MODULES, npm_package_of, site_of
from scanner.kinds import Evidence
from scanner.kinds.agents import AgentFileEvidence
from scanner.kinds.models import ModelEvidence
from scanner.model import Context, Location
from scanner.textsafe import display_path


class AgentFileDetector:
    name = "agent_files"
    description = "Agent products' executables and the model lists their packages ship"
    # A file of an npm package, of a site-packages, or a console script, that the catalog says is a product's.
    needs = Needs((
        Files(under=("node_modules",), accept=lambda view: package_file(view) is not None),
        Files(under=("site-packages", "dist-packages"), accept=lambda view: package_file(view) is not None),
        Files(parents=("bin",), accept=lambda view: package_file(view) is not None),
    ), Reading.WINDOWS)  # fmt: skip

    def extract(self, view: FileView) -> Iterator[Evidence]:
        found = package_file(view)
        if found is None:
            return
        product, pkg_dir, rest = found
        shown = display_path(pkg_dir)
        loc = view.location(None, Context.PACKAGE)
        later = view.window is not None and view.window.offset > 0  # a later window of a big file: what it ships
        if view.name in product.binaries and not later:
            yield AgentFileEvidence(product.id, shown, "binary", (), loc)
        if not view.catalog.ships_file(product, rest):
            return
        yield from ships(view, product, shown, loc)


def ships(view: FileView, product: AgentProduct, install: str, loc: Location) -> Iterator[Evidence]:
    """The model list of a product's file, as its install's `ships`; each id also a model, shipped not wired."""
    models, named = model_list(view, product)
    yield AgentFileEvidence(product.id, install, "ships", models, loc, named)
    for name in models:
        yield ModelEvidence(name, loc)


def package_file(view: FileView) -> tuple[AgentProduct, str, str] | None:
    """(product, package dir, path inside it) of a binary or a model-list file of a product's package."""
    cat = view.catalog
    path = view.entry.path
    npm = npm_package_of(path) if NODE_MODULES in path else None
    if npm is not None:
        name, pkg_dir, rest = npm
        found = cat.product_package("npm", name)
        if found is not None and (view.name in found[0].binaries or cat.ships_file(found[0], rest)):
            return found[0], pkg_dir, rest
        return None
    site = site_of(path)
    if site is not None:
        product = cat.pypi_ships_file(site[1])
        return None if product is None else (product, site[0], site[1])
    # A Python product's console script: <venv>/bin/aider beside <venv>/lib/pythonX/site-packages.
    parent, _, name = path.rpartition("/")
    if parent.endswith("/bin"):
        for product in cat.product_binaries(name):
            if any(eco == "pypi" for eco, _ in product.packages):
                return product, parent[: -len("/bin")], "/bin/" + name
    return None


DETECTOR = AgentFileDetector()

"""Agent products (catalogs/agents.toml `[[agents]]`): their installs, shipped model lists and users' settings.

Three kinds of file feed one product's entry, joined by the builder on the product id:
- a package's manifest (npm `package.json` in `node_modules`, a PyPI `METADATA`): the main package or a
  platform package that carries the native binary (`@openai/codex-linux-x64`), with version and entry points;
- a file inside such a package: a native binary the catalog names, or a file that holds the product's model
  list (`ships`): the catalogued model ids in it are what the product can call, not what it is wired to;
- a settings file in a home (or a system-wide one): the model(s) it selects, the route, the base URL, the MCP
  servers and the credentials, each under the key paths the catalog names. Credentials leave as hashes.

Which file is which, and under which keys, is catalog data: a user catalog adds a product without code.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from email.message import Message
from email.parser import BytesHeaderParser

from scanner.catalog.specs import AgentProduct
from scanner.configs.model_lists import model_list
from scanner.configs.product_settings import read_settings
from scanner.detectors.base import Reading
from scanner.fileview.view import FileView
from scanner.kinds import Evidence
from scanner.kinds.agents import AgentFileEvidence, AgentPackageEvidence
from scanner.kinds.models import ModelEvidence
from scanner.kinds.sdks import SdkEvidence
from scanner.model import Context, Skip
from scanner.textsafe import display_path

_HEADER = BytesHeaderParser()
_NODE_MODULES = "/node_modules/"
_SITE_DIRS = ("/site-packages/", "/dist-packages/")
_MAX_SETTINGS_BYTES = 4 << 20
_MAX_STATE_BYTES = 64 << 20
_NOT_SETTINGS = (Context.PACKAGE, Context.BINARY, Context.TEST, Context.DOCS)
_VERSION = re.compile(r"v?\d+(?:\.\d+)+(?:[-+][0-9A-Za-z.\-]+)?")
_REQUIRES = re.compile(r"^\s*([A-Za-z0-9][A-Za-z0-9._-]*)")
# An editor extension's manifest: `~/.vscode/extensions/<publisher>.<name>-<version>[-<platform>]/package.json`,
# and the same under VS Code Server, VSCodium, Cursor and Windsurf (their remote servers too).
_EDITORS = r"vscode|vscode-server|vscode-insiders|vscode-oss|cursor|cursor-server|windsurf|windsurf-server"
_EXTENSION = re.compile(r"/\.(?P<editor>" + _EDITORS + r")/extensions/(?P<dir>[^/]+)/package\.json$")
# Any file of an extension: its folder, and the path inside it.
_IN_EXTENSION = re.compile(r"^(?P<dir>.*/\.(?P<editor>" + _EDITORS + r")/extensions/[^/]+)(?P<rest>/.+)$")


def extension_of(path: str) -> tuple[str, str, str] | None:
    """(extension folder, editor, path inside it starting `/`) of a file of an editor extension; None otherwise."""
    m = _IN_EXTENSION.match(path)
    return (m.group("dir"), m.group("editor"), m.group("rest")) if m else None
_EDITOR_STATE = (".vscdb",)


def npm_package_of(path: str) -> tuple[str, str, str] | None:
    """(package name, package dir, path inside it starting `/`) of a file under a node_modules; None otherwise."""
    idx = path.rfind(_NODE_MODULES)
    if idx == -1:
        return None
    head = idx + len(_NODE_MODULES)
    segs = path[head:].split("/")
    width = 2 if segs[0].startswith("@") else 1
    if len(segs) <= width:
        return None
    name = "/".join(segs[:width])
    return name, path[:head] + name, "/" + "/".join(segs[width:])


def _site_of(path: str) -> tuple[str, str] | None:
    for marker in _SITE_DIRS:
        idx = path.rfind(marker)
        if idx != -1:
            return path[: idx + len(marker) - 1], path[idx + len(marker) - 1 :]
    return None


class AgentDetector:
    name = "agents"
    description = "Agent products: installed packages, platform binaries, shipped model lists, users' settings"
    # A product's model list can sit 300 MB into its executable: later windows of the file give their ids too.
    reading = Reading.WINDOWS

    def wants(self, view: FileView) -> bool:
        cat = view.catalog
        if not cat.agents:
            return False
        path = view.entry.path
        if view.name == "package.json" and _NODE_MODULES in path:
            return True
        if view.name in ("METADATA", "PKG-INFO") and path.rsplit("/", 2)[-2].endswith((".dist-info", ".egg-info")):
            return True
        if self._package_file(view) is not None or cat.native_install(path) is not None:
            return True
        if _EXTENSION.search(path):
            return True
        if view.name.endswith(_EDITOR_STATE):  # an editor's SQLite state: binary, and larger than a config
            return view.entry.size <= _MAX_STATE_BYTES and bool(cat.agent_settings_at(path))
        if view.entry.size <= _MAX_SETTINGS_BYTES and (found := cat.agent_settings_at(path)):
            # A one-value text file (`default_model.txt`) reads as prose to the context rules: its glob says more.
            text = any(sf.format == "text" for _, sf in found)
            shut = (Context.PACKAGE, Context.BINARY, Context.TEST) if text else _NOT_SETTINGS
            return view.context not in shut
        return False

    def extract(self, view: FileView) -> Iterator[Evidence | Skip]:
        path = view.entry.path
        if view.window is not None and view.window.offset:  # a later window of a big file: only what it ships
            yield from self._shipped_in_window(view)
            return
        if (extension := _EXTENSION.search(path)) is not None:
            yield from self._extension(view, extension)
        elif view.name == "package.json" and _NODE_MODULES in path:
            yield from self._npm(view)
        elif view.name in ("METADATA", "PKG-INFO") and path.rsplit("/", 2)[-2].endswith((".dist-info", ".egg-info")):
            yield from self._pypi(view)
        found = self._package_file(view)
        if found is not None:
            yield from self._inside(view, *found)
        native = view.catalog.native_install(path)
        if native is not None:
            yield from self._native(view, native)
        state = view.name.endswith(_EDITOR_STATE) and view.entry.size <= _MAX_STATE_BYTES
        settings_file = view.entry.size <= _MAX_SETTINGS_BYTES and view.context not in (Context.PACKAGE, Context.BINARY)
        if state or settings_file:
            for product, settings in view.catalog.agent_settings_at(path):
                yield from read_settings(view, product, settings)

    # --- installs ---------------------------------------------------------------------------------

    def _npm(self, view: FileView) -> Iterator[Evidence]:
        where = npm_package_of(view.entry.path)
        if where is None or where[2] != "/package.json":
            return
        dir_name, pkg_dir, _ = where
        try:
            doc = json.loads(view.data[: 1 << 20].decode("utf-8-sig", "replace"))
        except (ValueError, RecursionError):
            return
        if not isinstance(doc, dict):
            return
        name = str(doc["name"]) if isinstance(doc.get("name"), str) else dir_name
        # An npm alias (`"@openai/codex-linux-x64": "npm:@openai/codex@0.171.0-linux-x64"`) installs under
        # the alias's directory with the target's name: the directory says which package it is.
        found = view.catalog.product_package("npm", dir_name) or view.catalog.product_package("npm", name)
        if found is None:
            return
        product, platform = found
        version = doc.get("version") if isinstance(doc.get("version"), str) else None
        env = display_path(pkg_dir[: pkg_dir.rindex(_NODE_MODULES) + len(_NODE_MODULES) - 1])
        entry_points = tuple(sorted({display_path(p) for p in (_join(pkg_dir, e) for e in _bins(doc)) if p}))
        deps: set[str] = set()
        for field in ("dependencies", "optionalDependencies", "peerDependencies"):
            if isinstance(doc.get(field), dict):
                deps.update(str(k) for k in doc[field])
        if isinstance(doc.get("bundleDependencies"), list):
            deps.update(str(x) for x in doc["bundleDependencies"] if isinstance(x, str))
        loc = view.location(None, Context.PACKAGE)
        yield AgentPackageEvidence(
            product.id, "npm", dir_name, version, display_path(pkg_dir), env, platform, entry_points,
            tuple(sorted(deps)), loc,
        )  # fmt: skip
        if platform and not view.catalog.is_product_library(dir_name):
            yield SdkEvidence("npm", dir_name, version, True, env, loc)

    def _extension(self, view: FileView, where: re.Match[str]) -> Iterator[Evidence]:
        """An editor extension of an agent product (`saoudrizwan.claude-dev`): its id is `publisher.name` of its
        manifest, its editor the folder the extensions sit in."""
        try:
            doc = json.loads(view.data[: 1 << 20].decode("utf-8-sig", "replace"))
        except (ValueError, RecursionError):
            return
        if not isinstance(doc, dict) or not all(isinstance(doc.get(k), str) for k in ("publisher", "name")):
            return
        ext_id = f"{doc['publisher']}.{doc['name']}".lower()
        found = view.catalog.product_package("vscode", ext_id)
        if found is None:
            return
        version = doc.get("version") if isinstance(doc.get("version"), str) else None
        ext_dir = view.entry.path.rsplit("/", 1)[0]
        yield AgentPackageEvidence(
            found[0].id, "vscode", ext_id, version, display_path(ext_dir), display_path(ext_dir.rsplit("/", 1)[0]),
            False, (), (), view.location(None, Context.PACKAGE), where.group("editor"),
        )  # fmt: skip

    def _pypi(self, view: FileView) -> Iterator[Evidence]:
        headers = _HEADER.parsebytes(view.data[: 1 << 20])
        name, version = headers.get("Name"), headers.get("Version")
        found = view.catalog.product_package("pypi", str(name)) if name else None
        if found is None:
            return
        product, _ = found
        site = view.entry.path.rsplit("/", 2)[0]
        deps = requires_dist(headers)
        shown = display_path(site)
        yield AgentPackageEvidence(
            product.id, "pypi", str(name), str(version) if version else None, shown, shown, False, (),
            tuple(sorted(deps)), view.location(None, Context.PACKAGE),
        )  # fmt: skip

    def _native(self, view: FileView, product: AgentProduct) -> Iterator[Evidence]:
        """A native installer's executable (`~/.local/share/claude/versions/2.1.197`): the install is its folder,
        the version its name when the name is one; or, when its folder is named by the version
        (`~/.local/share/cursor-agent/versions/2025.11.25-d5b3271/cursor-agent`), that folder's parent and name. Its
        model list is the executable's."""
        grandparent, parent, _ = view.entry.path.rsplit("/", 2)
        folder, version = grandparent + "/" + parent, view.name if _VERSION.fullmatch(view.name) else None
        if version is None and _VERSION.fullmatch(parent):
            folder, version = grandparent, parent
        loc = view.location(None, Context.PACKAGE)
        shown = display_path(folder)
        yield AgentPackageEvidence(product.id, "binary", view.name, version, shown, shown, False, (view.path,), (), loc)
        models, named = model_list(view, product)
        yield AgentFileEvidence(product.id, shown, "ships", models, loc, named)
        for name in models:
            yield ModelEvidence(name, loc)

    def _package_file(self, view: FileView) -> tuple[AgentProduct, str, str] | None:
        """(product, package dir, path inside it) of a binary or a model-list file of a product's package."""
        cat = view.catalog
        path = view.entry.path
        npm = npm_package_of(path) if _NODE_MODULES in path else None
        if npm is not None:
            name, pkg_dir, rest = npm
            found = cat.product_package("npm", name)
            if found is not None and (view.name in found[0].binaries or cat.ships_file(found[0], rest)):
                return found[0], pkg_dir, rest
            return None
        site = _site_of(path)
        if site is not None:
            for product in cat.pypi_agents:
                if cat.ships_file(product, site[1]):
                    return product, site[0], site[1]
            return None
        # A Python product's console script: <venv>/bin/aider beside <venv>/lib/pythonX/site-packages.
        parent, _, name = path.rpartition("/")
        if parent.endswith("/bin"):
            for product in cat.product_binaries(name):
                if any(eco == "pypi" for eco, _ in product.packages):
                    return product, parent[: -len("/bin")], "/bin/" + name
        return None

    def _inside(self, view: FileView, product: AgentProduct, pkg_dir: str, rest: str) -> Iterator[Evidence]:
        shown = display_path(pkg_dir)
        loc = view.location(None, Context.PACKAGE)
        if view.name in product.binaries:
            yield AgentFileEvidence(product.id, shown, "binary", (), loc)
        if not view.catalog.ships_file(product, rest):
            return
        models, named = model_list(view, product)
        yield AgentFileEvidence(product.id, shown, "ships", models, loc, named)
        for name in models:
            yield ModelEvidence(name, loc)

    def _shipped_in_window(self, view: FileView) -> Iterator[Evidence]:
        found = self._package_file(view)
        native = view.catalog.native_install(view.entry.path)
        if found is not None and view.catalog.ships_file(found[0], found[2]):
            product, where = found[0], display_path(found[1])
        elif native is not None:
            product, where = native, display_path(view.entry.path.rsplit("/", 1)[0])
        else:
            return
        loc = view.location(None, Context.PACKAGE)
        models, named = model_list(view, product)
        yield AgentFileEvidence(product.id, where, "ships", models, loc, named)
        for name in models:
            yield ModelEvidence(name, loc)


def _bins(doc: dict[str, object]) -> list[str]:
    """A manifest's executables: `"bin": "cli.js"` or `"bin": {"claude": "bin/claude.exe"}`."""
    bins = doc.get("bin")
    if isinstance(bins, str):
        return [bins]
    if isinstance(bins, dict):
        return [v for v in bins.values() if isinstance(v, str)]
    return []


def _join(pkg_dir: str, relative: str) -> str:
    parts = [p for p in relative.replace("\\", "/").split("/") if p not in ("", ".")]
    if not parts or ".." in parts:
        return ""
    return pkg_dir + "/" + "/".join(parts)


def requires_dist(headers: Message) -> set[str]:
    """The names of the packages a PyPI METADATA requires always (its `Requires-Dist` without an extra)."""
    deps = set()
    for req in headers.get_all("Requires-Dist") or []:
        m = _REQUIRES.match(str(req))
        if m and "extra ==" not in str(req):
            deps.add(m.group(1))
    return deps

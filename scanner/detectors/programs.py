"""Installed programs no agent catalog entry names: the facts that make one an agent product of unknown kind.

Two kinds of file feed it, joined by the builder (`scanner/inventory/unknown_agents.py`) with the configs it found:
- a package's metadata (npm `package.json` of a top-level package, a PyPI `*.dist-info/METADATA` with its
  `entry_points.txt` and `RECORD`): its name, version and commands, the catalogued LLM SDKs it declares, and
  whether it is installed as a tool (a global npm package, a uv tool's or pipx venv's own package, a user site);
- a file of such a package's own code (not its dependencies'): the catalogued provider API hosts compiled in
  (a bundle that carries its SDK inside, a native binary, Python modules that call the API over HTTP).
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from scanner.catalog import Catalog
from scanner.catalog.matcher import PatternKind
from scanner.catalog.package_names import package_key
from scanner.detectors.contract import Files, Needs, Reading
from scanner.fileview.view import FileView
from scanner.formats.entry_points import script_names
from scanner.formats.install_paths import (
    NODE_MODULES,
    extension_of,
    join_inside,
    npm_package_of,
    npm_top_level,
    python_tool_site,
    site_of,
)
from scanner.kinds import Evidence
from scanner.kinds.agents import ProgramEvidence, ProgramHostsEvidence
from scanner.model import Context
from scanner.textsafe import decode, display_path
from scanner.vocab import CatalogStatus

_MAX_META = 1 << 20
_MAX_HOSTS = 50
_MIN_MODELS = 2  # listed model ids one file of its own code must name to count (a model table, not a mention)
_MAX_COMMANDS = 20  # an extension's command ids kept (it may contribute hundreds)
_REPO_NAME = re.compile(r"[/:]([A-Za-z0-9][A-Za-z0-9._-]{1,100}?)(?:\.git)?/?$")
_EXTENSION_DIR = re.compile(r"-\d+(?:\.\d+)+.*$")  # the version (and platform) an extension's folder ends with


def _known(catalog: Catalog, ecosystem: str, name: str) -> bool:
    """A package the catalogs already say what it is: an agent product's, or an LLM SDK."""
    return catalog.product_package(ecosystem, name) is not None or catalog.sdk(ecosystem, name) is not None


class ProgramDetector:
    name = "programs"
    description = "Installed programs with a command that call models: agent products no catalog knows"
    # A native executable compiles its provider hosts in anywhere (Claude Code's at 160 MB of 400): every window
    # of a program's own file is looked at for them, not its head only.
    needs = Needs((
        Files(names=("METADATA",), parents=("*.dist-info",), accept=lambda view: _program_file(view)),
        Files(under=("node_modules", "site-packages", "dist-packages", "extensions"),
              accept=lambda view: _program_file(view)),
    ), Reading.WINDOWS)  # fmt: skip

    def extract(self, view: FileView) -> Iterator[Evidence]:
        path = view.entry.path
        later = view.window is not None and view.window.offset > 0  # a later window: only hosts and model ids
        ext = extension_of(path)
        if ext is not None:
            folder, editor, rest = ext
            if rest == "/package.json":
                if not later:
                    yield from self._extension(view, folder, editor)
            elif NODE_MODULES not in rest and not _known(view.catalog, "vscode", _extension_id(folder)):
                yield from _hosts(view, display_path(folder))
            return
        if NODE_MODULES in path:
            top = npm_top_level(path)
            if top is None:
                return
            name, pkg_dir, rest, tool = top
            if rest == "/package.json" and npm_package_of(path) == (name, pkg_dir, rest):
                if later:
                    return
                yield from self._npm(view, pkg_dir, tool)
            elif tool and not _known(view.catalog, "npm", name):
                yield from _hosts(view, display_path(pkg_dir))
        elif view.name == "METADATA":
            if not later:
                yield from self._pypi(view)
        else:
            site = site_of(path)
            if site is not None:
                yield from _hosts(view, display_path(site[0] + "/" + site[1][1:].split("/", 1)[0]))

    def _npm(self, view: FileView, pkg_dir: str, tool: bool) -> Iterator[Evidence]:
        manifest = view.npm_manifest
        name = manifest.name if manifest is not None else None
        if manifest is None or name is None:
            return
        bins = manifest.bins()
        if not bins or _known(view.catalog, "npm", name):
            return
        sdks = tuple(sorted(d for d in manifest.dependencies() if view.catalog.sdk("npm", d) is not None))
        if not (tool or sdks):
            return
        commands = tuple(sorted(bins))
        entry_points = tuple(sorted({display_path(p) for p in (join_inside(pkg_dir, v) for v in bins.values()) if p}))
        env = pkg_dir[: pkg_dir.rfind(NODE_MODULES) + len(NODE_MODULES) - 1]
        yield ProgramEvidence(
            "npm", name, manifest.version, display_path(pkg_dir), display_path(env), commands, entry_points, sdks, (),
            tool, view.location(None, Context.PACKAGE), project=_project(manifest.doc.get("repository")),
        )  # fmt: skip

    def _extension(self, view: FileView, folder: str, editor: str) -> Iterator[Evidence]:
        """An editor extension (`<publisher>.<name>-<version>/package.json`): a program when it contributes
        commands to its editor; it is installed there as a tool is. Its id is `publisher.name`."""
        manifest = view.npm_manifest
        ext_id = manifest.extension_id if manifest is not None else None
        if manifest is None or ext_id is None:
            return
        commands = manifest.commands()[:_MAX_COMMANDS]
        if not commands or _known(view.catalog, "vscode", ext_id):
            return
        sdks = tuple(sorted(d for d in manifest.dependencies() if view.catalog.sdk("npm", d) is not None))
        main = manifest.text("main")
        joined = join_inside(folder, main) if main else ""
        entry_points = (display_path(joined),) if joined else ()
        yield ProgramEvidence(
            "vscode", ext_id, manifest.version, display_path(folder), display_path(folder.rsplit("/", 1)[0]), commands,
            entry_points, sdks, (), True, view.location(None, Context.PACKAGE), editor,
        )  # fmt: skip

    def _pypi(self, view: FileView) -> Iterator[Evidence]:
        meta = view.pypi_metadata
        name, version = meta.name, meta.version
        dist_info = view.entry.path.rsplit("/", 1)[0]
        site = dist_info.rsplit("/", 1)[0]
        if not name or _known(view.catalog, "pypi", name):
            return
        commands = _console_scripts(view.read_path(dist_info + "/entry_points.txt", _MAX_META))
        if not commands:
            return
        sdks = tuple(d for d in meta.requires if view.catalog.sdk("pypi", d) is not None)
        owner = python_tool_site(site)
        tool = owner == "" or (owner is not None and package_key("pypi", owner) == package_key("pypi", name))
        if not (tool or sdks):
            return
        modules = _modules(view.read_path(dist_info + "/RECORD", _MAX_META))
        shown = display_path(site)
        # Console scripts sit in the venv's bin (`<venv>/lib/pythonX.Y/site-packages` -> `<venv>/bin`).
        bin_dir = site.rsplit("/lib/", 1)[0] + "/bin" if "/lib/" in site else None
        scripts = tuple(display_path(f"{bin_dir}/{c}") for c in commands) if bin_dir else ()
        yield ProgramEvidence(
            "pypi", name, version, shown, shown, commands, scripts, sdks,
            tuple(display_path(site + "/" + m) for m in modules), tool, view.location(None, Context.PACKAGE),
        )  # fmt: skip


def _program_file(view: FileView) -> bool:
    """A top-level package's manifest, or a file of its own code: an npm package (a global one's), an editor
    extension, a PyPI distribution's METADATA, or a module of a tool's own venv or a user site."""
    path = view.entry.path
    ext = extension_of(path)
    if ext is not None:
        return ext[2] == "/package.json" or NODE_MODULES not in ext[2]  # its manifest, or its own code
    if NODE_MODULES in path:
        top = npm_top_level(path)
        return top is not None and (top[2] == "/package.json" or top[3])
    if view.name == "METADATA" and path.rsplit("/", 2)[-2].endswith(".dist-info"):
        return True
    site = site_of(path)
    return site is not None and "/" in site[1][1:] and python_tool_site(site[0]) is not None


def _project(repository: object) -> str | None:
    """The repository's name of a manifest's `repository` (`"github:o/r"`, `{"url": "git+https://…/o/r.git"}`)."""
    url = repository.get("url") if isinstance(repository, dict) else repository
    if not isinstance(url, str):
        return None
    m = _REPO_NAME.search(url.strip())
    return m.group(1).lower() if m else None


def _extension_id(folder: str) -> str:
    """`publisher.name` of an extension's folder (`saoudrizwan.claude-dev-4.1.13[-linux-x64]`)."""
    return _EXTENSION_DIR.sub("", folder.rsplit("/", 1)[-1]).lower()


def _hosts(view: FileView, package_path: str) -> Iterator[Evidence]:
    """The catalogued vendor API hosts, and the listed model ids, in this file of a program's own code."""
    catalog = view.catalog
    hosts: dict[str, None] = {}
    models: dict[str, None] = {}
    for hit in view.hits:
        if hit.kind is PatternKind.HOST and len(hosts) < _MAX_HOSTS:
            host = decode(hit.text).lower()
            spec = catalog.host_info(host)
            if spec is not None and spec.vendor:
                hosts[host] = None
        elif hit.kind is PatternKind.MODEL and len(models) < _MAX_HOSTS:
            name = decode(hit.text)
            if catalog.identify(name).catalog == CatalogStatus.KNOWN:
                models[name] = None
    if hosts or len(models) >= _MIN_MODELS:
        loc = view.location(None, Context.PACKAGE)
        yield ProgramHostsEvidence(package_path, tuple(sorted(hosts)), loc, tuple(sorted(models)))


def _console_scripts(data: bytes | None) -> tuple[str, ...]:
    """The commands an `entry_points.txt` installs."""
    return script_names(decode(data)) if data else ()


def _modules(data: bytes | None) -> tuple[str, ...]:
    """The top-level directories a `RECORD` installs into site-packages (its own code)."""
    if not data:
        return ()
    tops: set[str] = set()
    for line in decode(data).splitlines():
        first = line.split(",", 1)[0]
        head, sep, _ = first.partition("/")
        if sep and head and not head.endswith((".dist-info", ".data")) and head not in ("..", "bin", "__pycache__"):
            tops.add(head)
    return tuple(sorted(tops))[:50]


DETECTOR = ProgramDetector()

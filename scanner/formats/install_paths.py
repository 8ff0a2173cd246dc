"""Where package managers and editors install packages: the layout of `node_modules`, of a `site-packages`, of
an editor's extensions folder, and of the venvs tools get (uv, pipx, a user site). Pure functions of an inside
path; what a package is, is its manifest's (`package_manifests`)."""

from __future__ import annotations

import re

NODE_MODULES = "/node_modules/"
_SITE_DIRS = ("/site-packages/", "/dist-packages/")
# Editors that unpack extensions into `~/.<editor>/extensions/<publisher>.<name>-<version>[-<platform>]/`: VS Code,
# VS Code Server, VSCodium, Cursor and Windsurf (their remote servers too).
EDITORS = r"vscode|vscode-server|vscode-insiders|vscode-oss|cursor|cursor-server|windsurf|windsurf-server"
# An extension's manifest, and any file of an extension (its folder, and the path inside it).
EXTENSION_MANIFEST = re.compile(r"/\.(?P<editor>" + EDITORS + r")/extensions/(?P<dir>[^/]+)/package\.json$")
_IN_EXTENSION = re.compile(r"^(?P<dir>.*/\.(?P<editor>" + EDITORS + r")/extensions/[^/]+)(?P<rest>/.+)$")
# A Python tool's own venv: `~/.local/share/uv/tools/<name>/`, `~/.local/pipx/venvs/<name>/` (or pipx's
# `~/.local/share/pipx/venvs/<name>/`); a user site `~/.local/lib/pythonX.Y/site-packages`.
_TOOL_VENV = re.compile(r"/(?:uv/tools|pipx/venvs)/([^/]+)/")
_USER_SITE = re.compile(r"^(?:/root|/home/[^/]+)/\.local/lib/python[0-9.]+/(?:site|dist)-packages$")


def extension_of(path: str) -> tuple[str, str, str] | None:
    """(extension folder, editor, path inside it starting `/`) of a file of an editor extension; None otherwise."""
    m = _IN_EXTENSION.match(path)
    return (m.group("dir"), m.group("editor"), m.group("rest")) if m else None


def npm_package_of(path: str) -> tuple[str, str, str] | None:
    """(package name, package dir, path inside it starting `/`) of a file under a node_modules; None otherwise."""
    idx = path.rfind(NODE_MODULES)
    if idx == -1:
        return None
    head = idx + len(NODE_MODULES)
    segs = path[head:].split("/")
    width = 2 if segs[0].startswith("@") else 1
    if len(segs) <= width:
        return None
    name = "/".join(segs[:width])
    return name, path[:head] + name, "/" + "/".join(segs[width:])


def npm_top_level(path: str) -> tuple[str, str, str, bool] | None:
    """(name, package dir, path inside it, global) of a file of a top-level npm package (one node_modules in its
    path), or of a platform package nested in one (`@anthropic-ai/claude-code/node_modules/@anthropic-ai/claude-
    code-linux-x64`, `cline/node_modules/@cline/cli-linux-x64`), named by the top-level package."""
    found = npm_package_of(path)
    if found is None:
        return None
    name, pkg_dir, rest = found
    outer_at = pkg_dir.rfind(NODE_MODULES, 0, len(pkg_dir) - len(name) - len(NODE_MODULES))
    if outer_at != -1:
        outer = npm_package_of(pkg_dir[: pkg_dir.rfind(NODE_MODULES)] + "/x")
        if outer is None or pkg_dir[:outer_at].count(NODE_MODULES) or not _platform_of(name, outer[0]):
            return None
        name, pkg_dir, rest = outer[0], outer[1], pkg_dir[len(outer[1]) :] + rest
    env = pkg_dir[: pkg_dir.rfind(NODE_MODULES)]
    return name, pkg_dir, rest, env.endswith("/lib")  # `<prefix>/lib/node_modules`: npm's global layout


def _platform_of(inner: str, outer: str) -> bool:
    scope = outer.split("/", 1)[0] if outer.startswith("@") else "@" + outer
    return inner.startswith(outer + "-") or inner.startswith(scope + "/")


def site_of(path: str) -> tuple[str, str] | None:
    """(site-packages dir, path inside it starting `/`) of a file under a site-packages or dist-packages."""
    for marker in _SITE_DIRS:
        idx = path.rfind(marker)
        if idx != -1:
            return path[: idx + len(marker) - 1], path[idx + len(marker) - 1 :]
    return None


def python_tool_site(site: str) -> str | None:
    """The tool name of a site-packages that belongs to one tool's venv; "" for a user site; None otherwise."""
    venv = _TOOL_VENV.search(site)
    if venv is not None:
        return venv.group(1)
    return "" if _USER_SITE.match(site) else None


def join_inside(pkg_dir: str, relative: str) -> str:
    """A manifest's relative path (`bin/cli.js`, `./dist/main`) inside its package dir; "" when it climbs out."""
    parts = [p for p in relative.replace("\\", "/").split("/") if p not in ("", ".")]
    if not parts or ".." in parts:
        return ""
    return pkg_dir + "/" + "/".join(parts)

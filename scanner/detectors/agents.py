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
from email.parser import BytesHeaderParser

from scanner.catalog.matcher import PatternKind
from scanner.catalog.schema import AgentProduct, AgentSettingsFile
from scanner.detectors.base import FileView
from scanner.detectors.config_formats import ConfigItem, ParseFailure, parse_env, parse_json, parse_toml, parse_yaml
from scanner.model import (
    AgentConfigEvidence,
    AgentFileEvidence,
    AgentPackageEvidence,
    CatalogStatus,
    Context,
    CredentialEvidence,
    Evidence,
    ModelEvidence,
    SdkEvidence,
    Skip,
    SkipReason,
)
from scanner.secrets import credential_evidence, safe_url
from scanner.textsafe import decode, display_path

_HEADER = BytesHeaderParser()
_NODE_MODULES = "/node_modules/"
_SITE_DIRS = ("/site-packages/", "/dist-packages/")
_MAX_SETTINGS_BYTES = 4 << 20
_MAX_SHIPS = 2_000  # distinct model ids one file may contribute
_MAX_NAMES = 500  # MCP servers / models per settings file
_PARSERS = {"json": parse_json, "toml": parse_toml, "yaml": parse_yaml, "env": parse_env}
# `{env:OPENAI_API_KEY}` (opencode), `${VAR}`, `$VAR`, `env:VAR`: a reference to a secret, not one.
_REFERENCE = re.compile(r"^\s*(?:\{env:[^}]*\}|\$\{[^}]*\}|\$[A-Za-z_][A-Za-z0-9_]*|env:[A-Za-z_]\w*|\{\{.*\}\})\s*$")
_MODELISH = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._:@/+\-]{0,159}$")
_VERSION = re.compile(r"v?\d+(?:\.\d+)+(?:[-+][0-9A-Za-z.\-]+)?")
_TEMPLATE = re.compile(r"\{([^{}]+)\}")
_REQUIRES = re.compile(r"^\s*([A-Za-z0-9][A-Za-z0-9._-]*)")


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
    windowed = True

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
        if view.entry.size <= _MAX_SETTINGS_BYTES and cat.agent_settings_at(path):
            return view.context not in (Context.PACKAGE, Context.BINARY, Context.TEST, Context.DOCS)
        return False

    def extract(self, view: FileView) -> Iterator[Evidence | Skip]:
        path = view.entry.path
        if view.window is not None and view.window.offset:  # a later window of a big file: only what it ships
            yield from self._shipped_in_window(view)
            return
        if view.name == "package.json" and _NODE_MODULES in path:
            yield from self._npm(view)
        elif view.name in ("METADATA", "PKG-INFO") and path.rsplit("/", 2)[-2].endswith((".dist-info", ".egg-info")):
            yield from self._pypi(view)
        found = self._package_file(view)
        if found is not None:
            yield from self._inside(view, *found)
        native = view.catalog.native_install(path)
        if native is not None:
            yield from self._native(view, native)
        if view.entry.size <= _MAX_SETTINGS_BYTES and view.context not in (Context.PACKAGE, Context.BINARY):
            for product, settings in view.catalog.agent_settings_at(path):
                yield from self._settings(view, product, settings)

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
        if platform:
            yield SdkEvidence("npm", dir_name, version, True, env, loc)

    def _pypi(self, view: FileView) -> Iterator[Evidence]:
        headers = _HEADER.parsebytes(view.data[: 1 << 20])
        name, version = headers.get("Name"), headers.get("Version")
        found = view.catalog.product_package("pypi", str(name)) if name else None
        if found is None:
            return
        product, _ = found
        site = view.entry.path.rsplit("/", 2)[0]
        deps = set()
        for req in headers.get_all("Requires-Dist") or []:
            m = _REQUIRES.match(str(req))
            if m and "extra ==" not in str(req):
                deps.add(m.group(1))
        shown = display_path(site)
        yield AgentPackageEvidence(
            product.id, "pypi", str(name), str(version) if version else None, shown, shown, False, (),
            tuple(sorted(deps)), view.location(None, Context.PACKAGE),
        )  # fmt: skip

    def _native(self, view: FileView, product: AgentProduct) -> Iterator[Evidence]:
        """A native installer's executable (`~/.local/share/claude/versions/2.1.197`): the install is its folder,
        the version its name when the name is one. Its model list is the executable's."""
        folder = view.entry.path.rsplit("/", 1)[0]
        version = view.name if _VERSION.fullmatch(view.name) else None
        loc = view.location(None, Context.PACKAGE)
        shown = display_path(folder)
        yield AgentPackageEvidence(product.id, "binary", view.name, version, shown, shown, False, (view.path,), (), loc)
        models = self._shipped(view)
        yield AgentFileEvidence(product.id, shown, "ships", models, loc)
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
        models = self._shipped(view)
        yield AgentFileEvidence(product.id, shown, "ships", models, loc)
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
        models = self._shipped(view)
        yield AgentFileEvidence(product.id, where, "ships", models, loc)
        for name in models:
            yield ModelEvidence(name, loc)

    def _shipped(self, view: FileView) -> tuple[str, ...]:
        ids: dict[str, CatalogStatus] = {}
        for hit in view.hits:
            if hit.kind is not PatternKind.MODEL:
                continue
            name = decode(hit.text)
            if name not in ids:
                known = view.catalog.identify(name).catalog
                if known != CatalogStatus.UNKNOWN:
                    ids[name] = known
                    if len(ids) >= _MAX_SHIPS:
                        break
        return _complete_ids(ids)

    # --- settings ---------------------------------------------------------------------------------

    def _settings(
        self, view: FileView, product: AgentProduct, settings: AgentSettingsFile
    ) -> Iterator[Evidence | Skip]:
        try:
            items = _PARSERS[settings.format](view.text)
        except ParseFailure as exc:
            yield Skip(view.path, SkipReason.PARSE_ERROR, f"agents: {product.id} {settings.format}: {exc}")
            return
        keys = _Keys(items)
        user = _user(view)
        vendor = product.vendor
        route = None
        for rule in product.routes:
            for item in keys.at(rule.key):
                value = item.value.strip()
                if (rule.equals and value.lower() in {v.lower() for v in rule.equals}) or (
                    rule.prefix is not None and value.startswith(rule.prefix)
                ):
                    route = rule.route
                    break
            if route:
                break
        models: dict[str, None] = {}
        model_evidence: list[ModelEvidence] = []
        for pattern in settings.model:
            for item in keys.at(pattern):
                value = item.value.strip()
                if not _MODELISH.match(value) or value.isdigit() or _REFERENCE.match(value) or value in models:
                    continue
                if len(models) < _MAX_NAMES:
                    models[value] = None
                    loc = view.location(item.line, Context.CONFIG)
                    model_evidence.append(ModelEvidence(value, loc, served_via=route))
        base_url = None
        for pattern in settings.base_url:
            for item in keys.at(pattern):
                if "://" in item.value and base_url is None:
                    base_url = view.catalog.scrub(safe_url(item.value.strip()))
        servers: dict[str, None] = {}
        for container in settings.mcp:
            for name in keys.children(container):
                if len(servers) < _MAX_NAMES:
                    servers[name] = None
        creds: list[CredentialEvidence] = []
        for pattern in settings.credentials:
            for item in keys.at(pattern):
                value = item.value.strip()
                if len(value) < 8 or _REFERENCE.match(value) or view.catalog.is_placeholder(value):
                    continue
                kind = f"{vendor}-api-key" if vendor else "api-key"
                loc = view.location(item.line, Context.CONFIG)
                if loc.context is Context.CONFIG:
                    creds.append(credential_evidence(value, kind, vendor, "", loc, view.meta))
        if not (models or route or base_url or servers or creds):
            return
        yield from model_evidence
        yield from creds
        yield AgentConfigEvidence(
            product.id,
            user,
            tuple(models),
            route,
            base_url,
            tuple(sorted(servers)),
            tuple(sorted({c.sha256 for c in creds})),
            view.location(None, Context.CONFIG),
        )


def _complete_ids(ids: dict[str, CatalogStatus]) -> tuple[str, ...]:
    """The ids, less the family-only ones ending in a bare version that merely start a longer id found beside
    them: a bundle's `startsWith("gemini-3")` is a prefix test, not a model it calls (`gemini-3-flash` is one).
    Catalogued ids always stay."""
    names = sorted(ids)
    out = []
    for i, name in enumerate(names):
        following = names[i + 1] if i + 1 < len(names) else ""
        version_tail = re.fullmatch(r"[0-9][0-9.]*", name.rsplit("-", 1)[-1]) is not None
        prefix = following.startswith(name) and following[len(name)] in "-."
        if ids[name] == CatalogStatus.FAMILY and version_tail and prefix:
            continue
        out.append(name)
    return tuple(out)


class _Keys:
    """A parsed settings file's scalar values, looked up by dotted key path (`*` = any one key)."""

    def __init__(self, items: list[ConfigItem]) -> None:
        # List positions under a key (`args[0]`) belong to that key: a path ends at its last named key.
        self.items = [(tuple(p for p in it.path if not _is_index(p)), it) for it in items]
        self.by_path: dict[tuple[str, ...], list[ConfigItem]] = {}
        for path, it in self.items:
            self.by_path.setdefault(path, []).append(it)

    def _expand(self, pattern: str) -> str:
        # `{model_provider}` is that key's value in the same file.
        def value_of(m: re.Match[str]) -> str:
            found = self.by_path.get(tuple(m.group(1).split(".")))
            return found[0].value if found else "\0"

        for _ in range(3):  # innermost first: `{profiles.{profile}.model_provider}`
            expanded = _TEMPLATE.sub(value_of, pattern)
            if expanded == pattern:
                break
            pattern = expanded
        return pattern

    def at(self, pattern: str) -> list[ConfigItem]:
        segs = tuple(self._expand(pattern).split("."))
        if "*" not in segs:
            exact = self.by_path.get(segs)
            if exact is not None:
                return exact
            # A key with dots in it (`"mcp.servers"`, TOML `[projects."a.b"]`): compare the joined path.
            joined = ".".join(segs)
            return [it for path, it in self.items if ".".join(path) == joined]
        return [it for path, it in self.items if len(path) == len(segs) and _match(path, segs)]

    def children(self, container: str) -> list[str]:
        """The keys right under `container` (the names of the map it holds)."""
        segs = tuple(self._expand(container).split("."))
        names: dict[str, None] = {}
        for path, _ in self.items:
            if len(path) > len(segs) and _match(path[: len(segs)], segs):
                names[path[len(segs)]] = None
        return list(names)


def _match(path: tuple[str, ...], segs: tuple[str, ...]) -> bool:
    return all(s == "*" or s == p for p, s in zip(path, segs, strict=True))


def _is_index(segment: str) -> bool:
    return segment.startswith("[") and segment.endswith("]") and segment[1:-1].isdigit()


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


def _user(view: FileView) -> str | None:
    """The user whose home holds the file: the target's /etc/passwd names it, else the home dir's name."""
    path = view.entry.path
    homes: dict[str, str] = {}
    passwd = view.read_path("/etc/passwd", 1 << 20)
    for line in decode(passwd or b"").splitlines():
        fields = line.split(":")
        if len(fields) >= 6 and not line.startswith("#") and fields[5] not in ("", "/"):
            homes.setdefault(fields[5].rstrip("/"), fields[0])
    best = max((h for h in homes if path.startswith(h + "/")), key=len, default=None)
    if best is not None:
        return homes[best]
    parts = path.split("/")
    if len(parts) > 2 and parts[1] == "root":
        return "root"
    if len(parts) > 3 and parts[1] == "home":
        return parts[2]
    return None

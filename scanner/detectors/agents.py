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
from scanner.catalog.schema import AgentAlias, AgentProduct, AgentSettingsFile
from scanner.detectors.base import FileView
from scanner.detectors.config_formats import ConfigItem, ParseFailure, parse_env, parse_json, parse_toml, parse_yaml
from scanner.detectors.content import in_sentence, packed_tables
from scanner.model import (
    AgentConfigEvidence,
    AgentFileEvidence,
    AgentPackageEvidence,
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
from scanner.vocab import CatalogStatus

_HEADER = BytesHeaderParser()
_NODE_MODULES = "/node_modules/"
_SITE_DIRS = ("/site-packages/", "/dist-packages/")
_MAX_SETTINGS_BYTES = 4 << 20
_MAX_SHIPS = 2_000  # distinct model ids one file may contribute
_MAX_LITERAL = 160  # longest model-id literal read
# A model-list literal is quoted: the JS/JSON text of a bundle or of a single executable. A NUL-bounded run is
# no proof of one (Bun's bytecode string table packs `claude-haiku-3-5` before a header byte `5`), and Rust
# and Go literals packed back to back have no bounds at all: the content detector splits those.
_OPENERS = frozenset(b"\"'`")
# A cloud's provider prefix right before a family id, inside one literal: region and vendor words with dots
# (`us.anthropic.`, `global.openai.`), never a path (`/`) or a longer word (`-`).
_PROVIDER_PREFIX = re.compile(rb"(?<![A-Za-z0-9._-])(?:[a-z]{2,12}\.){1,2}\Z")
_ELF = b"\x7fELF"
_ID_BYTES = frozenset(b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789._:@/+-")
_STRUCTURED = (".json", ".yml", ".yaml")
# The key a literal is the value of, right before it: `name:"…"`, `"displayName": "…"`, `label = '…'`.
_KEY_BEFORE = re.compile(rb"([A-Za-z_$][\w$]*)[\"']?\s{0,3}[:=]\s{0,3}\Z")
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
        if platform and not view.catalog.is_product_library(dir_name):
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
        models = self._shipped(view, product)
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
        models = self._shipped(view, product)
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
        models = self._shipped(view, product)
        yield AgentFileEvidence(product.id, where, "ships", models, loc)
        for name in models:
            yield ModelEvidence(name, loc)

    def _shipped(self, view: FileView, product: AgentProduct) -> tuple[str, ...]:
        """The model ids a model-list file names: the values under the product's `ship_keys` in a structured
        list (aider's `- name: …`), else the file's whole string literals that are model ids (a bundle's or a
        single executable's tables). A literal merely containing an id (`"us.anthropic.claude-…"` is a route's
        form, `"@anthropic-ai/claude-code"` a package) or a display name (`name: "DeepSeek-R1"`) is not one."""
        if product.ship_keys and view.window is None and view.name.endswith(_STRUCTURED):
            listed = _listed(view, product.ship_keys)
            if listed is not None:
                return listed
        return _literal_ids(view)

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
        user = view.user_of(view.entry.path)
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
        overridden = _overridden(keys, settings.selection)
        aliases = {a.name: a for a in product.aliases}
        for pattern in settings.model:
            for item in keys.at(pattern):
                value = item.value.strip()
                if not _MODELISH.match(value) or value.isdigit() or _REFERENCE.match(value) or value in models:
                    continue
                if (value, item.line) in overridden:
                    continue
                if len(models) < _MAX_NAMES:
                    models[value] = None
                    loc = view.location(item.line, Context.CONFIG)
                    alias = aliases.get(value)
                    base = _alias_base(keys, alias) if alias else None
                    model_evidence.append(ModelEvidence(value, loc, base_model=base, served_via=route))
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
            tuple(sorted(overridden, key=lambda o: (o[1] or 0, o[0]))),
        )


def _overridden(keys: _Keys, selection: tuple[str, ...]) -> set[tuple[str, int | None]]:
    """The model settings a key the product reads first shadows: all but the first one set, in `selection`."""
    found = [it for pattern in selection for it in keys.at(pattern) if _MODELISH.match(it.value.strip())]
    return {(it.value.strip(), it.line) for it in found[1:]}


def _alias_base(keys: _Keys, alias: AgentAlias) -> str | None:
    """What a product alias resolves to here: the first of its base keys set in the file, else its default."""
    for pattern in alias.base_keys:
        for item in keys.at(pattern):
            value = item.value.strip()
            if _MODELISH.match(value) and not _REFERENCE.match(value):
                return value
    return alias.default


def _listed(view: FileView, ship_keys: tuple[str, ...]) -> tuple[str, ...] | None:
    """The values under `ship_keys` of a JSON/YAML model list; None when the file does not parse as one."""
    parse = parse_json if view.name.endswith(".json") else parse_yaml
    try:
        keys = _Keys(parse(view.text))
    except ParseFailure:
        return None
    ids: dict[str, None] = {}
    for pattern in ship_keys:
        for item in keys.at(pattern):
            value = item.value.strip()
            if _MODELISH.match(value) and not value.isdigit() and len(ids) < _MAX_SHIPS:
                ids[value] = None
    return tuple(sorted(ids))


def _literal_ids(view: FileView) -> tuple[str, ...]:
    """Whole quoted string literals that begin with a family id and that the catalogs recognise as a model id
    (a listed model, a family id, or one with a snapshot pin such as `claude-opus-4-1@20250805`), or with a
    cloud's provider prefix before it (`"us.anthropic.claude-opus-4-7"`, `"openai.gpt-6.1-sol"`: the id the
    product calls on Bedrock). In a compiled binary, also the ids of its packed literal tables."""
    data, catalog = view.data, view.catalog
    labels = catalog.keys("label") | catalog.keys("not_model")
    binary = view.head[:4] == _ELF
    ids: dict[str, None] = {}
    for hit in view.hits:
        if hit.kind is not PatternKind.MODEL or len(ids) >= _MAX_SHIPS:
            continue
        opener = hit.start - 1
        prefix = _PROVIDER_PREFIX.search(data, max(0, hit.start - 32), hit.start) if hit.start else None
        if prefix is not None:
            opener = prefix.start() - 1
        if opener < 0 or data[opener] not in _OPENERS:
            name = _table_string(data, hit.start, hit.end) if binary else None
            if name is not None and name not in ids and catalog.identify(name).catalog != CatalogStatus.UNKNOWN:
                ids[name] = None
            continue  # the literal does not begin with the family id: a path, a package, a longer word
        quote = data[opener]
        end = hit.end
        while end < len(data) and end - hit.start < _MAX_LITERAL and data[end] in _ID_BYTES:
            end += 1
        if end >= len(data) or data[end] != quote:
            continue  # not a whole literal (or one cut by a window's edge: the overlap has it whole)
        name = decode(data[opener + 1 : end])
        if name in ids or catalog.identify(name).catalog == CatalogStatus.UNKNOWN:
            continue
        key = _KEY_BEFORE.search(data, max(0, opener - 48), opener)
        if key is not None and decode(key.group(1)).lower() in labels:
            continue  # `name: "Claude Opus 4.6"`, `displayName: "DeepSeek-R1"`, `family:"command-a"`: no id
        if in_sentence(data, opener + 1, end):
            continue  # `serves V4 flash as \`deepseek-flash\` (the`: a comment's word, not a model list's
        ids[name] = None
    if binary:
        for name in packed_tables(view)[: max(0, _MAX_SHIPS - len(ids))]:
            ids[name] = None
    return tuple(sorted(ids))


def _table_string(data: bytes, start: int, end: int) -> str | None:
    """A string of a compiled binary's string table that begins with a family id: a JavaScriptCore (Bun) entry,
    `[u32 length | 1<<31][u32 hash][bytes]`, as long as its header says; or a C string between NULs, long
    enough and hyphenated (`\\0anthropic.claude-haiku-5-5\\0`) so that it is no two bytes of machine code."""
    if start >= 8 and data[start - 5] == 0x80 and data[start - 1] == 0:
        length = int.from_bytes(data[start - 8 : start - 4], "little") & 0x7FFFFFFF
        text = data[start : start + length]
        if 0 < length <= _MAX_LITERAL and all(b in _ID_BYTES for b in text):
            return decode(text)
        return None
    if start == 0 or data[start - 1] != 0:
        return None
    stop = end
    while stop < len(data) and stop - start < _MAX_LITERAL and data[stop] in _ID_BYTES:
        stop += 1
    text = data[start:stop]
    if stop < len(data) and data[stop] == 0 and b"-" in text and len(text) >= _MIN_C_STRING:
        return decode(text)
    return None


_MIN_C_STRING = 10


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



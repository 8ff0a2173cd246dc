"""The agent products of the loaded catalogs, indexed for the questions a scan asks of every file.

`Catalog` is built on this index: `product_package` names the product a package belongs to, `native_install` the
product a standalone executable is, `agent_settings_at` and `agent_configs_at` the products reading a file.
"""

from __future__ import annotations

import re

from scanner.catalog.globs import glob_regex, literal_name
from scanner.catalog.package_names import package_key
from scanner.catalog.schema import AgentConfigSpec, AgentProduct, AgentSettingsFile, CatalogFile


class AgentProductIndex:
    """Agent products by package, binary, install path and settings file (built by `_index_products`)."""

    _agent_by_name: dict[str, list[tuple[int, AgentConfigSpec, re.Pattern[str]]]]
    _agent_any: list[tuple[int, AgentConfigSpec, re.Pattern[str]]]

    def _index_products(self, files: list[CatalogFile]) -> None:
        self.agents: list[AgentProduct] = []
        seen: set[str] = set()
        for f in files:  # a product id defined again (a user catalog after the builtin) is the first one's
            for product in f.agents:
                if product.id not in seen:
                    seen.add(product.id)
                    self.agents.append(product)
        self._products = {p.id: p for p in self.agents}
        self.pypi_agents = [p for p in self.agents if any(eco == "pypi" for eco, _ in p.packages)]
        self._product_packages: dict[tuple[str, str], AgentProduct] = {}
        self._platform_rx: list[tuple[AgentProduct, re.Pattern[str]]] = []
        self._library_rx: list[re.Pattern[str]] = []
        self._product_cache: dict[tuple[str, str], tuple[AgentProduct, bool] | None] = {}
        self._ships_rx: dict[str, list[re.Pattern[str]]] = {}
        self._product_binaries: dict[str, list[AgentProduct]] = {}
        for p in self.agents:
            for eco, name in p.packages:
                self._product_packages.setdefault((eco, package_key(eco, name)), p)
            for glob in (*p.platform_packages, *p.libraries):
                self._platform_rx.append((p, glob_regex("/" + glob)))  # a package name as a one-rooted path
            self._library_rx += [glob_regex("/" + glob) for glob in p.libraries]
            self._ships_rx[p.id] = [glob_regex("/" + g) for g in p.ships]
            for b in p.binaries:
                self._product_binaries.setdefault(b, []).append(p)
        # Every PyPI product's model-list files in one pattern: most files of a site-packages are none of them.
        self._pypi_ships = re.compile("|".join(f"(?:{rx.pattern})" for p in self.pypi_agents for rx in
                                               self._ships_rx[p.id]) or "(?!)")  # fmt: skip
        # Native installs: a literal part of the glob (`/.local/share/claude/versions/`) answers most paths.
        self._native: list[tuple[str, AgentProduct, re.Pattern[str]]] = [
            (g.split("*", 1)[0].split("?", 1)[0].removeprefix("~"), p, glob_regex(g))
            for p in self.agents
            for g in p.native
        ]
        self._settings_by_name: dict[str, list[tuple[int, AgentProduct, AgentSettingsFile, re.Pattern[str]]]] = {}
        self._settings_any: list[tuple[int, AgentProduct, AgentSettingsFile, re.Pattern[str]]] = []
        n = 0
        for p in self.agents:
            for sf in p.settings:
                item = (n, p, sf, glob_regex(sf.path))
                n += 1
                file_name = literal_name(sf.path)
                if file_name is None:
                    self._settings_any.append(item)
                else:
                    self._settings_by_name.setdefault(file_name, []).append(item)

    def product(self, product_id: str) -> AgentProduct | None:
        return self._products.get(product_id)

    def product_package(self, ecosystem: str, name: str) -> tuple[AgentProduct, bool] | None:
        """The agent product a package belongs to, and whether it is one of its platform packages (or libraries)."""
        # Asked for every file under a node_modules: the same few package names recur, so the answer is kept.
        key = (ecosystem, name)
        if key in self._product_cache:
            return self._product_cache[key]
        answer: tuple[AgentProduct, bool] | None = None
        found = self._product_packages.get((ecosystem, package_key(ecosystem, name)))
        if found is not None:
            answer = (found, False)
        elif ecosystem == "npm":
            answer = next(((product, True) for product, rx in self._platform_rx if rx.fullmatch("/" + name)), None)
        if len(self._product_cache) < 100_000:
            self._product_cache[key] = answer
        return answer

    def is_product_library(self, name: str) -> bool:
        """An npm package an agent product names as one of its own libraries: a part of the product (listed in
        its `agents[].sdks`), never an SDK install of its own."""
        return any(rx.fullmatch("/" + name) for rx in self._library_rx)

    def native_install(self, path: str) -> AgentProduct | None:
        """The product whose standalone executable (a native installer's) sits at this inside path."""
        for literal, product, rx in self._native:
            if literal in path and rx.fullmatch(path):
                return product
        return None

    def product_binaries(self, file_name: str) -> list[AgentProduct]:
        return self._product_binaries.get(file_name, [])

    def ships_file(self, product: AgentProduct, relative: str) -> bool:
        """True when `relative` (a path inside a package dir, starting `/`) holds the product's model list."""
        return any(rx.fullmatch(relative) for rx in self._ships_rx.get(product.id, ()))

    def pypi_ships_file(self, relative: str) -> AgentProduct | None:
        """The first PyPI product (catalog order) whose package holds its model list at `relative` (a path inside
        a site-packages, starting `/`)."""
        if not self._pypi_ships.fullmatch(relative):
            return None
        return next((p for p in self.pypi_agents if self.ships_file(p, relative)), None)

    def agent_settings_at(self, path: str) -> list[tuple[AgentProduct, AgentSettingsFile]]:
        """The agent products that read a settings file at this inside path (catalog order)."""
        named = self._settings_by_name.get(path.rsplit("/", 1)[-1])
        if named is None and not self._settings_any:
            return []
        candidates = sorted((named or []) + self._settings_any, key=lambda c: c[0])
        return [(p, sf) for _, p, sf, rx in candidates if rx.fullmatch(path)]

    def agent_configs_at(self, path: str) -> list[AgentConfigSpec]:
        """The agent tools that keep an MCP server list at this inside path (catalog order)."""
        name = path.rsplit("/", 1)[-1]
        named = self._agent_by_name.get(name)
        if named is None and not self._agent_any:
            return []  # the common case: one dict miss per file
        candidates = sorted((named or []) + self._agent_any, key=lambda c: c[0])
        return [spec for _, spec, rx in candidates if rx.fullmatch(path)]

"""Agents: installed agent products (a catalog names them, or they are recognised as calling models), with
their binaries, shipped model lists, bundled SDKs and every user's settings of them."""

from __future__ import annotations

import dataclasses
import re
from collections import defaultdict
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import TYPE_CHECKING, Any

from scanner.catalog.package_names import package_key
from scanner.kinds.agents.agent_facts import (
    AgentConfig,
    AgentConfigEvidence,
    AgentEntry,
    AgentFileEvidence,
    AgentPackageEvidence,
    BundledSdk,
    ProgramEvidence,
    ProgramHostsEvidence,
)
from scanner.kinds.base import (
    Cell,
    DiffIdentity,
    FoldContext,
    Join,
    JsonShape,
    Kind,
    Locations,
    ReportTable,
    table_of,
    text,
)
from scanner.kinds.sdks import SdkKey
from scanner.model import Context, Location, location_key

if TYPE_CHECKING:
    from scanner.kinds import Inventory

__all__ = [
    "KIND",
    "MAX_AGENT_ITEMS",
    "AgentConfig",
    "AgentConfigEvidence",
    "AgentEntry",
    "AgentFileEvidence",
    "AgentFold",
    "AgentPackageEvidence",
    "BundledSdk",
    "ProgramEvidence",
    "ProgramHostsEvidence",
]

MAX_AGENT_ITEMS = 10_000  # agent package / file / config evidence kept (distinct installs are few)
_MAX_AGENT_PATHS = 5



def _version_key(ev: AgentPackageEvidence) -> tuple[int, ...]:
    return tuple(int(n) for n in re.findall(r"\d+", ev.version or "")[:8])


class AgentFold:
    """Agent products' packages, files and users' configs, and the programs that may be agents of unknown
    kind. Its joins (inventory/joins.py) read the configs and files, and give it the SDKs installed."""

    def __init__(self, ctx: FoldContext) -> None:
        self.ctx = ctx
        self.packages: dict[tuple[str, str], AgentPackageEvidence] = {}
        self.files: set[AgentFileEvidence] = set()
        self.configs: set[AgentConfigEvidence] = set()
        self.programs: dict[tuple[str, str], ProgramEvidence] = {}
        self.program_hosts: set[ProgramHostsEvidence] = set()
        self.sdks: Iterable[SdkKey] = ()  # the SDK installs (set by the `bundled SDKs` join)
        self._user_configs: dict[str, tuple[AgentConfig, ...]] | None = None
        self._built: tuple[AgentEntry, ...] | None = None
        # Set by the `config routes` join: the route a file states for a model as that model's own record.
        self.own_route: Callable[[Iterable[str], set[str]], str | None] = lambda models, dirs: None

    def add(self, ev: Any) -> None:
        if isinstance(ev, AgentPackageEvidence):
            key = (ev.product, ev.install_path)
            known = self.packages.get(key)
            if known is None and len(self.packages) < MAX_AGENT_ITEMS:
                self.packages[key] = ev
            elif known is not None and ev.ecosystem == "binary" and _version_key(ev) > _version_key(known):
                self.packages[key] = ev  # a native installer keeps old versions beside the current one
        elif isinstance(ev, AgentFileEvidence):
            if len(self.files) < MAX_AGENT_ITEMS:
                self.files.add(ev)
        elif isinstance(ev, AgentConfigEvidence):
            if len(self.configs) < MAX_AGENT_ITEMS:
                self.configs.add(ev)
        elif isinstance(ev, ProgramEvidence):
            if len(self.programs) < MAX_AGENT_ITEMS:
                self.programs.setdefault((ev.name, ev.install_path), ev)
        elif len(self.program_hosts) < MAX_AGENT_ITEMS:
            self.program_hosts.add(ev)

    def shipped(self) -> dict[str, set[str]]:
        """The model ids each product's model-list file ships (`agents[].ships`), by the file's path."""
        shipped: dict[str, set[str]] = defaultdict(set)
        for f in self.files:
            if f.role == "ships":
                # and the ids of its provider-prefixed literals (`"cohere/command-a-plus"`, as in any other file)
                shipped[f.location.path].update(f.models, f.named)
        return shipped

    def user_configs(self) -> dict[str, tuple[AgentConfig, ...]]:
        """Each product's settings folded per user (computed once): the first file (by path) that states a route
        or a base URL decides it; models, MCP servers, credentials and files are the union."""
        if self._user_configs is None:
            self._user_configs = self._fold_configs()
        return self._user_configs

    def _fold_configs(self) -> dict[str, tuple[AgentConfig, ...]]:
        by_user: dict[tuple[str, str | None], list[AgentConfigEvidence]] = defaultdict(list)
        for ev in self.configs:
            by_user[(ev.product, ev.user)].append(ev)
        out: dict[str, list[AgentConfig]] = defaultdict(list)
        for (product_id, user), evs in sorted(by_user.items(), key=lambda kv: (kv[0][0], kv[0][1] or "")):
            evs.sort(key=lambda e: location_key(e.location))
            # A secret in a model slot is a credential (reported as one), never a model: as for ModelEvidence.
            models = tuple(dict.fromkeys(m for e in evs for m in e.models if not self.ctx.is_secret(m)))
            route = next((e.served_via for e in evs if e.served_via), None)
            base_url = next((e.base_url for e in evs if e.base_url), None)
            # Else the route a file of the product's folders states for the model it selects (that model's own
            # record), then its base URL or default.
            own = self.own_route(models, {e.location.path.rsplit("/", 1)[0] for e in evs})
            route = route or own or self._route_of(product_id, base_url, bool(models))
            out[product_id].append(
                AgentConfig(
                    user,
                    models,
                    route,
                    base_url,
                    tuple(sorted({self.ctx.as_shown(s) for e in evs for s in e.mcp_servers})),
                    tuple(sorted({c for e in evs for c in e.credentials})),
                    tuple(sorted({e.location.path for e in evs})),
                )
            )
        return {k: tuple(v) for k, v in out.items()}

    def _route_of(self, product_id: str, base_url: str | None, selects: bool) -> str | None:
        catalog = self.ctx.catalog
        product = catalog.product(product_id)
        if base_url:
            host = base_url.split("://", 1)[-1].split("/", 1)[0].split(":", 1)[0]
            spec = catalog.host_info(host)
            if spec is None:
                # The catalog meaning of a URL the config readers share: imported where needed (detectors/
                # builds on this module's types).
                from scanner.configs.providers import url_route

                return url_route(base_url, catalog)  # a gateway, named by its host, or a server on the machine
            if spec.served_via:
                return spec.served_via
            return "direct" if product and spec.vendor == product.vendor else None
        return product.default_route if product and selects else None

    def build(self) -> tuple[AgentEntry, ...]:
        """One entry per install of an agent product: its main package, with the platform packages, binaries,
        model-list files and bundled SDKs inside or beside it; every user's settings of that product. Built once:
        the sessions join reads the entries before the builder asks for them (no evidence arrives in between)."""
        if self._built is None:
            self._built = self._build()
        return self._built

    def _build(self) -> tuple[AgentEntry, ...]:
        configs = self.user_configs()
        mains = sorted((ev for ev in self.packages.values() if not ev.platform), key=lambda e: e.install_path)
        groups: dict[tuple[str, str], list[AgentPackageEvidence]] = {(m.product, m.install_path): [m] for m in mains}
        for ev in sorted(self.packages.values(), key=lambda e: e.install_path):
            if not ev.platform:
                continue
            owner = next(
                (
                    m
                    for m in mains
                    if m.product == ev.product
                    and (ev.install_path.startswith(m.install_path + "/") or ev.environment == m.environment)
                ),
                None,
            )
            if owner is not None:  # alone, a platform package (or a library a product names as one) is no install
                groups[(ev.product, owner.install_path)].append(ev)
        entries = [self._entry(product, path, pkgs, configs.get(product, ())) for (product, path), pkgs in
                   groups.items()]  # fmt: skip
        installed = {product for product, _ in groups}
        for product_id, cfgs in configs.items():
            product = self.ctx.catalog.product(product_id)
            if product_id not in installed and product is not None:
                entries.append(AgentEntry(product_id, product.name, None, None, None, (), (), (), cfgs, ()))
        return tuple(entries)

    def _entry(
        self, product_id: str, path: str, pkgs: list[AgentPackageEvidence], configs: tuple[AgentConfig, ...]
    ) -> AgentEntry:
        product = self.ctx.catalog.product(product_id)
        main = next((p for p in pkgs if not p.platform), pkgs[0])
        binaries, ships, locs = self._inside(product_id, path, pkgs, main)
        return AgentEntry(
            product_id,
            product.name if product else product_id,
            main.version,
            main.ecosystem,
            path,
            tuple(sorted(binaries)),
            self._bundled(path, pkgs, main),
            tuple(sorted(ships)),
            configs,
            locs.sorted(),
            editor=main.editor,
        )

    def _inside(
        self, product_id: str, path: str, pkgs: list[AgentPackageEvidence], main: AgentPackageEvidence
    ) -> tuple[set[str], set[str], Locations]:
        """The binaries, shipped model ids and locations of the files inside an install."""
        dirs = {p.install_path for p in pkgs}
        binaries = {b for p in pkgs for b in p.entry_points}
        ships: set[str] = set()
        locs = Locations()
        for p in pkgs:
            locs.add(p.location)
        for f in self.files:
            inside = f.package_path in dirs or (main.ecosystem == "pypi" and path.startswith(f.package_path + "/lib/"))
            if f.product != product_id or not inside:
                continue
            if f.role == "binary":
                binaries.add(f.location.path)
            elif main.ecosystem == "binary" and f.location.path not in main.entry_points:
                continue  # an older version a native installer left beside the current one
            else:
                ships.update(f.models)
                locs.add(f.location)
        return binaries, ships, locs

    def _bundled(
        self, path: str, pkgs: list[AgentPackageEvidence], main: AgentPackageEvidence
    ) -> tuple[BundledSdk, ...]:
        """The SDKs an install bundles: installed inside or beside it and declared by it."""
        catalog = self.ctx.catalog
        deps = {package_key(main.ecosystem, d) for d in main.dependencies}
        platform_names = {p.package for p in pkgs if p.platform}
        # The product's own libraries (pi's pi-ai) are SDKs it bundles, not SDK installs of their own.
        sdks: dict[tuple[str, str, str | None], None] = {
            (p.ecosystem, p.package, p.version): None
            for p in pkgs
            if p.platform and catalog.is_product_library(p.package)
        }
        for eco, name, version, installed, env in sorted(self.sdks, key=lambda k: (k[0], k[1], k[2] or "")):
            if not installed or env is None or eco != main.ecosystem or name in platform_names:
                continue
            nested = env.startswith(path + "/")
            beside = env == main.environment and package_key(eco, name) in deps
            if (nested or beside) and catalog.sdk(eco, name) is not None:
                sdks[(eco, name, version)] = None
        return tuple(BundledSdk(e, n, v) for e, n, v in sorted(sdks, key=lambda k: (k[0], k[1], k[2] or "")))


def _paths(locs: Iterable[Location]) -> tuple[str, ...]:
    return tuple(sorted({loc.path for loc in locs}))


def _agent_facets(a: AgentEntry) -> Mapping[str, Any]:
    # What it ships and bundles is the `models` and `sdks` sections'. Folded over users: settings moved between
    # a home and /etc are the same settings.
    return {
        "product": a.product,
        "version": a.version,
        "ecosystem": a.ecosystem,
        "models": sorted({m for c in a.configs for m in c.models}),
        "served_via": sorted({c.served_via or "-" for c in a.configs}),
        "base_url": sorted({c.base_url for c in a.configs if c.base_url}),
        "mcp_servers": sorted({m for c in a.configs for m in c.mcp_servers}),
        "credentials": sorted({x for c in a.configs for x in c.credentials}),
    }


def _table(agents: Sequence[AgentEntry], show_all: bool) -> ReportTable:
    """Agent products: one row per (install, user who configures it)."""
    rows = []
    for a in agents:
        # An editor extension says its editor; a product no catalog knows says so (its `evidence` is in the JSON).
        name = a.name + (f" ({a.editor})" if a.editor else "") + (" (unknown kind)" if a.catalog == "unknown" else "")
        where = a.install_path or ("(not installed)" if not a.sessions else f"(not installed; {a.sessions} session(s))")
        for c in a.configs or (None,):
            rows.append((name, text(a.version), where, str(len(a.ships)),
                         (c.user or "(system)") if c else "", ", ".join(c.models) if c else "",
                         text(c.served_via) if c else "", ", ".join(c.mcp_servers) if c else ""))
    return table_of(KIND, tuple(rows))


def _order(a: AgentEntry) -> tuple[str, str]:
    return (a.name, a.install_path or "")


def _used(inv: Inventory, ctx: FoldContext) -> Inventory:
    """A catalogued product whose folder holds sessions, with no install or config found, was still used here: an
    entry of its own, with how many sessions and where (an uninstalled product, or a home copied from elsewhere)."""
    known = {a.name for a in inv.agents}
    used: dict[str, list[Location]] = defaultdict(list)
    for s in inv.sessions:
        if s.product and s.product not in known and s.location.context is not Context.TEST:
            used[s.product].append(s.location)
    added = []
    for name, locs in used.items():
        product = ctx.catalog.product(name)
        if product is not None:
            where = tuple(sorted(locs, key=location_key)[:_MAX_AGENT_PATHS])
            added.append(AgentEntry(name, product.name, None, None, None, (), (), (), (), where, sessions=len(locs)))
    if not added:
        return inv
    return dataclasses.replace(inv, agents=tuple(sorted((*inv.agents, *added), key=_order)))


def _label(a: AgentEntry) -> str:
    if a.install_path:
        return f"{a.name} in {a.install_path}"
    return a.name + (" (configured, not installed)" if a.configs or not a.sessions else " (used, not installed)")


KIND: Kind[AgentEntry] = Kind(
    key="agents",
    entry=AgentEntry,
    evidence=(AgentPackageEvidence, AgentFileEvidence, AgentConfigEvidence, ProgramEvidence, ProgramHostsEvidence),
    fold=AgentFold,
    order=_order,
    title="Agents",
    columns=("agent", "version", "install path", "ships", "user", "models", "via", "mcp servers"),
    cells={"install path": Cell.CODE},
    identity=DiffIdentity(
        lambda a: f"{a.name}@{a.install_path or '-'}",
        label=_label,
        facets=_agent_facets,
        paths=lambda a: _paths(a.locations)[:_MAX_AGENT_PATHS],
    ),
    walked=True,
    shapes={AgentEntry: JsonShape(omit_empty=frozenset({"sessions"}))},
    table=_table,
    report_rank=10,
    joins=(Join("a product whose folder holds sessions was used here, installed or not", _used),),
)

"""A session whose records say nothing of who served them, or by which route, completed from the agent product
whose folder holds it.

A product's folder is the hidden folder its catalogued settings files sit in (`.kimi` of `.kimi/config.toml`,
`.config/io.datasette.llm` of its `default_model.txt`), or an editor extension's storage folder; a session file under
that folder was written by that product.
What the user's config there selects (the models and the route of that product's config in that folder) comes
first; else the product's catalogued provider and default route (`vendor`, `default_route` in agents.toml). Only
what the records left open is filled: a provider named by nothing (`unknown`, no candidates) takes the selected
vendor, a provider of that vendor with no route takes the route, each at low confidence with an `agent-product`
rule saying where it came from. A label no served record ran under (Copilot CLI's subagent on another vendor's
model) takes the route too, when the product's vendor is unset or the label's: the product reached that model the
same way. The session is marked as that product's. A session in a test fixture is left alone.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from scanner.catalog import Catalog
from scanner.catalog.schema import AgentProduct
from scanner.catalog.spelling import identify_spelled
from scanner.kinds.agents import AgentConfig, AgentEntry
from scanner.kinds.sessions import RuleEvidence, SessionEntry, SessionProvider
from scanner.vocab import PSEUDO_VENDORS, Confidence, Context

RULE = "agent-product"
_GLOB = frozenset("*?[{~")


@dataclass(frozen=True)
class _Default:
    product: str
    vendor: str | None
    route: str | None


def product_folders(catalog: Catalog) -> tuple[tuple[str, AgentProduct], ...]:
    """(`/<folder>/`, product) for each product settings file under a hidden folder of a home, and each editor
    extension's own storage (`globalStorage/saoudrizwan.claude-dev/`, the editor's lower-case spelling of its id),
    deepest first."""
    out: dict[str, AgentProduct] = {}
    for product in catalog.agents:
        for f in product.settings:
            folder = f.path.rsplit("/", 1)[0] if "/" in f.path else ""
            if folder.startswith(".") and not _GLOB & set(folder):
                out.setdefault(f"/{folder}/", product)
        for ecosystem, name in product.packages:
            if ecosystem == "vscode":
                out.setdefault(f"/globalStorage/{name.lower()}/", product)
    return tuple(sorted(out.items(), key=lambda kv: (-len(kv[0]), kv[0])))


def _config_of(path: str, entry: AgentEntry | None) -> AgentConfig | None:
    """The product's config in the folder that holds the session (`/home/u/.kimi/config.toml` for a session under
    `/home/u/.kimi/`): a config in a project folder (no hidden folder on its path) speaks for no session."""
    for config in entry.configs if entry else ():
        for f in config.files:
            folder = f.rsplit("/", 1)[0]
            if "/." in folder and path.startswith(folder + "/"):
                return config
    return None


def _folder_of(path: str, folders: tuple[tuple[str, AgentProduct], ...]) -> tuple[str, AgentProduct] | None:
    """The product folder holding `path`, as the path spells it up to that folder (`/home/u/.kimi/`), and its
    product."""
    for folder, product in folders:
        at = path.find(folder)
        if at >= 0:
            return path[: at + len(folder)], product
    return None


def _default(root: str, product: AgentProduct, agents: dict[str, AgentEntry], catalog: Catalog) -> _Default:
    config = _config_of(root, agents.get(product.id))
    vendor, route = product.vendor, product.default_route
    if config is not None:
        chosen = {identify_spelled(catalog, m).vendor for m in config.models} - {None, *PSEUDO_VENDORS}
        if len(chosen) == 1:
            vendor = next(iter(chosen))
        route = config.served_via or route
    return _Default(product.id, vendor, route)


def _filled(p: SessionProvider, d: _Default) -> SessionProvider:
    vendor, via = p.vendor, p.served_via
    if vendor == "unknown" and not p.candidates and d.vendor:
        vendor = d.vendor
    if via is None and vendor not in PSEUDO_VENDORS and (d.vendor is None or vendor == d.vendor):
        via = d.route
    if (vendor, via) == (p.vendor, p.served_via):
        return p
    rule = RuleEvidence(RULE, 1, d.product, Confidence.LOW)
    confidence = Confidence.LOW if vendor != p.vendor else p.confidence
    return replace(p, vendor=vendor, served_via=via, confidence=confidence, evidence=(*p.evidence, rule))


def _label_routes(s: SessionEntry, d: _Default, catalog: Catalog) -> tuple[tuple[str, str], ...]:
    if d.route is None:
        return ()
    out = []
    for label in s.unserved_labels:
        vendor = identify_spelled(catalog, label).vendor
        if vendor and vendor not in PSEUDO_VENDORS and d.vendor in (None, vendor):
            out.append((label, d.route))
    return tuple(out)


def complete(
    sessions: list[SessionEntry], agents: tuple[AgentEntry, ...], catalog: Catalog
) -> tuple[list[SessionEntry], tuple[tuple[str, str], ...]]:
    """The sessions, each in a product's folder marked as that product's and its open facts filled; and the
    (label, route) pairs of their unserved labels that the product's route carries."""
    folders = product_folders(catalog)
    by_name = {a.name: a for a in agents}
    out: list[SessionEntry] = []
    routes: list[tuple[str, str]] = []
    defaults: dict[str, _Default] = {}  # by product folder: a home's thousands of sessions share one
    for s in sessions:
        held = _folder_of(s.location.path, folders) if s.location.context is not Context.TEST else None
        if held is None:
            out.append(s)
            continue
        root, product = held
        d = defaults.get(root)
        if d is None:
            d = defaults[root] = _default(root, product, by_name, catalog)
        gaps = any(p.served_via is None or p.vendor == "unknown" for p in s.providers)
        providers = tuple(_filled(p, d) for p in s.providers) if gaps else s.providers
        out.append(replace(s, providers=providers, product=d.product))
        routes.extend(_label_routes(s, d, catalog))
    return out, tuple(routes)

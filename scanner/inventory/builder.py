"""Evidence in, inventory out: gather, identify against the catalogs, de-duplicate, sort.

Memory is bounded by what is distinct, not by what is seen: evidence is folded into its entry as it
arrives, and each entry keeps at most MAX_LOCATIONS locations (the first ones in a stable order).
"""

from __future__ import annotations

import re
from collections import Counter, defaultdict
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field, replace

from scanner.catalog import Catalog
from scanner.catalog.index import _package_key as package_key
from scanner.catalog.spelling import identify_spelled
from scanner.detectors.providers import url_route
from scanner.findings.registry import derive_findings
from scanner.inventory.programs import Found, unknown_agents
from scanner.inventory.redact import redact_all
from scanner.inventory.sections import in_declared_order, in_order
from scanner.kinds.local_models.fold import EVIDENCE as LOCAL_EVIDENCE
from scanner.kinds.local_models.fold import LocalModelFold
from scanner.kinds.local_models.join import resolve_uses
from scanner.model import (
    MAX_LOCATIONS,
    WIRING_CONTEXTS,
    AgentConfig,
    AgentConfigEvidence,
    AgentEntry,
    AgentFileEvidence,
    AgentPackageEvidence,
    BundledSdk,
    CatalogStatus,
    ClientEntry,
    ClientEvidence,
    Context,
    CredentialEntry,
    CredentialEvidence,
    CredentialLocation,
    EndpointEntry,
    EndpointEvidence,
    EnvSetting,
    Evidence,
    Inventory,
    KillSwitchEntry,
    KillSwitchEvidence,
    Location,
    McpServerEntry,
    McpServerEvidence,
    ModelEntry,
    ModelEvidence,
    ProgramEvidence,
    ProgramHostsEvidence,
    SdkEntry,
    SdkEvidence,
    SessionCorroboration,
    SessionEntry,
    SessionEvidence,
    SessionLogEvidence,
    SessionMetaEvidence,
    Skip,
    SkipReason,
    Stats,
    SwitchState,
    TargetInfo,
    location_key,
)
from scanner.sessions.corroborate import attach
from scanner.sessions.metadata import fold
from scanner.sessions.routes import build_routes

Extend = Callable[[Inventory], Inventory]
MAX_URLS = 20
MAX_SKIPS = 100_000
MAX_SESSIONS = 20_000
MAX_SETTINGS = 10_000  # environment-style base URL / model assignments kept for live findings
MAX_AGENT_ITEMS = 10_000  # agent package / file / config evidence kept (distinct installs are few)

_MAX_OVERFLOW = 100_000  # distinct locations past the candidates counted exactly; past this, each sighting counts


@dataclass
class _Locations:
    by_key: dict[tuple[str, int | None, str | None], Location] = field(default_factory=dict)
    overflow: set[int] = field(default_factory=set)  # hashes of the distinct locations past the candidates
    overflow_sightings: int = 0  # sightings past _MAX_OVERFLOW distinct ones

    def add(self, loc: Location) -> None:
        key = (loc.path, loc.line, loc.via)
        old = self.by_key.get(key)
        if old is None:
            if len(self.by_key) < MAX_LOCATIONS * 4:
                self.by_key[key] = loc
            else:
                if loc.context in WIRING_CONTEXTS:
                    # Mentions (a session's conversation, a package's list) never crowd out where the id is wired.
                    spare = next((k for k, v in self.by_key.items() if v.context not in WIRING_CONTEXTS), None)
                    if spare is not None:
                        del self.by_key[spare]
                        self.by_key[key] = loc
                        key = spare  # the evicted mention is the one counted as cut
                if len(self.overflow) < _MAX_OVERFLOW:
                    self.overflow.add(hash(key))
                else:
                    self.overflow_sightings += 1
            return
        better = loc if loc.context.precedence < old.context.precedence else old
        if loc.parse_error != better.parse_error or old.parse_error != better.parse_error:
            better = replace(better, parse_error=True)
        self.by_key[key] = better

    def sorted(self) -> tuple[Location, ...]:
        locs = sorted(self.by_key.values(), key=location_key)
        if len(locs) <= MAX_LOCATIONS:
            return tuple(locs)
        # The first MAX_LOCATIONS, the wiring ones kept first: a model wired once and mentioned a thousand times
        # stays wired.
        wiring = [loc for loc in locs if loc.context in WIRING_CONTEXTS][:MAX_LOCATIONS]
        rest = [loc for loc in locs if loc.context not in WIRING_CONTEXTS][: MAX_LOCATIONS - len(wiring)]
        return tuple(sorted(wiring + rest, key=location_key))

    def cut(self) -> int:
        """How many locations `sorted` leaves out: every cut is counted where it happens."""
        return max(0, len(self.by_key) - MAX_LOCATIONS) + len(self.overflow) + self.overflow_sightings


def mentioned_in(sessions: list[SessionEntry]) -> dict[str, int]:
    """How many sessions of this machine only mention each model id in their conversation (fixtures not counted)."""
    out: Counter[str] = Counter()
    for s in sessions:
        if s.location.context is not Context.TEST:
            out.update(s.mentioned)
    return dict(out)

    def cut(self) -> int:
        """How many locations `sorted` leaves out: every cut is counted where it happens."""
        return max(0, len(self.by_key) - MAX_LOCATIONS) + len(self.overflow) + self.overflow_sightings


def _version_key(ev: AgentPackageEvidence) -> tuple[int, ...]:
    return tuple(int(n) for n in re.findall(r"\d+", ev.version or "")[:8])


def _wired(locs: tuple[Location, ...]) -> bool:
    return any(loc.context in WIRING_CONTEXTS for loc in locs)


class InventoryBuilder:
    def __init__(self, catalog: Catalog) -> None:
        self.catalog = catalog
        self._models: dict[str, _Locations] = defaultdict(_Locations)
        self._model_via: dict[str, set[str]] = defaultdict(set)
        self._model_base: dict[str, set[str]] = defaultdict(set)
        self._sdks: dict[tuple[str, str, str | None, bool, str | None], _Locations] = defaultdict(_Locations)
        self._hosts: dict[str, _Locations] = defaultdict(_Locations)
        self._urls: dict[str, set[str]] = defaultdict(set)
        self._overrides: dict[str, set[tuple[str, str]]] = defaultdict(set)
        self._creds: dict[str, dict[tuple[str, int | None, str | None], CredentialLocation]] = defaultdict(dict)
        self._cred_kind: dict[str, CredentialEvidence] = {}
        self._cred_cut: Counter[str] = Counter()
        self._switches: dict[tuple[str, str | None, str], _Locations] = defaultdict(_Locations)
        self._switch_note: dict[tuple[str, str | None, str], str] = {}
        self._skips: set[Skip] = set()
        self._sessions: list[SessionEntry] = []
        self._session_meta: list[SessionEntry] = []
        self._session_notes: list[SessionCorroboration] = []
        self._routes = frozenset(f.route for f in catalog.hosted_forms) - {"direct", "self-hosted"}
        self._clients: dict[tuple[str, str | None, str | None, str], _Locations] = defaultdict(_Locations)
        self._client_parts: dict[tuple[str, str | None, str | None, str], set[str]] = defaultdict(set)
        self._settings: set[EnvSetting] = set()
        self._cut: Counter[str] = Counter()  # what a cap left out, by what it was: recorded in `skipped`
        self._mcp: dict[tuple[str, str, str | None, str | None, tuple[str, ...], str | None, str], _Locations] = (
            defaultdict(_Locations)
        )
        self._agent_pkgs: dict[tuple[str, str], AgentPackageEvidence] = {}
        self._agent_files: set[AgentFileEvidence] = set()
        self._agent_cfgs: set[AgentConfigEvidence] = set()
        self._programs: dict[tuple[str, str], ProgramEvidence] = {}
        self._program_hosts: set[ProgramHostsEvidence] = set()
        self._local = LocalModelFold(catalog)

    # --- intake -----------------------------------------------------------------------------------

    def skip(self, skip: Skip) -> None:
        if len(self._skips) < MAX_SKIPS:
            self._skips.add(skip)
        elif skip not in self._skips:
            self._cut[f"skip record sighting(s) past {MAX_SKIPS} distinct"] += 1

    def add_all(self, evidence: Iterable[Evidence | Skip]) -> None:
        """Evidence of one file, and the skips a detector records for what it could not understand."""
        for ev in evidence:
            if isinstance(ev, Skip):
                self.skip(ev)
            else:
                self.add(ev)

    def add(self, ev: Evidence) -> None:
        if isinstance(ev, LOCAL_EVIDENCE):
            self._local.add(ev)
        elif isinstance(ev, ModelEvidence):
            if self.catalog.scrub(ev.name) != ev.name:
                return  # a secret in a model-ish slot is a credential, reported as one elsewhere
            self._models[ev.name].add(ev.location)
            if ev.served_via:
                self._model_via[ev.name].add(ev.served_via)
            if ev.base_model:
                self._model_base[ev.name].add(ev.base_model)
            if ev.variable:
                self._setting(EnvSetting(ev.variable, "model", ev.name, ev.location))
        elif isinstance(ev, SdkEvidence):
            self._sdks[(ev.ecosystem, ev.name, ev.version, ev.installed, ev.environment)].add(ev.location)
        elif isinstance(ev, EndpointEvidence):
            self._hosts[ev.host].add(ev.location)
            if ev.overrides:
                self._overrides[ev.host].add(ev.overrides)
            if ev.url:
                self._url(ev.host, self.catalog.scrub(ev.url))
            if ev.variable:
                shown = self.catalog.scrub(ev.url or ev.host)
                self._setting(EnvSetting(ev.variable, "base_url", shown, ev.location, ev.overrides is not None))
        elif isinstance(ev, CredentialEvidence):
            loc = ev.location
            slot = self._creds[ev.sha256]
            at = (loc.path, loc.line, loc.via)
            known_loc = slot.get(at)
            # A second sighting without file facts (an EnvironmentFile read from its unit) keeps the first's.
            if known_loc is None and len(slot) >= MAX_LOCATIONS:
                self._cred_cut[ev.sha256] += 1  # a sighting past the bound: counted (it may repeat one)
            elif known_loc is None or known_loc.mode is None:
                meta = ev.meta
                slot[at] = CredentialLocation(loc, meta.mode if meta else None, meta.owner if meta else None)
            known = self._cred_kind.get(ev.sha256)
            # A recognised format (with its public prefix, or its route and pair) names the kind better
            # than a key name does.
            if known is None or _credential_rank(ev) > _credential_rank(known):
                self._cred_kind[ev.sha256] = ev
        elif isinstance(ev, SessionEvidence):
            if len(self._sessions) < MAX_SESSIONS:
                self._sessions.append(ev.session)
            else:
                self._cut[f"session(s) past {MAX_SESSIONS}"] += 1
        elif isinstance(ev, SessionMetaEvidence):
            if len(self._session_meta) < MAX_SESSIONS:
                self._session_meta.append(ev.meta)
            else:
                self._cut[f"session metadata file(s) past {MAX_SESSIONS}"] += 1
        elif isinstance(ev, SessionLogEvidence):
            if len(self._session_notes) < MAX_SESSIONS:
                self._session_notes.append(ev.note)
            else:
                self._cut[f"session log note(s) past {MAX_SESSIONS}"] += 1
        elif isinstance(ev, ClientEvidence):
            ckey = (ev.provider, ev.vendor, ev.served_via, ev.kind)
            self._clients[ckey].add(ev.location)
            parts = self._client_parts[ckey]
            for part in ev.components:
                if len(parts) < MAX_URLS:
                    parts.add(part)
                elif part not in parts:
                    self._cut[f"client component sighting(s) past {MAX_URLS} distinct per client"] += 1
        elif isinstance(ev, McpServerEvidence):
            url = self.catalog.scrub(ev.url) if ev.url else None
            command = self.catalog.scrub(ev.command) if ev.command else None
            mkey = (self.catalog.scrub(ev.name), ev.transport, command, url, ev.env, ev.user, ev.location.path)
            self._mcp[mkey].add(ev.location)
        elif isinstance(ev, AgentPackageEvidence):
            akey = (ev.product, ev.install_path)
            known_pkg = self._agent_pkgs.get(akey)
            if known_pkg is None and len(self._agent_pkgs) < MAX_AGENT_ITEMS:
                self._agent_pkgs[akey] = ev
            elif known_pkg is not None and ev.ecosystem == "binary" and _version_key(ev) > _version_key(known_pkg):
                self._agent_pkgs[akey] = ev  # a native installer keeps old versions beside the current one
        elif isinstance(ev, AgentFileEvidence):
            if len(self._agent_files) < MAX_AGENT_ITEMS:
                self._agent_files.add(ev)
        elif isinstance(ev, AgentConfigEvidence):
            if len(self._agent_cfgs) < MAX_AGENT_ITEMS:
                self._agent_cfgs.add(ev)
        elif isinstance(ev, ProgramEvidence):
            if len(self._programs) < MAX_AGENT_ITEMS:
                self._programs.setdefault((ev.name, ev.install_path), ev)
        elif isinstance(ev, ProgramHostsEvidence):
            if len(self._program_hosts) < MAX_AGENT_ITEMS:
                self._program_hosts.add(ev)
        elif isinstance(ev, KillSwitchEvidence):
            value = self.catalog.scrub(ev.value) if ev.value else ev.value
            key = (ev.name, value, ev.state.value)
            self._switches[key].add(ev.location)
            if ev.note:
                self._switch_note.setdefault(key, ev.note)

    def _setting(self, setting: EnvSetting) -> None:
        if len(self._settings) < MAX_SETTINGS:
            self._settings.add(setting)
        elif setting not in self._settings:
            self._cut[f"environment setting sighting(s) past {MAX_SETTINGS} distinct"] += 1

    def _url(self, host: str, url: str) -> None:
        urls = self._urls[host]
        if len(urls) < MAX_URLS:
            urls.add(url)
        elif url not in urls:
            self._cut[f"URL sighting(s) past {MAX_URLS} distinct per host"] += 1

    def _cut_skips(self) -> list[Skip]:
        """One skip per cap that left something out, with how many; the path names the scan itself."""
        return [Skip("(inventory)", SkipReason.CAP_REACHED, f"{n} {what} not kept") for what, n in self._cut.items()]

    # --- output -----------------------------------------------------------------------------------

    def build(self, tool_version: str, target: TargetInfo, stats: Stats, extend: Extend | None = None) -> Inventory:
        """The finished inventory; `extend` adds what is seen outside the evidence (a live audit's processes)
        before the findings are derived."""
        self._drop_overridden()
        agents = self._build_agents()
        found = fold(self._sessions, self._session_meta, self.catalog)
        self._routes_of_sessions(found)
        models = self._build_models(mentioned_in(found))
        sdks = tuple(self._sdk_entry(key, locs) for key, locs in self._sdks.items())
        endpoints = tuple(self._endpoint_entry(host, locs) for host, locs in sorted(self._hosts.items()))
        credentials = tuple(self._credential_entry(h) for h in self._creds)
        switches = tuple(
            KillSwitchEntry(name, value, SwitchState(state), locs.sorted(), self._switch_note.get((name, value, state)),
                            locs.cut())
            for (name, value, state), locs in sorted(
                self._switches.items(), key=lambda kv: (kv[0][0], kv[0][1] or "", kv[0][2])
            )
        )
        sessions = attach(in_order("sessions", found), self._session_notes)
        mcp_servers = tuple(
            McpServerEntry(n, t, c, u, e, user, cfg, locs.sorted(), locs.cut())
            for (n, t, c, u, e, user, cfg), locs in sorted(
                self._mcp.items(), key=lambda kv: (kv[0][6], kv[0][0], kv[0][1], kv[0][2] or "", kv[0][3] or "")
            )
        )
        joined = Found(models, mcp_servers, credentials)
        agents += tuple(unknown_agents(self._programs.values(), self._program_hosts, self._sdks, joined))
        local = resolve_uses(self._local.build(), models, endpoints, agents, sessions, self.catalog)
        self._cut.update(self._local.cut)
        # Every section in the one order its declaration gives (sections.py).
        inv = in_declared_order(Inventory(
            tool_version=tool_version,
            catalogs=self.catalog.refs,
            target=target,
            stats=stats,
            models=models,
            sdks=sdks,
            endpoints=endpoints,
            credentials=credentials,
            kill_switches=switches,
            sessions=sessions,
            routes=build_routes(models, sessions, self._routes),
            skipped=tuple(sorted({*self._skips, *self._cut_skips()}, key=lambda s: (s.path, s.reason.value, s.detail))),
            clients=self._build_clients(),
            mcp_servers=mcp_servers,
            agents=agents,
            local_models=local,
            env_settings=tuple(
                sorted(self._settings, key=lambda e: (e.name, location_key(e.location), e.role, e.value))
            ),
        ))
        if extend is not None:
            inv = extend(inv)
        # Findings are derived once, from the whole inventory; then the one redaction step scrubs every string of
        # it, findings included.
        return redact_all(derive_findings(inv), self.catalog)

    def _drop_overridden(self) -> None:
        """A model setting the product overrides (Claude Code's `model` under `env.ANTHROPIC_MODEL`) is read by
        no one: whichever detector reported that line, it is not a location of the model."""
        for ev in self._agent_cfgs:
            for value, line in ev.overridden:
                locs = self._models.get(value)
                if locs is None:
                    continue
                for key in [k for k in locs.by_key if k[0] == ev.location.path and k[1] == line]:
                    del locs.by_key[key]
                if not locs.by_key:
                    del self._models[value]
                    self._model_via.pop(value, None)
                    self._model_base.pop(value, None)

    def _routes_of_sessions(self, sessions: list[SessionEntry]) -> None:
        """The route a session was served through is the route of the models it ran: a label the catalogs place
        takes the routes of the session's providers of its vendor (`google/gemini-2.5-flash` on OpenRouter)."""
        for s in sessions:
            if s.location.context is Context.TEST:
                continue
            for label in s.labels:
                if label not in self._models:
                    continue
                vendor = identify_spelled(self.catalog, label).vendor
                for p in s.providers:
                    if p.served_via and vendor and p.vendor == vendor:
                        self._model_via[label].add(p.served_via)

    def _build_models(self, mentioned: dict[str, int]) -> tuple[ModelEntry, ...]:
        # A deployment map names the model behind an alias; spread it to every spelling of that alias.
        by_deployment: dict[str, str] = {}
        for name, bases in self._model_base.items():
            if len(bases) == 1:
                by_deployment[name.rsplit("/", 1)[-1]] = next(iter(bases))
        # A product's model-list file names the models it ships: its whole id literals (`agents[].ships`). Another
        # family-grammar match in it (help text `COPILOT_MODEL=deepseek-coder-v2:16b \\`, a message, machine
        # code) is a word of its text, not a model: that location is none of the id's, and an id seen only so is none.
        shipped: dict[str, set[str]] = defaultdict(set)
        for f in self._agent_files:
            if f.role == "ships":
                shipped[f.location.path].update(f.models)
        entries = []
        for name, locs in self._models.items():
            located = locs.sorted()
            ident = identify_spelled(self.catalog, name)
            if ident.catalog == CatalogStatus.FAMILY and located:
                located = tuple(loc for loc in located if loc.path not in shipped or name in shipped[loc.path])
                if not located:
                    continue
            bases = self._model_base.get(name) or set()
            base = min(bases) if bases else by_deployment.get(name.rsplit("/", 1)[-1]) or ident.base_model
            # A route stated for the id (a client, a setting) beats the vendor's own API inferred from its SDK.
            stated = sorted(self._model_via.get(name) or (), key=lambda r: (r in ("direct", "self-hosted"), r))
            via = ident.served_via or (stated[0] if stated else None)
            canonical, vendor, family, lifecycle, known = (
                ident.canonical,
                ident.vendor,
                ident.family,
                ident.lifecycle,
                ident.catalog,
            )
            if base and known == CatalogStatus.UNKNOWN:
                # An alias of a catalogued model: it inherits what the catalog knows of its base.
                inner = self.catalog.identify(base)
                vendor = vendor or inner.vendor
                family = family or inner.family
            if base == canonical:
                base = None if ident.served_via is None else base
            spec = self.catalog.model_spec(canonical) if canonical else None
            task, architecture = self.catalog.model_card(canonical or name, family)
            entries.append(
                ModelEntry(
                    name,
                    canonical,
                    vendor,
                    family,
                    via,
                    base,
                    known,
                    lifecycle,
                    _wired(located),
                    located,
                    spec.retires if spec else None,
                    spec.released if spec else None,
                    spec.deprecated if spec else None,
                    task,
                    architecture,
                    locs.cut(),
                    mentioned.get(name),
                )
            )
        return in_order("models", entries)

    def _build_agents(self) -> tuple[AgentEntry, ...]:
        """One entry per install of an agent product: its main package, with the platform packages, binaries,
        model-list files and bundled SDKs inside or beside it; every user's settings of that product."""
        configs = self._agent_configs()
        mains = sorted((ev for ev in self._agent_pkgs.values() if not ev.platform), key=lambda e: e.install_path)
        groups: dict[tuple[str, str], list[AgentPackageEvidence]] = {(m.product, m.install_path): [m] for m in mains}
        for ev in sorted(self._agent_pkgs.values(), key=lambda e: e.install_path):
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
        entries = [self._agent_entry(product, path, pkgs, configs.get(product, ())) for (product, path), pkgs in
                   groups.items()]  # fmt: skip
        installed = {product for product, _ in groups}
        for product_id, cfgs in configs.items():
            product = self.catalog.product(product_id)
            if product_id not in installed and product is not None:
                entries.append(AgentEntry(product_id, product.name, None, None, None, (), (), (), cfgs, ()))
        return tuple(entries)

    def _agent_entry(
        self, product_id: str, path: str, pkgs: list[AgentPackageEvidence], configs: tuple[AgentConfig, ...]
    ) -> AgentEntry:
        product = self.catalog.product(product_id)
        main = next((p for p in pkgs if not p.platform), pkgs[0])
        dirs = {p.install_path for p in pkgs}
        binaries = {b for p in pkgs for b in p.entry_points}
        ships: set[str] = set()
        locs = _Locations()
        for p in pkgs:
            locs.add(p.location)
        for f in self._agent_files:
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
        deps = {package_key(main.ecosystem, d) for d in main.dependencies}
        platform_names = {p.package for p in pkgs if p.platform}
        # The product's own libraries (pi's pi-ai) are SDKs it bundles, not SDK installs of their own.
        sdks: dict[tuple[str, str, str | None], None] = {
            (p.ecosystem, p.package, p.version): None
            for p in pkgs
            if p.platform and self.catalog.is_product_library(p.package)
        }
        for eco, name, version, installed, env in sorted(self._sdks, key=lambda k: (k[0], k[1], k[2] or "")):
            if not installed or env is None or eco != main.ecosystem or name in platform_names:
                continue
            nested = env.startswith(path + "/")
            beside = env == main.environment and package_key(eco, name) in deps
            if (nested or beside) and self.catalog.sdk(eco, name) is not None:
                sdks[(eco, name, version)] = None
        return AgentEntry(
            product_id,
            product.name if product else product_id,
            main.version,
            main.ecosystem,
            path,
            tuple(sorted(binaries)),
            tuple(BundledSdk(e, n, v) for e, n, v in sorted(sdks, key=lambda k: (k[0], k[1], k[2] or ""))),
            tuple(sorted(ships)),
            configs,
            locs.sorted(),
            editor=main.editor,
        )

    def _agent_configs(self) -> dict[str, tuple[AgentConfig, ...]]:
        """Each product's settings folded per user: the first file (by path) that states a route or a base
        URL decides it; models, MCP servers, credentials and files are the union."""
        by_user: dict[tuple[str, str | None], list[AgentConfigEvidence]] = defaultdict(list)
        for ev in self._agent_cfgs:
            by_user[(ev.product, ev.user)].append(ev)
        out: dict[str, list[AgentConfig]] = defaultdict(list)
        for (product_id, user), evs in sorted(by_user.items(), key=lambda kv: (kv[0][0], kv[0][1] or "")):
            evs.sort(key=lambda e: location_key(e.location))
            # A secret in a model slot is a credential (reported as one), never a model: as for ModelEvidence.
            models = tuple(dict.fromkeys(m for e in evs for m in e.models if self.catalog.scrub(m) == m))
            route = next((e.served_via for e in evs if e.served_via), None)
            base_url = next((e.base_url for e in evs if e.base_url), None)
            route = route or self._route_of(product_id, base_url, bool(models))
            if route:
                for m in models:  # a route set in one file (env) reroutes the model another file selects
                    self._model_via[m].add(route)
            out[product_id].append(
                AgentConfig(
                    user,
                    models,
                    route,
                    base_url,
                    tuple(sorted({self.catalog.scrub(s) for e in evs for s in e.mcp_servers})),
                    tuple(sorted({c for e in evs for c in e.credentials})),
                    tuple(sorted({e.location.path for e in evs})),
                )
            )
        return {k: tuple(v) for k, v in out.items()}

    def _route_of(self, product_id: str, base_url: str | None, selects: bool) -> str | None:
        product = self.catalog.product(product_id)
        if base_url:
            host = base_url.split("://", 1)[-1].split("/", 1)[0].split(":", 1)[0]
            spec = self.catalog.host_info(host)
            if spec is None:
                return url_route(base_url, self.catalog)  # a gateway, named by its host, or a server on the machine
            if spec.served_via:
                return spec.served_via
            return "direct" if product and spec.vendor == product.vendor else None
        return product.default_route if product and selects else None

    def _build_clients(self) -> tuple[ClientEntry, ...]:
        entries = [
            ClientEntry(p, v, via, kind, tuple(sorted(self._client_parts[(p, v, via, kind)])), locs.sorted(),
                        locs.cut())
            for (p, v, via, kind), locs in self._clients.items()
        ]
        return tuple(entries)

    def _sdk_entry(self, key: tuple[str, str, str | None, bool, str | None], locs: _Locations) -> SdkEntry:
        ecosystem, name, version, installed, env = key
        spec = self.catalog.sdk(ecosystem, name)
        product = None if spec else self.catalog.product_package(ecosystem, name)  # an agent's platform package
        return SdkEntry(
            ecosystem,
            name,
            version,
            spec.vendor if spec else product[0].vendor if product else None,
            spec.served_via if spec else None,
            installed,
            env,
            locs.sorted(),
            locs.cut(),
        )

    def _endpoint_entry(self, host: str, locs: _Locations) -> EndpointEntry:
        spec = self.catalog.host_info(host)
        located = locs.sorted()
        return EndpointEntry(
            host,
            spec.vendor if spec else None,
            spec.served_via if spec else None,
            tuple(sorted(self._urls.get(host, ()))),
            _wired(located),
            located,
            tuple(sorted(self._overrides.get(host, ()))),
            locs.cut(),
        )

    def _credential_entry(self, sha: str) -> CredentialEntry:
        kind = self._cred_kind[sha]
        locs = sorted(self._creds[sha].values(), key=lambda c: location_key(c.location))
        return CredentialEntry(kind.type, kind.vendor, kind.redacted, sha, tuple(locs), kind.route, kind.pair,
                               self._cred_cut[sha])


def _credential_rank(ev: CredentialEvidence) -> tuple[int, int]:
    """How well a sighting names its credential: a longer public prefix, then a known route and pair."""
    return len(ev.redacted), (ev.route is not None) + (ev.pair is not None)

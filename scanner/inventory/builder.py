"""Evidence in, inventory out: gather, identify against the catalogs, de-duplicate, sort.

Memory is bounded by what is distinct, not by what is seen: evidence is folded into its entry as it
arrives, and each entry keeps at most MAX_LOCATIONS locations (the first ones in a stable order).
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable
from dataclasses import dataclass, field, replace

from scanner.catalog import Catalog
from scanner.inventory.findings import derive_findings
from scanner.model import (
    MAX_LOCATIONS,
    WIRING_CONTEXTS,
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
    SdkEntry,
    SdkEvidence,
    SessionEntry,
    SessionEvidence,
    Skip,
    Stats,
    SwitchState,
    TargetInfo,
    location_key,
)
from scanner.sessions.routes import build_routes

MAX_URLS = 20
MAX_SKIPS = 100_000
MAX_SESSIONS = 20_000
MAX_SETTINGS = 10_000  # environment-style base URL / model assignments kept for live findings

# When two detectors place the same line in different contexts, the more specific one wins.
_CONTEXT_RANK = {
    c: i
    for i, c in enumerate(
        [
            Context.COMMENT,
            Context.ENV,
            Context.SESSION,
            Context.SOURCE,
            Context.CONFIG,
            Context.BINARY,
            Context.LOG,
            Context.PACKAGE,
            Context.TEST,
            Context.DOCS,
        ]
    )
}


@dataclass
class _Locations:
    by_key: dict[tuple[str, int | None, str | None], Location] = field(default_factory=dict)

    def add(self, loc: Location) -> None:
        key = (loc.path, loc.line, loc.via)
        old = self.by_key.get(key)
        if old is None:
            if len(self.by_key) < MAX_LOCATIONS * 4:
                self.by_key[key] = loc
            return
        better = loc if _CONTEXT_RANK[loc.context] < _CONTEXT_RANK[old.context] else old
        if loc.parse_error != better.parse_error or old.parse_error != better.parse_error:
            better = replace(better, parse_error=True)
        self.by_key[key] = better

    def sorted(self) -> tuple[Location, ...]:
        locs = sorted(self.by_key.values(), key=location_key)
        return tuple(locs[:MAX_LOCATIONS])


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
        self._switches: dict[tuple[str, str | None, str], _Locations] = defaultdict(_Locations)
        self._switch_note: dict[tuple[str, str | None, str], str] = {}
        self._skips: set[Skip] = set()
        self._sessions: list[SessionEntry] = []
        self._routes = frozenset(f.route for f in catalog.hosted_forms) - {"direct", "self-hosted"}
        self._clients: dict[tuple[str, str | None, str | None, str], _Locations] = defaultdict(_Locations)
        self._client_parts: dict[tuple[str, str | None, str | None, str], set[str]] = defaultdict(set)
        self._settings: set[EnvSetting] = set()
        self._mcp: dict[tuple[str, str, str | None, str | None, tuple[str, ...], str | None, str], _Locations] = (
            defaultdict(_Locations)
        )

    # --- intake -----------------------------------------------------------------------------------

    def skip(self, skip: Skip) -> None:
        if len(self._skips) < MAX_SKIPS:
            self._skips.add(skip)

    def add_all(self, evidence: Iterable[Evidence | Skip]) -> None:
        """Evidence of one file, and the skips a detector records for what it could not understand."""
        for ev in evidence:
            if isinstance(ev, Skip):
                self.skip(ev)
            else:
                self.add(ev)

    def add(self, ev: Evidence) -> None:
        if isinstance(ev, ModelEvidence):
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
            if ev.url and len(self._urls[ev.host]) < MAX_URLS:
                self._urls[ev.host].add(self.catalog.scrub(ev.url))
            if ev.variable:
                shown = self.catalog.scrub(ev.url or ev.host)
                self._setting(EnvSetting(ev.variable, "base_url", shown, ev.location, ev.overrides is not None))
        elif isinstance(ev, CredentialEvidence):
            loc = ev.location
            slot = self._creds[ev.sha256]
            at = (loc.path, loc.line, loc.via)
            known_loc = slot.get(at)
            # A second sighting without file facts (an EnvironmentFile read from its unit) keeps the first's.
            if (known_loc is None and len(slot) < MAX_LOCATIONS) or (known_loc and known_loc.mode is None):
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
        elif isinstance(ev, ClientEvidence):
            ckey = (ev.provider, ev.vendor, ev.served_via, ev.kind)
            self._clients[ckey].add(ev.location)
            if len(self._client_parts[ckey]) < MAX_URLS:
                self._client_parts[ckey].update(ev.components)
        elif isinstance(ev, McpServerEvidence):
            url = self.catalog.scrub(ev.url) if ev.url else None
            command = self.catalog.scrub(ev.command) if ev.command else None
            mkey = (ev.name, ev.transport, command, url, ev.env, ev.user, ev.location.path)
            self._mcp[mkey].add(ev.location)
        elif isinstance(ev, KillSwitchEvidence):
            value = self.catalog.scrub(ev.value) if ev.value else ev.value
            key = (ev.name, value, ev.state.value)
            self._switches[key].add(ev.location)
            if ev.note:
                self._switch_note.setdefault(key, ev.note)

    def _setting(self, setting: EnvSetting) -> None:
        if len(self._settings) < MAX_SETTINGS:
            self._settings.add(setting)

    # --- output -----------------------------------------------------------------------------------

    def build(self, tool_version: str, target: TargetInfo, stats: Stats) -> Inventory:
        models = self._build_models()
        sdks = tuple(
            sorted(
                (self._sdk_entry(key, locs) for key, locs in self._sdks.items()),
                key=lambda s: (s.ecosystem, s.name, not s.installed, s.environment or "", s.version or ""),
            )
        )
        endpoints = tuple(self._endpoint_entry(host, locs) for host, locs in sorted(self._hosts.items()))
        credentials = tuple(
            sorted((self._credential_entry(h) for h in self._creds), key=lambda c: (c.vendor or "", c.type, c.sha256))
        )
        switches = tuple(
            KillSwitchEntry(name, value, SwitchState(state), locs.sorted(), self._switch_note.get((name, value, state)))
            for (name, value, state), locs in sorted(
                self._switches.items(), key=lambda kv: (kv[0][0], kv[0][1] or "", kv[0][2])
            )
        )
        sessions = tuple(
            sorted(self._sessions, key=lambda s: (s.started_at or "", s.location.path, s.session_id, s.format))
        )
        inv = Inventory(
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
            skipped=tuple(sorted(self._skips, key=lambda s: (s.path, s.reason.value, s.detail))),
            clients=self._build_clients(),
            mcp_servers=tuple(
                McpServerEntry(n, t, c, u, e, user, cfg, locs.sorted())
                for (n, t, c, u, e, user, cfg), locs in sorted(
                    self._mcp.items(), key=lambda kv: (kv[0][6], kv[0][0], kv[0][1], kv[0][2] or "", kv[0][3] or "")
                )
            ),
            env_settings=tuple(
                sorted(self._settings, key=lambda e: (e.name, location_key(e.location), e.role, e.value))
            ),
        )
        return derive_findings(inv)

    def _build_models(self) -> tuple[ModelEntry, ...]:
        # A deployment map names the model behind an alias; spread it to every spelling of that alias.
        by_deployment: dict[str, str] = {}
        for name, bases in self._model_base.items():
            if len(bases) == 1:
                by_deployment[name.rsplit("/", 1)[-1]] = next(iter(bases))
        entries = []
        for name, locs in self._models.items():
            ident = self.catalog.identify(name)
            bases = self._model_base.get(name) or set()
            base = min(bases) if bases else by_deployment.get(name.rsplit("/", 1)[-1]) or ident.base_model
            via = ident.served_via or (min(self._model_via[name]) if self._model_via.get(name) else None)
            canonical, vendor, family, lifecycle, known = (
                ident.canonical,
                ident.vendor,
                ident.family,
                ident.lifecycle,
                ident.catalog,
            )
            if base and known == "unknown":
                # An alias of a catalogued model: it inherits what the catalog knows of its base.
                inner = self.catalog.identify(base)
                vendor = vendor or inner.vendor
                family = family or inner.family
            if base == canonical:
                base = None if ident.served_via is None else base
            located = locs.sorted()
            spec = self.catalog.model_spec(canonical) if canonical else None
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
                )
            )
        entries.sort(key=lambda m: (m.vendor or "~", not m.wired, m.name))
        return tuple(entries)

    def _build_clients(self) -> tuple[ClientEntry, ...]:
        entries = [
            ClientEntry(p, v, via, kind, tuple(sorted(self._client_parts[(p, v, via, kind)])), locs.sorted())
            for (p, v, via, kind), locs in self._clients.items()
        ]
        entries.sort(key=lambda c: (c.vendor or "~", c.provider, c.served_via or "", c.kind))
        return tuple(entries)

    def _sdk_entry(self, key: tuple[str, str, str | None, bool, str | None], locs: _Locations) -> SdkEntry:
        ecosystem, name, version, installed, env = key
        spec = self.catalog.sdk(ecosystem, name)
        return SdkEntry(
            ecosystem,
            name,
            version,
            spec.vendor if spec else None,
            spec.served_via if spec else None,
            installed,
            env,
            locs.sorted(),
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
        )

    def _credential_entry(self, sha: str) -> CredentialEntry:
        kind = self._cred_kind[sha]
        locs = sorted(self._creds[sha].values(), key=lambda c: location_key(c.location))
        return CredentialEntry(kind.type, kind.vendor, kind.redacted, sha, tuple(locs), kind.route, kind.pair)


def _credential_rank(ev: CredentialEvidence) -> tuple[int, int]:
    """How well a sighting names its credential: a longer public prefix, then a known route and pair."""
    return len(ev.redacted), (ev.route is not None) + (ev.pair is not None)

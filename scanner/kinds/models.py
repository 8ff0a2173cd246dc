"""Models: the ids an agent is wired to (or only mentions), identified against the catalogs."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from scanner.catalog import Catalog
from scanner.catalog.spelling import identify_spelled
from scanner.kinds.base import (
    Cell,
    DiffIdentity,
    EnvSetting,
    FoldContext,
    JsonShape,
    Kind,
    Locations,
    ReportTable,
    contexts,
    table_of,
    text,
    where,
    wired,
)
from scanner.model import CatalogStatus, Context, Location


@dataclass(frozen=True)
class ModelEvidence:
    name: str
    location: Location
    # An explicit base model from a deployment map or `base_model:` key.
    base_model: str | None = None
    # A route stated by the config around the id (`provider: azure`), when the id itself has none.
    served_via: str | None = None
    variable: str | None = None  # the environment-style variable that set it (`ANTHROPIC_MODEL`)


@dataclass(frozen=True)
class ModelEntry:
    name: str
    canonical: str | None
    vendor: str | None
    family: str | None
    served_via: str | None
    base_model: str | None
    catalog: CatalogStatus  # how much the catalogs know of the id
    lifecycle: str | None
    wired: bool
    locations: tuple[Location, ...]
    retires: str | None = None  # the catalog's shutdown date (past or planned)
    # What else the catalogs know of it, for model cards: dates (YYYY-MM-DD), the task its id or family names
    # (`text-generation`) and the architecture family its vendor documents (`transformer`).
    released: str | None = None
    deprecated: str | None = None
    task: str | None = None
    architecture: str | None = None
    locations_cut: int = 0  # locations found past the kept ones (MAX_LOCATIONS): counted, not kept
    mentioned_in_sessions: int | None = None  # sessions whose conversation names the id (never wiring)


_ONE_VALUE_A_LINE = frozenset({Context.CONFIG, Context.ENV})


class ModelFold:
    """Each id's locations, the routes and base models stated for it; identified when built."""

    def __init__(self, ctx: FoldContext) -> None:
        self.ctx = ctx
        self.locations: dict[str, Locations] = defaultdict(Locations)
        self.via: dict[str, set[str]] = defaultdict(set)
        self.base: dict[str, set[str]] = defaultdict(set)
        self.via_at: dict[str, dict[str, set[str]]] = defaultdict(dict)  # model -> file -> routes stated there
        self.behind: set[tuple[str, str]] = set()  # (model, file): the model an alias of that file runs
        # Set by the joins before the build (inventory/joins.py): the model ids each product's model-list file
        # ships, and how many sessions only mention each id.
        self.shipped: Mapping[str, set[str]] = {}
        self.mentioned: Mapping[str, int] = {}

    def add(self, ev: ModelEvidence, more: tuple[Location, ...] = ()) -> None:
        """One sighting, and `more` of the same at other places of its file."""
        if self.ctx.is_secret(ev.name):
            return  # a secret in a model-ish slot is a credential, reported as one elsewhere
        self.locations[ev.name].add_each(ev.location, more)
        if ev.served_via:
            self.via[ev.name].add(ev.served_via)
            at = self.via_at[ev.name]
            for loc in (ev.location, *more):
                at.setdefault(loc.path, set()).add(ev.served_via)
        if ev.base_model:
            self.base[ev.name].add(ev.base_model)
            self.behind.update((ev.base_model, loc.path) for loc in (ev.location, *more))
        if ev.variable:
            for loc in (ev.location, *more):
                self.ctx.setting(EnvSetting(ev.variable, "model", ev.name, loc))

    def routes_at(self) -> dict[tuple[str, str], str | None]:
        """The route each file states for a model (`ANTHROPIC_BASE_URL` beside its `model`)."""
        return {(name, f): best_route(vias) for name, at in self.via_at.items() for f, vias in at.items()}

    def own_route(self, models: Iterable[str], dirs: set[str]) -> str | None:
        """The route a file of these folders states for one of these models as that model's own record (llm's
        `extra-openai-models.yaml` beside `default_model.txt`), never for the upstream model an alias runs there."""
        return best_route(r for m in models for f, rs in self.via_at.get(m, {}).items()
                          if f.rsplit("/", 1)[0] in dirs and (m, f) not in self.behind for r in rs)

    def drop(self, name: str) -> None:
        del self.locations[name]
        self.via.pop(name, None)
        self.base.pop(name, None)

    def _drop_inner_ids(self) -> None:
        """A bare id seen on the line of a slug that ends in it (`Kimi-K2-Instruct` in `moonshotai/Kimi-K2-Instruct`,
        `claude-3.7-sonnet` in `anthropic/claude-3.7-sonnet:thinking`) is that slug's inner id, read by another
        reader of the same text: the same sighting, not a model of its own there. Only in a config or env file,
        where a line holds one setting: a bundle's or a binary's line holds a whole model list."""
        # (path, line) -> the inner ids of the slugs seen there, with a `:variant` also without it: one set lookup
        # per bare sighting, however many slugs a minified config's one line holds.
        slugs: dict[tuple[str, int], set[str]] = defaultdict(set)
        for name, locs in self.locations.items():
            if "/" in name:
                inner = name.rsplit("/", 1)[1]
                if inner in self.base.get(name, ()):
                    continue  # a deployment of the model's own name (`azure/gpt-5.6-sol: gpt-5.6-sol`): both are facts
                for (path, line, _via), loc in locs.by_key.items():
                    if line is not None and loc.context in _ONE_VALUE_A_LINE:
                        slugs[(path, line)].update((inner, inner.split(":", 1)[0]))
        if not slugs:
            return
        for name in [n for n in self.locations if "/" not in n]:
            locs = self.locations[name]
            if locs.ranked is not None:
                continue  # past its candidates: kept as seen
            inner_at = [k for k, loc in locs.by_key.items() if k[1] is not None and loc.context in _ONE_VALUE_A_LINE
                        and name in slugs.get((k[0], k[1]), ())]
            for key in inner_at:
                del locs.by_key[key]
            if inner_at and not locs.by_key and not locs.overflow:
                self.drop(name)

    def build(self) -> tuple[ModelEntry, ...]:
        self._drop_inner_ids()
        # A deployment map names the model behind an alias; spread it to every spelling of that alias.
        by_deployment: dict[str, str] = {}
        for name, bases in self.base.items():
            if len(bases) == 1:
                by_deployment[name.rsplit("/", 1)[-1]] = next(iter(bases))
        entries = []
        for name, locs in self.locations.items():
            entry = self._entry(name, locs, by_deployment)
            if entry is not None:
                entries.append(entry)
        return tuple(entries)

    def _entry(self, name: str, locs: Locations, by_deployment: Mapping[str, str]) -> ModelEntry | None:
        catalog: Catalog = self.ctx.catalog
        located = locs.sorted()
        ident = identify_spelled(catalog, name)
        if ident.catalog == CatalogStatus.FAMILY and located:
            # A family-grammar match in a product's model-list file that the list does not ship (help text, a
            # message, machine code) is a word of its text, not a model: that location is none of the id's.
            shipped = self.shipped
            located = tuple(loc for loc in located if loc.path not in shipped or name in shipped[loc.path])
            if not located:
                return None
        bases = self.base.get(name) or set()
        # Spread only to an in-house name (`azure/gpt5mini-prod` of the deployment `gpt5mini-prod`): a router's
        # id that ends like an alias (`moonshotai/kimi-k2-turbo` beside Kimi's `[models.kimi-k2-turbo]`) is its own.
        spread = by_deployment.get(name.rsplit("/", 1)[-1]) if ident.catalog == CatalogStatus.UNKNOWN else None
        base = min(bases) if bases else spread or ident.base_model
        # A route stated for the id (a client, a setting) beats the vendor's own API inferred from its SDK, and from a
        # vendor's prefix (`anthropic/claude-sonnet-4` listed under an OpenRouter provider); a route's prefix
        # (`bedrock/…`, `openrouter/…`) is the id's own.
        stated = best_route(self.via.get(name) or ())
        via = (stated or ident.served_via) if ident.served_via in (None, "direct") else ident.served_via
        canonical, vendor, family, lifecycle, known = (
            ident.canonical,
            ident.vendor,
            ident.family,
            ident.lifecycle,
            ident.catalog,
        )
        if base and known == CatalogStatus.UNKNOWN:
            # An alias of a catalogued model: it inherits what the catalog knows of its base.
            inner = catalog.identify(base)
            vendor = vendor or inner.vendor
            family = family or inner.family
        if base == canonical:
            base = None if ident.served_via is None else base
        spec = catalog.model_spec(canonical) if canonical else None
        task, architecture = catalog.model_card(canonical or name, family)
        return ModelEntry(
            name,
            canonical,
            vendor,
            family,
            via,
            base,
            known,
            lifecycle,
            wired(located),
            located,
            spec.retires if spec else None,
            spec.released if spec else None,
            spec.deprecated if spec else None,
            task,
            architecture,
            locs.cut(),
            self.mentioned.get(name),
        )


def _model_key(m: ModelEntry) -> str:
    """A model is one thing however it is spelled: a hosted or prefixed spelling of a catalogued id
    (`openai.gpt-6.1-sol`, `azure/gpt-5.6-sol`) is compared as that id, so a new spelling is a change of the
    model (`spelling`, and the routes it adds), never an added model. An alias that names another model as its
    base (`muse-special` -> gpt-5.5) is a name of its own."""
    if m.canonical and m.catalog != "unknown" and m.base_model in (None, m.canonical):
        return m.canonical
    if m.canonical is None and m.catalog == "family" and m.base_model:
        # a provider's spelling of an id no catalog lists (`fireworks_ai/accounts/…/kimi-k2p6-fast`)
        return unprefixed(m.name, m.base_model) or m.name
    return m.name


def unprefixed(name: str, base: str) -> str | None:
    """The id as written after a provider's path or prefix that ends in `base`, with its variant:
    `qwen3.6-27b:thinking` of `qwen/qwen3.6-27b:thinking` (base `qwen3.6-27b`), `kimi-k2p6-fast` of
    `accounts/fireworks/routers/kimi-k2p6-fast`. None when `name` is no such spelling (`gw-mini` of gpt-4.1-mini)."""
    for sep in ("/", "."):
        at = name.rfind(sep + base)
        if at >= 0:
            tail = name[at + 1:]
            if tail == base or tail[len(base)] in ":@":
                return tail
    return None


def _model_facets(m: ModelEntry) -> Mapping[str, Any]:
    return {
        "spelling": m.name,
        "vendor": m.vendor,
        "served_via": m.served_via,
        "base_model": m.base_model,
        "wired": m.wired,
        # Everything below follows from the name and the catalogs alone: a difference is catalog drift.
        "catalog": {"canonical": m.canonical, "family": m.family, "catalog": m.catalog, "lifecycle": m.lifecycle},
    }


def _wired(m: ModelEntry) -> str:
    """`yes`, or `no` and how many sessions only mention the id in their conversation."""
    if m.wired:
        return "yes"
    return f"no, mentioned in {m.mentioned_in_sessions} session(s)" if m.mentioned_in_sessions else "no"


def _table(models: Sequence[ModelEntry], show_all: bool) -> ReportTable:
    """Wired models (every model with --all, then with a `wired` column)."""
    shown = [m for m in models if m.wired or show_all]
    rows = tuple(
        (m.vendor or "?", m.name, text(m.canonical), text(m.served_via), text(m.base_model), text(m.lifecycle),
         str(m.catalog)) + ((_wired(m),) if show_all else ())
        + (contexts(m.locations), where(m.locations, cut=m.locations_cut))
        for m in shown
    )
    left = len(models) - len(shown)
    note = (f"{left:,} model id(s) that are not wiring are counted under \"Not wiring\" (--all lists them)"
            if left else "")
    cols = KIND.columns  # with --all, a `wired` column before where they were seen
    headers = cols[:7] + (("wired",) if show_all else ()) + cols[7:]
    return table_of(KIND, rows, title=KIND.title if show_all else "Wired models", headers=headers, note=note,
                    main="model")


KIND: Kind[ModelEntry] = Kind(
    key="models",
    entry=ModelEntry,
    evidence=(ModelEvidence,),
    fold=ModelFold,
    order=lambda m: (m.vendor or "~", not m.wired, m.name),
    title="Models",
    columns=("vendor", "model", "canonical", "via", "base", "lifecycle", "catalog", "seen in", "where"),
    cells={"model": Cell.CODE, "lifecycle": Cell.STATUS, "wired": Cell.FLAG, "where": Cell.PLACES},
    identity=DiffIdentity(_model_key, facets=_model_facets),
    shapes={
        ModelEntry: JsonShape(
            order=("name", "canonical", "vendor", "family", "served_via", "base_model", "catalog", "lifecycle",
                   "retires", "released", "deprecated", "task", "architecture", "wired", "mentioned_in_sessions",
                   "locations", "locations_cut"),
            omit_empty=frozenset({"released", "deprecated", "task", "architecture", "mentioned_in_sessions",
                                  "locations_cut"}),
        ),
    },
    table=_table,
    report_rank=20,
    sightings=True,
)


def best_route(stated: Iterable[str]) -> str | None:
    """The route of a model stated several ways: one that moves it (a gateway, a cloud) beats its vendor's own API."""
    return min(stated, key=lambda r: (r in ("direct", "self-hosted"), r), default=None)

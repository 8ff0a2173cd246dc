"""Who uses the local models: configured routes to a server on this machine, and sessions, resolved to entries.

A model an agent configures is local when its route is a self-hosted one (`ollama/qwen3-coder:30b`) or when
it has no route of its own and the file that configures it points at a server on this machine: a loopback base
URL on the port of a server found here or of a catalogued server's default (`http://localhost:11434/v1`). Such a
model resolves to the entry that answers to its name (an Ollama tag, a repo id, a served alias); one that
resolves to none is an entry of its own, "configured, weights not on this machine". A session whose records name
a local model as what served it counts as one of its uses.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import replace
from urllib.parse import urlsplit

from scanner.catalog import Catalog
from scanner.catalog.spelling import identify_spelled
from scanner.hosts import is_loopback
from scanner.kinds.agents import AgentEntry
from scanner.kinds.endpoints import EndpointEntry
from scanner.kinds.local_models.catalog_index import SECTION as LOCAL_CATALOG
from scanner.kinds.local_models.facts import MAX_LISTED, NOT_HERE, LocalModelEntry, WeightFacts
from scanner.kinds.models import ModelEntry
from scanner.kinds.sessions import SessionEntry
from scanner.model import WIRING_CONTEXTS, Location, location_key

LOCAL_ROUTES = frozenset({"self-hosted", "local"})
_DEFAULT_PORTS = {"http": 80, "https": 443}


def resolve_uses(
    entries: Sequence[LocalModelEntry],
    models: Sequence[ModelEntry],
    endpoints: Sequence[EndpointEntry],
    agents: Sequence[AgentEntry],
    sessions: Sequence[SessionEntry],
    catalog: Catalog,
) -> tuple[LocalModelEntry, ...]:
    """`entries` with their users, sessions and configuring places, plus one entry per configured local model no
    store holds."""
    out = list(entries)
    index = _index(out)
    ports = {s.port for e in out for s in e.servers if s.port} | {
        g.default_port for g in LOCAL_CATALOG.of(catalog).servers if g.default_port
    }
    local_files = _local_files(endpoints, ports) - _routed_files(models)
    users: dict[int, set[str]] = defaultdict(set)
    places: dict[int, list[Location]] = defaultdict(list)
    for m in models:
        wiring = [loc for loc in m.locations if loc.context in WIRING_CONTEXTS]
        # The file's local server speaks only for a model no route was stated for, and only in a file that
        # states no route elsewhere: a multi-provider file (claude-code-router's Providers, mods' `apis`) names
        # Ollama beside OpenRouter and DeepSeek's own API. An alias runs on its model's route (LiteLLM's
        # `model_name` of `bedrock/…` is no local model).
        route = m.served_via or (identify_spelled(catalog, m.base_model).served_via if m.base_model else None)
        in_local_file = route is None and any(loc.path in local_files for loc in wiring)
        if not wiring or not (route in LOCAL_ROUTES or in_local_file):
            continue
        i = _resolve(m.name, index)
        if i is None:
            out.append(_absent(m))
            i = len(out) - 1
            index.update({n: i for n in _spellings(m.name)})
        users[i].update(_agents_of(agents, {loc.path for loc in wiring}))
        places[i].extend(wiring)
    counted: dict[int, int] = defaultdict(int)
    for s in sessions:
        hit = {i for label in (s.served_models or s.labels) if (i := _resolve(label, index)) is not None}
        for i in hit:
            counted[i] += 1
    return tuple(
        _with_uses(e, users.get(i, ()), counted.get(i, 0), places.get(i, ()))
        if i in users or i in counted else e
        for i, e in enumerate(out)
    )  # fmt: skip


def _spellings(name: str) -> list[str]:
    """A name as written, without a route or registry prefix, and with or without Ollama's default tag."""
    bare = name.rsplit("/", 1)[-1] if "/" in name else name
    out = [name.lower(), bare.lower()]
    for n in list(out):
        out.append(n.removesuffix(":latest") if n.endswith(":latest") else n + ":latest" if ":" not in n else n)
    return list(dict.fromkeys(out))


def _index(entries: Sequence[LocalModelEntry]) -> dict[str, int]:
    """Each spelling of each name to the first entry that answers to it: names as written before any other."""
    index: dict[str, int] = {}
    for exact in (True, False):
        for i, e in enumerate(entries):
            for name in e.names:
                for spelling in _spellings(name)[: 1 if exact else None]:
                    index.setdefault(spelling, i)
    return index


def _resolve(name: str, index: dict[str, int]) -> int | None:
    return next((index[s] for s in _spellings(name) if s in index), None)


def _routed_files(models: Sequence[ModelEntry]) -> set[str]:
    """Files that state a route to a server elsewhere for a model they configure (mods' `apis.openai.base-url`
    beside `apis.ollama`): a model there with no route of its own is not the local server's by default."""
    return {
        loc.path for m in models if m.served_via and m.served_via not in LOCAL_ROUTES
        for loc in m.locations if loc.context in WIRING_CONTEXTS
    }  # fmt: skip


def _local_files(endpoints: Sequence[EndpointEntry], ports: set[int]) -> set[str]:
    """Files that configure a loopback base URL on a model server's port."""
    out: set[str] = set()
    for e in endpoints:
        if not is_loopback(e.host):
            continue
        if any(_port(url) in ports for url in e.urls):
            out.update(loc.path for loc in e.locations)
    return out


def _port(url: str) -> int | None:
    try:
        parts = urlsplit(url if "://" in url else f"http://{url}")
        return parts.port or _DEFAULT_PORTS.get(parts.scheme)
    except ValueError:
        return None


def _agents_of(agents: Sequence[AgentEntry], paths: set[str]) -> set[str]:
    return {
        a.name + (f" ({c.user})" if c.user else "")
        for a in agents
        for c in a.configs
        if paths.intersection(c.files)
    }


def _absent(m: ModelEntry) -> LocalModelEntry:
    name = m.name.split("/", 1)[1] if m.served_via in LOCAL_ROUTES and "/" in m.name else m.name
    return LocalModelEntry(
        name=name, names=tuple(dict.fromkeys((name, m.name))), store="none", present=False, vendor=m.vendor,
        family=m.family, facts=WeightFacts(), format=None, size=0, files=(), servers=(), used_by=(), sessions=0,
        locations=(), note=NOT_HERE,
    )  # fmt: skip


def _with_uses(e: LocalModelEntry, users: Iterable[str], sessions: int, places: Iterable[Location]) -> LocalModelEntry:
    locs = {location_key(loc): loc for loc in (*e.locations, *places)}
    return replace(
        e, used_by=tuple(sorted({*e.used_by, *users}))[:MAX_LISTED], sessions=e.sessions + sessions,
        locations=tuple(sorted(locs.values(), key=location_key))[:MAX_LISTED],
    )  # fmt: skip

"""One log file in, its sessions out: open its container's records, pick the adapter, fold them per session."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from scanner.catalog import Catalog
from scanner.catalog.schema import Examples, FingerprintSpec
from scanner.kinds.sessions import SessionEntry
from scanner.model import Context, Location, SkipReason
from scanner.sessions.adapters import ADAPTERS, Adapter
from scanner.sessions.adapters.base import one_record_each, stem
from scanner.sessions.attribution import SessionAccumulator
from scanner.sessions.budget import WorkBudget
from scanner.sessions.fingerprints import Fingerprinter, Hit
from scanner.sessions.formats import Source, open_records
from scanner.sessions.formats import sniff as looks_like_log
from scanner.sessions.percatalog import PerCatalog
from scanner.sessions.pick import served_rule
from scanner.sessions.reader import ReadNotes, Record
from scanner.sessions.shape import Shape, read_shape
from scanner.vocab import Confidence, PseudoVendor

MAX_SESSIONS_PER_FILE = 500
MAX_LABELS_PER_FILE = 1_000
MAX_HOSTS_PER_FILE = 50
MAX_MENTIONS_PER_SESSION = 50
__all__ = ["LabelSeen", "LogRead", "collect", "engine", "host_rule", "looks_like_log", "read_log"]
_ENGINES: PerCatalog[Fingerprinter] = PerCatalog(lambda catalog: Fingerprinter(catalog.fingerprints))


_UNSEEN: Any = object()  # a host or model the file's rules were not yet looked up for
_KNOWN_PER_FILE = 1_000
_HOST_HITS: PerCatalog[dict[str, FingerprintSpec | None]] = PerCatalog(lambda _: {})


def engine(catalog: Catalog) -> Fingerprinter:
    return _ENGINES.of(catalog)


def host_rule(catalog: Catalog, host: str) -> FingerprintSpec | None:
    """An API host a record names, as a fingerprint: a vendor's own host names the vendor and the route `direct`
    (a proxy's request to api.openai.com is no request to Azure, whatever came before it); a cloud's or a router's
    host (`*.openai.azure.com`, `bedrock-runtime.*`) names only the route, never the vendor."""
    cache = _HOST_HITS.of(catalog)
    if host in cache:
        return cache[host]
    spec = catalog.host_info(host)
    rule = None
    if spec is not None:
        via = spec.served_via if spec.served_via not in (None, "direct") else None
        if via or spec.vendor:
            vendor = PseudoVendor.UNKNOWN if via or not spec.vendor else spec.vendor
            route = via or ("direct" if spec.served_via == "direct" else None)
            rule = FingerprintSpec("api-host", vendor, "", Examples(), served_via=route, confidence=Confidence.MEDIUM)
    if len(cache) < 10_000:
        cache[host] = rule
    return rule


@dataclass(frozen=True)
class LabelSeen:
    label: str
    line: int | None


@dataclass
class LogRead:
    """What one log file gave: its sessions, where each model label was first seen, the API hosts its records
    name, and the sessions that are only metadata (no record carries a served-by fact: a task's metadata file)."""

    sessions: list[SessionEntry] = field(default_factory=list)
    labels: list[LabelSeen] = field(default_factory=list)
    hosts: dict[str, int | None] = field(default_factory=dict)  # host -> first line
    metadata: list[SessionEntry] = field(default_factory=list)
    cuts: list[tuple[SkipReason, str]] = field(default_factory=list)  # what a bound cut, for `skipped`

    def __bool__(self) -> bool:
        return bool(self.sessions or self.metadata)


def collect(
    path: str,
    shown: str,
    via: str | None,
    data: bytes,
    catalog: Catalog,
    context: Context = Context.SESSION,
    skipped: list[tuple[SkipReason, str]] | None = None,
) -> tuple[list[SessionEntry], list[LabelSeen]]:
    """The sessions of one log file, and where each model label was first seen in it (see `read_log`)."""
    read = read_log(path, shown, via, data, catalog, context, skipped)
    return read.sessions + read.metadata, read.labels


def read_log(
    path: str,
    shown: str,
    via: str | None,
    data: bytes,
    catalog: Catalog,
    context: Context = Context.SESSION,
    skipped: list[tuple[SkipReason, str]] | None = None,
    mentions: dict[int, set[str]] | None = None,
    placed: bool = True,
) -> LogRead:
    """The sessions of one log file. `context` is the file's: a session log inside a test or fixture tree keeps
    `test`, so it never counts as wiring. `skipped` receives what a bound cut (inflation cap, SQLite budget,
    sessions or labels over their caps). `mentions` maps a line to the catalogued model ids the file's bytes
    name on it (the content pass's hits; line -1: a file without lines, whose every session gets them): each
    session counts those of its records' lines (all of them for a whole-document file) that are none of its own
    labels as only mentioned. A file not `placed` where session logs are kept (a `.json` among configs) whose
    records, read by shape alone, carry no served-by fact is no session log at all: a config with a `model` key."""
    notes = ReadNotes()
    source = open_records(path.rsplit("/", 1)[-1], data, notes)
    reading = _FileRead(path, Location(shown, None, context, False, via), catalog, source, mentions, notes.budget)
    reading.read(path)
    return reading.finish(notes, placed, skipped)


class _FileRead:
    """One file's read in progress: its adapter, its sessions, which of them a record said something of, the labels
    and hosts seen, and what a cap cut."""

    __slots__ = (
        "catalog", "source", "mentions", "location", "fallback", "fingerprinter", "key_class", "key_info", "adapter",
        "named", "whole", "state", "budget", "sessions", "signal", "said", "labels", "hosts", "overflow",
        "labels_cut", "every", "host_rules", "served_rules", "named_known",
    )

    def __init__(self, path: str, location: Location, catalog: Catalog, source: Source,
                 mentions: dict[int, set[str]] | None, budget: WorkBudget) -> None:
        self.catalog, self.source, self.mentions, self.location = catalog, source, mentions, location
        self.budget = budget
        self.fallback = stem(path)
        self.fingerprinter = engine(catalog)
        self.key_class, self.key_info = self.fingerprinter.key_class, self.fingerprinter.key_info
        self.adapter: Adapter | None = None
        self.named = self.whole = False  # a known agent's adapter; one record per stored object (no generator)
        self.state: dict[str, object] = {"path": path, "budget": budget}  # compressed bodies are charged to it
        self.sessions: dict[str, SessionAccumulator] = {}
        self.signal: set[str] = set()  # sessions with a sign of a session log (an id, a label, reasoning, a call)
        self.said: set[str] = set()  # sessions one of whose records carries a served-by fact (an id, a served model)
        self.labels: dict[str, int | None] = {}
        self.hosts: dict[str, int | None] = {}  # host -> first line
        self.overflow = self.labels_cut = 0
        self.every: set[str] | None = None  # what a whole-document file mentions, gathered once
        # The rule of each host and served model the file's records name, looked up once a file, not once a record.
        self.host_rules: dict[str, FingerprintSpec | None] = {}
        self.served_rules: dict[str, FingerprintSpec | None] = {}
        self.named_known: dict[str, bool] = {}

    def choose(self, path: str, first: dict[str, Any]) -> Adapter:
        """The adapter of the file: the first that claims its first record."""
        self.adapter = adapter = next(a for a in ADAPTERS if a.claims(path, first))
        self.named = adapter.name != "generic"
        self.whole = one_record_each(adapter)
        return adapter

    def read(self, path: str) -> None:
        """Every record of the file into its session. The hot path: what each record needs is held in locals, and
        what few records need (a new session, hosts, served models, labels, mentions) is a call of its own."""
        budget, state, sessions, said, signal, seen = (
            self.budget, self.state, self.sessions, self.said, self.signal, self.labels
        )
        key_class, key_info, match, fallback = self.key_class, self.key_info, self.fingerprinter.match, self.fallback
        mentions = self.mentions
        # `budget.spent()`, inline with its bounds in locals (they hold for the file): once a record.
        max_lines, max_records, max_events = budget.max_lines, budget.max_records, budget.max_events
        adapter: Adapter | None = None
        for record in self.source.records:
            if budget.lines > max_lines or budget.records >= max_records or budget.events >= max_events:
                budget.stop(record.line)
                break
            if adapter is None:
                adapter = self.choose(path, record.value)
                facts_of, named = adapter.facts, self.named
            state["document"] = record.line is None
            for value in (record.value,) if self.whole else adapter.expand(record.value, state):
                shape = read_shape(value, key_class, key_info)
                budget.records += 1
                budget.events += shape.work
                state["shape"] = shape
                facts = facts_of(value, state)
                # What the shape read and the adapter did not: the time, the title, the reply's models as labels.
                if facts.timestamp is None:
                    facts.timestamp = shape.timestamp
                if facts.title is None:
                    facts.title = shape.title
                served = tuple(shape.served)
                if served and any(m not in facts.labels for m in served):
                    facts.labels = tuple(dict.fromkeys((*facts.labels, *served)))
                if shape.named and (known := self._known(shape.named)):
                    facts.labels = tuple(dict.fromkeys((*facts.labels, *known)))
                sid = facts.session_id or fallback
                acc = sessions.get(sid) or self._open(sid, record.line)
                if acc is None:
                    continue
                hits = match(shape)
                if shape.hosts or served:
                    self._named_hits(hits, shape, served, record.line)
                if hits:
                    said.add(sid)
                acc.add(facts, hits, shape.reasoning, served)
                if mentions and (found := self._mentioned(record)):
                    acc.mention(found)
                # A known agent's log is a session log; the generic reader needs a sign of one (a tool call the model
                # issued is one: Kimi CLI's records name neither model nor provider).
                if hits or facts.labels or shape.reasoning or shape.tool_calls or named:
                    signal.add(sid)
                for label in facts.labels:  # where each was first seen (bounded: MAX_LABELS_PER_FILE distinct)
                    if len(seen) < MAX_LABELS_PER_FILE:
                        seen.setdefault(label, record.line)
                    elif label not in seen:
                        self.labels_cut += 1

    def _open(self, sid: str, line: int | None) -> SessionAccumulator | None:
        """A new session of the file, named by the container's format where no agent's adapter read it; None past
        the file's cap (its records are counted as not attributed)."""
        if len(self.sessions) >= MAX_SESSIONS_PER_FILE:
            self.overflow += 1
            return None
        adapter = self.adapter
        assert adapter is not None
        fmt = str(self.state.get("format") or (adapter.name if self.named else self.source.format or adapter.name))
        location = Location(self.location.path, line, self.location.context, False, self.location.via)
        acc = self.sessions[sid] = SessionAccumulator(sid, fmt, location, self.catalog)
        return acc

    def _named_hits(self, hits: list[Hit], shape: Shape, served: tuple[str, ...], line: int | None) -> None:
        """The API hosts the record names and the models its reply names as what served it, added to its hits."""
        catalog, known = self.catalog, self.host_rules
        for host in shape.hosts:
            rule = known.get(host, _UNSEEN)
            if rule is _UNSEEN:
                rule = host_rule(catalog, host)
                if len(known) < _KNOWN_PER_FILE:
                    known[host] = rule
            if rule is not None:
                hits.append(Hit(rule, host))
                if host not in self.hosts and len(self.hosts) < MAX_HOSTS_PER_FILE:
                    self.hosts[host] = line
        known = self.served_rules
        for model in served:
            rule = known.get(model, _UNSEEN)
            if rule is _UNSEEN:
                rule = served_rule(catalog, model)
                if len(known) < _KNOWN_PER_FILE:
                    known[model] = rule
            if rule is not None:
                hits.append(Hit(rule, model))

    def _known(self, named: list[str]) -> list[str]:
        """The values a key names a model by a word of (`modelTitle`) that the catalogs know as a model."""
        catalog, known = self.catalog, self.named_known
        out = []
        for value in named:
            found = known.get(value)
            if found is None:
                found = catalog.identify(value).catalog != "unknown"
                if len(known) < _KNOWN_PER_FILE:
                    known[value] = found
            if found:
                out.append(value)
        return out

    def _mentioned(self, record: Record) -> set[str] | tuple[()]:
        """The ids the content pass found on the record's lines (every line's, for a whole-document record)."""
        mentions = self.mentions
        assert mentions is not None
        line = record.line
        if line is None:
            if self.every is None:
                self.every = _all(mentions)
            return self.every
        if record.end is None:
            return mentions.get(line, ())
        found: set[str] = set()
        for number in range(line, record.end + 1):
            found.update(mentions.get(number, ()))
        return found

    def finish(self, notes: ReadNotes, placed: bool, skipped: list[tuple[SkipReason, str]] | None) -> LogRead:
        """The file's sessions, and its metadata: a session no record of which carries a served-by fact, unless its
        container says the file holds model calls."""
        overflow = self.overflow
        extra = (f"{overflow} record(s) of sessions beyond {MAX_SESSIONS_PER_FILE} per file not attributed",) * bool(
            overflow
        )
        summary = notes.summary() + extra
        out = LogRead(hosts=self.hosts, cuts=_cuts(notes, overflow, self.labels_cut))
        if skipped is not None:
            skipped.extend(out.cuts)
        anywhere = self.mentions.get(-1) if self.mentions else None
        evident = self.source.evident
        for sid, acc in sorted(self.sessions.items()):
            if anywhere:
                acc.mention(anywhere)
            if sid not in self.signal and not evident:
                continue
            entry = acc.finish(self.catalog, summary, MAX_MENTIONS_PER_SESSION)
            if sid in self.said or entry.reasoning != "absent" or evident:
                out.sessions.append(entry)
            elif placed or self.named:
                out.metadata.append(entry)
        if out:
            out.labels = [LabelSeen(label, line) for label, line in self.labels.items()]
        return out


def _all(mentions: dict[int, set[str]]) -> set[str]:
    """Every id a whole-document file mentions (its records have no lines of their own)."""
    found: set[str] = set()
    for line, ids in mentions.items():
        if line != -1:
            found |= ids
    return found


def _cuts(notes: ReadNotes, overflow: int, labels_cut: int) -> list[tuple[SkipReason, str]]:
    out = notes.skips()
    if overflow:
        detail = f"{overflow} record(s) of sessions beyond {MAX_SESSIONS_PER_FILE} per file"
        out.append((SkipReason.CAP_REACHED, detail))
    if labels_cut:
        detail = f"{labels_cut} sighting(s) of model labels beyond {MAX_LABELS_PER_FILE} distinct per file not placed"
        out.append((SkipReason.CAP_REACHED, detail))
    return out

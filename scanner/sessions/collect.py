"""One log file in, its sessions out: pick the adapter, stream the records, fold them per session."""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass, field, replace

from scanner.catalog import Catalog
from scanner.catalog.schema import Examples, FingerprintSpec
from scanner.kinds.sessions import SessionEntry
from scanner.model import Context, Location, SkipReason
from scanner.sessions.adapters import ADAPTERS, Adapter
from scanner.sessions.adapters.aider import NAMES as AIDER_NAMES
from scanner.sessions.adapters.aider import Aider
from scanner.sessions.adapters.base import one_record_each, stem
from scanner.sessions.adapters.capture import Capture, is_capture
from scanner.sessions.adapters.openai_agents import SQLITE_MAGIC, OpenAIAgents
from scanner.sessions.adapters.sqlite_tables import SqliteTables, has_model_table
from scanner.sessions.attribution import SessionAccumulator
from scanner.sessions.fingerprints import Fingerprinter, Hit
from scanner.sessions.percatalog import PerCatalog
from scanner.sessions.pick import served_rule
from scanner.sessions.reader import GZIP_MAGIC, ReadNotes, Record, chunks, records
from scanner.sessions.shape import read_shape
from scanner.vocab import Confidence, PseudoVendor

MAX_SESSIONS_PER_FILE = 500
MAX_LABELS_PER_FILE = 1_000
MAX_HOSTS_PER_FILE = 50
MAX_MENTIONS_PER_SESSION = 50
SNIFF = 64 << 10
# Keys whose presence makes a JSON file worth reading as a session log.
_SHAPE = re.compile(
    rb'"(?:role|sessionId|session_id|session_meta|custom_llm_provider|candidates|choices|output|stopReason|'
    rb"stop_reason|modelVersion|modelInfo|conversationHistoryIndex|encrypted_content|tool_calls|response_id|"
    rb'sessionID|providerID|history|trajectory|messages|events|reasoning|thinking|parts|model_usage|usage|'
    rb'usageMetadata|request_id|api_base|interactions|conversation_id|conversationId|llm_model)"\s*:|'
    rb'"type"\s*:\s*"(?:session_meta|turn_context|response_item|event_msg)"'
)
_EXTENSIONS = (".jsonl", ".json", ".ndjson", ".log", ".traj", ".har")
_ENGINES: PerCatalog[Fingerprinter] = PerCatalog(lambda catalog: Fingerprinter(catalog.fingerprints))


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


def head_of(data: bytes) -> bytes:
    """The first bytes of the (inflated) content, for sniffing."""
    if not data.startswith(GZIP_MAGIC):
        return data[:SNIFF]
    out = b""
    for piece in chunks(data, max_inflated=SNIFF):
        out += piece
    return out[:SNIFF]


def looks_like_log(name: str, data: bytes) -> bool:
    lower = name.lower().removesuffix(".gz")
    if name in AIDER_NAMES:
        return True
    if data.startswith(SQLITE_MAGIC):
        return b"agent_messages" in data[:SNIFF] or has_model_table(data)
    if is_capture(lower, data[:SNIFF]):
        return True
    if not lower.endswith(_EXTENSIONS) and "." in lower:
        return False
    head = head_of(data)
    return head.lstrip().startswith((b"{", b"[")) and bool(_SHAPE.search(head))


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


def _source(name: str, data: bytes, notes: ReadNotes) -> tuple[Adapter | None, Iterator[Record]]:
    if name in AIDER_NAMES:
        reader = Aider()
        return reader, reader.read(data, notes)
    if data.startswith(SQLITE_MAGIC):
        if b"agent_messages" in data[:SNIFF]:
            store = OpenAIAgents()
            return store, store.read(data, notes)
        tables = SqliteTables()
        return tables, tables.read(data, notes)
    if is_capture(name.lower(), data[:SNIFF]):
        capture = Capture()
        return capture, capture.read(data, notes)
    return None, records(data, notes)


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
    name = path.rsplit("/", 1)[-1]
    adapter, stream = _source(name, data, notes)
    fingerprinter = engine(catalog)
    state: dict[str, object] = {"path": path}
    sessions: dict[str, SessionAccumulator] = {}
    signal: set[str] = set()
    said: set[str] = set()  # sessions one of whose records carries a served-by fact (an id, a served model)
    seen_labels: dict[str, int | None] = {}
    hosts: dict[str, int | None] = {}
    overflow = 0
    labels_cut = 0
    fallback_sid = stem(path)
    key_class, key_info = fingerprinter.key_class, fingerprinter.key_info
    whole: bool | None = None  # the adapter takes each stored object as one record: no generator per record
    budget = notes.budget
    every: set[str] | None = None  # what a whole-document file mentions, gathered once
    for record in stream:
        if budget.spent():
            budget.stop(record.line)
            break
        if adapter is None:
            adapter = next(a for a in ADAPTERS if a.claims(path, record.value))
        if whole is None:
            whole = one_record_each(adapter)
        state["document"] = record.line is None
        for value in (record.value,) if whole else adapter.expand(record.value, state):
            shape = read_shape(value, key_class, key_info)
            budget.records += 1
            budget.events += shape.work
            state["shape"] = shape
            facts = adapter.facts(value, state)
            if facts.timestamp is None and shape.timestamp is not None:
                facts = replace(facts, timestamp=shape.timestamp)
            if facts.title is None and shape.title is not None:
                facts = replace(facts, title=shape.title)
            served = tuple(shape.served)
            if served and any(m not in facts.labels for m in served):
                facts = replace(facts, labels=tuple(dict.fromkeys((*facts.labels, *served))))
            sid = facts.session_id or fallback_sid
            acc = sessions.get(sid)
            if acc is None:
                if len(sessions) >= MAX_SESSIONS_PER_FILE:
                    overflow += 1
                    continue
                location = Location(shown, record.line, context, False, via)
                fmt = str(state.get("format", adapter.name))
                acc = sessions[sid] = SessionAccumulator(sid, fmt, location, catalog)
            hits = fingerprinter.match(shape)
            for host in shape.hosts:
                rule = host_rule(catalog, host)
                if rule is not None:
                    hits.append(Hit(rule, host))
                    if host not in hosts and len(hosts) < MAX_HOSTS_PER_FILE:
                        hosts[host] = record.line
            for model in served:
                rule = served_rule(catalog, model)
                if rule is not None:
                    hits.append(Hit(rule, model))
            if hits:
                said.add(sid)
            acc.add(facts, hits, shape.reasoning, served)
            if mentions:
                if record.line is None and every is None:
                    every = _all(mentions)
                acc.mention(mentions.get(record.line, ()) if record.line is not None else every or ())
            # A known agent's log is a session log; the generic adapter needs a sign of one (a tool call the model
            # issued is one: Kimi CLI's records name neither model nor provider).
            if hits or facts.labels or shape.reasoning or shape.tool_calls or adapter.name != "generic":
                signal.add(sid)
            for label in facts.labels:
                if len(seen_labels) < MAX_LABELS_PER_FILE:
                    seen_labels.setdefault(label, record.line)
                elif label not in seen_labels:
                    labels_cut += 1
    extra = (f"{overflow} record(s) of sessions beyond {MAX_SESSIONS_PER_FILE} per file not attributed",) * bool(
        overflow
    )
    summary = notes.summary() + extra
    out = LogRead(hosts=hosts, cuts=_cuts(notes, overflow, labels_cut))
    if skipped is not None:
        skipped.extend(out.cuts)
    anywhere = mentions.get(-1) if mentions else None
    for sid, acc in sorted(sessions.items()):
        if anywhere:
            acc.mention(anywhere)
        if sid not in signal:
            continue
        entry = acc.finish(catalog, summary, MAX_MENTIONS_PER_SESSION)
        if sid in said or entry.reasoning != "absent":
            out.sessions.append(entry)
        elif placed or adapter is None or adapter.name != "generic":
            out.metadata.append(entry)
    if out:
        out.labels = [LabelSeen(label, line) for label, line in seen_labels.items()]
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

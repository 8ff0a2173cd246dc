"""One log file in, its sessions out: pick the adapter, stream the records, fold them per session."""

from __future__ import annotations

import re
import weakref
from collections.abc import Iterator
from dataclasses import dataclass, replace

from scanner.catalog import Catalog
from scanner.catalog.schema import Examples, FingerprintSpec
from scanner.model import Context, Location, SessionEntry, SkipReason
from scanner.sessions.adapters import ADAPTERS, Adapter
from scanner.sessions.adapters.aider import NAMES as AIDER_NAMES
from scanner.sessions.adapters.aider import Aider
from scanner.sessions.adapters.base import one_record_each, stem
from scanner.sessions.adapters.cassette import Cassette, is_cassette
from scanner.sessions.adapters.openai_agents import SQLITE_MAGIC, OpenAIAgents
from scanner.sessions.attribution import SessionAccumulator
from scanner.sessions.fingerprints import Fingerprinter, Hit
from scanner.sessions.reader import GZIP_MAGIC, ReadNotes, Record, chunks, records
from scanner.sessions.shape import read_shape
from scanner.vocab import Confidence, PseudoVendor

MAX_SESSIONS_PER_FILE = 500
MAX_LABELS_PER_FILE = 1_000
SNIFF = 64 << 10
# Keys whose presence makes a JSON file worth reading as a session log.
_SHAPE = re.compile(
    rb'"(?:role|sessionId|session_id|session_meta|custom_llm_provider|candidates|choices|output|stopReason|'
    rb"stop_reason|modelVersion|modelInfo|conversationHistoryIndex|encrypted_content|tool_calls|response_id|"
    rb'sessionID|providerID|history|trajectory|messages|events|reasoning|thinking|parts|model_usage)"\s*:|'
    rb'"type"\s*:\s*"(?:session_meta|turn_context|response_item|event_msg)"'
)
_EXTENSIONS = (".jsonl", ".json", ".ndjson", ".log", ".traj")
_ENGINES: weakref.WeakKeyDictionary[Catalog, Fingerprinter] = weakref.WeakKeyDictionary()


_HOST_HITS: weakref.WeakKeyDictionary[Catalog, dict[str, FingerprintSpec | None]] = weakref.WeakKeyDictionary()


def engine(catalog: Catalog) -> Fingerprinter:
    found = _ENGINES.get(catalog)
    if found is None:
        found = _ENGINES[catalog] = Fingerprinter(catalog.fingerprints)
    return found


def host_rule(catalog: Catalog, host: str) -> FingerprintSpec | None:
    """An API host a record names, as a fingerprint: a vendor's own host names the vendor; a cloud's or a
    router's host (`*.openai.azure.com`, `bedrock-runtime.*`) names only the route, never the vendor."""
    cache = _HOST_HITS.setdefault(catalog, {})
    if host in cache:
        return cache[host]
    spec = catalog.host_info(host)
    rule = None
    if spec is not None:
        via = spec.served_via if spec.served_via not in (None, "direct") else None
        if via or spec.vendor:
            vendor = PseudoVendor.UNKNOWN if via or not spec.vendor else spec.vendor
            rule = FingerprintSpec("api-host", vendor, "", Examples(), served_via=via, confidence=Confidence.MEDIUM)
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
        return b"agent_messages" in data[:SNIFF]
    if is_cassette(lower, data[:SNIFF]):
        return True
    if not lower.endswith(_EXTENSIONS) and "." in lower:
        return False
    head = head_of(data)
    return head.lstrip().startswith((b"{", b"[")) and bool(_SHAPE.search(head))


@dataclass(frozen=True)
class LabelSeen:
    label: str
    line: int | None


def _source(name: str, data: bytes, notes: ReadNotes) -> tuple[Adapter | None, Iterator[Record]]:
    if name in AIDER_NAMES:
        reader = Aider()
        return reader, reader.read(data, notes)
    if data.startswith(SQLITE_MAGIC):
        store = OpenAIAgents()
        return store, store.read(data, notes)
    if is_cassette(name, data[:SNIFF]):
        cassette = Cassette()
        return cassette, cassette.read(data, notes)
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
    """The sessions of one log file, and where each model label was first seen in it. `context` is the
    file's: a session log inside a test or fixture tree keeps `test`, so it never counts as wiring.
    `skipped` receives what a bound cut (inflation cap, SQLite budget, sessions or labels over their caps)."""
    notes = ReadNotes()
    name = path.rsplit("/", 1)[-1]
    adapter, stream = _source(name, data, notes)
    fingerprinter = engine(catalog)
    state: dict[str, object] = {"path": path}
    sessions: dict[str, SessionAccumulator] = {}
    signal: set[str] = set()
    seen_labels: dict[str, int | None] = {}
    overflow = 0
    labels_cut = 0
    fallback_sid = stem(path)
    key_class, key_info = fingerprinter.key_class, fingerprinter.key_info
    whole: bool | None = None  # the adapter takes each stored object as one record: no generator per record
    budget = notes.budget
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
            acc.add(facts, hits, shape.reasoning)
            # A known agent's log is a session log; the generic adapter needs a sign of one.
            if hits or facts.labels or shape.reasoning or adapter.name != "generic":
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
    if skipped is not None:
        skipped.extend(_cuts(notes, overflow, labels_cut))
    entries = [acc.finish(catalog, summary) for sid, acc in sorted(sessions.items()) if sid in signal]
    labels = [LabelSeen(label, line) for label, line in seen_labels.items()] if entries else []
    return entries, labels


def _cuts(notes: ReadNotes, overflow: int, labels_cut: int) -> list[tuple[SkipReason, str]]:
    out = notes.skips()
    if overflow:
        detail = f"{overflow} record(s) of sessions beyond {MAX_SESSIONS_PER_FILE} per file"
        out.append((SkipReason.CAP_REACHED, detail))
    if labels_cut:
        detail = f"{labels_cut} sighting(s) of model labels beyond {MAX_LABELS_PER_FILE} distinct per file not placed"
        out.append((SkipReason.CAP_REACHED, detail))
    return out

"""One log file in, its sessions out: pick the adapter, stream the records, fold them per session."""

from __future__ import annotations

import re
import weakref
from collections.abc import Iterator
from dataclasses import dataclass

from scanner.catalog import Catalog
from scanner.model import Context, Location, SessionEntry, SkipReason
from scanner.sessions.adapters import ADAPTERS, Adapter
from scanner.sessions.adapters.aider import NAMES as AIDER_NAMES
from scanner.sessions.adapters.aider import Aider
from scanner.sessions.adapters.base import stem
from scanner.sessions.adapters.openai_agents import SQLITE_MAGIC, OpenAIAgents
from scanner.sessions.attribution import SessionAccumulator
from scanner.sessions.fingerprints import Fingerprinter
from scanner.sessions.reader import GZIP_MAGIC, ReadNotes, Record, chunks, records
from scanner.sessions.reasoning import record_reasoning

MAX_SESSIONS_PER_FILE = 500
MAX_LABELS_PER_FILE = 1_000
SNIFF = 64 << 10
# Keys whose presence makes a JSON file worth reading as a session log.
_SHAPE = re.compile(
    rb'"(?:role|sessionId|session_id|session_meta|custom_llm_provider|candidates|choices|output|stopReason|'
    rb'stop_reason|modelVersion|modelInfo|conversationHistoryIndex|encrypted_content|tool_calls|response_id)"\s*:'
)
_EXTENSIONS = (".jsonl", ".json", ".ndjson", ".log")
_ENGINES: weakref.WeakKeyDictionary[Catalog, Fingerprinter] = weakref.WeakKeyDictionary()


def engine(catalog: Catalog) -> Fingerprinter:
    found = _ENGINES.get(catalog)
    if found is None:
        found = _ENGINES[catalog] = Fingerprinter(catalog.fingerprints)
    return found


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
    return None, records(data, notes)


def collect(
    path: str,
    shown: str,
    via: str | None,
    data: bytes,
    catalog: Catalog,
    skipped: list[tuple[SkipReason, str]] | None = None,
) -> tuple[list[SessionEntry], list[LabelSeen]]:
    """The sessions of one log file, and where each model label was first seen in it; `skipped` receives
    what a bound cut (inflation cap, SQLite budget, sessions or labels over their caps)."""
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
    for record in stream:
        if adapter is None:
            adapter = next(a for a in ADAPTERS if a.claims(path, record.value))
        for value in adapter.expand(record.value, state):
            facts = adapter.facts(value, state)
            sid = facts.session_id or stem(path)
            acc = sessions.get(sid)
            if acc is None:
                if len(sessions) >= MAX_SESSIONS_PER_FILE:
                    overflow += 1
                    continue
                location = Location(shown, record.line, Context.SESSION, False, via)
                acc = sessions[sid] = SessionAccumulator(sid, str(state.get("format", adapter.name)), location)
            hits = fingerprinter.scan(value)
            reasoning = record_reasoning(value)
            acc.add(facts, hits, reasoning)
            # A known agent's log is a session log; the generic adapter needs a sign of one.
            if hits or facts.labels or reasoning or adapter.name != "generic":
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

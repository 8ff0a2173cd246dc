"""A session file's container turned into records, whatever tool wrote it: JSON lines or a JSON document
(`reader`), recorded HTTP exchanges in YAML or JSON (`exchanges`), the rows of a SQLite store (`sqlite_rows`), a
plain-text or Markdown transcript (`transcript`). Which one reads a file is told by its first bytes (for YAML, by
its name's suffix too), never by which product wrote it. A container decides nothing of who served a record: the
record readers (`adapters`) read that from each record's structure.

A container may say by itself that the file is a log of model calls (a transcript, recorded exchanges, a table of
model calls): its sessions are then sessions even when no record names who served them.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from scanner.sessions.formats import exchanges, sqlite_rows, transcript
from scanner.sessions.reader import GZIP_MAGIC, ReadNotes, Record, chunks, records

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

__all__ = ["SNIFF", "Source", "head_of", "open_records", "sniff"]


class Source:
    """The records of one file, and what their container says: its name for a session's `format` (None: JSON
    records, named by their reader) and whether it holds model calls by itself (known once its records are read)."""

    __slots__ = ("records", "_name", "_found")

    def __init__(
        self, stream: Iterator[Record], name: str | None = None,
        found: exchanges.CaptureRead | sqlite_rows.StoreRead | None = None,
    ) -> None:
        self.records = stream
        self._name = name
        self._found = found

    @property
    def format(self) -> str | None:
        if isinstance(self._found, exchanges.CaptureRead):
            return self._found.format if self._found.exchanges else None
        return self._name

    @property
    def evident(self) -> bool:
        if isinstance(self._found, exchanges.CaptureRead):
            return self._found.exchanges > 0
        if isinstance(self._found, sqlite_rows.StoreRead):
            return self._found.calls
        return self._name == "transcript"


def head_of(data: bytes) -> bytes:
    """The first bytes of the (inflated) content, for sniffing."""
    if not data.startswith(GZIP_MAGIC):
        return data[:SNIFF]
    out = b""
    for piece in chunks(data, max_inflated=SNIFF):
        out += piece
    return out[:SNIFF]


def sniff(name: str, data: bytes, head: bytes | None = None) -> bool:
    """Whether a file may be a session log, by its head: a SQLite store of records, recorded exchanges, a
    transcript, or JSON with a session record's keys (under a log's suffix, or none). `head` is `head_of(data)`
    when the caller has it already (a gzip file's view, which inflated it for every reader)."""
    return _container(name, data, head) is not None


def open_records(name: str, data: bytes, notes: ReadNotes) -> Source:
    """The file's records, read by its container's reader (JSON records when its head says nothing else)."""
    kind = _container(name, data)
    if kind == "sqlite":
        store = sqlite_rows.StoreRead()
        return Source(sqlite_rows.read(data, notes, store), "sqlite-store", store)
    if kind == "exchanges":
        found = exchanges.CaptureRead()
        return Source(exchanges.read(name.lower().removesuffix(".gz"), data, notes, found), None, found)
    if kind == "transcript":
        return Source(transcript.read(data, notes), "transcript")
    return Source(records(data, notes))


def _container(name: str, data: bytes, head: bytes | None = None) -> str | None:
    """Which reader a file's head calls for (`sqlite`, `exchanges`, `transcript`, `json`), or None: no session log."""
    if data.startswith(sqlite_rows.MAGIC):
        return "sqlite" if sqlite_rows.sniff(data) else None
    lower = name.lower().removesuffix(".gz")
    if head is None:
        head = head_of(data)
    if exchanges.sniff(lower, head):
        return "exchanges"
    if transcript.sniff(head):
        return "transcript"
    if not lower.endswith(_EXTENSIONS) and "." in lower:
        return None
    return "json" if head.lstrip().startswith((b"{", b"[")) and bool(_SHAPE.search(head)) else None

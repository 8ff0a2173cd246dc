"""Session logs found by content and path (JSONL, JSON, gzip-rotated, Aider histories, SQLite stores, captures):
one `SessionEvidence` per session with the provider its records' fingerprints name, each model label as a
`session` location (a model a session ran on is wired), the API hosts its records name as endpoints, and the
catalogued ids its conversation only mentions, counted per session (never wiring)."""

from __future__ import annotations

from collections.abc import Iterator

from scanner.catalog.matcher import PatternKind
from scanner.detectors.base import FileView
from scanner.model import (
    Context,
    EndpointEvidence,
    Evidence,
    Location,
    ModelEvidence,
    SessionEvidence,
    SessionLogEvidence,
    SessionMetaEvidence,
    Skip,
    SkipReason,
)
from scanner.sessions.collect import read_log
from scanner.sessions.corroborate import log_notes, mentions_sessions
from scanner.textsafe import decode

# SDKs' own fixtures and docs are not this machine's sessions.
_NOT_SESSIONS = frozenset({Context.PACKAGE})
_MAX_MENTION_HITS = 50_000
_WHOLE_FILE = -1  # the line under which a file without lines (a SQLite store) keeps what it mentions


class SessionDetector:
    name = "sessions"
    description = "agent session logs: which provider served each session, reasoning visibility, model labels"

    def wants(self, view: FileView) -> bool:
        if view.context in _NOT_SESSIONS:
            return False
        return view.session_log or self._daemon_log(view)

    @staticmethod
    def _daemon_log(view: FileView) -> bool:
        return view.context is Context.LOG and mentions_sessions(view.data)

    def extract(self, view: FileView) -> Iterator[Evidence | Skip]:
        if self._daemon_log(view):
            for note in log_notes(view.data, view.path, view.via, Context.LOG, view.catalog):
                yield SessionLogEvidence(note)
        if not view.session_log:
            return
        # A session log inside a test or fixture tree is a fixture: reported, never counted as wiring.
        context = Context.TEST if view.context is Context.TEST else Context.SESSION
        cut: list[tuple[SkipReason, str]] = []
        read = read_log(
            view.entry.path, view.path, view.via, view.data, view.catalog, context, cut, _mentions(view)
        )
        for reason, detail in cut:
            yield Skip(view.path, reason, f"session log: {detail}")
        for seen in read.labels:
            yield ModelEvidence(seen.label, Location(view.path, seen.line, context, False, view.via, view.layer))
        for host, line in read.hosts.items():
            yield EndpointEvidence(host, None, Location(view.path, line, context, False, view.via, view.layer))
        for session in read.sessions:
            yield SessionEvidence(session)
        for meta in read.metadata:
            yield SessionMetaEvidence(meta)


def _mentions(view: FileView) -> dict[int, set[str]]:
    """The catalogued model ids the file's bytes name, per line (the content pass's hits, found once per file);
    a file without lines keeps them under _WHOLE_FILE. gzip content is not matched here (its inflated text is the
    compressed detector's), so a compressed log counts no mentions."""
    if view.data[:2] == b"\x1f\x8b":
        return {}
    out: dict[int, set[str]] = {}
    for n, hit in enumerate(view.hits):
        if n >= _MAX_MENTION_HITS:
            break
        if hit.kind not in (PatternKind.MODEL, PatternKind.HOSTED):
            continue
        line = view.line_of(hit.start)
        out.setdefault(_WHOLE_FILE if line is None else line, set()).add(decode(hit.text))
    return out

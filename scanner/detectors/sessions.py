"""Session logs found by content and path (JSONL, JSON, gzip-rotated, Aider histories, Agents SDK stores):
one `SessionEvidence` per session with the provider its records' fingerprints name, and each model label
as a `session` location (a model a session ran on is wired)."""

from __future__ import annotations

from collections.abc import Iterator

from scanner.detectors.base import FileView
from scanner.model import (
    Context,
    Evidence,
    Location,
    ModelEvidence,
    SessionEvidence,
    SessionLogEvidence,
    Skip,
    SkipReason,
)
from scanner.sessions.collect import collect, looks_like_log
from scanner.sessions.corroborate import log_notes, mentions_sessions

# SDKs' own fixtures and docs are not this machine's sessions.
_NOT_SESSIONS = frozenset({Context.PACKAGE})


class SessionDetector:
    name = "sessions"
    description = "agent session logs: which provider served each session, reasoning visibility, model labels"

    def wants(self, view: FileView) -> bool:
        if view.context in _NOT_SESSIONS:
            return False
        return looks_like_log(view.name, view.data) or self._daemon_log(view)

    @staticmethod
    def _daemon_log(view: FileView) -> bool:
        return view.context is Context.LOG and mentions_sessions(view.data)

    def extract(self, view: FileView) -> Iterator[Evidence | Skip]:
        if self._daemon_log(view):
            for note in log_notes(view.data, view.path, view.via, Context.LOG, view.catalog):
                yield SessionLogEvidence(note)
        if not looks_like_log(view.name, view.data):
            return
        # A session log inside a test or fixture tree is a fixture: reported, never counted as wiring.
        context = Context.TEST if view.context is Context.TEST else Context.SESSION
        cut: list[tuple[SkipReason, str]] = []
        sessions, labels = collect(view.entry.path, view.path, view.via, view.data, view.catalog, context, cut)
        for reason, detail in cut:
            yield Skip(view.path, reason, f"session log: {detail}")
        for seen in labels:
            yield ModelEvidence(seen.label, Location(view.path, seen.line, context, False, view.via, view.layer))
        for session in sessions:
            yield SessionEvidence(session)

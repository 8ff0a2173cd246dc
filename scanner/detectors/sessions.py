"""Session logs found by content and path (JSONL, JSON, gzip-rotated, Aider histories, Agents SDK stores):
one `SessionEvidence` per session with the provider its records' fingerprints name, and each model label
as a `session` location (a model a session ran on is wired)."""

from __future__ import annotations

from collections.abc import Iterator

from scanner.detectors.base import FileView
from scanner.model import Context, Evidence, Location, ModelEvidence, SessionEvidence, Skip, SkipReason
from scanner.sessions.collect import collect, looks_like_log

# SDKs' own fixtures and docs are not this machine's sessions.
_NOT_SESSIONS = frozenset({Context.PACKAGE})


class SessionDetector:
    name = "sessions"
    description = "agent session logs: which provider served each session, reasoning visibility, model labels"

    def wants(self, view: FileView) -> bool:
        return view.context not in _NOT_SESSIONS and looks_like_log(view.name, view.data)

    def extract(self, view: FileView) -> Iterator[Evidence | Skip]:
        cut: list[tuple[SkipReason, str]] = []
        sessions, labels = collect(view.entry.path, view.path, view.via, view.data, view.catalog, cut)
        for reason, detail in cut:
            yield Skip(view.path, reason, f"session log: {detail}")
        # A test fixture that parses as a session is still a test fixture: its labels are never wiring.
        context = Context.TEST if view.context is Context.TEST else Context.SESSION
        for seen in labels:
            where = Location(view.path, seen.line, context, False, view.via, view.layer)
            yield ModelEvidence(seen.label, where)
        for session in sessions:
            yield SessionEvidence(session)

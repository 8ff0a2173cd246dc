"""Session logs found by content and path (JSONL, JSON, gzip-rotated, Aider histories, Agents SDK stores):
one `SessionEvidence` per session with the provider its records' fingerprints name, and each model label
as a `session` location (a model a session ran on is wired)."""

from __future__ import annotations

from collections.abc import Iterator

from scanner.detectors.base import FileView
from scanner.model import Context, Evidence, Location, ModelEvidence, SessionEvidence
from scanner.sessions.collect import collect, looks_like_log

# SDKs' own fixtures and docs are not this machine's sessions.
_NOT_SESSIONS = frozenset({Context.PACKAGE})


class SessionDetector:
    name = "sessions"
    description = "agent session logs: which provider served each session, reasoning visibility, model labels"

    def wants(self, view: FileView) -> bool:
        return view.context not in _NOT_SESSIONS and looks_like_log(view.name, view.data)

    def extract(self, view: FileView) -> Iterator[Evidence]:
        sessions, labels = collect(view.entry.path, view.path, view.via, view.data, view.catalog)
        for seen in labels:
            where = Location(view.path, seen.line, Context.SESSION, False, view.via, view.layer)
            yield ModelEvidence(seen.label, where)
        for session in sessions:
            yield SessionEvidence(session)

"""Session logs found by content and path (JSONL, JSON, gzip-rotated, transcripts, SQLite stores, captures):
one `SessionEvidence` per session with the provider its records' fingerprints name, each model label as a
`session` location (a model a session ran on is wired), the API hosts its records name as endpoints, and the
catalogued ids its conversation only mentions, counted per session (never wiring)."""

from __future__ import annotations

from collections.abc import Iterator

from scanner.detectors.contract import Files, Needs
from scanner.fileview.view import FileView
from scanner.kinds import Evidence
from scanner.kinds.endpoints import EndpointEvidence
from scanner.kinds.models import ModelEvidence
from scanner.kinds.sessions import SessionEvidence, SessionLogEvidence, SessionMetaEvidence
from scanner.model import Context, Location, Skip
from scanner.sessions.corroborate import log_notes, mentions_sessions

# SDKs' own fixtures and docs are not this machine's sessions.
_NOT_SESSIONS = frozenset({Context.PACKAGE})


class SessionDetector:
    name = "sessions"
    description = "agent session logs: which provider served each session, reasoning visibility, model labels"
    # A session log is known by the shape of its head (`FileView.session_log`), wherever it sits.
    needs = Needs((Files(not_in=_NOT_SESSIONS, accept=lambda view: view.session_log or _daemon_log(view)),))

    def extract(self, view: FileView) -> Iterator[Evidence | Skip]:
        if _daemon_log(view):
            for note in log_notes(view.data, view.path, view.via, Context.LOG, view.catalog):
                yield SessionLogEvidence(note)
        read = view.session_read
        if read is None:
            return
        for reason, detail in read.cuts:
            yield Skip(view.path, reason, f"session log: {detail}")
        context = Context.TEST if view.context is Context.TEST else Context.SESSION
        for seen in read.labels:
            yield ModelEvidence(seen.label, Location(view.path, seen.line, context, False, view.via, view.layer))
        for host, line in read.hosts.items():
            yield EndpointEvidence(host, None, Location(view.path, line, context, False, view.via, view.layer))
        for session in read.sessions:
            yield SessionEvidence(session)
        for meta in read.metadata:
            yield SessionMetaEvidence(meta)


def _daemon_log(view: FileView) -> bool:
    return view.context is Context.LOG and mentions_sessions(view.data)


DETECTOR = SessionDetector()

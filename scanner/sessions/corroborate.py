"""Logs beside the sessions: a daemon's or router's text log that names a session (`session_id=…`,
`subagent_id=…`) on a line recording a fallback or the upstream it used corroborates that session's
attribution. Lines are read bounded; only known facts are kept, URLs as their host alone, and every kept
value goes through the catalog's credential scrubber."""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator
from dataclasses import replace

from scanner.catalog import Catalog
from scanner.kinds.sessions import SessionCorroboration, SessionEntry
from scanner.model import Context, Location
from scanner.sessions.shape import host_of

MAX_LINES = 200_000
MAX_LINE = 64 << 10
MAX_PER_SESSION = 20
_EVENT = re.compile(rb"(?i)\b(fallback|fell back|failover|failed over|rerouted|re-routed|upstream)\b")
_SESSION = re.compile(
    rb'"?\b(?:session_id|sessionId|session|subagent_id|subagentId|conversation_id|conv_id|thread_id)"?\s*[=:]\s*'
    rb'"?([A-Za-z0-9][\w.:-]{3,199})'
)
_FIELD = re.compile(
    rb'"?\b(upstream|upstream_url|url|endpoint|host|route|provider|backend|model|from_model|to_model|'
    rb'fallback_model|requested_model|target|reason)"?\s*[=:]\s*"?([^"\s,}]{1,300})'
)
_URLISH = {b"upstream", b"upstream_url", b"url", b"endpoint", b"host", b"target", b"backend"}


def mentions_sessions(data: bytes) -> bool:
    head = data[: 4 << 20]
    return b"session" in head and bool(_EVENT.search(head))


def log_notes(
    data: bytes, shown: str, via: str | None, context: Context, catalog: Catalog
) -> Iterator[SessionCorroboration]:
    for number, raw in enumerate(data[: MAX_LINES * 512].split(b"\n")[:MAX_LINES], 1):
        if len(raw) > MAX_LINE or not (event := _EVENT.search(raw)):
            continue
        sid = _SESSION.search(raw)
        if sid is None:
            continue
        word = event.group(1).lower()
        kind = "upstream" if word == b"upstream" else "fallback"
        facts = []
        for key, value in _FIELD.findall(raw):
            if key in _URLISH:
                host = host_of(value.decode("utf-8", "replace"))
                if host:
                    facts.append(f"{key.decode()}={host}")
            else:
                facts.append(f"{key.decode()}={value.decode('utf-8', 'replace')[:80]}")
        detail = catalog.scrub("; ".join(dict.fromkeys(facts))[:300])
        session = catalog.scrub(sid.group(1).decode("utf-8", "replace"))
        yield SessionCorroboration(session, kind, detail, Location(shown, number, context, False, via))


def attach(sessions: Iterable[SessionEntry], notes: Iterable[SessionCorroboration]) -> tuple[SessionEntry, ...]:
    """Each session with the log lines that name its id (at most MAX_PER_SESSION, in path and line order)."""
    by_id: dict[str, list[SessionCorroboration]] = {}
    for note in sorted(notes, key=lambda n: (n.location.path, n.location.line or 0, n.kind, n.detail)):
        found = by_id.setdefault(note.session_id, [])
        if len(found) < MAX_PER_SESSION:
            found.append(note)
    return tuple(
        replace(s, corroborated_by=tuple(by_id[s.session_id])) if s.session_id in by_id else s for s in sessions
    )

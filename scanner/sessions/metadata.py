"""Metadata beside a session's records (a task's `task_metadata.json` or `ui_messages.json`, a `meta.json`, a
`session.json`): a file no record of which carries a served-by fact. It feeds the label, title and times of the
session it belongs to and is never a session of its own, unless no session is beside it (then it is all there is).

It belongs to the session of the same id, else to the session in the same folder whose file name it shares a stem
with (`agent-x.meta.json` beside `agent-x.jsonl`), else, when it names no session of its own (a bare `meta.json`),
to the one session of that folder. A file that names a session of its own (a rollout whose records happen to carry
no id) stays that session. A label it adds that the session's providers contradict is a mismatch like any other.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable
from dataclasses import replace

from scanner.catalog import Catalog
from scanner.model import SessionEntry
from scanner.sessions.attribution import MAX_LABELS, labels_only, mismatched_labels
from scanner.sessions.pick import LABEL_RULE

_LABEL_RULES = frozenset({LABEL_RULE.id, "stated-route"})


def _folder(s: SessionEntry) -> str:
    return s.location.path.rsplit("/", 1)[0]


def _stem(s: SessionEntry) -> str:
    return s.location.path.rsplit("/", 1)[-1].split(".", 1)[0]


def fold(sessions: list[SessionEntry], metas: Iterable[SessionEntry], catalog: Catalog) -> list[SessionEntry]:
    """The sessions with each metadata entry folded into the one it belongs to; a metadata entry that belongs to
    none is a session itself. Order is kept (the caller sorts)."""
    by_id: dict[str, list[int]] = defaultdict(list)
    by_folder: dict[str, list[int]] = defaultdict(list)
    for i, s in enumerate(sessions):
        by_id[s.session_id].append(i)
        by_folder[_folder(s)].append(i)
    out = list(sessions)
    alone: list[SessionEntry] = []
    for meta in metas:
        home = _home(meta, sessions, by_id, by_folder)
        if home is None:
            alone.append(meta)
        else:
            out[home] = _merged(out[home], meta, catalog)
    return out + alone


def _home(
    meta: SessionEntry, sessions: list[SessionEntry], by_id: dict[str, list[int]], by_folder: dict[str, list[int]]
) -> int | None:
    same = by_id.get(meta.session_id, [])
    if len(same) == 1:
        return same[0]
    beside = by_folder.get(_folder(meta), [])
    stem = _stem(meta)
    named = [i for i in beside if _stem(sessions[i]) == stem]
    if len(named) == 1:
        return named[0]
    anonymous = meta.session_id.rsplit("/", 1)[-1] == stem  # named after its file: no session id of its own
    return beside[0] if anonymous and len(beside) == 1 else None


def _merged(s: SessionEntry, meta: SessionEntry, catalog: Catalog) -> SessionEntry:
    labels = tuple(dict.fromkeys((*s.labels, *meta.labels)))[:MAX_LABELS]
    added = tuple(label for label in labels if label not in s.labels)
    mismatched = s.mismatched_labels
    if added:
        mismatched = tuple(dict.fromkeys((*mismatched, *mismatched_labels(added, s.providers, catalog))))
    starts = [t for t in (s.started_at, meta.started_at) if t]
    ends = [t for t in (s.ended_at, meta.ended_at) if t]
    providers = s.providers
    declares = not s.declared and bool(meta.declared)
    if (added or declares) and all(e.rule in _LABEL_RULES for p in providers for e in p.evidence):
        # No record named who served it: the labels were all there was, and the metadata adds some.
        first, last = min(starts) if starts else None, max(ends) if ends else None
        providers = (labels_only(labels, s.declared or meta.declared, s.records, first, last, catalog),)
    return replace(
        s,
        providers=providers,
        labels=labels,
        mismatched_labels=mismatched,
        title=s.title or meta.title,
        started_at=min(starts) if starts else None,
        ended_at=max(ends) if ends else None,
        declared=s.declared or meta.declared,
        notes=tuple(dict.fromkeys((*s.notes, f"metadata from {meta.location.path}"))),
    )

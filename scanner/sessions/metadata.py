"""Metadata beside a session's records (a task's `task_metadata.json` or `ui_messages.json`, a `meta.json`, a
`session.json`): a file no record of which carries a served-by fact. It feeds the label, title and times of the
session it belongs to and is never a session of its own, unless no session is beside it (then it is all there is).

It belongs to the session of the same id, else to the session in the same folder whose file name it shares a stem
with (`agent-x.meta.json` beside `agent-x.jsonl`), else, when it names no session of its own (a bare `meta.json`),
to the one session of that folder. A file that names a session of its own (a rollout whose records happen to carry
no id) stays that session. A label it adds that the session's providers contradict is a mismatch like any other.

A store that keeps one event per file (OpenHands: `sessions/<id>/events/0.json`, `1.json`, …) is one session: the
files of one folder named only by a number are joined in their numbers' order, the records of each following the
last file's; the session is named by the folder (by its parent when the folder is named for what it holds,
`events`), so the metadata of the conversation (`sessions/<id>/metadata.json`) finds it by that id.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable
from dataclasses import replace

from scanner.catalog import Catalog
from scanner.kinds.sessions import FernetTimes, RuleEvidence, SessionEntry, SessionProvider
from scanner.sessions.attribution import MAX_LABELS, MAX_MENTIONED, labels_only, mismatched_labels
from scanner.sessions.pick import LABEL_RULE
from scanner.sessions.provider_tally import MAX_RANGES
from scanner.sessions.reasoning import ENCRYPTED, MIXED, VISIBLE, session_reasoning
from scanner.vocab import Confidence

_LABEL_RULES = frozenset({LABEL_RULE.id, "stated-route"})


def _folder(s: SessionEntry) -> str:
    return s.location.path.rsplit("/", 1)[0]


def _stem(s: SessionEntry) -> str:
    return s.location.path.rsplit("/", 1)[-1].split(".", 1)[0]


def fold(sessions: list[SessionEntry], metas: Iterable[SessionEntry], catalog: Catalog) -> list[SessionEntry]:
    """The sessions with each metadata entry folded into the one it belongs to; a metadata entry that belongs to
    none is a session itself. Order is kept (the caller sorts)."""
    sessions, metas = join_numbered(sessions, list(metas), catalog)
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


# --- one event per file ---------------------------------------------------------------------------------------------


def _number(s: SessionEntry) -> int | None:
    stem = _stem(s)
    return int(stem) if stem.isdigit() and len(stem) <= 9 else None


def join_numbered(
    sessions: list[SessionEntry], metas: list[SessionEntry], catalog: Catalog
) -> tuple[list[SessionEntry], list[SessionEntry]]:
    """Sessions and metadata with the files of each folder named only by a number joined into one session."""
    groups: dict[str, list[tuple[int, bool, SessionEntry]]] = defaultdict(list)
    for is_session, entries in ((True, sessions), (False, metas)):
        for s in entries:
            n = _number(s)
            if n is not None:
                groups[_folder(s)].append((n, is_session, s))
    joined = {folder: sorted(parts, key=lambda p: p[0]) for folder, parts in groups.items() if len(parts) > 1}
    if not joined:
        return sessions, metas
    out_sessions = [s for s in sessions if _number(s) is None or _folder(s) not in joined]
    out_metas = [s for s in metas if _number(s) is None or _folder(s) not in joined]
    for folder, parts in joined.items():
        entry = _joined(folder, [s for _, _, s in parts], catalog)
        (out_sessions if any(is_session for _, is_session, _ in parts) else out_metas).append(entry)
    return out_sessions, out_metas


def _joined_id(folder: str) -> str:
    names = folder.rstrip("/").rsplit("/", 2)
    last = names[-1]
    return names[-2] if last.isalpha() and last.islower() and len(names) > 1 and names[-2] else last


def _states(reasoning: str) -> set[str]:
    return {VISIBLE, ENCRYPTED} if reasoning == MIXED else {reasoning} & {VISIBLE, ENCRYPTED}


def _shifted(runs: tuple[tuple[int, int], ...], offset: int) -> list[tuple[int, int]]:
    return [(a + offset, b + offset) for a, b in runs]


def _coalesced(runs: list[tuple[int, int]]) -> tuple[tuple[int, int], ...]:
    out: list[list[int]] = []
    for first, last in sorted(runs):
        if out and (first <= out[-1][1] + 1 or len(out) >= MAX_RANGES):
            out[-1][1] = max(out[-1][1], last)
        else:
            out.append([first, last])
    return tuple((a, b) for a, b in out)


def _joined(folder: str, parts: list[SessionEntry], catalog: Catalog) -> SessionEntry:
    """One session of the parts in order: each part's records follow the last part's."""
    first = parts[0]
    # By position, not `part in served`: that is a deep equality test per part, for thousands of event files.
    named = [any(e.rule not in _LABEL_RULES for pr in p.providers for e in pr.evidence) for p in parts]
    served = [p for p, n in zip(parts, named, strict=True) if n]
    keyed: dict[tuple[str, str | None, str | None], list[tuple[SessionProvider, int]]] = defaultdict(list)
    runs: list[tuple[int, int, tuple[str, str | None, str | None]]] = []
    offset = 0
    for part, names_server in zip(parts, named, strict=True):
        if names_server or not served:  # a part no record of which names who served adds only its labels
            for pr in part.providers:
                key = (pr.vendor, pr.served_via, pr.api)
                keyed[key].append((pr, offset))
                runs += [(a, b, key) for a, b in _shifted(pr.record_ranges, offset)]
        offset += part.records
    ranges = _merged_runs(runs)
    labels = tuple(dict.fromkeys(label for p in parts for label in p.labels))[:MAX_LABELS]
    starts = [p.started_at for p in parts if p.started_at]
    ends = [p.ended_at for p in parts if p.ended_at]
    declared = next((p.declared for p in parts if p.declared), None)
    providers = tuple(
        sorted(
            (_provider(key, found, ranges[key]) for key, found in keyed.items()),
            key=lambda p: (p.first_record or 0, -p.records, p.vendor, p.served_via or ""),
        )
    )
    if not served:
        providers = (
            labels_only(labels, declared, offset, min(starts, default=None), max(ends, default=None), catalog),
        )
    # A label served under in no part where some record was served under another is served under in none.
    unserved = tuple(label for label in labels
                     if all(label in p.unserved_labels for p in parts if label in p.labels))
    mismatched = (*(m for p in parts for m in p.mismatched_labels),
                  *mismatched_labels(labels, providers, catalog, set(unserved)))
    return replace(
        first,
        session_id=_joined_id(folder),
        format=next((p.format for p in served), first.format),
        started_at=min(starts, default=None),
        ended_at=max(ends, default=None),
        records=offset,
        labels=labels,
        reasoning=session_reasoning({state for p in parts for state in _states(p.reasoning)}),
        providers=providers,
        fernet=_fernet_of(parts),
        declared=declared,
        parent_session_id=next((p.parent_session_id for p in parts if p.parent_session_id), None),
        mismatched_labels=tuple(dict.fromkeys(mismatched)),
        unserved_labels=unserved,
        notes=tuple(dict.fromkeys((*(n for p in parts for n in p.notes), f"{len(parts)} numbered files of {folder}"))),
        corroborated_by=tuple(dict.fromkeys(c for p in parts for c in p.corroborated_by)),
        served_models=tuple(dict.fromkeys(m for p in parts for m in p.served_models))[:MAX_LABELS],
        title=next((p.title for p in parts if p.title), None),
        mentioned=tuple(sorted({m for p in parts for m in p.mentioned}))[:MAX_MENTIONED],
    )


def _merged_runs(
    runs: list[tuple[int, int, tuple[str, str | None, str | None]]],
) -> dict[tuple[str, str | None, str | None], list[list[int]]]:
    """Each provider's record ranges: a run spans records no provider claimed (a user's event) but never another
    provider's."""
    ranges: dict[tuple[str, str | None, str | None], list[list[int]]] = defaultdict(list)
    last_key = None
    for a, b, key in sorted(runs):
        mine = ranges[key]
        if mine and (last_key == key or len(mine) >= MAX_RANGES):
            mine[-1][1] = max(mine[-1][1], b)
        else:
            mine.append([a, b])
        last_key = key
    return ranges


def _fernet_of(parts: list[SessionEntry]) -> FernetTimes | None:
    """The Fernet token times of the parts, summed: the largest skew of any."""
    tokens = [p.fernet for p in parts if p.fernet]
    if not tokens:
        return None
    skews = [f.max_skew_seconds for f in tokens if f.max_skew_seconds is not None]
    return FernetTimes(
        sum(f.tokens for f in tokens),
        sum(f.consistent for f in tokens),
        sum(f.inconsistent for f in tokens),
        max(skews) if skews else None,
    )


def _provider(
    key: tuple[str, str | None, str | None], found: list[tuple[SessionProvider, int]], ranges: list[list[int]]
) -> SessionProvider:
    vendor, via, api = key
    evidence: dict[str, RuleEvidence] = {}
    for pr, _ in found:
        for e in pr.evidence:
            had = evidence.get(e.rule)
            if had is None:
                evidence[e.rule] = e
            else:
                sure = max(had.confidence, e.confidence, key=lambda c: c.rank)
                evidence[e.rule] = replace(had, count=had.count + e.count, confidence=sure)
    seen = [t for pr, _ in found for t in (pr.first_seen, pr.last_seen) if t]
    visible = _coalesced([r for pr, off in found for r in _shifted(pr.visible_records, off)])
    encrypted = _coalesced([r for pr, off in found for r in _shifted(pr.encrypted_records, off)])
    states = {state for pr, _ in found for state in _states(pr.reasoning)}
    return SessionProvider(
        vendor,
        via,
        api,
        records=sum(pr.records for pr, _ in found),
        confidence=Confidence.of_rank(max(pr.confidence.rank for pr, _ in found)),
        first_seen=min(seen, default=None),
        last_seen=max(seen, default=None),
        evidence=tuple(sorted(evidence.values(), key=lambda e: e.rule)),
        candidates=tuple(dict.fromkeys(c for pr, _ in found for c in pr.candidates)),
        record_ranges=tuple((a, b) for a, b in ranges),
        reasoning=session_reasoning(states),
        visible_records=visible,
        encrypted_records=encrypted,
    )

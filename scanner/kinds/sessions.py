"""Sessions: an agent's session logs, with who served each part of it as the records' fingerprints say, and
the log lines elsewhere (a daemon's, a router's) that corroborate them."""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, TypeVar

if TYPE_CHECKING:
    from scanner.kinds.agents import AgentEntry

from scanner.kinds.base import (
    Cell,
    DiffIdentity,
    DiffItem,
    FoldContext,
    JsonShape,
    Kind,
    ReportTable,
    first_of,
    table_of,
    text,
)
from scanner.model import Location
from scanner.vocab import Confidence

MAX_SESSIONS = 20_000
T = TypeVar("T")

@dataclass(frozen=True)
class RuleEvidence:
    """One fingerprint rule that fired in a session: how often, and one shortened value it matched."""

    rule: str
    count: int
    example: str
    confidence: Confidence


@dataclass(frozen=True)
class SessionProvider:
    """Who served (part of) a session, as its records' fingerprints say."""

    vendor: str  # a catalog vendor id, `self-hosted` or `unknown`
    served_via: str | None
    api: str | None
    records: int
    confidence: Confidence
    first_seen: str | None
    last_seen: str | None
    evidence: tuple[RuleEvidence, ...]
    # Vendors still possible when the evidence cannot tell them apart (a look-alike id, a bare label).
    candidates: tuple[str, ...] = ()
    # Which of the session's records (1-based, in order) this provider served: inclusive (first, last) runs;
    # a run spans records no provider claimed (a user turn) but never another provider's.
    record_ranges: tuple[tuple[int, int], ...] = ()
    reasoning: str = "absent"  # of this provider's records: visible | encrypted | absent | mixed
    visible_records: tuple[tuple[int, int], ...] = ()  # runs of its records that show readable reasoning
    encrypted_records: tuple[tuple[int, int], ...] = ()  # runs of its records whose reasoning is encrypted only

    @property
    def first_record(self) -> int | None:
        return self.record_ranges[0][0] if self.record_ranges else None

    @property
    def last_record(self) -> int | None:
        return self.record_ranges[-1][1] if self.record_ranges else None


@dataclass(frozen=True)
class FernetTimes:
    """Fernet tokens of a session whose embedded time was compared with their record's time."""

    tokens: int
    consistent: int
    inconsistent: int
    max_skew_seconds: int | None


@dataclass(frozen=True)
class SessionCorroboration:
    """A daemon's or router's log line that names a session and what befell it: a fallback, its upstream."""

    session_id: str
    kind: str  # fallback | upstream
    detail: str  # known `key=value` facts of the line only (hosts, never whole URLs; model, route, reason)
    location: Location


@dataclass(frozen=True)
class SessionEntry:
    session_id: str
    format: str
    location: Location
    started_at: str | None
    ended_at: str | None
    records: int
    labels: tuple[str, ...]
    reasoning: str  # visible | encrypted | absent | mixed
    providers: tuple[SessionProvider, ...]
    fernet: FernetTimes | None = None
    declared: str | None = None  # the provider / route the agent itself wrote
    parent_session_id: str | None = None
    mismatched_labels: tuple[str, ...] = ()  # labels whose catalog identity the fingerprints contradict
    notes: tuple[str, ...] = ()
    corroborated_by: tuple[SessionCorroboration, ...] = ()  # log lines elsewhere that name this session
    served_models: tuple[str, ...] = ()  # labels a response or assistant message names as what served it
    title: str | None = None  # the session's title, as metadata beside its records gives it
    # Catalogued model ids its conversation only mentions (a prompt, a tool's output): never wiring
    mentioned: tuple[str, ...] = ()
    # Labels no served record ran under, where some record was served under another (Aider's weak model, a
    # subagent's whose records carry no served-by fact): no provider of the session is theirs
    unserved_labels: tuple[str, ...] = ()
    product: str | None = None  # the agent product whose folder holds it (agents.toml id)


@dataclass(frozen=True)
class SessionEvidence:
    session: SessionEntry


@dataclass(frozen=True)
class SessionMetaEvidence:
    """Metadata beside a session's records (a task's metadata file, a `meta.json`): no record of it carries a
    served-by fact. It feeds the label, title and times of the session it sits beside, never a session of its
    own, unless no session is beside it."""

    meta: SessionEntry


@dataclass(frozen=True)
class SessionLogEvidence:
    """A log line about a session, tied to the session of the same id when the inventory is built."""

    note: SessionCorroboration


class SessionFold:
    """Sessions as their adapters finished them, the metadata beside them, and the log notes about them."""

    def __init__(self, ctx: FoldContext) -> None:
        self.ctx = ctx
        self.sessions: list[SessionEntry] = []
        self.metas: list[SessionEntry] = []
        self.notes: list[SessionCorroboration] = []
        self._folded: list[SessionEntry] | None = None
        # (label, route): an unserved label the route of the product whose folder holds its session carries
        self.product_routes: tuple[tuple[str, str], ...] = ()

    def add(self, ev: SessionEvidence | SessionMetaEvidence | SessionLogEvidence) -> None:
        if isinstance(ev, SessionEvidence):
            self._keep(self.sessions, ev.session, "session(s)")
        elif isinstance(ev, SessionMetaEvidence):
            self._keep(self.metas, ev.meta, "session metadata file(s)")
        else:
            self._keep(self.notes, ev.note, "session log note(s)")

    def _keep(self, kept: list[T], item: T, what: str) -> None:
        if len(kept) < MAX_SESSIONS:
            kept.append(item)
        else:
            self.ctx.count_cut(f"{what} past {MAX_SESSIONS}")

    def folded(self) -> list[SessionEntry]:
        """The sessions with the metadata beside them folded in (computed once): what the joins read."""
        if self._folded is None:
            # sessions/ builds on this module's types: imported when first needed.
            from scanner.sessions.metadata import fold

            self._folded = fold(self.sessions, self.metas, self.ctx.catalog)
        return self._folded

    def complete(self, agents: Sequence[AgentEntry]) -> None:
        """What the records left open, filled from the agent product whose folder holds each session."""
        from scanner.sessions.products import complete

        self._folded, self.product_routes = complete(self.folded(), tuple(agents), self.ctx.catalog)

    def build(self) -> tuple[SessionEntry, ...]:
        from scanner.sessions.corroborate import attach

        return attach(sorted(self.folded(), key=_order), self.notes)


def _order(s: SessionEntry) -> tuple[str, str, str, str]:
    return (s.started_at or "", s.location.path, s.session_id, s.format)


def _corroborations_of(s: SessionEntry) -> SessionEntry:
    """A log line's session id is its session's: written once, restored on reading."""
    if not s.corroborated_by:
        return s
    notes = tuple(SessionCorroboration(s.session_id, c.kind, c.detail, c.location) for c in s.corroborated_by)
    return dataclasses.replace(s, corroborated_by=notes)


def _table(sessions: Sequence[SessionEntry], show_all: bool) -> ReportTable:
    rows = []
    for s in sessions:
        providers = "; ".join(
            f"{p.vendor}{'/' + p.served_via if p.served_via else ''}{' ' + p.api if p.api else ''} ×{p.records}"
            for p in s.providers)
        fernet = f"{s.fernet.consistent}/{s.fernet.tokens} ok" if s.fernet else ""
        labels = first_of(s.labels, 3)
        rows.append((s.session_id, s.format, text(s.started_at), str(s.records), labels,
                     providers or "unknown", s.reasoning, fernet, s.location.path))
    return table_of(KIND, tuple(rows))


def _vendors(s: SessionEntry) -> Iterable[DiffItem]:
    return (DiffItem(p.vendor, p.vendor, {}, (s.location.path,)) for p in s.providers if p.vendor)


KIND: Kind[SessionEntry] = Kind(
    key="sessions",
    entry=SessionEntry,
    evidence=(SessionEvidence, SessionMetaEvidence, SessionLogEvidence),
    fold=SessionFold,
    order=_order,
    title="Sessions",
    columns=("session", "format", "started", "records", "labels", "providers", "reasoning", "fernet", "path"),
    cells={"session": Cell.CODE, "path": Cell.CODE},
    # Sessions come and go with every run: diff compares the vendors observed serving them.
    identity=DiffIdentity(items=_vendors, section="session_vendors"),
    walked=True,
    shapes={
        SessionProvider: JsonShape(
            order=("vendor", "served_via", "api", "records", "confidence", "first_seen", "last_seen",
                   "first_record", "last_record", "record_ranges", "candidates", "reasoning", "visible_records",
                   "encrypted_records", "evidence"),
            computed={"first_record": lambda p: p.first_record, "last_record": lambda p: p.last_record},
            omit_empty=frozenset({"visible_records", "encrypted_records"}),
        ),
        SessionCorroboration: JsonShape(hidden={"session_id": ""}),
        SessionEntry: JsonShape(
            order=("session_id", "format", "product", "path", "location", "title", "started_at", "ended_at",
                   "records", "labels", "served_models", "reasoning", "providers", "fernet", "declared",
                   "parent_session_id", "mismatched_labels", "unserved_labels", "mentioned", "notes",
                   "corroborated_by"),
            computed={"path": lambda s: s.location.path},
            omit_empty=frozenset({"title", "served_models", "mentioned", "unserved_labels", "product"}),
            finish=_corroborations_of,
        ),
    },
    table=_table,
    report_rank=70,
)

"""What an auditor must read about sessions: who really served them, and what the logs contradict.

Ids carry the session id (stable across scans of the same logs), never a path or a line.
"""

from __future__ import annotations

from collections.abc import Iterator

from scanner.findings.rule import FindingRule, RuleHit
from scanner.kinds import Inventory
from scanner.kinds.sessions import SessionEntry, SessionProvider
from scanner.model import Context, Severity
from scanner.vocab import PSEUDO_VENDORS


def _external(s: SessionEntry) -> list[SessionProvider]:
    if s.location.context is Context.TEST:
        return []  # a session log in a test or fixture tree says nothing of this machine's traffic
    return [p for p in s.providers if p.vendor not in PSEUDO_VENDORS]


def _who(p: SessionProvider) -> str:
    via = f" via {p.served_via}" if p.served_via else ""
    api = f" ({p.api} API)" if p.api else ""
    maybe = f" (or {', '.join(p.candidates)})" if p.candidates else ""
    return f"{p.vendor}{via}{api}{maybe}"


def ranges(p: SessionProvider) -> str:
    """`records 1-6, 9`: which of the session's records a provider served."""
    runs = ", ".join(f"{a}-{b}" if a != b else str(a) for a, b in p.record_ranges)
    return f"records {runs}" if runs else ""


def _named(s: SessionEntry) -> str:
    label = f" ({', '.join(s.labels[:3])})" if s.labels else ""
    return f"session {s.session_id}{label}"


def session_served_externally(inv: Inventory) -> Iterator[RuleHit]:
    for s in inv.sessions:
        ext = _external(s)
        if ext:
            who = "; ".join(f"{_who(p)} in {p.records} record(s) ({ranges(p)})" for p in ext)
            yield RuleHit(
                s.session_id,
                f"{_named(s)} was served by {who}",
                (s.location,),
            )


def session_label_mismatch(inv: Inventory) -> Iterator[RuleHit]:
    for s in inv.sessions:
        if s.mismatched_labels and _external(s):
            who = ", ".join(_who(p) for p in _external(s))
            yield RuleHit(
                s.session_id,
                f"session {s.session_id} is labelled {', '.join(s.mismatched_labels)} but its records carry "
                f"{who} fingerprints (reasoning {s.reasoning})",
                (s.location,),
            )


def session_reasoning_encrypted(inv: Inventory) -> Iterator[RuleHit]:
    for s in inv.sessions:
        if s.reasoning in ("encrypted", "mixed") and _external(s):
            what = (
                "reasoning is encrypted at the source; the operator cannot read it"
                if s.reasoning == "encrypted"
                else "reasoning is partly encrypted at the source; the operator reads only a part (a summary, "
                "some records)"
            )
            yield RuleHit(s.session_id, f"{_named(s)}: {what}", (s.location,))


def session_fernet_time_mismatch(inv: Inventory) -> Iterator[RuleHit]:
    for s in inv.sessions:
        if s.fernet and s.fernet.inconsistent and s.location.context is not Context.TEST:
            yield RuleHit(
                s.session_id,
                f"{_named(s)}: {s.fernet.inconsistent} of {s.fernet.tokens} encrypted reasoning token(s) were made "
                f"up to {s.fernet.max_skew_seconds}s away from their record (replayed or imported?)",
                (s.location,),
            )


SESSION_RULES = (
    FindingRule(
        "session-external-provider", Severity.MEDIUM, "A session was served by an outside provider",
        "The records of this session carry the fingerprints of an outside vendor's API, whatever its label says. "
        "The data of that session went to that vendor.",
        session_served_externally,
    ),
    FindingRule(
        "session-label-mismatch", Severity.HIGH, "A session's label and its fingerprints disagree",
        "The session names a model or route, but its records carry another provider's id formats and markers. The "
        "label does not say who served it.",
        session_label_mismatch,
    ),
    FindingRule(
        "session-reasoning-encrypted", Severity.LOW, "A session's reasoning is encrypted at the source",
        "The provider returned its reasoning only as an encrypted blob: the operator of the agent cannot read what "
        "the model reasoned about their data.",
        session_reasoning_encrypted,
    ),
    FindingRule(
        "session-fernet-time-mismatch", Severity.MEDIUM, "Encrypted reasoning was made at another time than its record",
        "The creation time inside a Fernet token does not match the time of the record that holds it: the record "
        "was replayed, copied from another session, or its clock is wrong.",
        session_fernet_time_mismatch,
    ),
)

"""What an auditor must read about sessions: who really served them, and what the logs contradict.

Ids carry the session id (stable across scans of the same logs), never a path or a line.
"""

from __future__ import annotations

from collections.abc import Iterator

from scanner.model import Context, Finding, Inventory, SessionEntry, SessionProvider, Severity

_PSEUDO = ("self-hosted", "unknown")


def _external(s: SessionEntry) -> list[SessionProvider]:
    if s.location.context is Context.TEST:
        return []  # a session log in a test or fixture tree says nothing of this machine's traffic
    return [p for p in s.providers if p.vendor not in _PSEUDO]


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


def session_served_externally(inv: Inventory) -> Iterator[Finding]:
    for s in inv.sessions:
        ext = _external(s)
        if ext:
            who = "; ".join(f"{_who(p)} in {p.records} record(s) ({ranges(p)})" for p in ext)
            yield Finding(
                f"session-external-provider:{s.session_id}",
                Severity.MEDIUM,
                f"{_named(s)} was served by {who}",
                (s.location,),
            )


def session_label_mismatch(inv: Inventory) -> Iterator[Finding]:
    for s in inv.sessions:
        if s.mismatched_labels and _external(s):
            who = ", ".join(_who(p) for p in _external(s))
            yield Finding(
                f"session-label-mismatch:{s.session_id}",
                Severity.HIGH,
                f"session {s.session_id} is labelled {', '.join(s.mismatched_labels)} but its records carry "
                f"{who} fingerprints (reasoning {s.reasoning})",
                (s.location,),
            )


def session_reasoning_encrypted(inv: Inventory) -> Iterator[Finding]:
    for s in inv.sessions:
        if s.reasoning in ("encrypted", "mixed") and _external(s):
            yield Finding(
                f"session-reasoning-encrypted:{s.session_id}",
                Severity.LOW,
                f"{_named(s)}: reasoning is {s.reasoning} at the source; the operator cannot read it",
                (s.location,),
            )


def session_fernet_time_mismatch(inv: Inventory) -> Iterator[Finding]:
    for s in inv.sessions:
        if s.fernet and s.fernet.inconsistent and s.location.context is not Context.TEST:
            yield Finding(
                f"session-fernet-time-mismatch:{s.session_id}",
                Severity.MEDIUM,
                f"{_named(s)}: {s.fernet.inconsistent} of {s.fernet.tokens} encrypted reasoning token(s) were made "
                f"up to {s.fernet.max_skew_seconds}s away from their record (replayed or imported?)",
                (s.location,),
            )


SESSION_RULES = (
    session_served_externally,
    session_label_mismatch,
    session_reasoning_encrypted,
    session_fernet_time_mismatch,
)

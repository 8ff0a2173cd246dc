"""`fleet report`: the questions an audit team asks across a fleet, answered from the store's tables."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass, field, replace
from datetime import date
from typing import Any

from scanner.fleet.store import FleetStore
from scanner.model import Severity
from scanner.policy.ignore import IgnoreEntry, Subject, first_match
from scanner.vocab import PSEUDO_VENDORS

# Session vendors that are not an external provider (the agent's own model, or no fingerprint at all).
_NOT_EXTERNAL = tuple(v.value for v in PSEUDO_VENDORS)


@dataclass(frozen=True)
class VendorRoute:
    vendor: str
    route: str
    targets: int
    models: tuple[str, ...]


@dataclass(frozen=True)
class ReleaseVendor:
    release: str
    vendor: str
    targets: int


@dataclass(frozen=True)
class ExternalSessions:
    target: str
    vendors: tuple[str, ...]
    sessions: int
    label_mismatch: bool


@dataclass(frozen=True)
class DisarmedSwitch:
    target: str
    name: str
    value: str | None


@dataclass(frozen=True)
class SharedCredential:
    sha256: str
    type: str | None
    vendor: str | None
    redacted: str | None
    targets: tuple[str, ...]


@dataclass(frozen=True)
class FleetFinding:
    """One finding id across the fleet: how many targets have it, and a few of them."""

    id: str
    severity: str
    targets: int
    title: str  # its title in the first target that has it
    examples: tuple[str, ...]


@dataclass(frozen=True)
class FleetReport:
    targets: int
    failed: tuple[tuple[str, str], ...]  # (target, error)
    wiring: tuple[VendorRoute, ...]
    by_release: tuple[ReleaseVendor, ...]
    external_sessions: tuple[ExternalSessions, ...]
    disarmed_switches: tuple[DisarmedSwitch, ...]
    shared_credentials: tuple[SharedCredential, ...]
    findings: tuple[FleetFinding, ...] = ()
    ignored: Mapping[str, str] = field(default_factory=dict)  # finding id -> why an ignore entry accepts it
    hidden_findings: int = 0  # findings --severity leaves out

    def to_json(self) -> dict[str, Any]:
        doc = asdict(self)
        doc["ignored"] = dict(self.ignored)
        return {"schema": "modelcensus/fleet-report@1", **doc}


def filter_findings(report: FleetReport, shown: frozenset[Severity] | None,
                    entries: Sequence[IgnoreEntry]) -> FleetReport:
    """The report with the findings `--severity` shows, and the reasons of those an ignore entry accepts."""
    today = date.today()
    kept = tuple(f for f in report.findings if shown is None or Severity(f.severity) in shown)
    ignored = {}
    for f in kept:
        entry = first_match(entries, Subject(f.id), today)
        if entry is not None:
            ignored[f.id] = entry.reason
    return replace(report, findings=kept, ignored=ignored, hidden_findings=len(report.findings) - len(kept))


def build_report(store: FleetStore) -> FleetReport:
    q = store.query
    _, (row,) = q("SELECT count(*) FROM targets WHERE status = 'scanned'")
    _, failed = q("SELECT name, error FROM targets WHERE status = 'failed' ORDER BY name")
    _, wiring = q("""
        SELECT coalesce(vendor, '?'), coalesce(served_via, 'unstated route'), count(DISTINCT target),
               list(DISTINCT name ORDER BY name)
        FROM models WHERE wired GROUP BY ALL ORDER BY 3 DESC, 1, 2""")
    _, releases = q("""
        SELECT l.value, coalesce(m.vendor, '?'), count(DISTINCT m.target)
        FROM models m JOIN labels l ON l.target = m.target AND l.key = 'release'
        WHERE m.wired GROUP BY ALL ORDER BY 1, 2""")
    marks = ", ".join("?" * len(_NOT_EXTERNAL))
    _, external = q(
        f"""
        SELECT target, list(DISTINCT vendor ORDER BY vendor) FILTER (WHERE vendor NOT IN ({marks})),
               count(DISTINCT session_id) FILTER (WHERE vendor NOT IN ({marks})), bool_or(label_mismatch)
        FROM sessions GROUP BY target
        HAVING count(*) FILTER (WHERE vendor NOT IN ({marks})) > 0 OR bool_or(label_mismatch)
        ORDER BY target""",
        [*_NOT_EXTERNAL] * 3,
    )
    _, switches = q("SELECT target, name, value FROM kill_switches WHERE state = 'off' ORDER BY ALL")
    _, shared = q("""
        SELECT sha256, any_value(type), any_value(vendor), any_value(redacted), list(DISTINCT target ORDER BY target)
        FROM credentials GROUP BY sha256 HAVING count(DISTINCT target) > 1 ORDER BY count(DISTINCT target) DESC, 1""")
    _, findings = q("""
        SELECT id, severity, count(DISTINCT target), min(title), list(DISTINCT target ORDER BY target)[1:5]
        FROM findings GROUP BY id, severity ORDER BY 3 DESC, 1""")
    rank = {s.value: s.rank for s in Severity}
    found = sorted((FleetFinding(i, sev, int(n), t or "", tuple(ex)) for i, sev, n, t, ex in findings),
                   key=lambda f: (-rank.get(f.severity, 0), -f.targets, f.id))
    return FleetReport(
        targets=int(row[0]),
        failed=tuple((str(n), str(e)) for n, e in failed),
        wiring=tuple(VendorRoute(v, r, int(n), tuple(ms)) for v, r, n, ms in wiring),
        by_release=tuple(ReleaseVendor(r, v, int(n)) for r, v, n in releases),
        external_sessions=tuple(ExternalSessions(t, tuple(vs or ()), int(n), bool(mm)) for t, vs, n, mm in external),
        disarmed_switches=tuple(DisarmedSwitch(t, n, v) for t, n, v in switches),
        shared_credentials=tuple(SharedCredential(h, t, v, r, tuple(ts)) for h, t, v, r, ts in shared),
        findings=tuple(found),
    )

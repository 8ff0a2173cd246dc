"""The sessions and routes as terminal tables: shared by the `table` format and `modelcensus sessions`."""

from __future__ import annotations

from collections import defaultdict

from scanner.kinds import Inventory
from scanner.kinds.base import first_of
from scanner.kinds.sessions import SessionEntry, SessionProvider
from scanner.textsafe import escape_control
from scanner.vocab import PSEUDO_VENDORS

Table = tuple[str, list[str], list[list[str]]]  # title, headers, rows of cells safe to print


def _table(title: str, headers: list[str], rows: list[list[object]]) -> Table:
    return title, headers, [[escape_control("" if c is None else str(c)) for c in row] for row in rows]


def _main(s: SessionEntry) -> SessionProvider | None:
    ranked = sorted(s.providers, key=lambda p: (p.vendor in PSEUDO_VENDORS, -p.records, p.vendor))
    return ranked[0] if ranked else None


def _who(p: SessionProvider | None) -> tuple[str, str, str]:
    if p is None:
        return "unknown", "", ""
    return p.vendor, p.served_via or "", p.api or ""


def by_vendor(inv: Inventory) -> Table:
    groups: dict[tuple[str, str, str, str], list[SessionEntry]] = defaultdict(list)
    for s in inv.sessions:
        groups[(*_who(_main(s)), (s.started_at or "")[:10] or "?")].append(s)
    rows: list[list[object]] = []
    for (vendor, via, api, day), runs in sorted(groups.items(), key=lambda kv: (kv[0][0] in PSEUDO_VENDORS, kv[0])):
        labels = sorted({label for s in runs for label in s.labels})
        reasoning = ",".join(sorted({s.reasoning for s in runs}))
        rows.append([vendor, via, api, day, len(runs), sum(s.records for s in runs), reasoning, first_of(labels, 4)])
    headers = ["observed vendor", "via", "api", "day", "sessions", "records", "reasoning", "labels"]
    return _table("Sessions by observed vendor", headers, rows)


def sessions(inv: Inventory) -> Table:
    rows: list[list[object]] = []
    for s in inv.sessions:
        providers = "; ".join(
            f"{p.vendor}{'/' + p.served_via if p.served_via else ''}{' ' + p.api if p.api else ''} ×{p.records}"
            f"{' #' + ','.join(f'{a}-{b}' for a, b in p.record_ranges) if len(s.providers) > 1 else ''}"
            f"{' or ' + '/'.join(p.candidates) if p.candidates else ''}"
            for p in s.providers
        )
        fernet = f"{s.fernet.consistent}/{s.fernet.tokens} ok" if s.fernet else ""
        rows.append(
            [
                s.session_id,
                s.format,
                s.started_at or "",
                s.records,
                first_of(s.labels, 3),
                providers or "unknown",
                s.reasoning,
                fernet,
                s.location.path,
            ]
        )
    headers = ["session", "format", "started", "records", "labels", "providers", "reasoning", "fernet", "path"]
    return _table("Sessions", headers, rows)


def routes(inv: Inventory) -> Table:
    rows: list[list[object]] = [
        [
            r.alias,
            r.declared_via or "",
            r.base_model or "",
            "/".join(x for x in (r.observed_vendor, r.observed_via) if x) or "",
            r.observed_api or "",
            r.sessions,
            first_of(r.days, 3),
            r.confidence or "",
        ]
        for r in inv.routes
    ]
    headers = ["alias", "declared via", "base model", "observed", "api", "sessions", "days", "confidence"]
    return _table("Routes", headers, rows)


def tables(inv: Inventory) -> list[Table]:
    return [by_vendor(inv), sessions(inv), routes(inv)]

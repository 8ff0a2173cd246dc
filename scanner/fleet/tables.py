"""The tables a fleet store derives from each inventory: one declaration per table, rows from the JSON document.

Every table has the target's name as its first column, so any question across the fleet is one SQL join or
GROUP BY away. The inventory itself is stored whole beside them; these tables are a derived index of it.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

Row = tuple[Any, ...]
Doc = dict[str, Any]


@dataclass(frozen=True)
class Table:
    name: str
    columns: tuple[tuple[str, str], ...]  # (column, DuckDB type), after `target`
    rows: Callable[[Doc], Iterator[Row]]

    @property
    def ddl(self) -> str:
        cols = ", ".join(f"{c} {t}" for c, t in (("target", "VARCHAR"), *self.columns))
        return f"CREATE TABLE IF NOT EXISTS {self.name} ({cols})"


def _models(doc: Doc) -> Iterator[Row]:
    for m in doc.get("models", []):
        yield (
            m["name"],
            m.get("canonical"),
            m.get("vendor"),
            m.get("family"),
            m.get("served_via"),
            m.get("base_model"),
            m.get("catalog"),
            m.get("lifecycle"),
            bool(m.get("wired")),
        )


def _agents(doc: Doc) -> Iterator[Row]:
    for a in doc.get("agents", []) or []:
        configured = sorted({model for c in a.get("configs", []) for model in c.get("models", [])})
        yield (a.get("name"), a.get("version"), a.get("install_path"), len(a.get("ships", []) or []), configured)


def _sdks(doc: Doc) -> Iterator[Row]:
    for s in doc.get("sdks", []):
        yield (
            s["ecosystem"],
            s["name"],
            s.get("version"),
            s.get("vendor"),
            bool(s.get("installed")),
            s.get("environment"),
        )


def _endpoints(doc: Doc) -> Iterator[Row]:
    for e in doc.get("endpoints", []):
        yield (e["host"], e.get("vendor"), e.get("served_via"), bool(e.get("wired")))


def _credentials(doc: Doc) -> Iterator[Row]:
    for c in doc.get("credentials", []):
        yield (c["sha256"], c.get("type"), c.get("vendor"), c.get("redacted"), len(c.get("locations", [])))


def _kill_switches(doc: Doc) -> Iterator[Row]:
    for k in doc.get("kill_switches", []):
        paths = sorted({loc["path"] for loc in k.get("locations", [])})
        yield (k["name"], k.get("value"), k.get("state"), paths)


def _sessions(doc: Doc) -> Iterator[Row]:
    # One row per (session, provider): a session served by two providers is two rows.
    for s in doc.get("sessions", []):
        providers = s.get("providers") or [{}]
        for p in providers:
            yield (
                s["session_id"],
                s.get("format"),
                s.get("started_at"),
                s.get("records"),
                s.get("reasoning"),
                list(s.get("labels", [])),
                p.get("vendor"),
                p.get("served_via"),
                p.get("api"),
                bool(s.get("mismatched_labels")),
            )


def _findings(doc: Doc) -> Iterator[Row]:
    for f in doc.get("findings", []):
        yield (f["id"], f["id"].split(":", 1)[0], f.get("severity"), f.get("title"))


TABLES: tuple[Table, ...] = (
    Table(
        "models",
        (
            ("name", "VARCHAR"),
            ("canonical", "VARCHAR"),
            ("vendor", "VARCHAR"),
            ("family", "VARCHAR"),
            ("served_via", "VARCHAR"),
            ("base_model", "VARCHAR"),
            ("catalog", "VARCHAR"),
            ("lifecycle", "VARCHAR"),
            ("wired", "BOOLEAN"),
        ),
        _models,
    ),
    Table(
        "agents",
        (
            ("name", "VARCHAR"),
            ("version", "VARCHAR"),
            ("install_path", "VARCHAR"),
            ("ships", "INTEGER"),
            ("configured_models", "VARCHAR[]"),
        ),
        _agents,
    ),
    Table(
        "sdks",
        (
            ("ecosystem", "VARCHAR"),
            ("name", "VARCHAR"),
            ("version", "VARCHAR"),
            ("vendor", "VARCHAR"),
            ("installed", "BOOLEAN"),
            ("environment", "VARCHAR"),
        ),
        _sdks,
    ),
    Table(
        "endpoints",
        (("host", "VARCHAR"), ("vendor", "VARCHAR"), ("served_via", "VARCHAR"), ("wired", "BOOLEAN")),
        _endpoints,
    ),
    Table(
        "credentials",
        (
            ("sha256", "VARCHAR"),
            ("type", "VARCHAR"),
            ("vendor", "VARCHAR"),
            ("redacted", "VARCHAR"),
            ("locations", "INTEGER"),
        ),
        _credentials,
    ),
    Table(
        "kill_switches",
        (("name", "VARCHAR"), ("value", "VARCHAR"), ("state", "VARCHAR"), ("paths", "VARCHAR[]")),
        _kill_switches,
    ),
    Table(
        "sessions",
        (
            ("session_id", "VARCHAR"),
            ("format", "VARCHAR"),
            ("started_at", "VARCHAR"),
            ("records", "INTEGER"),
            ("reasoning", "VARCHAR"),
            ("labels", "VARCHAR[]"),
            ("vendor", "VARCHAR"),
            ("served_via", "VARCHAR"),
            ("api", "VARCHAR"),
            ("label_mismatch", "BOOLEAN"),
        ),
        _sessions,
    ),
    Table(
        "findings", (("id", "VARCHAR"), ("rule", "VARCHAR"), ("severity", "VARCHAR"), ("title", "VARCHAR")), _findings
    ),
)

"""The fleet store: an embedded DuckDB file holding each target's inventory whole and the tables derived from it."""

from __future__ import annotations

import json
import os
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

from scanner.fleet import FLEET_EXTRA_HINT, FleetError, one_line, shown
from scanner.fleet.manifest import FleetTarget
from scanner.fleet.tables import TABLES

_TARGETS_DDL = """
CREATE TABLE IF NOT EXISTS targets (
    name VARCHAR PRIMARY KEY,
    path VARCHAR,
    labels JSON,
    status VARCHAR,          -- scanned | failed
    error VARCHAR,
    scanned_at TIMESTAMP,
    seconds DOUBLE,
    fingerprint VARCHAR,
    catalogs VARCHAR,        -- name@version of every catalog the scan used
    inventory JSON
)"""
_LABELS_DDL = "CREATE TABLE IF NOT EXISTS labels (target VARCHAR, key VARCHAR, value VARCHAR)"
DERIVED = ("labels", *(t.name for t in TABLES))


@dataclass(frozen=True)
class StoredTarget:
    name: str
    status: str
    fingerprint: str | None
    catalogs: str | None


# Every connection: no extension is installed or loaded behind a query's back, nothing spills to a temp directory
# on the host, and Python objects of the caller are never scanned as tables.
Settings = dict[str, str | bool | int | float | list[str]]
_CLOSED: Settings = {
    "autoinstall_known_extensions": False,
    "autoload_known_extensions": False,
    "allow_community_extensions": False,
    "allow_persistent_secrets": False,
    "python_enable_replacements": False,
    "temp_directory": "",
}
# A reading connection runs SQL a user typed (`fleet query`): the store is opened read-only, every file system,
# network and extension access is off (COPY … TO, read_csv('/etc/passwd'), glob(), ATTACH, INSTALL, LOAD,
# EXPORT DATABASE), and the configuration is locked so that no SET or RESET turns any of it back on.
_SEALED: Settings = {**_CLOSED, "enable_external_access": False, "lock_configuration": True}


class FleetStore:
    def __init__(self, path: Path, read_only: bool = False, export_to: Path | None = None) -> None:
        """Open the store: for writing (a fleet scan), sealed for reading, or sealed but for writing into
        `export_to` (a Parquet export; the store itself stays read-only)."""
        try:
            import duckdb
        except ImportError:
            raise FleetError(FLEET_EXTRA_HINT) from None
        read_only = read_only or export_to is not None
        if read_only and not path.is_file():
            raise FleetError(f"{path}: no such fleet store (run `modelcensus fleet scan` first)")
        try:
            if export_to is None:
                self.db = duckdb.connect(str(path), read_only=read_only, config=_SEALED if read_only else _CLOSED)
            else:
                self.db = duckdb.connect(str(path), read_only=True, config=_CLOSED)
                self.db.execute("SET allowed_directories = ?", [[str(export_to.resolve()) + os.sep]])
                self.db.execute("SET enable_external_access = false")
                self.db.execute("SET lock_configuration = true")
        except duckdb.Error as exc:
            raise FleetError(f"{path}: cannot open the fleet store: {one_line(str(exc))}") from None
        self._error = duckdb.Error
        if not read_only:
            self.db.execute(_TARGETS_DDL)
            self.db.execute(_LABELS_DDL)
            for table in TABLES:
                self.db.execute(table.ddl)

    def close(self) -> None:
        self.db.close()

    def __enter__(self) -> FleetStore:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # --- writing ----------------------------------------------------------------------------------

    def stored(self) -> dict[str, StoredTarget]:
        rows = self.db.execute("SELECT name, status, fingerprint, catalogs FROM targets").fetchall()
        return {r[0]: StoredTarget(*r) for r in rows}

    def put_scanned(
        self, target: FleetTarget, inventory_json: str, fingerprint: str, catalogs: str, seconds: float
    ) -> None:
        doc = json.loads(inventory_json)
        self.db.execute("BEGIN TRANSACTION")
        try:
            self._forget(target.name)
            self.db.execute(
                "INSERT INTO targets VALUES (?, ?, ?, 'scanned', NULL, ?, ?, ?, ?, ?)",
                [
                    target.name,
                    shown(target.path),
                    json.dumps(dict(target.labels)),
                    _now(),
                    seconds,
                    fingerprint,
                    catalogs,
                    inventory_json,
                ],
            )
            self._insert_derived(target, doc)
            self.db.execute("COMMIT")
        except BaseException:
            self.db.execute("ROLLBACK")
            raise

    def put_failed(self, target: FleetTarget, error: str) -> None:
        """A target that still failed after its retries: recorded with its error, its old tables dropped."""
        self.db.execute("BEGIN TRANSACTION")
        self._forget(target.name)
        self.db.execute(
            "INSERT INTO targets VALUES (?, ?, ?, 'failed', ?, ?, NULL, NULL, NULL, NULL)",
            [target.name, shown(target.path), json.dumps(dict(target.labels)), shown(error), _now()],
        )
        self._labels(target)
        self.db.execute("COMMIT")

    def relabel(self, target: FleetTarget) -> None:
        """An unchanged target keeps its inventory; its labels follow the manifest."""
        self.db.execute(
            "UPDATE targets SET labels = ?, path = ? WHERE name = ?",
            [json.dumps(dict(target.labels)), shown(target.path), target.name],
        )
        self.db.execute("DELETE FROM labels WHERE target = ?", [target.name])
        self._labels(target)

    def _labels(self, target: FleetTarget) -> None:
        if target.labels:
            self.db.executemany("INSERT INTO labels VALUES (?, ?, ?)", [(target.name, k, v) for k, v in target.labels])

    def _forget(self, name: str) -> None:
        self.db.execute("DELETE FROM targets WHERE name = ?", [name])
        for table in DERIVED:
            self.db.execute(f"DELETE FROM {table} WHERE target = ?", [name])

    def _insert_derived(self, target: FleetTarget, doc: dict[str, Any]) -> None:
        self._labels(target)
        for table in TABLES:
            rows = [(target.name, *row) for row in table.rows(doc)]
            if rows:
                marks = ", ".join("?" * (len(table.columns) + 1))
                self.db.executemany(f"INSERT INTO {table.name} VALUES ({marks})", rows)

    # --- reading ----------------------------------------------------------------------------------

    def query(self, sql: str, params: Sequence[Any] = ()) -> tuple[list[str], list[tuple[Any, ...]]]:
        try:
            cur = self.db.execute(sql, list(params))
            columns = [d[0] for d in cur.description or []]
            return columns, cur.fetchall()
        except self._error as exc:
            raise FleetError(f"query failed: {one_line(str(exc))}") from None

    def inventories(self, names: Sequence[str] | None = None) -> dict[str, str]:
        sql = "SELECT name, inventory FROM targets WHERE status = 'scanned'"
        rows = self.db.execute(sql).fetchall()
        wanted = set(names) if names is not None else None
        return {n: inv for n, inv in rows if wanted is None or n in wanted}

    def export_parquet(self, directory: Path) -> list[Path]:
        """Every table as Parquet into `directory` (made by the caller before the store is opened with
        `export_to=directory`: the only place the connection may write)."""
        written = []
        for table in ("targets", *DERIVED):
            dest = directory / f"{table}.parquet"
            # The whole inventory stays in the store: the warehouse gets the tables, and `targets` without it.
            select = "SELECT * EXCLUDE (inventory) FROM targets" if table == "targets" else f"SELECT * FROM {table}"
            quoted = str(dest).replace("'", "''")
            self.db.execute(f"COPY ({select} ORDER BY ALL) TO '{quoted}' (FORMAT PARQUET)")
            written.append(dest)
        return written


def _now() -> datetime:
    return datetime.now(timezone.utc).replace(microsecond=0, tzinfo=None)

"""The fleet's read side on stores built in-process (no cluster): a sealed `fleet query`, a diff that compares
unpaired targets as populations, a report that invents no route, and the scan's honest exits."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from scanner.catalog import Catalog
from scanner.fleet import FleetError
from scanner.fleet.manifest import FleetTarget
from scanner.render._svg import vendor_colours
from tests.conftest import ScanFn, write

pytest.importorskip("duckdb")
pytest.importorskip("distributed")

from scanner.fleet.engine import FleetRun, plan_run  # noqa: E402
from scanner.fleet.fleetdiff import fleet_diff  # noqa: E402
from scanner.fleet.manifest import read_manifest  # noqa: E402
from scanner.fleet.report import build_report  # noqa: E402
from scanner.fleet.store import FleetStore  # noqa: E402

FLEET = [sys.executable, "-m", "scanner", "fleet"]


def _cli(*args: str, cwd: Path | None = None, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run([*FLEET, *args], capture_output=True, text=True, cwd=cwd, timeout=300,
                          env={**os.environ, **(env or {})})


def _store(tmp: Path, scan_dir: ScanFn, targets: list[tuple[str, str, dict[str, str]]]) -> Path:
    """A store of targets (name, model it wires, labels), each scanned in-process as `fleet scan` would."""
    path = tmp / "fleet.duckdb"
    with FleetStore(path) as db:
        for name, model, labels in targets:
            root = tmp / "vms" / name
            write(root, "/etc/agent/agent.env", f"OPENAI_MODEL={model}\n")
            _, doc = scan_dir(root)
            target = FleetTarget(name, str(root), tuple(sorted(labels.items())))
            db.put_scanned(target, json.dumps(doc), "fp", "builtin", 0.1)
    return path


@pytest.fixture
def unpaired(tmp_path: Path, scan_dir: ScanFn) -> Path:
    """Six targets of release A and two of release B, with no other label to pair them by."""
    rows = [(f"a{i}", "gpt-5.5", {"release": "A"}) for i in range(6)]
    rows += [(f"b{i}", "gpt-6.1-sol" if i < 2 else "gpt-5.5", {"release": "B"}) for i in range(2)]
    return _store(tmp_path, scan_dir, rows)


# --- fleet query is sealed ------------------------------------------------------------------------------

ATTACKS = {
    "copy-to": "COPY (SELECT 1 AS x) TO '{out}/copied.csv'",
    "read-host": "SELECT * FROM read_csv_auto('/etc/passwd')",
    "read-text": "SELECT * FROM read_text('/etc/hostname')",
    "glob": "SELECT * FROM glob('/etc/*')",
    "replacement-scan": "SELECT * FROM '/etc/passwd'",
    "attach": "ATTACH '{out}/other.duckdb' AS other",
    "install": "INSTALL httpfs",
    "load": "LOAD httpfs",
    "set-access": "SET enable_external_access = true",
    "reset-lock": "RESET lock_configuration",
    "set-temp": "SET temp_directory = '{out}/spill'",
    "export": "EXPORT DATABASE '{out}/exported'",
    "write-table": "CREATE TABLE pwned AS SELECT 1",
    "drop": "DROP TABLE models",
}


@pytest.mark.parametrize("name", sorted(ATTACKS))
def test_fleet_query_cannot_write_or_read_the_host(unpaired: Path, tmp_path: Path, name: str) -> None:
    out = tmp_path / "out"
    out.mkdir()
    before = unpaired.read_bytes()
    done = _cli("query", ATTACKS[name].format(out=out), "--store", str(unpaired))
    assert done.returncode == 2, (done.stdout, done.stderr)
    assert done.stderr.startswith("modelcensus: error: query failed") and "Traceback" not in done.stderr
    assert "root:" not in done.stdout + done.stderr  # nothing of /etc/passwd came back
    assert list(out.iterdir()) == []
    assert unpaired.read_bytes() == before
    with FleetStore(unpaired, read_only=True) as db:  # and the store still answers
        assert db.query("SELECT count(*) FROM models")[1][0][0] == 8


def test_fleet_query_still_answers_and_export_writes_only_its_directory(unpaired: Path, tmp_path: Path) -> None:
    done = _cli("query", "SELECT count(DISTINCT target) AS n FROM models", "--store", str(unpaired), "-f", "json")
    assert done.returncode == 0 and json.loads(done.stdout) == [{"n": 8}]
    out = tmp_path / "parquet"
    done = _cli("export", "--parquet", str(out), "--store", str(unpaired))
    assert done.returncode == 0, done.stderr
    assert {p.name for p in out.iterdir()} >= {"targets.parquet", "models.parquet"}
    assert not (tmp_path / "fleet.duckdb.tmp").exists()


def test_a_missing_store_is_an_error_and_is_not_created(tmp_path: Path) -> None:
    store = tmp_path / "nope.duckdb"
    for sub in (["query", "SELECT 1"], ["report"], ["diff", "--label", "r=A", "--label", "r=B"]):
        done = _cli(*sub, "--store", str(store))
        assert done.returncode == 2 and "no such fleet store" in done.stderr
    assert not store.exists()


# --- fleet diff -------------------------------------------------------------------------------------------


def test_unpaired_targets_are_compared_as_populations(unpaired: Path) -> None:
    with FleetStore(unpaired, read_only=True) as db:
        result = fleet_diff(db, ("release", "A"), ("release", "B"))
    assert (result.pairs, result.unpaired_old, result.unpaired_new) == (0, 6, 2)
    titles = {c.fact_id: c.title for c in result.populations}
    assert titles["models:gpt-6.1-sol"] == "models gpt-6.1-sol: in 0 of 6 release=A, 2 of 2 release=B"
    assert titles["models:gpt-5.5"] == "models gpt-5.5: in 6 of 6 release=A, 0 of 2 release=B"
    table = _cli("diff", "--label", "release=A", "--label", "release=B", "--store", str(unpaired))
    assert table.returncode == 0
    assert "gpt-6.1-sol: in 0 of 6 release=A, 2 of 2 release=B" in table.stdout
    assert "no changes" not in table.stdout.lower()


@pytest.mark.parametrize("label", ["release=C", "relase=B"])
def test_a_label_no_target_has_is_an_error(unpaired: Path, label: str) -> None:
    with FleetStore(unpaired, read_only=True) as db, pytest.raises(FleetError, match="no scanned target has it"):
        fleet_diff(db, ("release", "A"), tuple(label.split("=")))  # type: ignore[arg-type]
    done = _cli("diff", "--label", "release=A", "--label", label, "--store", str(unpaired))
    assert done.returncode == 2 and "no scanned target has it" in done.stderr
    assert done.stderr.count("modelcensus: error:") == 1


# --- fleet report -----------------------------------------------------------------------------------------


def test_report_never_invents_a_direct_route(tmp_path: Path, scan_dir: ScanFn) -> None:
    store = _store(tmp_path, scan_dir, [("t1", "muse-9", {}), ("t2", "claude-sonnet-4-5", {})])
    with FleetStore(store, read_only=True) as db:
        report = build_report(db)
    routes = {(w.vendor, w.route) for w in report.wiring}
    assert ("anthropic", "direct") not in routes
    assert all(w.route != "direct" for w in report.wiring)
    assert {f.id.split(":", 1)[0] for f in report.findings} >= {"external-model-wired"}


def test_report_fail_on_names_the_most_severe_finding(tmp_path: Path, scan_dir: ScanFn) -> None:
    store = _store(tmp_path, scan_dir, [("t1", "claude-sonnet-4-5", {})])
    with FleetStore(store) as db:
        root = tmp_path / "vms" / "t2"
        write(root, "/etc/agent/agent.env", "OPENAI_MODEL=gpt-5.5\nAGENT_KILL_SWITCH=0\n")
        write(root, "/etc/agent/agent.toml", "[safety]\nkill_switch = true\n")
        _, doc = scan_dir(root)
        db.put_scanned(FleetTarget("t2", str(root)), json.dumps(doc), "fp", "builtin", 0.1)
    done = _cli("report", "--store", str(store), "--fail-on", "low")
    assert done.returncode == 1
    worst = max((f for f in doc["findings"]), key=lambda f: ["info", "low", "medium", "high"].index(f["severity"]))
    assert f"{worst['severity']} {worst['id']}" in done.stderr


# --- fleet scan -------------------------------------------------------------------------------------------


def test_fleet_scan_exits_1_when_a_target_failed(tmp_path: Path) -> None:
    write(tmp_path / "ok", "/etc/agent/agent.env", "OPENAI_MODEL=gpt-5.5\n")
    manifest = tmp_path / "fleet.txt"
    manifest.write_text("ok\nmissing-one\n")
    store = tmp_path / "fleet.duckdb"
    done = _cli("scan", str(manifest), "--store", str(store), "--workers", "1", "--retries", "0", "-q")
    assert done.returncode == 1, done.stderr
    assert "2 targets: 1 scanned, 0 unchanged, 1 failed" in done.stdout
    with FleetStore(store, read_only=True) as db:
        (error,) = [e for (e,) in db.query("SELECT error FROM targets WHERE status = 'failed'")[1]]
    assert not error.startswith("modelcensus:") and "no such file" in error.lower()
    again = _cli("scan", str(manifest), "--store", str(store), "--workers", "1", "--retries", "0", "-q",
                 "--no-fail-on-error")
    assert again.returncode == 0


def test_nothing_to_scan_starts_no_cluster(tmp_path: Path, catalog: Catalog) -> None:
    write(tmp_path / "ok", "/etc/agent/agent.env", "OPENAI_MODEL=gpt-5.5\n")
    manifest = tmp_path / "fleet.txt"
    manifest.write_text("ok\n")
    store = tmp_path / "fleet.duckdb"
    assert _cli("scan", str(manifest), "--store", str(store), "--workers", "1", "-q").returncode == 0
    targets = read_manifest(manifest)
    key = ",".join(f"{r.name}@{r.version}" for r in catalog.refs)  # the catalogs the CLI scanned with
    with FleetStore(store, read_only=True) as db:
        plan = plan_run(targets, db.stored(), key, FleetRun())
        assert plan.submit == () and plan.unchanged == tuple(targets)  # settled here: no client, no cluster
        assert len(plan_run(targets, db.stored(), key, FleetRun(rescan=True)).submit) == 1
    write(tmp_path / "ok", "/etc/agent/agent.env", "OPENAI_MODEL=gpt-5.6-sol\n")
    with FleetStore(store, read_only=True) as db:
        assert len(plan_run(targets, db.stored(), key, FleetRun()).submit) == 1
    again = _cli("scan", str(manifest), "--store", str(store), "-q")
    assert again.returncode == 0 and "1 scanned" in again.stdout


@pytest.mark.parametrize(("address", "message"), [
    ("notanaddress", "not a dask scheduler address"),
    ("tcp://127.0.0.1:1", "cannot reach the dask scheduler"),
])
def test_a_bad_or_unreachable_scheduler_is_one_line_and_leaves_no_store(tmp_path: Path, address: str,
                                                                         message: str) -> None:
    write(tmp_path / "ok", "/etc/agent/agent.env", "OPENAI_MODEL=gpt-5.5\n")
    manifest = tmp_path / "fleet.txt"
    manifest.write_text("ok\n")
    store = tmp_path / "fleet.duckdb"
    done = _cli("scan", str(manifest), "--store", str(store), "--scheduler", address, "-q")
    assert done.returncode == 2 and message in done.stderr, done.stderr
    assert len(done.stderr.strip().splitlines()) == 1 and "internal error" not in done.stderr
    assert not store.exists()


def test_fleet_never_writes_into_a_target(tmp_path: Path, scan_dir: ScanFn) -> None:
    write(tmp_path / "ok", "/etc/agent/agent.env", "OPENAI_MODEL=gpt-5.5\n")
    manifest = tmp_path / "fleet.txt"
    manifest.write_text("ok\n")
    done = _cli("scan", str(manifest), "--store", str(tmp_path / "ok" / "fleet.duckdb"), "-q")
    assert done.returncode == 2 and "is inside the scanned target" in done.stderr
    assert not (tmp_path / "ok" / "fleet.duckdb").exists()
    store = _store(tmp_path, scan_dir, [("t1", "gpt-5.5", {})])
    target = tmp_path / "vms" / "t1"
    done = _cli("report", "--store", str(store), "-o", str(target / "report.txt"))
    assert done.returncode == 2 and "is inside the scanned target" in done.stderr
    assert not (target / "report.txt").exists()


def test_fleet_html_chart_has_an_axis_values_and_the_single_target_colours(tmp_path: Path, scan_dir: ScanFn) -> None:
    rows = [("a1", "gpt-5.5", {"release": "A"}), ("a2", "claude-opus-4-8", {"release": "A"}),
            ("b1", "gpt-5.5", {"release": "B"})]
    page = _cli("report", "--store", str(_store(tmp_path, scan_dir, rows)), "-f", "html").stdout
    chart = page.split("<svg", 1)[1].split("</svg>", 1)[0]
    assert re.findall(r'class="tick">(\d+)</text>', chart) == ["0", "1"]  # the axis: target counts
    assert re.findall(r'class="value">(\d+)</text>', chart) == ["1", "1", "0", "1"]  # a value on every bar
    fills = dict(re.findall(r'fill="(#[0-9A-Fa-f]{6})"><title>A · (\w+):', chart))
    single = subprocess.run([sys.executable, "-m", "scanner", "scan", str(tmp_path / "vms" / "a2"), "-q", "-f",
                             "html"], capture_output=True, text=True, timeout=300).stdout
    assert fills and set(fills) == {vendor_colours(["anthropic", "openai"])[v] for v in ("anthropic", "openai")}
    assert vendor_colours(["anthropic"])["anthropic"] == vendor_colours(["anthropic", "openai"])["anthropic"]
    assert "<html" in single
    assert "th{white-space:nowrap" in page  # headers never break mid-word


def _doc(result: subprocess.CompletedProcess[str]) -> Any:
    return json.loads(result.stdout)

"""Fleet mode on a real LocalCluster: manifests, the store's tables against single-target scans, resume, timeouts."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from scanner.fleet import FleetError
from scanner.fleet.fingerprint import target_fingerprint
from scanner.fleet.manifest import from_glob, read_manifest
from scanner.fleet.tables import TABLES
from tests.conftest import ScanFn, write

pytest.importorskip("duckdb")
pytest.importorskip("distributed")

from scanner.fleet.engine import FleetRun, run_fleet  # noqa: E402
from scanner.fleet.fleetdiff import fleet_diff  # noqa: E402
from scanner.fleet.report import build_report  # noqa: E402
from scanner.fleet.store import FleetStore  # noqa: E402
from scanner.fleet.task import ScanLimits  # noqa: E402

ANTHROPIC_KEY = "sk-ant-api03-" + "Q" * 80 + "AA"  # a fake of the real format, shared by two targets


# --- manifests -------------------------------------------------------------------------------------


def test_csv_manifest_takes_every_other_column_as_a_label(tmp_path: Path) -> None:
    m = tmp_path / "fleet.csv"
    m.write_text("name,path,release,customer\nacme-a,vms/acme,2026.10,acme\n,vms/beta,2026.11,beta\n")
    targets = read_manifest(m)
    assert [t.name for t in targets] == ["acme-a", "beta"]
    assert targets[0].labels == (("customer", "acme"), ("release", "2026.10"))
    assert targets[1].path == str((tmp_path / "vms/beta").absolute())


def test_toml_and_plain_manifests(tmp_path: Path) -> None:
    t = tmp_path / "fleet.toml"
    t.write_text('[[targets]]\nname = "a"\npath = "/x/a"\nlabels = {release = "1"}\ntimeout = 5\n'
                 '[[targets]]\npath = "/x/b"\n')
    targets = read_manifest(t)
    assert [(x.name, x.path, x.labels, x.timeout) for x in targets] == [
        ("a", "/x/a", (("release", "1"),), 5.0), ("b", "/x/b", (), None)]
    p = tmp_path / "fleet.txt"
    p.write_text("# one per line\n/x/a\n\n/y/b\n")
    assert [x.name for x in read_manifest(p)] == ["a", "b"]


@pytest.mark.parametrize(
    ("name", "text", "message"),
    [
        ("dup.txt", "/x/a\n/y/a\n", "appears twice"),
        ("bad.toml", "[[targets]]\nname = 'a'\n", "has no `path`"),
        ("extra.toml", "[[targets]]\npath = '/a'\ncolour = 'red'\n", "unknown key"),
        ("nopath.csv", "name,where\na,/x\n", "needs a header row with `path`"),
        ("empty.txt", "# nothing\n", "no targets"),
    ],
)
def test_bad_manifests_are_one_line_errors(tmp_path: Path, name: str, text: str, message: str) -> None:
    m = tmp_path / name
    m.write_text(text)
    with pytest.raises(FleetError, match=message):
        read_manifest(m)


def test_glob_targets_and_an_empty_glob(tmp_path: Path) -> None:
    for n in ("b", "a"):
        (tmp_path / "vms" / n).mkdir(parents=True)
    assert [t.name for t in from_glob(str(tmp_path / "vms" / "*"))] == ["a", "b"]
    with pytest.raises(FleetError, match="matches nothing"):
        from_glob(str(tmp_path / "none-*"))


def test_fingerprint_follows_content_changes_not_reads(tmp_path: Path) -> None:
    write(tmp_path, "/etc/agent.env", "ANTHROPIC_MODEL=claude-sonnet-4-5\n")
    os.symlink("/etc/agent.env", tmp_path / "link")
    first = target_fingerprint(str(tmp_path))
    (tmp_path / "etc/agent.env").read_bytes()
    assert target_fingerprint(str(tmp_path)) == first
    write(tmp_path, "/etc/agent.env", "ANTHROPIC_MODEL=claude-opus-4-1\n")
    assert target_fingerprint(str(tmp_path)) != first


# --- a real fleet on a LocalCluster ------------------------------------------------------------------


def _vm(root: Path, model: str, release: str, key: str | None = None, switch: str = "1") -> Path:
    write(root, "/etc/agent/agent.env", f"ANTHROPIC_MODEL={model}\nAGENT_KILL_SWITCH={switch}\n"
          + (f"ANTHROPIC_API_KEY={key}\n" if key else ""))
    write(root, "/etc/agent/release", release + "\n")
    return root


def _fleet(tmp_path: Path) -> Path:
    rows = ["name,path,release,customer"]
    for i in range(4):
        for release, model in (("A", "claude-sonnet-4-5"), ("B", "claude-opus-4-1")):
            name = f"c{i}-{release}"
            key = ANTHROPIC_KEY if i < 2 and release == "B" else None
            _vm(tmp_path / "vms" / name, model if i < 3 else "claude-sonnet-4-5", release, key,
                switch="0" if (i == 0 and release == "B") else "1")
            rows.append(f"{name},vms/{name},{release},c{i}")
    manifest = tmp_path / "fleet.csv"
    manifest.write_text("\n".join(rows) + "\n")
    return manifest


@pytest.fixture(scope="module")
def fleet_run(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    tmp = tmp_path_factory.mktemp("fleet")
    manifest = _fleet(tmp)
    store_path = tmp / "fleet.duckdb"
    limits = ScanLimits(timeout=300, memory=2 << 30)
    targets = read_manifest(manifest)
    with FleetStore(store_path) as store:
        first = run_fleet(targets, store, limits, "builtin", FleetRun(workers=2))
        second = run_fleet(targets, store, limits, "builtin", FleetRun(workers=2))
        _vm(tmp / "vms" / "c3-B", "claude-haiku-4-5", "B")
        third = run_fleet(targets, store, limits, "builtin", FleetRun(workers=2))
        newcat = run_fleet(targets[:1], store, limits, "builtin+acme@1", FleetRun(workers=2))
    return {"tmp": tmp, "store": store_path, "runs": (first, second, third, newcat)}


def test_fleet_scans_every_target_then_resumes(fleet_run: dict[str, Any]) -> None:
    first, second, third, newcat = fleet_run["runs"]
    assert first.line() == "8 targets: 8 scanned, 0 unchanged, 0 failed"
    assert second.line() == "8 targets: 0 scanned, 8 unchanged, 0 failed"
    assert third.line() == "8 targets: 1 scanned, 7 unchanged, 0 failed"  # only the changed one
    assert newcat.line() == "1 target: 1 scanned, 0 unchanged, 0 failed"  # other catalogs: scanned again


def test_store_tables_match_single_target_scans(fleet_run: dict[str, Any], scan_dir: ScanFn) -> None:
    tmp = fleet_run["tmp"]
    with FleetStore(fleet_run["store"], read_only=True) as store:
        for name in ("c0-A", "c1-B", "c3-B"):
            _, doc = scan_dir(tmp / "vms" / name)
            stored = json.loads(store.inventories([name])[name])
            for section in ("models", "sdks", "endpoints", "credentials", "kill_switches", "findings"):
                assert stored[section] == doc[section], (name, section)
            for table in TABLES:
                _, rows = store.query(f"SELECT * EXCLUDE (target) FROM {table.name} WHERE target = ? ORDER BY ALL",
                                      [name])
                assert sorted(rows, key=repr) == sorted(table.rows(doc), key=repr), (name, table.name)
        _, labels = store.query("SELECT key, value FROM labels WHERE target = 'c2-B' ORDER BY key")
        assert labels == [("customer", "c2"), ("release", "B")]


def test_report_answers_across_the_fleet(fleet_run: dict[str, Any]) -> None:
    with FleetStore(fleet_run["store"], read_only=True) as store:
        report = build_report(store)
    assert report.targets == 8
    anthropic = [w for w in report.wiring if w.vendor == "anthropic"]
    assert [(w.route, w.targets) for w in anthropic] == [("unstated route", 8)]  # an env file states no route
    assert [(d.target, d.name) for d in report.disarmed_switches] == [("c0-B", "AGENT_KILL_SWITCH")]
    (shared,) = report.shared_credentials
    assert shared.targets == ("c0-B", "c1-B") and ANTHROPIC_KEY not in json.dumps(report.to_json())
    releases = {(r.release, r.vendor): r.targets for r in report.by_release}
    assert releases == {("A", "anthropic"): 4, ("B", "anthropic"): 4}


def test_fleet_diff_counts_changes_over_paired_targets(fleet_run: dict[str, Any]) -> None:
    with FleetStore(fleet_run["store"], read_only=True) as store:
        result = fleet_diff(store, ("release", "A"), ("release", "B"))
    assert (result.pairs, result.unpaired_old, result.unpaired_new) == (4, 0, 0)
    counts = {c.change_id: c.targets for c in result.changes}
    assert counts["models:claude-opus-4-1"] == 3  # added in 3 of 4 (c3 moved to haiku instead)
    assert counts["models:claude-haiku-4-5"] == 1
    assert counts["models:claude-sonnet-4-5"] == 4  # gone from every B


def test_hanging_target_is_timed_out_and_recorded(tmp_path: Path) -> None:
    for i in range(3):
        _vm(tmp_path / f"ok{i}", "claude-sonnet-4-5", "A")
    _vm(tmp_path / "slow", "claude-sonnet-4-5", "A")
    manifest = tmp_path / "fleet.toml"
    manifest.write_text("".join(f'[[targets]]\npath = "ok{i}"\n' for i in range(3))
                        + '[[targets]]\npath = "slow"\ntimeout = 0.05\n'
                        + '[[targets]]\npath = "missing"\n')
    with FleetStore(tmp_path / "fleet.duckdb") as store:
        summary = run_fleet(read_manifest(manifest), store, ScanLimits(300, 2 << 30), "builtin",
                            FleetRun(workers=2, retries=1))
        _, rows = store.query("SELECT name, status, error FROM targets ORDER BY name")
    assert summary.line() == "5 targets: 3 scanned, 0 unchanged, 2 failed"
    status = {n: (s, e) for n, s, e in rows}
    assert status["slow"] == ("failed", "timed out after 0.05 s")
    assert status["missing"][0] == "failed" and "no such file" in status["missing"][1].lower()
    assert all(status[f"ok{i}"] == ("scanned", None) for i in range(3))


def test_cli_scan_report_query_export(fleet_run: dict[str, Any], tmp_path: Path) -> None:
    store = str(fleet_run["store"])
    run = [sys.executable, "-m", "scanner", "fleet"]
    report = subprocess.run([*run, "report", "--store", store, "-f", "json"], capture_output=True, text=True)
    assert report.returncode == 0, report.stderr
    assert json.loads(report.stdout)["targets"] == 8
    query = subprocess.run([*run, "query", "SELECT count(DISTINCT target) AS n FROM models WHERE wired",
                            "--store", store, "-f", "json"], capture_output=True, text=True)
    assert json.loads(query.stdout) == [{"n": 8}]
    bad = subprocess.run([*run, "query", "SELEC nonsense", "--store", store], capture_output=True, text=True)
    assert bad.returncode == 2 and bad.stderr.startswith("modelcensus: error: query failed")
    assert "Traceback" not in bad.stderr
    out = tmp_path / "parquet"
    export = subprocess.run([*run, "export", "--parquet", str(out), "--store", store], capture_output=True, text=True)
    assert export.returncode == 0, export.stderr
    assert {p.name for p in out.iterdir()} >= {"targets.parquet", "models.parquet", "credentials.parquet"}
    for fmt in ("table", "markdown", "html"):
        shown = subprocess.run([*run, "report", "--store", store, "-f", fmt], capture_output=True, text=True)
        assert shown.returncode == 0 and "c0-B" in shown.stdout and ANTHROPIC_KEY not in shown.stdout


def test_without_the_extra_the_error_names_it(tmp_path: Path) -> None:
    code = ("import sys; sys.modules['duckdb'] = None; sys.modules['distributed'] = None; "
            "sys.modules['dask.distributed'] = None; from scanner.cli import main; "
            f"sys.argv = ['modelcensus', 'fleet', 'report', '--store', {str(tmp_path / 'x.duckdb')!r}]; main()")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert done.returncode == 2
    expected = "modelcensus: error: fleet mode needs the fleet extra: pip install 'modelcensus[fleet]'"
    assert done.stderr.strip() == expected


def test_a_key_in_a_manifest_never_reaches_the_store(tmp_path: Path) -> None:
    key = "sk-ant-api03-" + "Zq7" * 31 + "AA"  # a fake of the real format (93 characters, then AA)
    _vm(tmp_path / "vm", "claude-sonnet-4-5", "A")
    manifest = tmp_path / "fleet.csv"
    manifest.write_text(f"name,path,owner\nvm-{key},vm,{key}\nmissing,nowhere-{key},x\n")
    with FleetStore(tmp_path / "fleet.duckdb") as store:
        run_fleet(read_manifest(manifest), store, ScanLimits(300, 2 << 30), "builtin", FleetRun(workers=1, retries=0))
        _, targets = store.query("SELECT name, path, labels, error FROM targets")
        _, labels = store.query("SELECT target, key, value FROM labels")
    assert len(targets) == 2 and labels
    assert key not in json.dumps([targets, labels], default=str)

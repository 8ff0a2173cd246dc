"""The command line as users know it from trivy, syft and gitleaks: settings per command, one id and count per finding
in every format, --ignore, --severity, gates that name the worst, tables that fit, bounded and honest reports."""

from __future__ import annotations

import json
import os
import re
from pathlib import Path

import pytest
from typer.testing import CliRunner

from scanner.catalog import Catalog
from scanner.cli import app
from scanner.model import MAX_LOCATIONS, Skip, SkipReason
from scanner.render import render
from scanner.render._view import ReportOptions
from tests.conftest import SAMPLE_VM, ScanFn, write
from tests.large_tree import build

runner = CliRunner()
ANSI = re.compile(r"\x1b\[[0-9;]*m")


@pytest.fixture
def vm(tmp_path: Path) -> Path:
    root = tmp_path / "vm"
    write(root, "/etc/agent/agent.env", "ANTHROPIC_MODEL=claude-haiku-4-5\nOPENAI_MODEL=gpt-5.5\n"
          "AGENT_KILL_SWITCH=0\n")
    write(root, "/etc/agent/models.yaml", "models:\n  - claude-opus-4-8\n  - gpt-5.6-sol\n")
    write(root, "/var/cache/agent/old.yaml", "model: claude-opus-4-6\n")
    write(root, "/opt/app/node_modules/x/config.json", '{"model": "claude-sonnet-4-6"}')
    return root


def invoke(*args: str, env: dict[str, str] | None = None, cwd: Path | None = None) -> tuple[int, str, str]:
    old = os.getcwd()
    if cwd is not None:
        os.chdir(cwd)
    try:
        result = runner.invoke(app, list(args), env=env)
    finally:
        os.chdir(old)
    return result.exit_code, result.stdout, result.stderr


# --- settings: every command its own section and variables -------------------------------------------------


def test_a_diff_section_does_not_break_scan_and_each_command_reads_its_own(vm: Path, tmp_path: Path) -> None:
    work = tmp_path / "work"
    write(work, "/modelcensus.toml", '[scan]\nformat = "json"\n\n[diff]\nformat = "markdown"\n\n'
          '[sessions]\nformat = "json"\n\n[fleet.report]\nformat = "json"\n')
    code, out, err = invoke("scan", str(vm), "-q", cwd=work)
    assert code == 0, err
    assert json.loads(out)["schema"].startswith("modelcensus/inventory")
    code, out, err = invoke("diff", str(vm), str(vm), cwd=work)
    assert code == 0, err
    assert out.startswith("#"), out[:80]
    code, out, _ = invoke("sessions", str(vm), "-q", cwd=work)
    assert json.loads(out)["schema"] == "modelcensus/sessions@1"


def test_variables_per_command_win_over_shared_ones_and_the_file(vm: Path, tmp_path: Path) -> None:
    work = tmp_path / "work"
    write(work, "/modelcensus.toml", '[diff]\nformat = "json"\n')
    code, out, _ = invoke("diff", str(vm), str(vm), cwd=work, env={"MODELCENSUS_FORMAT": "markdown"})
    assert code == 0 and out.startswith("#")  # the variable wins over the file
    code, out, _ = invoke("diff", str(vm), str(vm), cwd=work,
                          env={"MODELCENSUS_FORMAT": "sarif", "MODELCENSUS_DIFF_FORMAT": "table"})
    assert code == 0 and out.startswith("modelcensus diff:")  # the command's own variable wins over the shared
    code, out, _ = invoke("diff", str(vm), str(vm), "-f", "json", cwd=work, env={"MODELCENSUS_DIFF_FORMAT": "table"})
    assert code == 0 and json.loads(out)  # the command line wins over both
    code, _, err = invoke("diff", str(vm), str(vm), env={"MODELCENSUS_FORMAT": "sarif"})
    assert code == 2 and "(from MODELCENSUS_FORMAT)" in err


def test_config_keys_are_the_option_names_and_paths_are_relative_to_the_file(vm: Path, tmp_path: Path) -> None:
    conf = tmp_path / "conf"
    write(conf, "/mc.toml", '[scan]\nformat = "json"\nexclude = ["/var/cache"]\nall = true\noutput = "out.json"\n')
    code, _, err = invoke("scan", str(vm), "-q", "--config", str(conf / "mc.toml"))
    assert code == 0, err
    doc = json.loads((conf / "out.json").read_text())
    assert {"/var/cache"} == {s["path"] for s in doc["skipped"] if s["reason"] == "excluded"}
    write(conf, "/bad.toml", "[fleet]\nworkers = 3\n")
    code, _, err = invoke("scan", str(vm), "--config", str(conf / "bad.toml"))
    assert code == 2 and "unknown key 'workers' in [fleet]" in err


# --- --exclude, --skip-dirs ---------------------------------------------------------------------------------


def test_exclude_and_skip_dirs_leave_parts_out_and_say_so(vm: Path) -> None:
    code, out, _ = invoke("scan", str(vm), "-q", "-f", "json", "--exclude", "/var/cache", "--skip-dirs", "node_modules")
    assert code == 0
    doc = json.loads(out)
    names = {m["name"] for m in doc["models"]}
    assert "claude-opus-4-6" not in names and "claude-sonnet-4-6" not in names and "claude-opus-4-8" in names
    excluded = {(s["path"], s["detail"]) for s in doc["skipped"] if s["reason"] == "excluded"}
    assert excluded == {("/var/cache", "--exclude /var/cache"),
                        ("/opt/app/node_modules", "--skip-dirs node_modules")}
    code, out, _ = invoke("scan", str(vm), "-q", "--exclude", "*.yaml")
    assert "not read: " in out and "(excluded)" in out  # the headline says a part was left out
    assert "claude-opus-4-8" not in out.split("Findings")[0]


# --- version -------------------------------------------------------------------------------------------------


def test_version_as_json(catalog: Catalog) -> None:
    code, out, _ = invoke("version", "-f", "json")
    doc = json.loads(out)
    assert code == 0 and doc["tool"] == "modelcensus" and doc["version"]
    assert {c["name"]: c["version"] for c in doc["catalogs"]} == {r.name: r.version for r in catalog.refs}


# --- colour ------------------------------------------------------------------------------------------------


@pytest.mark.parametrize("command", [["scan", "{vm}", "-q"], ["diff", "{old}", "{vm}"], ["sessions", "{sv}", "-q"]])
def test_force_color_and_no_color(vm: Path, tmp_path: Path, command: list[str]) -> None:
    old = tmp_path / "old"
    write(old, "/etc/agent/agent.env", "AGENT_KILL_SWITCH=1\n")
    args = [a.format(vm=vm, old=old, sv=SAMPLE_VM) for a in command]
    _, plain, _ = invoke(*args, env={"FORCE_COLOR": None, "NO_COLOR": None})  # type: ignore[dict-item]
    assert "\x1b[" not in plain  # not a terminal
    _, forced, _ = invoke(*args, env={"FORCE_COLOR": "1", "NO_COLOR": None})  # type: ignore[dict-item]
    assert "\x1b[1;31m" in forced or "\x1b[33m" in forced, forced[:400]
    _, off, _ = invoke(*args, env={"FORCE_COLOR": "1", "NO_COLOR": "1"})
    assert "\x1b[" not in off


# --- never writing into the target --------------------------------------------------------------------------


@pytest.mark.parametrize("command", [
    ["scan", "{vm}", "-o", "{vm}/report.txt"],
    ["sessions", "{vm}", "-o", "{vm}/x.json"],
    ["diff", "{vm}", "{vm}", "-o", "{vm}/etc/diff.txt"],
    ["audit", "--root", "{vm}", "--live-only", "-o", "{vm}/a.json"],
    ["scan", "{vm}", "-o", "{vm}/../vm/etc/../r.txt"],
])
def test_no_command_writes_inside_what_it_scans(vm: Path, command: list[str]) -> None:
    before = sorted(p.relative_to(vm) for p in vm.rglob("*"))
    code, _, err = invoke(*[a.format(vm=vm) for a in command])
    assert code == 2 and "is inside the scanned target" in err
    assert sorted(p.relative_to(vm) for p in vm.rglob("*")) == before


# --- one finding, one id, one count, in every format --------------------------------------------------------


def _ids(fmt: str, out: str) -> list[str]:
    if fmt == "json":
        return [f["id"] for f in json.loads(out)["findings"]]
    if fmt == "sarif":
        return [r["properties"]["findingId"] for r in json.loads(out)["runs"][0]["results"]]
    if fmt == "html":
        return re.findall(r'<code class="fid">id: ([^<]+)</code>', out)
    if fmt == "markdown":
        return [row.split(" | ")[2].replace("\\", "") for row in out.splitlines()
                if row.startswith("| **") or row.startswith("| ignored")]
    return [ln.split("id: ", 1)[1] for ln in out.splitlines() if ln.strip().startswith("id: ")]


def test_every_format_has_the_same_findings_with_the_same_ids() -> None:
    by_format = {}
    for fmt in ("json", "sarif", "table", "markdown", "html"):
        code, out, _ = invoke("scan", str(SAMPLE_VM), "-q", "-f", fmt, "--wide")
        assert code == 0
        by_format[fmt] = sorted(_ids(fmt, out))
    assert by_format["json"] and len(set(by_format["json"])) == len(by_format["json"])
    for fmt, ids in by_format.items():
        assert ids == by_format["json"], fmt
    _, table, _ = invoke("scan", str(SAMPLE_VM), "-q")
    assert f"Findings ({len(by_format['json'])})" in table


def test_one_model_can_be_accepted_alone_and_a_glob_that_matches_nothing_is_named(vm: Path) -> None:
    code, out, err = invoke("scan", str(vm), "-q", "-f", "json", "--ignore", "external-model-wired:*claude-haiku*")
    ignored = [f["id"] for f in json.loads(out)["findings"] if "ignored" in f]
    assert ignored == ["external-model-wired:anthropic:unstated route:claude-haiku-4-5"]
    code, out, err = invoke("scan", str(vm), "-q", "--ignore", "external-model-wired:openai", "-f", "json")
    assert {f["id"] for f in json.loads(out)["findings"] if "ignored" in f} == {
        f["id"] for f in json.loads(out)["findings"] if f["id"].startswith("external-model-wired:openai:")}
    _, _, err = invoke("scan", str(vm), "-q", "--ignore", "no-such-finding:*", "-o", os.devnull)
    assert "--ignore no-such-finding:* matches no finding" in err


def test_severity_filters_what_every_format_shows(vm: Path) -> None:
    _, full, _ = invoke("scan", str(vm), "-q", "-f", "json")
    highs = [f["id"] for f in json.loads(full)["findings"] if f["severity"] == "high"]
    assert highs and len(highs) < len(json.loads(full)["findings"])
    for fmt in ("json", "sarif", "table", "markdown", "html"):
        _, out, _ = invoke("scan", str(vm), "-q", "-f", fmt, "--severity", "HIGH", "--wide")
        assert sorted(_ids(fmt, out)) == sorted(highs), fmt
    _, table, _ = invoke("scan", str(vm), "-q", "--severity", "high")
    hidden = len(json.loads(full)["findings"]) - len(highs)
    assert f"{hidden} more hidden by --severity" in table
    code, _, err = invoke("scan", str(vm), "--severity", "high,severe")
    assert code == 2 and "unknown severity 'severe' for --severity" in err


def test_the_gate_names_the_most_severe_finding(vm: Path) -> None:
    code, _, err = invoke("scan", str(vm), "-q", "--fail-on", "info", "-o", os.devnull)
    assert code == 1
    assert "the most severe: high kill-switch-disarmed:AGENT_KILL_SWITCH" in err
    code, _, err = invoke("sessions", str(SAMPLE_VM), "-q", "--fail-on", "low", "-o", os.devnull)
    assert code == 1 and "the most severe: high session-label-mismatch:" in err
    code, _, err = invoke("audit", "--root", str(vm), "--pid", str(os.getpid()), "-q", "--fail-on", "medium",
                          "-o", os.devnull)
    assert code == 1 and "the most severe: high kill-switch-disarmed:AGENT_KILL_SWITCH" in err
    assert invoke("sessions", str(SAMPLE_VM), "-q", "--fail-on", "high", "--severity", "low", "-o",
                  os.devnull)[0] == 0  # what --severity hides does not trip the gate


# --- tables fit -----------------------------------------------------------------------------------------------


def _widths(text: str) -> int:
    return max(len(ANSI.sub("", line)) for line in text.splitlines())


@pytest.mark.parametrize("columns", [80, 200])
@pytest.mark.parametrize("command", [["scan", "{sv}", "-q"], ["scan", "{sv}", "-q", "--all"],
                                     ["sessions", "{sv}", "-q"], ["diff", "{vm}", "{sv}"],
                                     ["catalogs", "show", "openai"], ["catalogs", "list"]])
def test_tables_fit_columns_and_headers_never_break(vm: Path, columns: int, command: list[str]) -> None:
    args = [a.format(vm=vm, sv=SAMPLE_VM) for a in command]
    code, out, err = invoke(*args, env={"COLUMNS": str(columns)})
    assert code == 0, err
    assert _widths(out) <= columns
    lines = out.splitlines()
    rules = [i for i, line in enumerate(lines) if i and re.fullmatch(r"-+(  -+)*", line)]
    assert rules or command[0] == "sessions" and columns == 80  # every table has its header and rule
    for i in rules:  # a table's rule: the line above is its header, every cell whole and on one line
        header, rule = lines[i - 1], lines[i]
        for m in re.finditer(r"-+", rule):
            cell = header[m.start():m.end()].strip()
            assert cell and "…" not in cell and header[m.end():m.end() + 2].strip() == "", (header, rule)


def test_piped_output_is_not_cut_and_columns_is_honoured() -> None:
    _, piped, _ = invoke("scan", str(SAMPLE_VM), "-q", "--all", env={"COLUMNS": None})  # type: ignore[dict-item]
    assert "/home/agent/.jarvis/sessions/2026-11-20/subagent-ec964d3d4496eba5.jsonl" in piped
    assert "…ions/" not in piped and "… " not in piped.split("Findings", 1)[1]
    _, narrow, _ = invoke("scan", str(SAMPLE_VM), "-q", "--all", env={"COLUMNS": "90"})
    assert _widths(narrow) <= 90 < _widths(piped)


def test_the_default_table_fits_one_screen_on_a_large_tree(tmp_path: Path) -> None:
    root = build(tmp_path / "large")
    for columns in ("80", "200"):
        code, out, _ = invoke("scan", str(root), "-q", env={"COLUMNS": columns})
        assert code == 0
        assert len(out.splitlines()) <= 400, len(out.splitlines())
        assert _widths(out) <= int(columns)
    _, everything, _ = invoke("scan", str(root), "-q", "--all", env={"COLUMNS": "200"})
    assert len(everything.splitlines()) > 400  # --all: the rest


# --- cuts are counted where they happen ------------------------------------------------------------------------


def test_a_cut_list_of_locations_is_counted_in_json_and_the_table(tmp_path: Path) -> None:
    root = tmp_path / "vm"
    for i in range(MAX_LOCATIONS + 100):
        write(root, f"/srv/docs/d{i:03d}/README.md", "We compared it with claude-opus-4-1 last year.\n")
    code, out, _ = invoke("scan", str(root), "-q", "-f", "json")
    (model,) = [m for m in json.loads(out)["models"] if m["name"] == "claude-opus-4-1"]
    assert len(model["locations"]) == MAX_LOCATIONS and model["locations_cut"] == 100
    _, table, _ = invoke("scan", str(root), "-q", env={"COLUMNS": "200"})
    assert "+100 more place(s) of 1 model id(s)" in table
    assert "+192 more source(s)" in table  # the groups past the table's bound are counted too


# --- the headline says what a skip hides ------------------------------------------------------------------------


def test_an_unreadable_part_is_named_in_the_headline(scan_dir: ScanFn, tmp_path: Path) -> None:
    write(tmp_path / "vm", "/etc/agent/agent.env", "OPENAI_MODEL=gpt-5.5\n")
    inv, _ = scan_dir(tmp_path / "vm")
    import dataclasses

    gap = Skip("/etc/jarvis", SkipReason.PERMISSION_DENIED, "Permission denied")
    text = render("table", dataclasses.replace(inv, skipped=(gap,)), ReportOptions(width=100))
    head = text.split("\nFindings")[0]
    assert "not read: 1 part(s) that may hold wiring: /etc/jarvis (permission-denied)" in " ".join(head.split())


# --- HTML and SARIF ------------------------------------------------------------------------------------------------


def test_html_says_why_files_were_not_read_and_counts_what_it_shows() -> None:
    _, page, _ = invoke("scan", str(SAMPLE_VM), "-q", "-f", "html")
    stats = re.search(r'<span class="stats">([^<]*)</span>', page)
    assert stats and ("files read" in stats.group(1))
    if " of " in stats.group(1):
        assert "second path" in stats.group(1)
    title = re.search(r"<h2>Wired models \((\d+)\)</h2>", page)
    assert title
    models = page.split('id="models"', 1)[1].split("</section>", 1)[0]
    assert models.count("<tr><td>") == int(title.group(1)) > 0
    assert '<code class="host">api.<wbr>anthropic.<wbr>com</code>' in page or "api.<wbr>" in page


def test_sarif_encodes_a_name_that_is_not_utf8_from_its_bytes(tmp_path: Path) -> None:
    root = tmp_path / "vm"
    (root / "etc").mkdir(parents=True)
    with open(os.path.join(os.fsencode(root / "etc"), b"agent-\xff.env"), "wb") as f:
        f.write(b"OPENAI_MODEL=gpt-5.5\n")
    write(root, "/etc/back\\xffx.env", "ANTHROPIC_MODEL=claude-opus-4-8\n")
    _, out, _ = invoke("scan", str(root), "-q", "-f", "sarif")
    uris = {loc["physicalLocation"]["artifactLocation"]["uri"] for r in json.loads(out)["runs"][0]["results"]
            for loc in r["locations"]}
    assert "etc/agent-%FF.env" in uris and "etc/back%5Cxffx.env" in uris


def test_scan_and_audit_follow_one_filesystem_rule() -> None:
    from typer.main import get_command

    root = get_command(app)
    defaults = {}
    for name in ("scan", "audit", "sessions", "diff"):
        cmd = root.commands[name]  # type: ignore[attr-defined]
        (param,) = [p for p in cmd.params if p.name == "one_file_system"]
        defaults[name] = (param.default, tuple(param.opts), tuple(param.secondary_opts))
    assert len(set(defaults.values())) == 1, defaults
    assert defaults["scan"] == (True, ("--one-file-system",), ("--cross-filesystems",))

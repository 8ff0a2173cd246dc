"""Reports on real trees and hostile names (issue 15), and `-o` writing through to what the path is (issue 11).

Every format on a tree whose file names are not UTF-8, hold control characters and newlines; Markdown within a
pull-request comment on 5,000 package-only model ids; SARIF every result located; CycloneDX strict with junk bytes
after a URL in a binary; the command line's one-line errors.
"""

from __future__ import annotations

import dataclasses
import json
import os
import re
import stat
import threading
from pathlib import Path

import jsonschema
import pytest
from cyclonedx.schema import SchemaVersion
from cyclonedx.validation.json import JsonStrictValidator
from hypothesis import given, settings
from hypothesis import strategies as st
from typer.testing import CliRunner

from scanner import api
from scanner.catalog import load
from scanner.cli import app
from scanner.cli.terminal import terminal_for
from scanner.inventory.document import to_document
from scanner.kinds import Inventory
from scanner.options import ScanOptions
from scanner.render import RENDERERS, render
from scanner.render._view import ReportOptions
from scanner.render.json import _indented as indented
from scanner.render.json import chunks, dumps
from scanner.render.markdown import LIMIT
from scanner.targets import Walker, WalkOptions
from tests.conftest import REPO, SAMPLE_VM, write

runner = CliRunner()
SARIF_SCHEMA = json.loads((REPO / "tests" / "data" / "sarif-schema-2.1.0.json").read_text(encoding="utf-8"))
_RAW_CONTROL = [chr(c) for c in range(0x20) if chr(c) not in "\n\t"] + ["\x7f", "\u202e"]


def _hostile_tree(root: Path) -> Path:
    write(root, "/etc/agent/config.yaml", "model: claude-opus-4-1\nbase_url: https://api.anthropic.com\n")
    etc = os.fsencode(root / "etc" / "agent")
    for name in (b"bad-\xff\xfe.yaml", b"esc-\x1b[31mred.yaml", b"new\nline.yaml", b"bidi-\xe2\x80\xaeevil.yaml"):
        with open(os.path.join(etc, name), "wb") as fh:
            fh.write(b"model: gpt-5.5\nOPENAI_API_KEY=sk-proj-" + b"A1b2C3d4" * 6 + b"\n")
    binary = b"\x7fELF" + b"\0" * 64 + b"https://api.openai.com/v1/responses\x01\xff\xfe\x80junk\0" + b"\0" * 64
    write(root, "/opt/agent/bin/agentd", binary, mode=0o755)
    return root


@pytest.fixture(scope="module")
def hostile(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return _hostile_tree(tmp_path_factory.mktemp("hostile") / "vm")


@pytest.mark.parametrize("fmt", sorted(RENDERERS))
def test_every_format_is_valid_utf8_without_raw_control_on_hostile_names(fmt: str, hostile: Path,
                                                                         tmp_path: Path) -> None:
    out = tmp_path / f"report.{fmt}"
    result = runner.invoke(app, ["scan", str(hostile), "-f", fmt, "-o", str(out), "-q"])
    assert result.exit_code == 0, result.output
    assert "Traceback" not in result.output
    text = out.read_bytes().decode("utf-8")  # strict: raises on invalid UTF-8
    assert not any(c in text for c in _RAW_CONTROL), fmt
    assert not any("\ud800" <= c <= "\udfff" for c in text)
    assert "\\xff" in text or "%FF" in text or "\\\\xff" in text, "the undecodable byte is shown escaped"
    assert list(tmp_path.iterdir()) == [out], "no temporary file is left beside the report"
    if fmt == "json":
        assert "\\udc" not in text, "no lone surrogate escapes"
    if fmt == "cyclonedx":
        assert JsonStrictValidator(SchemaVersion.V1_6).validate_str(text) is None
        urls = [u for s in json.loads(text).get("services", []) for u in s.get("endpoints", [])]
        assert "https://api.openai.com/v1/responses" in urls
        assert all("junk" not in u for u in urls)
    if fmt == "sarif":
        doc = json.loads(text)
        jsonschema.validate(doc, SARIF_SCHEMA)
        assert all(r["locations"] for r in doc["runs"][0]["results"])


def test_table_on_stdout_is_valid_utf8(hostile: Path) -> None:
    result = runner.invoke(app, ["scan", str(hostile), "-q"])
    assert result.exit_code == 0
    result.stdout_bytes.decode("utf-8")
    assert "\x1b" not in result.stdout, "no colour and no raw escape when stdout is not a terminal"


def _many_ids(root: Path) -> Path:
    for a in range(5, 9):  # one price list per file, each under the matcher's hits-per-pattern cap
        ids = {f"gpt-{a}.{b}-preview": {"input_cost_per_token": 1e-6} for b in range(1300)}
        write(root, f"/usr/lib/python3/dist-packages/litellm/prices_{a}.json", json.dumps(ids))
    write(root, "/usr/lib/python3/dist-packages/litellm-1.103.4.dist-info/METADATA",
          "Metadata-Version: 2.1\nName: litellm\nVersion: 1.103.4\n")
    write(root, "/etc/agent/config.yaml", "model: claude-opus-4-1\n")
    return root


def test_package_only_ids_are_one_line_and_markdown_fits_a_comment(tmp_path: Path) -> None:
    root = _many_ids(tmp_path / "vm")
    doc = json.loads(runner.invoke(app, ["scan", str(root), "-f", "json", "-q"]).stdout)
    assert sum(not m["wired"] for m in doc["models"]) >= 5000
    table = runner.invoke(app, ["scan", str(root), "-q"]).stdout
    assert "litellm 1.103.4 (dist-packages):" in table and "not wiring" in table
    assert len(table.splitlines()) < 80
    for extra in ([], ["--all"]):
        md = runner.invoke(app, ["scan", str(root), "-f", "markdown", "-q", *extra]).stdout
        assert len(md) <= LIMIT
        for section in ("Sessions", "Routes", "Clients", "MCP servers", "Skipped"):
            assert f"### {section}" in md
    assert "**Cut:**" in md and "left out" in md


def test_cyclonedx_counts_package_only_ids_per_package_and_all_lists_each(tmp_path: Path) -> None:
    root = _many_ids(tmp_path / "vm")
    validator = JsonStrictValidator(SchemaVersion.V1_6)
    text = runner.invoke(app, ["scan", str(root), "-f", "cyclonedx", "-q"]).stdout
    assert validator.validate_str(text) is None
    doc = json.loads(text)
    models = [c for c in doc["components"] if c["type"] == "machine-learning-model"]
    assert [c["name"] for c in models] == ["claude-opus-4-1"], "only the wired model is a model component"
    data = {c["name"]: {p["name"]: p["value"] for p in c["properties"]} for c in doc["components"]
            if c["type"] == "data"}
    litellm = data["model ids in litellm 1.103.4 (dist-packages)"]
    assert int(litellm["modelcensus:model_ids"]) >= 5000 and litellm["modelcensus:wired"] == "false"
    subject = {p["name"]: p["value"] for p in doc["metadata"]["component"]["properties"]}
    assert subject["modelcensus:models_listed"] == "wired"
    assert int(subject["modelcensus:models_not_wiring"]) >= 5000
    every = runner.invoke(app, ["scan", str(root), "-f", "cyclonedx", "-q", "--all"]).stdout
    assert validator.validate_str(every) is None
    doc = json.loads(every)
    assert sum(c["type"] == "machine-learning-model" for c in doc["components"]) >= 5001
    assert not any(c["type"] == "data" for c in doc["components"])


def test_table_fits_the_width_and_the_headline_one_screen() -> None:
    text = runner.invoke(app, ["scan", str(SAMPLE_VM), "-q"], env={"COLUMNS": "120"}).stdout
    assert max(len(line) for line in text.splitlines()) <= 120
    head = text.split("\nFindings")[0].splitlines()
    assert len(head) <= 40
    assert "azure/muse-special → gpt-5.5" in text
    wide = runner.invoke(app, ["scan", str(SAMPLE_VM), "-q", "--wide"], env={"COLUMNS": "120"}).stdout
    assert max(len(line) for line in wide.splitlines()) > 120


def test_ignored_findings_are_marked_in_every_format(tmp_path: Path) -> None:
    ignore = tmp_path / "ignore.toml"
    ignore.write_text('[[ignore]]\nid = "kill-switch-disarmed:JARVIS_KILL_SWITCH"\nreason = "staging image"\n')
    for fmt in sorted(RENDERERS):
        out = runner.invoke(app, ["scan", str(SAMPLE_VM), "-q", "-f", fmt, "--ignore-file", str(ignore)]).stdout
        if fmt in ("cyclonedx", "spdx"):
            continue  # a BOM carries no findings
        assert "staging image" in out, fmt
        if fmt == "sarif":
            res = [r for r in json.loads(out)["runs"][0]["results"]
                   if r["ruleId"] == "kill-switch-disarmed" and "JARVIS_KILL_SWITCH=" in r["message"]["text"]]
            assert res[0]["suppressions"][0]["justification"] == "staging image"
        if fmt == "json":
            f = [f for f in json.loads(out)["findings"] if f["id"] == "kill-switch-disarmed:JARVIS_KILL_SWITCH"]
            assert f[0]["ignored"] == {"reason": "staging image"}


def test_output_writes_through_a_character_device_and_a_fifo(tmp_path: Path) -> None:
    dev = tmp_path / "null"
    try:
        os.mknod(dev, 0o666 | stat.S_IFCHR, os.makedev(1, 3))
    except PermissionError:
        pytest.skip("making a device node needs root")
    assert runner.invoke(app, ["scan", str(SAMPLE_VM), "-q", "-o", str(dev)]).exit_code == 0
    assert stat.S_ISCHR(dev.lstat().st_mode)
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    got: list[bytes] = []
    reader = threading.Thread(target=lambda: got.append(fifo.read_bytes()))
    reader.start()
    result = runner.invoke(app, ["scan", str(SAMPLE_VM), "-q", "-f", "json", "-o", str(fifo)])
    reader.join(30)
    assert result.exit_code == 0, result.output
    assert stat.S_ISFIFO(fifo.lstat().st_mode)
    assert json.loads(got[0])["schema"]
    link = tmp_path / "link.json"
    real = tmp_path / "real.json"
    real.write_text("old")
    link.symlink_to(real)
    assert runner.invoke(app, ["scan", str(SAMPLE_VM), "-q", "-f", "json", "-o", str(link)]).exit_code == 0
    assert link.is_symlink() and json.loads(real.read_text())["schema"]
    assert sorted(p.name for p in tmp_path.iterdir()) == ["link.json", "null", "pipe", "real.json"]


@pytest.mark.parametrize(("args", "message"), [
    (["scan", "--bogus", "x"], "No such option: --bogus"),
    (["scan", str(SAMPLE_VM), "--max-file-size", "0"], "--max-file-size must be at least one byte"),
    (["scan", str(SAMPLE_VM), "--max-file-size", "sk-ant-api03-" + "Zq9" * 12], "--max-file-size takes a size"),
    (["scan", str(SAMPLE_VM), "--fail-on", "severe"], "unknown severity"),
    (["scan", "/nonexistent-target"], "no such file or directory"),
    (["audit", "--user", "no-such-user-xyz", "--live-only"], "no such user"),
])
def test_errors_are_one_line_with_exit_2(args: list[str], message: str) -> None:
    result = runner.invoke(app, args)
    assert result.exit_code == 2
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("modelcensus: error: ") and message in lines[0], lines
    assert "Zq9Zq9Zq9" not in result.stderr


def test_fail_on_is_case_insensitive_and_says_what_tripped() -> None:
    result = runner.invoke(app, ["scan", str(SAMPLE_VM), "-q", "--fail-on", "HIGH", "-o", os.devnull])
    assert result.exit_code == 1
    assert "--fail-on high:" in result.stderr and "high " in result.stderr


def test_version_names_tool_and_catalogs() -> None:
    for args in (["version"], ["-V"], ["--version"]):
        out = runner.invoke(app, args).stdout
        assert out.startswith("modelcensus ") and "catalogs: " in out and "anthropic " in out


def test_environment_variables_set_options(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("MODELCENSUS_FORMAT", "json")
    out = runner.invoke(app, ["scan", str(SAMPLE_VM), "-q"]).stdout
    assert json.loads(out)["schema"]


def test_sessions_json_matches_the_schema_it_names(tmp_path: Path) -> None:
    out = tmp_path / "sessions.json"
    result = runner.invoke(app, ["sessions", str(SAMPLE_VM), "-f", "json", "-q", "-o", str(out)])
    assert result.exit_code == 0, result.output
    doc = json.loads(out.read_text())
    schema = json.loads((REPO / "scanner" / "cli" / "sessions.schema.json").read_text())
    assert doc["schema"] == schema["$id"]
    jsonschema.validate(doc, schema)
    inventory = json.loads((REPO / "scanner" / "inventory" / "schema.json").read_text())
    for key in ("sessions", "routes", "findings"):  # the shipped schema follows the inventory's
        assert schema["properties"][key] == inventory["properties"][key]
    assert schema["$defs"] == inventory["$defs"]  # what they refer to, too: a new session field fails here first


def test_config_output_is_relative_to_the_config_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    conf = tmp_path / "conf"
    conf.mkdir()
    (conf / "modelcensus.toml").write_text('[scan]\nformat = "json"\noutput = "out/report.json"\n')
    (conf / "out").mkdir()
    elsewhere = tmp_path / "cwd"
    elsewhere.mkdir()
    monkeypatch.chdir(elsewhere)
    result = runner.invoke(app, ["scan", str(SAMPLE_VM), "-q", "--config", str(conf / "modelcensus.toml")])
    assert result.exit_code == 0, result.output
    assert json.loads((conf / "out" / "report.json").read_text())["schema"]


def test_live_only_leaves_out_what_only_files_tell() -> None:
    result = runner.invoke(app, ["audit", "--pid", str(os.getpid()), "--live-only", "-q", "--all"])
    assert result.exit_code == 0, result.output
    assert "Processes" in result.stdout  # inspected: shown, even when none is relevant
    for absent in ("Sessions", "Routes", "Clients", "MCP servers"):
        assert f"\n{absent}" not in result.stdout, absent
    assert "sessions: not inspected" in result.stdout


def test_colour_only_when_asked(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("NO_COLOR", raising=False)
    monkeypatch.delenv("FORCE_COLOR", raising=False)
    assert terminal_for(None).colour is False  # pytest's stdout is not a terminal
    assert "\x1b[" not in runner.invoke(app, ["scan", str(SAMPLE_VM), "-q"]).stdout
    inv = api.scan(Walker(str(SAMPLE_VM), WalkOptions()), api.ScanRequest(ScanOptions()), load([]))
    coloured = render("table", inv, ReportOptions(colour=True))
    assert "\x1b[1;31mhigh" in coloured and "\x1b[0m" in coloured


def test_cyclonedx_is_reproducible_with_source_date_epoch(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("SOURCE_DATE_EPOCH", "1767225600")
    first = runner.invoke(app, ["scan", str(SAMPLE_VM), "-q", "-f", "cyclonedx"]).stdout
    second = runner.invoke(app, ["scan", str(SAMPLE_VM), "-q", "-f", "cyclonedx"]).stdout
    assert first == second
    assert json.loads(first)["metadata"]["timestamp"].startswith("2026-01-01T00:00:00")


def test_format_values_are_completed() -> None:
    env = {"_MODELCENSUS_COMPLETE": "complete_bash", "COMP_WORDS": "modelcensus scan x --format ma", "COMP_CWORD": "4"}
    assert runner.invoke(app, [], env=env, prog_name="modelcensus").stdout.split() == ["markdown"]


def test_one_model_spelled_three_ways_is_one_finding(tmp_path: Path) -> None:
    root = tmp_path / "vm"
    for name, model in (("one", "claude-opus-4-1"), ("two", "anthropic/claude-opus-4-1"),
                        ("three", "claude-opus-4-1@20250805")):
        write(root, f"/etc/agent/{name}.yaml", f"model: {model}\n")
    text = runner.invoke(app, ["scan", str(root), "-q", "--wide"]).stdout
    rows = [line for line in text.splitlines() if "(anthropic) wired via" in line]
    assert [row.split()[1] for row in rows] == ["claude-opus-4-1"] * 3  # one per route
    assert "wired via direct; also spelled anthropic/claude-opus-4-1" in rows[0]
    assert "wired via unstated route " in rows[1]
    assert "wired via vertex; also spelled claude-opus-4-1@20250805" in rows[2]


_COMMANDS = [["scan"], ["sessions"], ["audit"], ["diff"], ["version"], ["catalogs", "list"], ["catalogs", "show"],
             ["catalogs", "validate"], ["fleet", "scan"], ["fleet", "report"], ["fleet", "query"], ["fleet", "export"],
             ["fleet", "diff"]]


@pytest.mark.parametrize("command", _COMMANDS, ids=" ".join)
def test_help_shows_clean_metavars(command: list[str]) -> None:
    result = runner.invoke(app, [*command, "--help"], prog_name="modelcensus")
    assert result.exit_code == 0, result.output
    usage = result.stdout.splitlines()[0]
    assert usage.startswith(f"Usage: modelcensus {' '.join(command)} [OPTIONS]") and "{" not in usage, usage
    assert not re.search(r"<[a-z]", result.stdout), result.stdout  # typer's `<path>`, `<int>`, `<list[Path]>`


def test_help_names_arguments_and_values() -> None:
    text = runner.invoke(app, ["scan", "--help"], prog_name="modelcensus").stdout
    assert "Usage: modelcensus scan [OPTIONS] PATH" in text
    for shown in ("--as [directory|container|disk]", "--platform OS/ARCH", "-j, --jobs N", "-f, --format FORMAT"):
        assert shown in text, shown
    assert "OLD NEW" in runner.invoke(app, ["diff", "--help"], prog_name="modelcensus").stdout.splitlines()[0]


@pytest.mark.parametrize(("words", "expected"), [
    ("modelcensus scan x -f j", ["json"]),
    ("modelcensus sessions x -f ", ["table", "json"]),
    ("modelcensus diff a b -f m", ["markdown"]),
])
def test_format_values_are_completed_for_every_command(words: str, expected: list[str]) -> None:
    cword = str(len(words.split()) - (0 if words.endswith(" ") else 1))
    env = {"_MODELCENSUS_COMPLETE": "complete_bash", "COMP_WORDS": words, "COMP_CWORD": cword}
    assert runner.invoke(app, [], env=env, prog_name="modelcensus").stdout.split() == expected


def test_format_values_are_case_insensitive_everywhere(tmp_path: Path) -> None:
    out = tmp_path / "s.json"
    result = runner.invoke(app, ["sessions", str(SAMPLE_VM), "-f", "JSON", "-q", "-o", str(out)])
    assert result.exit_code == 0, result.output
    assert json.loads(out.read_text())["schema"] == "modelcensus/sessions@1"


def test_diff_fail_on_says_what_tripped(tmp_path: Path) -> None:
    old = tmp_path / "old"
    write(old, "/etc/agent/config.yaml", "model: claude-opus-4-1\n")
    new = tmp_path / "new"
    write(new, "/etc/agent/config.yaml", "model: claude-opus-4-1\nOPENAI_API_KEY=sk-proj-" + "A1b2C3d4" * 6 + "\n")
    result = runner.invoke(app, ["diff", str(old), str(new), "--fail-on", "LOW", "-o", os.devnull])
    assert result.exit_code == 1, result.output
    [line] = [x for x in result.stderr.splitlines() if "--fail-on" in x]
    assert line.startswith("modelcensus: --fail-on low: ") and "change(s) at or above it; the most severe: " in line
    assert "A1b2C3d4A1b2" not in result.stderr


def test_html_findings_give_the_finding_the_room_and_paths_wrap() -> None:
    html = runner.invoke(app, ["scan", str(SAMPLE_VM), "-q", "-f", "html"]).stdout
    assert '<div class="findings"><div class="scroll"><table>' in html
    css = html.split("<style>", 1)[1].split("</style>", 1)[0]
    assert ".findings td:nth-child(2){width:55%}" in css
    assert ".first code{white-space:nowrap" not in css, "a long path must wrap, not squeeze the finding text"
    assert "white-space:nowrap}" in css.split(".badge{", 1)[1].split("\n", 1)[0], "a lifecycle badge never breaks"


def test_table_cuts_paths_at_the_start_and_the_model_last() -> None:
    text = runner.invoke(app, ["scan", str(SAMPLE_VM), "-q", "--all"], env={"COLUMNS": "160"}).stdout
    models = text.split("\nModels (", 1)[1].split("\n\n", 1)[0]
    assert " accounts/fireworks/models/kimi-k3 " in models, "the model column is the last one cut"
    findings = text.split("\nFindings", 1)[1].split("\n\n", 1)[0]
    assert "subagent-ec964d3d4496eba5.jsonl:1" in findings, "a cut path keeps its file and line"
    cells = re.findall(r"\s(\S*subagent-ec964d3d4496eba5\.jsonl:1)", findings)
    assert cells and all(cell.startswith(("/", "…")) for cell in cells)
    assert "29 model id(s) that are not wiring" not in text  # --all lists them in the models table
    default = runner.invoke(app, ["scan", str(SAMPLE_VM), "-q"]).stdout
    assert "not wiring: 29 model id(s) only mentioned" in default


def test_environment_sets_the_options_every_command_shares(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """MODELCENSUS_MAX_FILE_SIZE (and _CATALOG, _QUIET) reach sessions, audit and diff too, not only scan."""
    monkeypatch.setenv("MODELCENSUS_MAX_FILE_SIZE", "0")
    for args in (["sessions", str(SAMPLE_VM)], ["audit", "--live-only", "--pid", str(os.getpid())],
                 ["diff", str(SAMPLE_VM), str(SAMPLE_VM)]):
        result = runner.invoke(app, args)
        assert result.exit_code == 2 and "--max-file-size must be at least one byte" in result.stderr, args


_JSON_VALUES = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats() | st.text(),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner, max_size=4),
    max_leaves=30,
)


@settings(max_examples=300, deadline=None)
@given(_JSON_VALUES)
def test_json_text_is_the_stdlib_indented_text(value: object) -> None:
    """The JSON report's text, indented at C speed, is json.dumps(indent=2, ensure_ascii=True) byte for byte: any
    string (lone surrogates, controls, emoji), float (NaN, infinities, exponents), empty or nested container."""
    assert dumps(value) == json.dumps(value, indent=2, ensure_ascii=True) + "\n"


_PLAIN_TEXT = st.text(alphabet=st.characters(blacklist_categories=("Cs",)))  # no lone surrogate: nothing to clean
_PLAIN_VALUES = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats() | _PLAIN_TEXT,
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(_PLAIN_TEXT.filter(lambda t: len(t) <= 8), inner,
                                                                max_size=4),
    max_leaves=30,
)


@settings(max_examples=300, deadline=None)
@given(_PLAIN_VALUES)
def test_a_streamed_entry_is_the_stdlib_text_at_its_depth(value: object) -> None:
    """The streaming writer indents each entry on its own and shifts it to its depth in the document: the text is
    json.dumps(indent=2)'s for the entry inside a section, for any value (NaN, empty and nested containers)."""
    whole = json.dumps({"section": [value]}, indent=2, ensure_ascii=True)
    streamed = b'{\n  "section": [\n    ' + indented(value, b"\n    ") + b"\n  ]\n}"
    assert streamed.decode("ascii") == whole


def test_the_streamed_json_report_is_the_whole_document_indented() -> None:
    """The JSON report's pieces, joined, are json.dumps(indent=2) of the whole document (ignored findings marked), and
    no piece holds more than a share of it: the writer never holds the whole text."""
    inv = api.scan(Walker(str(SAMPLE_VM), WalkOptions()), api.ScanRequest(ScanOptions()), load([]))
    opts = ReportOptions(ignored={inv.findings[0].id: "a lab host"})

    def whole(inv: Inventory) -> str:
        doc = to_document(inv)
        doc["findings"][0]["ignored"] = {"reason": "a lab host"}
        return json.dumps(doc, indent=2, ensure_ascii=True) + "\n"

    text = b"".join(chunks(inv, opts)).decode("ascii")
    assert text == whole(inv) == render("json", inv, opts)
    many = dataclasses.replace(inv, models=inv.models * 100)  # a section of 1,000s of entries: written in pieces
    pieces = list(chunks(many, opts))
    assert b"".join(pieces).decode("ascii") == whole(many)
    assert max(map(len, pieces)) < sum(map(len, pieces)) / 2


def test_json_report_has_no_lone_surrogate_from_any_string(hostile: Path) -> None:
    """A lone surrogate a string of the inventory still holds (a name decoded with surrogateescape) leaves the JSON
    report made valid, and a surrogate pair's escape (an emoji) is kept as json.dumps writes it."""
    inv = api.scan(Walker(str(hostile), WalkOptions()), api.ScanRequest(ScanOptions()), load([]))
    target = dataclasses.replace(inv.target, location="/vm\udcff\U0001f600")
    text = render("json", dataclasses.replace(inv, target=target), ReportOptions())
    assert "\\udcff" not in text and "\\ud83d\\ude00" in text
    assert json.loads(text)["target"]["location"] == "/vm\\xff\U0001f600"


def test_json_report_marks_an_ignored_finding_whose_id_holds_a_lone_surrogate(hostile: Path) -> None:
    """The ignore file's answers are keyed by a finding's own id (`settle`): a finding whose id holds a lone surrogate
    is marked ignored, as every other format marks it, and its id is still written cleaned. (A scan escapes the
    paths an id is made of; the renderer takes any inventory, and an id from a decoded name need not be.)"""
    inv = api.scan(Walker(str(hostile), WalkOptions()), api.ScanRequest(ScanOptions()), load([]))
    first, *rest = inv.findings
    odd = dataclasses.replace(first, id="local-pickle-unsafe-globals:bad\udcff.pkl")
    opts = ReportOptions(ignored={odd.id: "a lab host", rest[0].id: "staging"})
    text = render("json", dataclasses.replace(inv, findings=(odd, *rest)), opts)
    assert "\\udcff" not in text
    marked = {f["id"]: f["ignored"]["reason"] for f in json.loads(text)["findings"] if "ignored" in f}
    assert marked == {"local-pickle-unsafe-globals:bad\\xff.pkl": "a lab host", rest[0].id: "staging"}

"""The live audit against real processes that the tests start themselves, always scoped with --pid.

On a shared machine an audit must never read other processes' environments, so every audit here names
the pid of a child this test started (or a pid that no longer exists). The filesystem part is pointed at
a small tree in tmp_path (`--root`) or skipped (`--live-only`): no test walks the real `/`.
"""

from __future__ import annotations

import hashlib
import json
import os
import random
import socket
import string
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from tests.conftest import REPO, validate_document, write

# A well-formed FAKE key: the catalog's shape (prefix, 93 characters, AA), from a fixed seed.
_RNG = random.Random(20261130)
FAKE_KEY = "sk-ant-api03-" + "".join(_RNG.choices(string.ascii_letters + string.digits, k=93)) + "AA"
FAKE_SHA = hashlib.sha256(FAKE_KEY.encode()).hexdigest()

AGENT_SCRIPT = """\
import socket
import sys

import anthropic  # the fake SDK below: it memory-maps a data file of its own, as tokenizers do

MODEL = "claude-opus-4-8"
conn = socket.create_connection(("127.0.0.1", int(sys.argv[1])))
print("ready", flush=True)
sys.stdin.read()
"""

FAKE_SDK = """\
import mmap
import os

with open(os.path.join(os.path.dirname(__file__), "_vocab.bin"), "rb") as _f:
    _VOCAB = mmap.mmap(_f.fileno(), 0, access=mmap.ACCESS_READ)
"""


@dataclass
class Agent:
    pid: int
    port: int
    vm: Path  # the filesystem part's root
    site: Path  # the site-packages holding the fake SDK


def _start_agent(base: Path, python: str = sys.executable) -> tuple[subprocess.Popen[str], socket.socket, Agent]:
    vm = base / "vm"
    write(vm, "/opt/agent/agentd.py", AGENT_SCRIPT)
    write(vm, "/etc/agent/agent.env", "# kill switch for the agent\nAGENT_KILL_SWITCH=1\n")
    write(vm, "/etc/hosts", "127.0.0.1\tlocalhost inference-proxy.internal\n")
    site = base / "venv/lib/python3.11/site-packages"
    write(site, "/anthropic/__init__.py", FAKE_SDK)
    write(site, "/anthropic/_vocab.bin", b"\x00" * 4096)
    listener = socket.create_server(("127.0.0.1", 0))
    port = listener.getsockname()[1]
    env = {
        "PATH": "/usr/bin:/bin",
        "PYTHONPATH": str(site),
        "ANTHROPIC_API_KEY": FAKE_KEY,
        "ANTHROPIC_BASE_URL": f"http://inference-proxy.internal:{port}/anthropic",
        "AGENT_KILL_SWITCH": "0",
        "HOME": "/tmp",
    }
    proc = subprocess.Popen(
        [python, str(vm / "opt/agent/agentd.py"), str(port)],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
        env=env,
    )
    assert proc.stdout is not None
    assert proc.stdout.readline().strip() == "ready"
    return proc, listener, Agent(proc.pid, port, vm, site)


@pytest.fixture
def agent(tmp_path: Path) -> Iterator[Agent]:
    proc, listener, info = _start_agent(tmp_path)
    try:
        yield info
    finally:
        proc.kill()
        proc.wait()
        listener.close()


def _audit(*args: str, **kwargs: object) -> subprocess.CompletedProcess[str]:
    run_kwargs: dict = {"capture_output": True, "text": True, "cwd": REPO, "timeout": 120, **kwargs}
    return subprocess.run([run_kwargs.pop("python", sys.executable), "-m", "scanner", *args], **run_kwargs)


def _json(result: subprocess.CompletedProcess[str]) -> dict:
    assert result.returncode == 0, result.stderr
    doc = json.loads(result.stdout)
    validate_document(doc)
    return doc


def _no_key(*texts: str) -> None:
    for text in texts:
        assert FAKE_KEY not in text
        assert FAKE_KEY[13:-4] not in text  # not even the secret part without prefix and tail


def test_audit_finds_the_process_its_key_switch_sdk_and_connection(agent: Agent) -> None:
    result = _audit("audit", "--pid", str(agent.pid), "--root", str(agent.vm), "-f", "json", "-q")
    doc = _json(result)
    _no_key(result.stdout, result.stderr)

    assert doc["target"]["kind"] == "live"
    live = doc["target"]["live"]
    assert live["processes_inspected"] == 1 and live["hostname"] and live["kernel"]
    assert {p["name"]: p["status"] for p in live["parts"]} == {
        "filesystem": "complete",
        "processes": "complete",
        "environment": "complete",
        "open-files": "complete",
        "connections": "complete",
    }

    (proc,) = doc["processes"]
    assert proc["pid"] == agent.pid and proc["ppid"] == os.getpid() and proc["user"] == "root"
    assert proc["cmdline"][1:] == [str(agent.vm / "opt/agent/agentd.py"), str(agent.port)]
    assert {
        "sdk-loaded:anthropic",
        "llm-env:ANTHROPIC_API_KEY",
        "llm-env:AGENT_KILL_SWITCH",
        "known-file:/opt/agent/agentd.py",
        "connects-to:inference-proxy.internal",
    } <= set(proc["relevance"])
    env = {v["name"]: v for v in proc["environment"]}
    assert env["ANTHROPIC_API_KEY"] == {
        "name": "ANTHROPIC_API_KEY",
        "role": "credential",
        "value": "sk-ant-api03-…" + FAKE_KEY[-4:],
        "state": None,
    }
    assert env["AGENT_KILL_SWITCH"]["state"] == "off"
    assert env["ANTHROPIC_BASE_URL"]["role"] == "base_url"
    assert "PATH" not in env and "HOME" not in env  # only LLM-related variables are reported
    (sdk,) = proc["sdks"]
    assert (sdk["name"], sdk["vendor"]) == ("anthropic", "anthropic")
    assert sdk["path"] == str(agent.site / "anthropic/_vocab.bin")
    (tie,) = proc["ties"]
    assert tie["path"] == "/opt/agent/agentd.py" and "claude-opus-4-8" in tie["models"]

    (cred,) = [c for c in doc["credentials"] if c["sha256"] == FAKE_SHA]
    assert cred["type"] == "anthropic-api-key" and cred["redacted"] == "sk-ant-api03-…" + FAKE_KEY[-4:]
    assert [x["path"] for x in cred["locations"]] == [f"/proc/{agent.pid}/environ"]

    (conn,) = [c for c in doc["connections"] if c["remote"] == f"127.0.0.1:{agent.port}"]
    assert conn["pid"] == agent.pid and conn["process"] == proc["name"]
    assert (conn["state"], conn["protocol"]) == ("ESTABLISHED", "tcp")
    assert (conn["endpoint"], conn["mapped_by"]) == ("inference-proxy.internal", "base-url+etc-hosts")

    findings = {f["id"]: f for f in doc["findings"]}
    differs = findings[f"kill-switch-runtime-differs:AGENT_KILL_SWITCH:{agent.pid}"]
    assert differs["severity"] == "high"
    assert "config arms it" in differs["title"] and "environment disarms it" in differs["title"]
    assert {loc["path"] for loc in differs["locations"]} == {"/etc/agent/agent.env", f"/proc/{agent.pid}/environ"}
    assert "live-connection:inference-proxy.internal" in findings


def test_table_and_alias_never_show_the_key(agent: Agent) -> None:
    table = _audit("scan", "--live", "--pid", str(agent.pid), "--live-only", "-q", "--all")
    assert table.returncode == 0, table.stderr
    _no_key(table.stdout, table.stderr)
    assert "sk-ant-api03-…" + FAKE_KEY[-4:] in table.stdout
    assert "Processes (1)" in table.stdout and "Connections (1)" in table.stdout
    assert "sdk-loaded:anthropic" in table.stdout
    assert "filesystem skipped, processes complete" in " ".join(table.stdout.split()) and "\\x0a" not in table.stdout


def test_live_only_skips_the_filesystem(agent: Agent) -> None:
    doc = _json(_audit("audit", "--pid", str(agent.pid), "--live-only", "--root", str(agent.vm), "-f", "json"))
    assert doc["stats"]["files_seen"] == 0
    parts = {p["name"]: p for p in doc["target"]["live"]["parts"]}
    assert parts["filesystem"] == {"name": "filesystem", "status": "skipped", "detail": "--live-only"}
    (proc,) = doc["processes"]
    assert "known-file:/opt/agent/agentd.py" not in proc["relevance"]  # nothing was walked to know it
    # /etc/hosts of the root is still read on demand, so the connection is still named.
    assert {c["endpoint"] for c in doc["connections"]} == {"inference-proxy.internal"}
    # What only files tell was not inspected: absent, not empty; the environment's sections are there.
    assert not {"sdks", "sessions", "routes", "clients", "mcp_servers", "agents"} & set(doc)
    assert {"models", "endpoints", "credentials", "kill_switches", "processes"} <= set(doc)


def test_scope_filters_apply_to_the_given_pid(agent: Agent) -> None:
    for extra in (["--user", "nobody"], ["--exe-glob", "*/no-such-exe"]):
        doc = _json(_audit("audit", "--pid", str(agent.pid), *extra, "--live-only", "-f", "json"))
        assert doc["target"]["live"]["processes_inspected"] == 0 and doc["processes"] == []
    python = os.path.basename(os.path.realpath(sys.executable))
    doc = _json(_audit("audit", "--pid", str(agent.pid), "--exe-glob", f"*/{python}", "--live-only", "-f", "json"))
    assert [p["pid"] for p in doc["processes"]] == [agent.pid]


def test_a_gone_process_is_a_skip_not_an_error() -> None:
    child = subprocess.Popen([sys.executable, "-c", "pass"])
    child.wait()
    doc = _json(_audit("audit", "--pid", str(child.pid), "--live-only", "-f", "json"))
    assert {(s["path"], s["reason"]) for s in doc["skipped"]} == {(f"/proc/{child.pid}", "process-gone")}
    assert doc["processes"] == [] and doc["connections"] == []
    parts = {p["name"]: p["status"] for p in doc["target"]["live"]["parts"]}
    assert parts["processes"] == "partial"


def test_bad_options_are_clear_errors(tmp_path: Path) -> None:
    for args, message in (
        (["--pid", "0"], "positive"),
        (["--root", str(tmp_path / "absent")], "not a directory"),
        (["-f", "yaml"], "unknown format"),
    ):
        result = _audit("audit", "--live-only", *args)
        assert result.returncode == 2 and message in result.stderr and "Traceback" not in result.stderr


def test_unprivileged_auditor_lists_what_it_cannot_read() -> None:
    """Run as nobody against a root-owned agent: its environ, files and sockets are skipped, never fatal."""
    if os.geteuid() != 0:
        pytest.skip("needs root to start a process another user cannot read")
    from tests.test_targets import _interpreter_for_others

    python = _interpreter_for_others()
    if python is None:
        pytest.skip("no interpreter an unprivileged user can execute")
    base = Path(tempfile.mkdtemp(prefix="mc-live-"))
    proc, listener, agent = _start_agent(base)
    try:
        site = next(p for p in sys.path if p.endswith("site-packages") and p.startswith(sys.prefix))
        result = _audit(
            "audit", "--pid", str(agent.pid), "--live-only", "-f", "json",
            python=python, user=65534, group=65534,
            env={"PATH": "/usr/bin:/bin", "HOME": "/tmp", "PYTHONPATH": f"{REPO}:{site}"},
        )  # fmt: skip
        if result.returncode != 0 and "No module named" in result.stderr:
            pytest.skip("the unprivileged user cannot import the scanner's dependencies here")
        doc = _json(result)
        _no_key(result.stdout, result.stderr)
        skipped = {s["path"]: s for s in doc["skipped"]}
        environ = skipped[f"/proc/{agent.pid}/environ"]
        assert environ["reason"] == "permission-denied" and "user root" in environ["detail"]
        assert doc["credentials"] == [] and doc["kill_switches"] == []
        parts = {p["name"]: p["status"] for p in doc["target"]["live"]["parts"]}
        assert parts["environment"] == "partial" and parts["filesystem"] == "skipped"
        assert doc["target"]["live"]["processes_inspected"] == 1
    finally:
        proc.kill()
        proc.wait()
        listener.close()
        subprocess.run(["rm", "-rf", str(base)], check=False)


def test_a_local_model_server_is_recognised_with_its_listening_socket() -> None:
    """The catalogs' process roles name a program by its command line; its listening socket is reported."""
    serve = "import socket, sys; s = socket.create_server(('127.0.0.1', 0)); print(s.getsockname()[1], flush=True); sys.stdin.read()"  # noqa: E501
    proc = subprocess.Popen(
        [sys.executable, "-c", serve, "vllm", "serve", "some-model"],
        stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, env={"PATH": "/usr/bin:/bin"},
    )  # fmt: skip
    try:
        assert proc.stdout is not None
        port = int(proc.stdout.readline())
        doc = _json(_audit("audit", "--pid", str(proc.pid), "--live-only", "-f", "json"))
        (entry,) = doc["processes"]
        assert entry["relevance"] == ["role:model-server"]
        assert entry["listening"] == [f"127.0.0.1:{port}/tcp"]
        (conn,) = doc["connections"]
        assert (conn["local"], conn["remote"], conn["state"], conn["endpoint"]) == (
            f"127.0.0.1:{port}", None, "LISTEN", None
        )
    finally:
        proc.kill()
        proc.wait()


RUNTIME_ENV = """\
# the agent's base URL and model, as deployed
ANTHROPIC_BASE_URL=https://api.anthropic.com
ANTHROPIC_MODEL=claude-opus-4-8
"""


def _idle_child(env: dict[str, str]) -> subprocess.Popen[str]:
    """A child that only waits: its environment is what the audit compares with the tree's env file."""
    proc = subprocess.Popen(
        [sys.executable, "-c", "import sys; print('ready', flush=True); sys.stdin.read()"],
        stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, env={"PATH": "/usr/bin:/bin", **env},
    )  # fmt: skip
    assert proc.stdout is not None and proc.stdout.readline().strip() == "ready"
    return proc


def _differs(doc: dict) -> dict[str, dict]:
    return {f["id"]: f for f in doc["findings"] if f["id"].startswith("setting-runtime-differs:")}


def test_running_base_url_and_model_that_differ_from_the_env_file_are_findings(tmp_path: Path) -> None:
    vm = tmp_path / "vm"
    write(vm, "/etc/agent/runtime.env", RUNTIME_ENV)
    proc = _idle_child(
        {
            # userinfo in the running URL: it must never reach the report
            "ANTHROPIC_BASE_URL": "http://bob:hunter2-not-shown@llm-gw.corp.internal:8080/anthropic",
            "ANTHROPIC_MODEL": "claude-sonnet-4-5",
        }
    )
    try:
        result = _audit("audit", "--pid", str(proc.pid), "--root", str(vm), "-f", "json", "-q")
        doc = _json(result)
    finally:
        proc.kill()
        proc.wait()
    assert "hunter2-not-shown" not in result.stdout + result.stderr
    found = _differs(doc)
    assert set(found) == {
        f"setting-runtime-differs:ANTHROPIC_BASE_URL:{proc.pid}",
        f"setting-runtime-differs:ANTHROPIC_MODEL:{proc.pid}",
    }
    url = found[f"setting-runtime-differs:ANTHROPIC_BASE_URL:{proc.pid}"]
    # The config keeps the traffic with Anthropic; the running value sends it to another host.
    assert url["severity"] == "high"
    assert "config sets ANTHROPIC_BASE_URL=https://api.anthropic.com in /etc/agent/runtime.env" in url["title"]
    assert f"the running process {proc.pid} (" in url["title"] and "the running value wins" in url["title"]
    assert "llm-gw.corp.internal:8080/anthropic" in url["title"]
    assert {loc["path"] for loc in url["locations"]} == {"/etc/agent/runtime.env", f"/proc/{proc.pid}/environ"}
    model = found[f"setting-runtime-differs:ANTHROPIC_MODEL:{proc.pid}"]
    assert model["severity"] == "low"
    assert "ANTHROPIC_MODEL=claude-opus-4-8" in model["title"] and "has claude-sonnet-4-5" in model["title"]


def test_running_values_that_agree_with_the_env_file_are_no_finding(tmp_path: Path) -> None:
    vm = tmp_path / "vm"
    write(vm, "/etc/agent/runtime.env", RUNTIME_ENV)
    # A trailing slash does not make another URL.
    proc = _idle_child({"ANTHROPIC_BASE_URL": "https://api.anthropic.com/", "ANTHROPIC_MODEL": "claude-opus-4-8"})
    try:
        doc = _json(_audit("audit", "--pid", str(proc.pid), "--root", str(vm), "-f", "json", "-q"))
    finally:
        proc.kill()
        proc.wait()
    (entry,) = doc["processes"]
    assert {v["name"] for v in entry["environment"]} == {"ANTHROPIC_BASE_URL", "ANTHROPIC_MODEL"}
    assert _differs(doc) == {}

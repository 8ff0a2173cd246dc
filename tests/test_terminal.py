"""The command line in a real pseudo terminal at 80 and 200 columns: colour, width, progress and Ctrl-C."""

from __future__ import annotations

import fcntl
import json
import os
import re
import select
import signal
import struct
import subprocess
import sys
import termios
import time
from pathlib import Path

import pytest

from tests.conftest import SAMPLE_VM, write

ANSI = re.compile(r"\x1b\[[0-9;]*[A-Za-z]")
CLI = [sys.executable, "-m", "scanner"]


def run_in_pty(args: list[str], columns: int, env: dict[str, str] | None = None, interrupt_after: str | None = None,
               timeout: float = 240) -> tuple[int, str]:
    """Run the command with a pseudo terminal of `columns` as its controlling terminal, stdin, stdout and stderr;
    with `interrupt_after`, type Ctrl-C once that text has appeared. Returns (exit status, what the terminal
    showed)."""
    master, slave = os.openpty()
    fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", 50, columns, 0, 0))  # before the child looks
    child_env = {k: v for k, v in os.environ.items() if k not in ("COLUMNS", "LINES")}
    child_env.update(env or {})

    def controlling_terminal() -> None:
        # As a user's shell starts a command: SIGINT at its default, even when this test runs in the background
        # of a shell without job control, which ignores it (an ignored signal stays ignored across exec).
        signal.signal(signal.SIGINT, signal.SIG_DFL)
        os.setsid()
        fcntl.ioctl(0, termios.TIOCSCTTY, 0)

    proc = subprocess.Popen(args, stdin=slave, stdout=slave, stderr=slave, env=child_env, close_fds=True,
                            preexec_fn=controlling_terminal)
    os.close(slave)
    out = b""
    sent = False
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        ready, _, _ = select.select([master], [], [], 0.1)
        if ready:
            try:
                data = os.read(master, 1 << 16)
            except OSError:  # the child closed the terminal
                break
            if not data:
                break
            out += data
        if interrupt_after is not None and not sent and interrupt_after.encode() in out:
            os.write(master, b"\x03")  # the terminal's line discipline sends SIGINT to the foreground group
            sent = True
    else:
        proc.kill()
    code = proc.wait()
    os.close(master)
    return code, out.decode("utf-8", "replace")


def _lines(text: str) -> list[str]:
    """What the terminal shows, line by line: colour removed, a progress line overwritten by what followed."""
    shown = []
    for raw in text.replace("\r\n", "\n").split("\n"):
        shown.append(ANSI.sub("", raw.split("\r")[-1]))
    return shown


@pytest.mark.parametrize("columns", [80, 200])
def test_scan_fits_the_terminal_in_colour(columns: int) -> None:
    code, out = run_in_pty([*CLI, "scan", str(SAMPLE_VM)], columns, env={"NO_COLOR": "", "FORCE_COLOR": ""})
    assert code == 0, out[-2000:]
    assert "\x1b[1;31mhigh" in out  # severities in colour on a terminal
    lines = _lines(out)
    assert max(len(ln) for ln in lines) <= columns
    assert len(lines) <= 400
    assert any(ln.startswith("Findings (") for ln in lines)
    header = next(ln for ln in lines if ln.startswith("severity"))
    assert header.split() == (["severity", "finding"] if columns < 150 else ["severity", "finding", "where"])
    code, plain = run_in_pty([*CLI, "scan", str(SAMPLE_VM)], columns, env={"NO_COLOR": "1"})
    assert code == 0 and "\x1b[1;31m" not in plain and "\x1b[33m" not in plain


@pytest.mark.parametrize("columns", [80, 200])
def test_diff_and_sessions_fit_and_colour_on_a_terminal(tmp_path: Path, columns: int) -> None:
    old = tmp_path / "old"
    write(old, "/etc/agent/agent.env", "AGENT_KILL_SWITCH=1\n")
    for args in ([*CLI, "diff", str(old), str(SAMPLE_VM)], [*CLI, "sessions", str(SAMPLE_VM)]):
        code, out = run_in_pty(args, columns, env={"NO_COLOR": "", "FORCE_COLOR": ""})
        assert code == 0, out[-2000:]
        assert "\x1b[1;31mhigh" in out or "\x1b[33mmedium" in out, args
        assert max(len(ln) for ln in _lines(out)) <= columns, args


def test_fleet_report_fits_and_colours_on_a_terminal(tmp_path: Path) -> None:
    pytest.importorskip("duckdb")
    from scanner import api
    from scanner.catalog import load
    from scanner.fleet.manifest import FleetTarget
    from scanner.fleet.store import FleetStore
    from scanner.inventory.document import dumps
    from scanner.options import ScanOptions
    from scanner.targets import Walker, WalkOptions

    inv = api.scan(Walker(str(SAMPLE_VM), WalkOptions()), api.ScanRequest(ScanOptions()), load([]))
    with FleetStore(tmp_path / "fleet.duckdb") as db:
        db.put_scanned(FleetTarget("vm-1", str(SAMPLE_VM), (("release", "A"),)), dumps(inv), "fp", "builtin", 0.1)
    for columns in (80, 200):
        code, out = run_in_pty([*CLI, "fleet", "report", "--store", str(tmp_path / "fleet.duckdb")], columns)
        assert code == 0, out[-2000:]
        assert "\x1b[1;31mhigh" in out
        assert max(len(ln) for ln in _lines(out)) <= columns


def _slow_tree(root: Path, files: int = 6000) -> Path:
    """Enough small files that a scan is still walking when Ctrl-C comes (progress shows every 500 files)."""
    body = "model: claude-opus-4-1\n" + "# notes on the agent's setup, kept for the next release\n" * 300
    for i in range(files):
        write(root, f"/srv/app/d{i // 100:03d}/f{i:05d}.yaml", body)
    return root


def test_progress_is_shown_on_the_terminal_and_cleared(tmp_path: Path) -> None:
    root = _slow_tree(tmp_path / "vm", 1200)
    code, out = run_in_pty([*CLI, "scan", str(root), "-o", str(tmp_path / "r.json"), "-f", "json", "-j", "1"], 80)
    assert code == 0, out[-2000:]
    assert re.search(r"\r\x1b\[K\d+ files, \d+ MiB", out)  # progress, rewritten in place
    assert out.rstrip().endswith("\x1b[K") or not _lines(out)[-1].strip()  # and cleared at the end
    assert json.loads((tmp_path / "r.json").read_text())["models"]


@pytest.mark.parametrize("attempt", range(3))
def test_ctrl_c_during_a_parallel_scan_is_one_line_and_130(tmp_path: Path, attempt: int) -> None:
    root = _slow_tree(tmp_path / "vm")
    report = tmp_path / "report.json"
    code, out = run_in_pty([*CLI, "scan", str(root), "--jobs", "2", "-f", "json", "-o", str(report)], 80,
                           interrupt_after=f"{500 * (attempt + 1)} files")
    assert code == 130, out[-2000:]
    assert "Traceback" not in out and "KeyboardInterrupt" not in out and "ForkProcess" not in out
    assert _lines(out)[-2:] == ["modelcensus: interrupted", ""] or _lines(out)[-1] == "modelcensus: interrupted"
    assert out.count("interrupted") == 1
    assert not report.exists() and not list(tmp_path.glob(".report.json.*"))  # no partial output

"""The pure parts of the live audit, on plain data: scoping, environment, SDK paths, sockets, mounts.

The psutil boundary itself is exercised by tests/test_live.py on real processes; here the data is what
that boundary produces (ProcessFacts, Socket), written out, so each rule is checked on its own.
"""

from __future__ import annotations

import dataclasses
from pathlib import Path

from scanner import api
from scanner.catalog import Catalog
from scanner.cli.audit import live_alias
from scanner.kinds.credentials import CredentialEvidence
from scanner.kinds.kill_switches import KillSwitchEvidence
from scanner.live.environ import read_environment
from scanner.live.process_facts import Gone, ProcessFacts, Socket
from scanner.live.relevance import FileIndex, SdkIndex, scrub_cmdline, sdks_loaded, to_inside
from scanner.live.scope import Scope
from scanner.live.snapshot import matches_scope
from scanner.live.snapshot_entries import audit_parts, process_skips
from scanner.live.sockets import map_sockets, parse_hosts
from scanner.options import ScanOptions
from scanner.targets import Walker, WalkOptions
from scanner.targets.live_root import excluded_mounts, live_target, parse_mounts
from scanner.vocab import SwitchState
from tests.conftest import write
from tests.test_live import FAKE_KEY

HOSTS = """\
127.0.0.1\tlocalhost
::1\t\tlocalhost ip6-localhost
# the service network
10.20.0.5\tinference-proxy.internal   # the proxy
10.20.0.7\tapi.anthropic.com
not-an-ip\tbroken
"""


def _facts(pid: int = 7, denied: tuple[tuple[str, str], ...] = ()) -> ProcessFacts:
    return ProcessFacts(pid, 1, "jarvisd", "jarvis", "/opt/jarvis/bin/jarvisd", ("jarvisd",), None, (), (), (), denied)


def test_scope_needs_every_given_filter() -> None:
    assert matches_scope(Scope(), 5, None, None, "x")
    assert matches_scope(Scope(pids=(5,)), 5, "root", "/usr/bin/python3.11", "python3")
    assert not matches_scope(Scope(pids=(6,)), 5, "root", None, "python3")
    assert not matches_scope(Scope(pids=(5,), users=("jarvis",)), 5, "root", None, "python3")
    glob = Scope(exe_globs=("*/jarvisd",))
    assert matches_scope(glob, 5, "jarvis", "/opt/jarvis/bin/jarvisd", "jarvisd")
    # Another user's exe is unreadable: its name, always visible, is matched instead.
    assert matches_scope(Scope(exe_globs=("jarvis*",)), 5, "jarvis", None, "jarvisd")
    assert not matches_scope(glob, 5, "jarvis", None, "python3")


def test_environment_is_read_like_an_env_file(catalog: Catalog) -> None:
    environ = [
        ("ANTHROPIC_API_KEY", FAKE_KEY),
        ("OPENAI_API_KEY", "${OPENAI_KEY}"),  # a reference, not a secret
        ("MY_SERVICE_TOKEN", "tok_0123abcd4567efgh89ij"),  # secret by its name
        ("ANTHROPIC_BASE_URL", "https://user:pw@gateway.example.com:8443/v1?key=abc"),
        ("JARVIS_DEFAULT_MODEL", "claude-opus-4-8"),
        ("JARVIS_KILL_SWITCH", "false"),
        ("LANG", "C.UTF-8"),
    ]
    reading = read_environment(42, environ, catalog)
    got = {v.name: (v.role, v.value, v.state) for v in reading.variables}
    assert got == {
        "ANTHROPIC_API_KEY": ("credential", "sk-ant-api03-…" + FAKE_KEY[-4:], None),
        "OPENAI_API_KEY": ("credential", None, None),
        "MY_SERVICE_TOKEN": ("credential", "…89ij", None),
        "ANTHROPIC_BASE_URL": ("base_url", "https://gateway.example.com:8443/v1", None),
        "JARVIS_DEFAULT_MODEL": ("model", "claude-opus-4-8", None),
        "JARVIS_KILL_SWITCH": ("kill_switch", "false", SwitchState.OFF),
    }
    creds = [e for e in reading.evidence if isinstance(e, CredentialEvidence)]
    assert {c.location.path for c in creds} == {"/proc/42/environ"}
    assert FAKE_KEY not in repr(reading)
    (switch,) = [e for e in reading.evidence if isinstance(e, KillSwitchEvidence)]
    assert switch.state is SwitchState.OFF


def test_sdk_files_are_recognised_by_their_package_directory(catalog: Catalog) -> None:
    index = SdkIndex(catalog)
    files = [
        "/usr/lib/x86_64-linux-gnu/libc.so.6",
        "/opt/app/venv/lib/python3.11/site-packages/anthropic/_vendor/data.bin",
        "/usr/lib/python3/dist-packages/anthropic/_tokenizer.so",
        "/srv/ui/node_modules/@anthropic-ai/sdk/dist/native.node",
        "/opt/app/venv/lib/python3.11/site-packages/anthropic_fake/x.so",  # not the anthropic package
        "/opt/app/venv/lib/python3.11/site-packages/requests/x.so",
    ]
    got = {(s.ecosystem, s.name): s.path for s in sdks_loaded(files, index)}
    assert got == {
        ("npm", "@anthropic-ai/sdk"): "/srv/ui/node_modules/@anthropic-ai/sdk/dist/native.node",
        ("pypi", "anthropic"): "/opt/app/venv/lib/python3.11/site-packages/anthropic/_vendor/data.bin",
    }


def test_command_line_credentials_are_redacted(catalog: Catalog) -> None:
    cmd = ["proxy", "--api-key", "s3cr3t-value-0123456789", "--token=abcdefghijklmnopqrstuvwx", "--port", "8080",
           f"--header=x-api-key: {FAKE_KEY}"]  # fmt: skip
    shown = scrub_cmdline(cmd, catalog)
    assert shown[:3] == ("proxy", "--api-key", "…6789")
    assert shown[3] == "--token=…uvwx" and shown[4:6] == ("--port", "8080")
    assert FAKE_KEY not in " ".join(shown) and "…" + FAKE_KEY[-4:] in shown[6]


def test_secrets_a_command_line_hands_on_are_redacted(catalog: Catalog) -> None:
    """Not only flags: a setting handed to `env` or a shell, a header handed to curl, an authorization and a URL's
    user info hold secrets no catalog format matches."""
    secrets = ("plain-value-0123456789", "pw-for-the-proxy", "tok-0123456789abcdef", "hdr-0123456789abcdef")
    cmd = ["env", f"OPENAI_API_KEY={secrets[0]}", "MODEL=gpt-4o", "curl", f"https://svc:{secrets[1]}@proxy:8443/v1",
           "-H", f"Authorization: Bearer {secrets[2]}", f"--header=x-api-key: {secrets[3]}",
           f"sh -c 'curl -H \"Authorization: Bearer {secrets[2]}\" https://x'", "host:8000"]
    shown = scrub_cmdline(cmd, catalog)
    assert not [s for s in secrets if s in " ".join(shown)]
    assert shown[1] == "OPENAI_API_KEY=…6789" and shown[2] == "MODEL=gpt-4o" and shown[4] == "https://proxy:8443/v1"
    assert shown[7] == "--header=x-api-key: …cdef" and shown[9] == "host:8000"
    assert "Bearer …cdef\" https://x'" in shown[8]


def test_sockets_are_named_by_the_machines_own_evidence(catalog: Catalog) -> None:
    hosts = parse_hosts(HOSTS)
    assert hosts["10.20.0.5"] == ("inference-proxy.internal",) and "not-an-ip" not in hosts
    sockets = [
        Socket("tcp", ("10.0.0.2", 40000), ("10.20.0.5", 8080), "ESTABLISHED"),  # base URL + /etc/hosts
        Socket("tcp", ("10.0.0.2", 40001), ("10.20.0.7", 443), "ESTABLISHED"),  # /etc/hosts names an API host
        Socket("tcp", ("10.0.0.2", 40002), ("203.0.113.9", 443), "ESTABLISHED"),  # TLS: the one configured host
        Socket("tcp", ("::ffff:127.0.0.1", 40003), ("::ffff:127.0.0.1", 9000), "ESTABLISHED"),  # base URL by IP
        Socket("tcp", ("0.0.0.0", 8000), None, "LISTEN"),
    ]
    base_urls = ["http://inference-proxy.internal:8080/anthropic", "http://127.0.0.1:9000/v1"]
    conns = map_sockets(9, "proxy", sockets, base_urls, ["api.openai.com"], hosts, frozenset(), catalog)
    got = [(c.remote, c.endpoint, c.vendor, c.mapped_by) for c in conns]
    assert got == [
        ("10.20.0.5:8080", "inference-proxy.internal", None, "base-url+etc-hosts"),
        ("10.20.0.7:443", "api.anthropic.com", "anthropic", "etc-hosts"),
        ("203.0.113.9:443", "api.openai.com", "openai", "sole-configured-host"),
        ("127.0.0.1:9000", "127.0.0.1", None, "base-url"),
        (None, None, None, None),
    ]
    assert conns[4].local == "0.0.0.0:8000" and conns[4].state == "LISTEN"
    # With two configured API hosts, TLS on 443 to an unnamed address is only a candidate.
    two = map_sockets(9, "p", sockets[2:3], [], ["api.openai.com", "api.anthropic.com"], {}, frozenset(), catalog)
    assert (two[0].endpoint, two[0].candidates) == (None, ("api.anthropic.com", "api.openai.com"))


def test_mounts_decide_what_the_live_walk_leaves_out(tmp_path: Path, catalog: Catalog) -> None:
    real = parse_mounts(Path("/proc/self/mounts").read_text())
    assert ("/proc", "proc") in real  # the parser reads this machine's own table
    text = (
        "proc /proc proc rw 0 0\n"
        "server:/export /mnt/shared\\040data nfs4 rw 0 0\n"
        "tmpfs /run tmpfs rw 0 0\n"
        "sysfs /sys sysfs rw 0 0\n"
    )
    mounts = parse_mounts(text)
    assert ("/mnt/shared data", "nfs4") in mounts
    assert excluded_mounts(mounts, "/", False) == (
        ("/mnt/shared data", "network filesystem nfs4"),
        ("/proc", "pseudo filesystem proc"),
        ("/sys", "pseudo filesystem sysfs"),
    )
    assert excluded_mounts(mounts, "/", True) == (("/mnt/shared data", "network filesystem nfs4"),)
    # The same walker as a directory scan, rooted at a tree whose /mnt/nfs is a network mount.
    write(tmp_path, "/mnt/nfs/agent.yaml", "model: claude-opus-4-8\n")
    write(tmp_path, "/etc/agent.yaml", "model: claude-sonnet-4-6\n")
    target = live_target(str(tmp_path), mounts=[(f"{tmp_path}/mnt/nfs", "nfs")])
    inv = api.scan(target, api.ScanRequest(ScanOptions()), catalog)
    assert inv.target.kind == "live"
    assert {m.name for m in inv.models} == {"claude-sonnet-4-6"}
    assert [(s.path, s.detail) for s in inv.skipped] == [("/mnt/nfs", "network filesystem nfs")]


def test_skips_and_parts_say_what_was_not_seen() -> None:
    facts = [_facts(7), _facts(8, (("environ", "access denied"), ("connections", "zombie process")))]
    skips = process_skips(facts, [Gone(9, "no such process")])
    assert [(s.path, s.reason.value) for s in skips] == [
        ("/proc/9", "process-gone"),
        ("/proc/8/environ", "permission-denied"),
        ("/proc/8/net", "read-error"),
    ]
    assert "user jarvis" in skips[1].detail
    parts = {p.name: (p.status, p.detail) for p in audit_parts(facts, [], (), live_only=False)}
    assert parts["environment"] == ("partial", "1 of 2 process(es) not readable")
    assert parts["connections"][0] == "partial" and parts["open-files"][0] == "complete"
    assert parts["filesystem"] == ("complete", "walked") and parts["processes"][0] == "complete"


def test_paths_and_alias() -> None:
    assert to_inside("/opt/x", "/") == "/opt/x"
    assert to_inside("/tmp/vm/opt/x", "/tmp/vm/") == "/opt/x"
    assert to_inside("/usr/bin/python3", "/tmp/vm") is None
    assert live_alias(["scan", "--live", "--pid", "5"]) == ["audit", "--pid", "5"]
    assert live_alias(["scan", "/mnt/vm"]) == ["scan", "/mnt/vm"]


def test_directory_scan_has_no_live_sections(scan_dir, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    write(tmp_path, "/etc/a.yaml", "model: claude-opus-4-8\n")
    _, doc = scan_dir(tmp_path)
    assert "processes" not in doc and "connections" not in doc and "live" not in doc["target"]


def test_a_running_base_url_between_two_proxies_is_medium(tmp_path: Path, catalog: Catalog) -> None:
    """Both hosts are proxies: the running value still wins, but no traffic newly leaves the vendor."""
    from scanner import api

    write(tmp_path, "/etc/agent/runtime.env", "OPENAI_BASE_URL=http://proxy-a.corp.internal/v1\n")
    environ = (("OPENAI_BASE_URL", "http://proxy-b.corp.internal/v1"), ("OPENAI_MODEL", "gpt-5.5"))
    facts = dataclasses.replace(_facts(), environ=environ)
    inv = api.audit(
        api.AuditRequest(ScanOptions(), Scope(pids=(7,)), root=str(tmp_path), one_file_system=False),
        catalog,
        gather_processes=lambda _scope: ([facts], []),
    )
    found = [f for f in inv.findings if f.id.startswith("setting-runtime-differs:")]
    assert [(f.id, f.severity.value) for f in found] == [("setting-runtime-differs:OPENAI_BASE_URL:7", "medium")]
    assert found[0].title == (
        "config sets OPENAI_BASE_URL=http://proxy-a.corp.internal/v1 in /etc/agent/runtime.env; "
        "the running process 7 (jarvisd) has http://proxy-b.corp.internal/v1; the running value wins"
    )
    # A model only the process sets has nothing on disk to differ from.
    assert not any("OPENAI_MODEL" in f.id for f in inv.findings)


def test_a_process_inherits_only_what_its_files_wire(tmp_path: Path, catalog: Catalog) -> None:
    """A file ties a process to the models, hosts and credentials it configures; a doc that names a model ties
    nothing (a mention is not wiring)."""
    write(tmp_path, "/etc/jarvis/config.yaml",
          f"model: claude-opus-4-1\nbase_url: https://api.anthropic.com/v1\napi_key: {FAKE_KEY}\n")
    write(tmp_path, "/opt/jarvis/README.md", "# Jarvis\n\nWorks with `gpt-4o` and `claude-opus-4-1`.\n")
    inv = api.scan(Walker(str(tmp_path), WalkOptions()), api.ScanRequest(ScanOptions()), catalog)
    assert any(loc.path == "/opt/jarvis/README.md" for m in inv.models for loc in m.locations)
    files = FileIndex(inv)
    tie = files.tie("/etc/jarvis/config.yaml", "config")
    assert tie is not None and tie.models == ("claude-opus-4-1",) and tie.endpoints == ("api.anthropic.com",)
    assert len(tie.credentials) == 1 and FAKE_KEY not in tie.credentials[0]
    assert files.tie("/opt/jarvis/README.md", "arg") is None

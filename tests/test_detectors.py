"""End-to-end detector behaviour through `scan_dir`, on VM trees built in tmp_path with real file formats."""

from __future__ import annotations

import hashlib
import json
import os
from pathlib import Path
from typing import Any

import pytest

from scanner import api
from scanner.catalog import Catalog
from scanner.detectors import DETECTORS, Detector
from scanner.inventory.document import dumps
from scanner.kinds import Inventory
from scanner.options import ScanOptions
from scanner.render import render
from scanner.targets.walker import Walker, WalkOptions
from tests.conftest import REPO, ScanFn, entry, names, write


def locs(e: dict[str, Any]) -> list[tuple[str, int | None, str]]:
    return [(loc["path"], loc["line"], loc["context"]) for loc in e["locations"]]


def assert_never_shown(inv: Inventory, doc: dict[str, Any], *secrets: str) -> None:
    """Neither a secret nor its hidden middle reaches the JSON, the table or a skip detail."""
    outputs = [dumps(inv), render("table", inv), *(s["detail"] for s in doc["skipped"])]
    for secret in secrets:
        for text in outputs:
            assert secret not in text
            assert secret[4:-4] not in text


def need_catalog(name: str) -> None:
    if not (REPO / "catalogs" / f"{name}.toml").exists():
        pytest.skip(f"catalogs/{name}.toml is not there yet")


# --- config detector -------------------------------------------------------------------------------


def test_model_keys_in_yaml_json_toml_including_in_house_ids(tmp_path: Path, scan_dir: ScanFn) -> None:
    write(tmp_path, "/etc/agent/agent.yaml", "agent:\n  planner_model: muse-9.1\n  model: claude-opus-4-8\n")
    write(tmp_path, "/etc/agent/settings.json", '{\n  "default_model": "muse-9.1-fast"\n}\n')
    write(tmp_path, "/etc/agent/daemon.toml", '[router]\ntimeout_ms = 2500\nfallback_model = "muse-8"\n')
    _, doc = scan_dir(tmp_path)
    for name, where in [
        ("muse-9.1", ("/etc/agent/agent.yaml", 2, "config")),
        ("muse-9.1-fast", ("/etc/agent/settings.json", 2, "config")),
        ("muse-8", ("/etc/agent/daemon.toml", 3, "config")),
    ]:
        m = entry(doc, "models", name=name)
        assert (m["catalog"], m["wired"], m["vendor"], m["canonical"]) == ("unknown", True, None, None)
        assert locs(m) == [where]
    opus = entry(doc, "models", name="claude-opus-4-8")
    assert (opus["catalog"], opus["vendor"], opus["wired"]) == ("known", "anthropic", True)
    assert locs(opus) == [("/etc/agent/agent.yaml", 3, "config")]
    assert "2500" not in names(doc)
    assert entry(doc, "findings", id="uncatalogued-models-wired")["severity"] == "info"


def test_litellm_proxy_config_deployment_alias_carries_base_model(tmp_path: Path, scan_dir: ScanFn) -> None:
    write(
        tmp_path,
        "/etc/litellm/config.yaml",
        """\
model_list:
  - model_name: support-chat
    litellm_params:
      model: azure/support-chat-eus2
      api_base: https://contoso-eus2.openai.azure.com
      api_key: os.environ/AZURE_API_KEY
      api_version: "2025-04-01-preview"
    model_info:
      base_model: gpt-5.5
  - model_name: opus
    litellm_params:
      model: anthropic/claude-opus-4-8
      api_key: os.environ/ANTHROPIC_API_KEY
general_settings:
  master_key: os.environ/LITELLM_MASTER_KEY
""",
    )
    _, doc = scan_dir(tmp_path)
    alias = entry(doc, "models", name="azure/support-chat-eus2")
    assert alias["base_model"] == "gpt-5.5" and alias["wired"] is True
    assert locs(alias) == [("/etc/litellm/config.yaml", 4, "config")]
    assert entry(doc, "models", name="support-chat")["base_model"] == "gpt-5.5"
    routed = entry(doc, "models", name="anthropic/claude-opus-4-8")  # LiteLLM's provider/model spelling
    assert (routed["wired"], routed["canonical"] in (None, "claude-opus-4-8")) == (True, True)
    assert locs(routed) == [("/etc/litellm/config.yaml", 12, "config")]
    assert "contoso-eus2.openai.azure.com" in names(doc, "endpoints", "host")
    assert doc["credentials"] == []  # os.environ/… references are not secrets
    if (REPO / "catalogs" / "azure.toml").exists():
        assert alias["served_via"] == "azure"


def test_azure_deployment_map_sets_base_model(tmp_path: Path, scan_dir: ScanFn) -> None:
    azure = "endpoint: https://contoso.openai.azure.com\napi_version: '2025-04-01-preview'\ndeployments:\n"
    write(tmp_path, "/etc/agent/azure.yaml", azure + "  support-bot: gpt-5.5\n  summarizer: gpt-5.6-sol\n")
    _, doc = scan_dir(tmp_path)
    bot = entry(doc, "models", name="azure/support-bot")
    assert (bot["base_model"], bot["served_via"], bot["wired"]) == ("gpt-5.5", "azure", True)
    assert locs(bot) == [("/etc/agent/azure.yaml", 4, "config")]
    assert entry(doc, "models", name="azure/summarizer")["base_model"] == "gpt-5.6-sol"
    assert entry(doc, "models", name="gpt-5.5")["wired"] is True


def test_commented_out_yaml_line_is_a_comment_not_wiring(tmp_path: Path, scan_dir: ScanFn) -> None:
    write(tmp_path, "/etc/agent/agent.yaml", "model: muse-9.1\n# model: claude-opus-4-8\nlog_level: info\n")
    _, doc = scan_dir(tmp_path)
    opus = entry(doc, "models", name="claude-opus-4-8")
    assert opus["wired"] is False
    assert locs(opus) == [("/etc/agent/agent.yaml", 2, "comment")]
    assert entry(doc, "models", name="muse-9.1")["wired"] is True


def test_malformed_json_config_still_yields_its_models_with_parse_error(tmp_path: Path, scan_dir: ScanFn) -> None:
    broken = (
        '{\n  "model": "muse-9.1",\n  "fallback_model": "claude-haiku-4-5"\n  "base_url": "https://gw.corp.internal"'
    )
    write(tmp_path, "/etc/agent/broken.json", broken + ",\n")
    _, doc = scan_dir(tmp_path)
    for name, line in [("muse-9.1", 2), ("claude-haiku-4-5", 3)]:
        m = entry(doc, "models", name=name)
        assert [(x["line"], x["parse_error"]) for x in m["locations"]] == [(line, True)]
    gw = entry(doc, "endpoints", host="gw.corp.internal")
    assert [x["parse_error"] for x in gw["locations"]] == [True]
    assert not [s for s in doc["skipped"] if s["reason"] == "detector-error"]


def test_base_urls_become_endpoints_without_userinfo_query_or_fragment(tmp_path: Path, scan_dir: ScanFn) -> None:
    url = "https://svcuser:Hunter2Pass@llm-gw.corp.internal/v1?key=QuerySecret123#frag"
    write(tmp_path, "/etc/agent/agent.yaml", f"base_url: {url}\n")
    write(tmp_path, "/srv/app/.env", "ANTHROPIC_BASE_URL=https://api.anthropic.com/?api_key=QuerySecret456\n")
    inv, doc = scan_dir(tmp_path)
    gw = entry(doc, "endpoints", host="llm-gw.corp.internal")
    assert (gw["urls"], gw["wired"], gw["vendor"]) == (["https://llm-gw.corp.internal/v1"], True, None)
    api = entry(doc, "endpoints", host="api.anthropic.com")
    assert (api["urls"], api["vendor"], api["served_via"]) == (["https://api.anthropic.com/"], "anthropic", "direct")
    assert ("/srv/app/.env", 1, "env") in locs(api)
    assert_never_shown(inv, doc, "svcuser:Hunter2Pass", "QuerySecret123", "QuerySecret456")


def test_kill_switches_in_any_spelling(tmp_path: Path, scan_dir: ScanFn) -> None:
    write(tmp_path, "/etc/agent/safety.yaml", "safety:\n  kill_switch: true\n")
    write(tmp_path, "/etc/agent/flags.json", '{\n  "features": {\n    "killSwitch": false\n  }\n}\n')
    write(tmp_path, "/etc/agent/guard.toml", '[guard]\nKILLSWITCH = "auto"\n')
    write(tmp_path, "/srv/app/.env", "LLM_KILL_SWITCH=1\n")
    _, doc = scan_dir(tmp_path)
    got = {(k["name"], k["value"], k["state"]): locs(k) for k in doc["kill_switches"]}
    assert got == {
        ("safety.kill_switch", "true", "on"): [("/etc/agent/safety.yaml", 2, "config")],
        ("features.killSwitch", "false", "off"): [("/etc/agent/flags.json", 3, "config")],
        ("guard.KILLSWITCH", "auto", "unknown"): [("/etc/agent/guard.toml", 2, "config")],
        ("LLM_KILL_SWITCH", "1", "on"): [("/srv/app/.env", 1, "env")],
    }
    assert entry(doc, "findings", id="kill-switch-armed:LLM_KILL_SWITCH")["severity"] == "info"
    # off in a config file (not the runtime environment) is reported, but not as a disarmed switch
    assert not [f for f in doc["findings"] if f["id"].startswith("kill-switch-disarmed")]


def test_override_called_a_kill_switch_by_its_comment(tmp_path: Path, scan_dir: ScanFn) -> None:
    note = "Kill switch: set to 1 to force every request through the audit proxy"
    write(tmp_path, "/srv/app/.env", f"# {note}\nFOO_OVERRIDE=0\n\n# unrelated: tuning\nBAR_OVERRIDE=0\n")
    _, doc = scan_dir(tmp_path)
    assert [k["name"] for k in doc["kill_switches"]] == ["FOO_OVERRIDE"]
    switch = doc["kill_switches"][0]
    assert (switch["value"], switch["state"]) == ("0", "off")
    assert switch["note"] == note
    assert locs(switch) == [("/srv/app/.env", 2, "env")]
    disarmed = entry(doc, "findings", id="kill-switch-disarmed:FOO_OVERRIDE")
    assert disarmed["severity"] == "high"
    assert [(x["path"], x["line"]) for x in disarmed["locations"]] == [("/srv/app/.env", 2)]


def test_systemd_environment_file_is_resolved_inside_the_root(tmp_path: Path, scan_dir: ScanFn) -> None:
    unit = '[Service]\nEnvironment="AGENT_MODEL=muse-unit-3" "GREETING=two words"\nEnvironmentFile=/etc/x/settings\n'
    write(tmp_path, "/etc/systemd/system/agent.service", unit + "EnvironmentFile=-/etc/x/missing\nExecStart=/bin/a\n")
    # /etc/x/settings is an absolute symlink: it must be re-anchored at the root, as in a chroot.
    write(tmp_path, "/opt/agent/etc/settings", "# from the env file\nAGENT_MODEL=muse-envfile-7\nLLM_KILL_SWITCH=1\n")
    (tmp_path / "etc/x").mkdir(parents=True)
    os.symlink("/opt/agent/etc/settings", tmp_path / "etc/x/settings")
    _, doc = scan_dir(tmp_path)
    assert locs(entry(doc, "models", name="muse-unit-3")) == [("/etc/systemd/system/agent.service", 2, "env")]
    envfile = entry(doc, "models", name="muse-envfile-7")
    assert envfile["wired"] is True
    # Where the unit reads it (re-anchored at the root), and the file itself, read as the settings it is.
    assert sorted(set(locs(envfile))) == [("/etc/x/settings", 2, "env"), ("/opt/agent/etc/settings", 2, "env")]
    switch = entry(doc, "kill_switches", name="LLM_KILL_SWITCH")
    assert (switch["value"], switch["state"]) == ("1", "on")
    assert sorted(set(locs(switch))) == [("/etc/x/settings", 3, "env"), ("/opt/agent/etc/settings", 3, "env")]
    every_path = [x["path"] for part in ("models", "kill_switches") for e in doc[part] for x in e["locations"]]
    assert every_path and not [p for p in every_path if str(tmp_path) in p]


def test_quoted_env_value_with_inline_comment(tmp_path: Path, scan_dir: ScanFn) -> None:
    write(tmp_path, "/srv/app/.env", 'AGENT_MODEL="muse-9.1"  # pinned until Q3\nLLM_KILL_SWITCH="1"  # armed\n')
    _, doc = scan_dir(tmp_path)
    assert entry(doc, "models", name="muse-9.1")["wired"] is True
    assert entry(doc, "kill_switches", name="LLM_KILL_SWITCH")["state"] == "on"


# --- content detector ----------------------------------------------------------------------------

ELF = b"\x7fELF\x02\x01\x01\x00" + bytes(56) + b"\x48\x89\xe5\x90\x00"


def test_model_ids_in_content_by_context(tmp_path: Path, scan_dir: ScanFn) -> None:
    client = 'import anthropic\n\nclient = anthropic.Anthropic()\nclient.messages.create(model="claude-opus-4-8")\n'
    write(tmp_path, "/opt/agent/app/client.py", client)
    write(tmp_path, "/opt/agent/README.md", "# Agent\n\nThe 2024 prototype ran on claude-3-opus-20240229.\n")
    write(tmp_path, "/opt/agent/tests/fixtures/sample.json", '{"model": "claude-haiku-4-5"}\n')
    write(tmp_path, "/opt/agent/venv/lib/python3.11/site-packages/sdk/models.py", 'M = [\n  "claude-sonnet-4-6",\n]\n')
    write(tmp_path, "/opt/agent/bin/agentd", ELF + b"claude-opus-4-7\x00muse_native_v1\x00api.anthropic.com\x00")
    _, doc = scan_dir(tmp_path)
    expected = {
        "claude-opus-4-8": (True, [("/opt/agent/app/client.py", 4, "source")]),
        "claude-3-opus-20240229": (False, [("/opt/agent/README.md", 3, "docs")]),
        "claude-haiku-4-5": (False, [("/opt/agent/tests/fixtures/sample.json", 1, "test")]),
        "claude-sonnet-4-6": (False, [("/opt/agent/venv/lib/python3.11/site-packages/sdk/models.py", 2, "package")]),
        "claude-opus-4-7": (True, [("/opt/agent/bin/agentd", None, "binary")]),
    }
    assert {m["name"]: (m["wired"], locs(m)) for m in doc["models"]} == expected
    assert locs(entry(doc, "endpoints", host="api.anthropic.com")) == [("/opt/agent/bin/agentd", None, "binary")]


@pytest.mark.parametrize(
    ("route", "token"),
    [("bedrock", "us.anthropic.claude-sonnet-4-5-20250929-v1:0"), ("vertex", "claude-opus-4-5@20251101")],
)
def test_hosted_forms_in_source(tmp_path: Path, scan_dir: ScanFn, route: str, token: str) -> None:
    need_catalog(route)
    write(tmp_path, "/opt/agent/app/route.py", f'import os\n\nMODEL_ID = "{token}"\n')
    _, doc = scan_dir(tmp_path)
    m = entry(doc, "models", name=token)
    assert (m["served_via"], m["vendor"], m["wired"]) == (route, "anthropic", True)
    assert m["canonical"] and m["canonical"].startswith(("claude-sonnet-4-5", "claude-opus-4-5"))
    assert locs(m) == [("/opt/agent/app/route.py", 3, "source")]


# --- credentials ---------------------------------------------------------------------------------


def fake_anthropic_key(tag: str) -> str:
    """A well-formed FAKE key: sk-ant-api03- + 93 characters + AA (the gitleaks/trufflehog shape)."""
    return "sk-ant-api03-" + ((tag + "Fk9Tq2Lm7Zw") * 12)[:93] + "AA"


def as_svc_proxy(root: Path) -> None:
    """The tree's own passwd/group name the current uid/gid `svc-proxy` (the first line for an id wins)."""
    uid, gid = os.getuid(), os.getgid()
    write(root, "/etc/passwd", f"svc-proxy:x:{uid}:{gid}::/var/lib/proxy:/bin/false\nroot:x:0:0::/root:/bin/sh\n")
    write(root, "/etc/group", f"svc-proxy:x:{gid}:\nroot:x:0:\n")


def test_credentials_in_config_env_and_key_file(tmp_path: Path, scan_dir: ScanFn) -> None:
    in_config, in_env, in_keyfile = fake_anthropic_key("Cfg"), fake_anthropic_key("Env"), fake_anthropic_key("Kf")
    hex_key = "9f3c2a7b1e5d4c8f0a6b2d9e7c1f3a5b"
    as_svc_proxy(tmp_path)
    write(tmp_path, "/etc/agent/agent.yaml", f"model: muse-9.1\nproxy:\n  api_key: {in_config}\n", mode=0o600)
    write(tmp_path, "/srv/app/.env", f"# provider key\nANTHROPIC_API_KEY={in_env}\n", mode=0o640)
    write(tmp_path, "/etc/proxy/keys/anthropic.key", in_keyfile + "\n", mode=0o400)
    write(tmp_path, "/etc/proxy/keys/gateway.key", hex_key + "\n", mode=0o400)
    write(tmp_path, "/var/log/agent/agent.log", f"boot key={in_env}\n" + "x" * 9000 + "\n", mode=0o640)
    os.mkfifo(tmp_path / "srv/app/control.fifo")
    inv, doc = scan_dir(tmp_path, max_file_size=4096)
    by_sha = {c["sha256"]: c for c in doc["credentials"]}
    assert len(by_sha) == 4
    for secret, where, modes in [
        (in_config, [("/etc/agent/agent.yaml", 3, "config")], ["0600"]),
        (in_env, [("/srv/app/.env", 2, "env"), ("/var/log/agent/agent.log", 1, "log")], ["0640", "0640"]),
        (in_keyfile, [("/etc/proxy/keys/anthropic.key", 1, "config")], ["0400"]),
    ]:
        cred = by_sha[hashlib.sha256(secret.encode()).hexdigest()]
        assert (cred["type"], cred["vendor"]) == ("anthropic-api-key", "anthropic")
        assert cred["redacted"] == "sk-ant-api03-…" + secret[-4:]
        assert locs(cred) == where
        assert [x["mode"] for x in cred["locations"]] == modes
        assert {x["owner"] for x in cred["locations"]} == {"svc-proxy:svc-proxy"}
    plain = by_sha[hashlib.sha256(hex_key.encode()).hexdigest()]
    assert (plain["type"], plain["vendor"], plain["redacted"]) == ("api-key", None, "…3a5b")
    assert [(x["mode"], x["owner"]) for x in plain["locations"]] == [("0400", "svc-proxy:svc-proxy")]
    assert {s["reason"] for s in doc["skipped"]} == {"fifo", "too-large"}
    assert not [f for f in doc["findings"] if f["id"].startswith("credential-world-readable")]
    assert_never_shown(inv, doc, in_config, in_env, in_keyfile, hex_key)


def test_world_readable_key_file_is_a_high_finding(tmp_path: Path, scan_dir: ScanFn) -> None:
    loose, tight = fake_anthropic_key("Loose"), fake_anthropic_key("Tight")
    write(tmp_path, "/etc/proxy/keys/loose.key", loose + "\n", mode=0o644)
    write(tmp_path, "/etc/proxy/keys/tight.key", tight + "\n", mode=0o440)
    inv, doc = scan_dir(tmp_path)
    loose_sha = hashlib.sha256(loose.encode()).hexdigest()
    f = entry(doc, "findings", id=f"credential-world-readable:{loose_sha[:16]}")
    assert f["severity"] == "high"
    assert [x["path"] for x in f["locations"]] == ["/etc/proxy/keys/loose.key"]
    assert loose[-4:] in f["title"] and loose[13:-4] not in f["title"]
    tight_sha = hashlib.sha256(tight.encode()).hexdigest()
    assert f"credential-world-readable:{tight_sha[:16]}" not in {x["id"] for x in doc["findings"]}
    assert_never_shown(inv, doc, loose, tight)


def test_environment_file_keeps_mode_of_a_world_readable_secret(tmp_path: Path, scan_dir: ScanFn) -> None:
    key = fake_anthropic_key("Dflt")
    write(tmp_path, "/etc/default/agent", f"ANTHROPIC_API_KEY={key}\n", mode=0o644)
    write(tmp_path, "/etc/systemd/system/agent.service", "[Service]\nEnvironmentFile=/etc/default/agent\n")
    _, doc = scan_dir(tmp_path)
    cred = doc["credentials"][0]
    assert [x["mode"] for x in cred["locations"]] == ["0644"]
    entry(doc, "findings", id=f"credential-world-readable:{cred['sha256'][:16]}")


def _leak(reason: str, inside: str, content: bytes, secret: str) -> Any:
    """A place a secret once leaked from (`reason`); kept as a regression case."""
    return pytest.param(inside, content, secret)


_KEY = fake_anthropic_key("Leak")


@pytest.mark.parametrize(
    ("inside", "content", "secret"),
    [
        _leak(
            "a comment that names a kill switch makes the next assignment (a secret) a kill switch, value printed",
            "/srv/app/.env",
            f"# Kill switch: if it fires, rotate this key\nANTHROPIC_API_KEY={_KEY}\n".encode(),
            _KEY,
        ),
        _leak(
            "secrets.scrub is never called: a key in a base URL's path reaches endpoints[].urls",
            "/etc/agent/agent.yaml",
            f"base_url: https://gw.corp.internal/keys/{_KEY}/v1\n".encode(),
            _KEY,
        ),
        _leak(
            "safe_url returns the raw URL, userinfo included, when the port is not a number",
            "/etc/agent/agent.yaml",
            b"base_url: https://admin:Hunter2Pass@gw.corp.internal:${PORT}/v1\n",
            "admin:Hunter2Pass",
        ),
        _leak(
            "content._URL_AFTER does not stop at NUL: a binary's URL swallows the next strings (a key here)",
            "/opt/agent/bin/agentd",
            ELF + f"https://api.anthropic.com/v1/messages\0{_KEY}\0muse-9\0".encode(),
            _KEY,
        ),
    ],
    ids=["kill-switch-comment", "url-path", "url-templated-port", "binary-url-past-nul"],
)
def test_secrets_next_to_endpoints_and_switches_are_not_printed(
    tmp_path: Path, scan_dir: ScanFn, inside: str, content: bytes, secret: str
) -> None:
    write(tmp_path, inside, content)
    inv, doc = scan_dir(tmp_path)
    assert doc["endpoints"] or doc["credentials"]  # the file was understood, not skipped
    assert_never_shown(inv, doc, secret)


def test_placeholders_are_never_credentials(tmp_path: Path, scan_dir: ScanFn) -> None:
    env = "OPENAI_API_KEY=REPLACE_ME\nANTHROPIC_API_KEY=<your-key>\nAZURE_OPENAI_API_KEY=${OPENAI_API_KEY}\n"
    write(tmp_path, "/srv/app/.env", env + "LLM_API_KEY=sk-xxxxxxxxxxxxxxxxxxxx\nGATEWAY_TOKEN=REPLACE_ME_TOKEN_01\n")
    yml = 'api_key: "${OPENAI_API_KEY}"\ntoken: sk-xxxxxxxxxxxxxxxxxxxx\nsecret: "<your-key>"\npassword: REPLACE_ME\n'
    write(tmp_path, "/etc/agent/agent.yaml", yml)
    write(tmp_path, "/etc/proxy/keys/openai.key", "sk-xxxxxxxxxxxxxxxxxxxx\n")
    write(tmp_path, "/etc/proxy/keys/anthropic.key", "<your-key>\n")
    write(tmp_path, "/etc/proxy/keys/azure.key", "REPLACE_ME\n")
    _, doc = scan_dir(tmp_path)
    assert doc["credentials"] == []
    assert not [f for f in doc["findings"] if f["id"].startswith("credential")]


# --- installed and declared packages ----------------------------------------------------------------

SITE = "/opt/app/venv/lib/python3.11/site-packages"
NODE_SDK = "/srv/ui/node_modules/@anthropic-ai/sdk/package.json"
DIST_INFO = "anthropic-2.14.0.dist-info/METADATA"


def metadata(name: str, version: str, version_header: str = "2.3") -> str:
    return (
        f"Metadata-Version: {version_header}\nName: {name}\nVersion: {version}\nSummary: The {name} library\n"
        "License: Apache-2.0\nRequires-Python: >=3.9\nRequires-Dist: httpx<1,>=0.23.0\n"
        "Description-Content-Type: text/markdown\n\n"
        f"# {name}\n\nVersion: 0.0.0-not-a-header\n"
    )


def npm_manifest(name: str, version: str) -> str:
    return f'{{\n  "name": "{name}",\n  "version": "{version}",\n  "main": "./index.js",\n  "license": "MIT"\n}}\n'


def test_installed_python_and_npm_sdks(tmp_path: Path, scan_dir: ScanFn) -> None:
    write(tmp_path, f"{SITE}/anthropic-2.14.0.dist-info/METADATA", metadata("anthropic", "2.14.0"))
    write(tmp_path, f"{SITE}/anthropic-2.14.0.dist-info/INSTALLER", "pip\n")
    write(tmp_path, f"{SITE}/requests-2.32.5.dist-info/METADATA", metadata("requests", "2.32.5", "2.4"))
    dist = "/usr/lib/python3/dist-packages"
    pkg_info = metadata("langchain-anthropic", "0.3.1", "1.2")
    write(tmp_path, f"{dist}/langchain_anthropic-0.3.1.egg-info/PKG-INFO", pkg_info)
    write(tmp_path, f"{dist}/claude_agent_sdk-0.1.4.egg-info", metadata("claude-agent-sdk", "0.1.4", "1.2"))  # a file
    write(tmp_path, NODE_SDK, npm_manifest("@anthropic-ai/sdk", "1.14.0"))
    write(tmp_path, "/srv/ui/node_modules/react/package.json", npm_manifest("react", "19.2.1"))
    write(tmp_path, "/srv/ui/node_modules/openai/package.json", npm_manifest("openai", "7.59.0"))
    pnpm = "/srv/pnpm-ui/node_modules/.pnpm/@anthropic-ai+sdk@1.13.0/node_modules"
    write(tmp_path, f"{pnpm}/@anthropic-ai/sdk/package.json", npm_manifest("@anthropic-ai/sdk", "1.13.0"))
    _, doc = scan_dir(tmp_path)
    got = {(s["ecosystem"], s["name"], s["version"], s["environment"]): s for s in doc["sdks"]}
    openai = got.pop(("npm", "openai", "7.59.0", "/srv/ui/node_modules"), None)
    if (REPO / "catalogs" / "openai.toml").exists():
        assert openai and (openai["installed"], openai["vendor"]) == (True, "openai")
    assert set(got) == {
        ("pypi", "anthropic", "2.14.0", SITE),
        ("pypi", "langchain-anthropic", "0.3.1", dist),
        ("pypi", "claude-agent-sdk", "0.1.4", dist),
        ("npm", "@anthropic-ai/sdk", "1.14.0", "/srv/ui/node_modules"),
        ("npm", "@anthropic-ai/sdk", "1.13.0", "/srv/pnpm-ui/node_modules"),  # the project, not the store
    }
    for s in got.values():
        assert (s["installed"], s["vendor"]) == (True, "anthropic")
        assert [x["context"] for x in s["locations"]] == ["package"]
        assert s["locations"][0]["path"].startswith(s["environment"] + "/")
    assert locs(got[("pypi", "anthropic", "2.14.0", SITE)]) == [
        (f"{SITE}/anthropic-2.14.0.dist-info/METADATA", None, "package")
    ]
    assert "requests" not in names(doc, "sdks") and "react" not in names(doc, "sdks")


def test_declared_sdks_are_not_installed_and_never_merged(tmp_path: Path, scan_dir: ScanFn) -> None:
    write(tmp_path, f"{SITE}/anthropic-2.14.0.dist-info/METADATA", metadata("anthropic", "2.14.0"))
    write(tmp_path, "/srv/app/requirements.txt", "# pinned\nrequests==2.32.5\nanthropic>=2.14,<3  # the client\n")
    deps_py = 'dependencies = [\n  "httpx>=0.27",\n  "anthropic[bedrock]~=2.10",\n]\n'
    write(tmp_path, "/srv/app/pyproject.toml", '[project]\nname = "app"\nversion = "1"\n' + deps_py)
    deps = '  "dependencies": {\n    "@anthropic-ai/sdk": "^1.14.0",\n    "react": "^19.2.1"\n  }\n}\n'
    write(tmp_path, "/srv/ui/package.json", '{\n  "name": "ui",\n  "private": true,\n' + deps)
    write(tmp_path, NODE_SDK, npm_manifest("@anthropic-ai/sdk", "1.14.0"))
    _, doc = scan_dir(tmp_path)
    got = {(s["ecosystem"], s["name"], s["installed"], s["environment"]): (s["version"], locs(s)) for s in doc["sdks"]}
    req, pyp, ui, ui_sdk = "/srv/app/requirements.txt", "/srv/app/pyproject.toml", "/srv/ui/package.json", NODE_SDK
    assert got == {
        ("pypi", "anthropic", True, SITE): ("2.14.0", [(f"{SITE}/{DIST_INFO}", None, "package")]),
        ("pypi", "anthropic", False, req): (">=2.14,<3", [(req, 3, "config")]),
        ("pypi", "anthropic", False, pyp): ("~=2.10", [(pyp, 6, "config")]),
        ("npm", "@anthropic-ai/sdk", True, "/srv/ui/node_modules"): ("1.14.0", [(ui_sdk, None, "package")]),
        ("npm", "@anthropic-ai/sdk", False, ui): ("^1.14.0", [(ui, 5, "config")]),
    }


def test_declared_sdk_spelled_with_underscores(tmp_path: Path, scan_dir: ScanFn) -> None:
    write(tmp_path, "/srv/app/requirements.txt", "langchain_anthropic==0.3.1\nClaude_Agent_SDK>=0.1\n")
    _, doc = scan_dir(tmp_path)
    assert {"langchain-anthropic", "claude-agent-sdk"} <= names(doc, "sdks")


def test_base_url_variable_pointing_away_from_the_vendor_is_a_finding(tmp_path: Path, scan_dir: ScanFn) -> None:
    write(tmp_path, "/etc/agent/runtime.env",
          "ANTHROPIC_BASE_URL=http://llm-gw.corp.internal:8080/anthropic\n"
          "OPENAI_BASE_URL=https://api.openai.com/v1\n"
          "AZURE_OPENAI_ENDPOINT=https://acme.openai.azure.com\n")
    _, doc = scan_dir(tmp_path)
    gateway = entry(doc, "endpoints", host="llm-gw.corp.internal")
    assert gateway["overrides"] == [{"vendor": "anthropic", "set_by": "ANTHROPIC_BASE_URL"}]
    assert entry(doc, "endpoints", host="api.openai.com")["overrides"] == []  # the vendor's own host
    assert entry(doc, "endpoints", host="acme.openai.azure.com")["overrides"] == []  # Azure's own route
    finding = entry(doc, "findings", id="base-url-override:anthropic:llm-gw.corp.internal")
    assert finding["severity"] == "medium" and "ANTHROPIC_BASE_URL" in finding["title"]
    assert [f["id"] for f in doc["findings"] if f["id"].startswith("base-url-override")] == [finding["id"]]


def test_no_detector_depends_on_another_having_run(tmp_path: Path, catalog: Catalog) -> None:
    """The config parse a file needs (parse errors, label words) is the file's, not the config detector's: the
    content detector alone, or the detectors in reverse order, mark and skip exactly what the whole set does."""
    broken = '{\n  "model": "muse-9.1",\n  "fallback_model": "claude-haiku-4-5"\n  "x": 1,\n'
    write(tmp_path, "/etc/agent/broken.json", broken)
    write(
        tmp_path,
        "/etc/agent/settings.json",
        '{\n  "models": [\n    {"id": "qwen3-coder:30b", "name": "Qwen3 Coder 30B (local)"}\n  ]\n}\n',
    )

    def run(detectors: tuple[Detector, ...]) -> dict[str, Any]:
        target = Walker(str(tmp_path), WalkOptions())
        request = api.ScanRequest(ScanOptions(), detectors=detectors)
        doc: dict[str, Any] = json.loads(dumps(api.scan(target, request, catalog)))
        doc.pop("stats")
        return doc

    content_only = run(tuple(d for d in DETECTORS if d.name == "content"))
    haiku = entry(content_only, "models", name="claude-haiku-4-5")
    assert [(x["line"], x["parse_error"]) for x in haiku["locations"]] == [(3, True)]
    assert "Qwen3" not in names(content_only)
    assert run(DETECTORS) == run(tuple(reversed(DETECTORS)))

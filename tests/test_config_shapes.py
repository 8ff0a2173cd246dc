"""What the config detector calls wiring, on real config shapes (tests/data/configs/, see each SOURCE.txt):
display names, Azure deployment records, package databases, bytecode, test fixtures, system libraries,
and kill switches in any structure (issue 16 sections 2 and 6)."""

from __future__ import annotations

import json
import py_compile
import shutil
from pathlib import Path
from typing import Any

import pytest

from scanner.fileview.contexts import classify
from scanner.model import Context
from tests.conftest import REPO, ScanFn, entry, names, write

DATA = REPO / "tests" / "data" / "configs"


def put(root: Path, sample: str, inside: str) -> Path:
    """A real sample placed at an inside-VM path."""
    dest = root / inside.lstrip("/")
    dest.parent.mkdir(parents=True, exist_ok=True)
    shutil.copyfile(DATA / sample, dest)
    return dest


def wired(doc: dict[str, Any]) -> set[str]:
    return {m["name"] for m in doc["models"] if m["wired"]}


def switches(doc: dict[str, Any]) -> dict[str, tuple[str | None, str, list[tuple[str, int | None, str]]]]:
    return {
        k["name"]: (k["value"], k["state"], [(loc["path"], loc["line"], loc["context"]) for loc in k["locations"]])
        for k in doc["kill_switches"]
    }


# --- section 2: wired means selected ---------------------------------------------------------------


def test_display_names_are_labels_and_models_map_keys_are_ids(tmp_path: Path, scan_dir: ScanFn) -> None:
    put(tmp_path, "opencode-json/francojc.opencode.jsonc", "/home/u/.config/opencode/opencode.jsonc")
    put(tmp_path, "opencode-json/dennywu.opencode.json", "/home/v/.config/opencode/opencode.json")
    _, doc = scan_dir(tmp_path)
    found = names(doc)
    assert not [n for n in found if " " in n or "(" in n], "a display name was taken for a model id"
    # The keys of opencode's `models` maps are the ids the provider serves.
    assert {"qwen3.5:4b", "qwen3.5", "gpt-oss:latest", "kimi-k2.5:cloud"} <= wired(doc)
    assert {"antigravity-gemini-3-pro", "antigravity-claude-opus-4-6-thinking", "gemini-2.5-pro"} <= wired(doc)
    # A label such as "Qwen 3.5 9B" or "Ollama (minicore)" never reaches the inventory in any form.
    assert not {"Qwen", "Ollama", "minicore", "Antigravity"} & found


def test_arm_deployment_list_maps_the_deployment_name_to_its_base_model(tmp_path: Path, scan_dir: ScanFn) -> None:
    # `az cognitiveservices account deployment list` / the ARM response: [{name, sku, properties.model}].
    put(tmp_path, "azure-deployments-list/arm.deployments-list.response.json", "/home/u/azure/deployments.json")
    _, doc = scan_dir(tmp_path)
    dpy = entry(doc, "models", name="azure/dpy")
    assert (dpy["served_via"], dpy["base_model"], dpy["wired"]) == ("azure", "gpt-35-turbo", True)
    assert "gpt-35-turbo" in wired(doc)
    assert not {"Standard", "OpenAI", "0125", "azure/name", "azure/sku", "azure/model"} & names(doc)


def test_terraform_cognitive_deployments_become_aliases(tmp_path: Path, scan_dir: ScanFn) -> None:
    put(tmp_path, "azure-terraform/briandenicola.models.tf", "/srv/infra/models.tf")
    _, doc = scan_dir(tmp_path)
    for alias, base, line in [("azure/gpt-4o", "gpt-4o", 2), ("azure/o1", "o1", 17), ("azure/gpt-4.1", "gpt-4.1", 32)]:
        m = entry(doc, "models", name=alias)
        assert (m["served_via"], m["base_model"], m["wired"]) == ("azure", base, True)
        assert ("/srv/infra/models.tf", line, "config") in [
            (loc["path"], loc["line"], loc["context"]) for loc in m["locations"]
        ]
    assert not {"Standard", "GlobalStandard", "OpenAI", "azure/name", "azure/sku"} & names(doc)


def test_a_list_of_name_model_sku_api_records_is_a_deployment_list(tmp_path: Path, scan_dir: ScanFn) -> None:
    write(
        tmp_path,
        "/etc/agent/azure.yaml",
        "azure:\n  endpoint: https://contoso.openai.azure.com\n  deployments:\n"
        "    - name: chat-prod\n      model: gpt-4o\n      sku: ProvisionedManaged\n      api: 2024-10-21\n"
        "    - name: mini\n      model: gpt-4o-mini\n      sku: GlobalStandard\n      api: 2024-10-21\n",
    )
    _, doc = scan_dir(tmp_path)
    chat = entry(doc, "models", name="azure/chat-prod")
    assert (chat["base_model"], chat["served_via"]) == ("gpt-4o", "azure")
    assert entry(doc, "models", name="azure/mini")["base_model"] == "gpt-4o-mini"
    assert not {"azure/name", "azure/model", "azure/sku", "azure/api", "ProvisionedManaged", "GlobalStandard"} & names(
        doc
    )


def test_models_json_list_for_a_foundry_deployment_keeps_sku_out(tmp_path: Path, scan_dir: ScanFn) -> None:
    put(tmp_path, "azure-foundry-deployments/azure-samples.models.json", "/srv/infra/models.json")
    _, doc = scan_dir(tmp_path)
    assert not {"GlobalStandard", "Standard", "Cohere", "DeepSeek"} & names(doc)


def test_package_manager_databases_are_package_metadata(tmp_path: Path, scan_dir: ScanFn) -> None:
    stanza = (
        "Package: python3-openai\nStatus: install ok installed\nPriority: optional\nSection: python\n"
        "Version: 1.54.0-1\nDescription: OpenAI API client library\n The client for gpt-4o and o1 models.\n\n"
    )
    write(tmp_path, "/var/lib/dpkg/status", stanza)
    write(tmp_path, "/var/lib/apt/lists/deb.debian.org_debian_dists_trixie_main_binary-amd64_Packages", stanza)
    write(tmp_path, "/lib/apk/db/installed", "P:py3-openai\nV:1.54.0-r0\nT:client for gpt-4o\n")
    _, doc = scan_dir(tmp_path)
    assert "gpt-4o" in names(doc)
    for m in doc["models"]:
        assert not m["wired"], m["name"]
        assert {loc["context"] for loc in m["locations"]} == {"package"}
    for path in (
        "/var/lib/dpkg/status",
        "/var/lib/rpm/rpmdb.sqlite",
        "/usr/lib/sysimage/rpm/Packages.db",
        "/usr/share/iso-codes/json/iso_639-3.json",
    ):
        assert classify(path, b"") is Context.PACKAGE
    assert classify("/usr/share/doc/jarvis/examples/config.example.yaml", b"") is Context.DOCS


def test_source_a_system_package_installed_under_usr_lib_is_package_context(tmp_path: Path, scan_dir: ScanFn) -> None:
    # The Google Cloud CLI's apt package installs its Python tree under /usr/lib/google-cloud-sdk (its line as shipped).
    shipped = "/usr/lib/google-cloud-sdk/lib/googlecloudsdk/api_lib/ai/endpoints/client.py"
    shipped_line = "GDC_GGS_MODEL_IDS = frozenset(\n    {'gemini-2.0-flash-001', 'multimodalembedding@001'}\n)\n"
    write(tmp_path, shipped, shipped_line)
    # …and the resource descriptors of its command tree, whose `name: model` is no model of this machine.
    resources = "/usr/lib/google-cloud-sdk/lib/googlecloudsdk/command_lib/ml/resources.yaml"
    write(tmp_path, resources, "model:\n  name: model\n  collection: ml.projects.models\n")
    _, doc = scan_dir(tmp_path)
    (m,) = [m for m in doc["models"] if m["name"] == "gemini-2.0-flash-001"]
    assert not m["wired"] and {loc["context"] for loc in m["locations"]} == {"package"}
    assert not [m for m in doc["models"] if m["wired"]]
    assert classify("/usr/local/lib/app/models.py", b"") is Context.SOURCE  # installed by hand: the machine's own
    assert classify("/usr/lib/systemd/system/agent.service", b"") is Context.CONFIG  # a vendor default in effect


def test_compiled_bytecode_is_package_context(tmp_path: Path, scan_dir: ScanFn) -> None:
    source = write(tmp_path, "/home/u/app/models.py", 'DEFAULT = "gpt-4o"\nFALLBACK = "claude-opus-4-8"\n')
    pyc = tmp_path / "home/u/app/__pycache__/models.cpython-311.pyc"
    py_compile.compile(str(source), cfile=str(pyc), doraise=True)  # a real marshal, strings back to back
    source.unlink()
    _, doc = scan_dir(tmp_path)
    assert names(doc)  # the ids are seen, as package metadata
    for m in doc["models"]:
        assert not m["wired"], m["name"]
        assert {loc["context"] for loc in m["locations"]} == {"package"}


@pytest.mark.parametrize(
    "inside",
    [
        "/home/u/proj/tests/fixtures/settings.json",
        "/home/u/proj/test/settings.json",
        "/home/u/proj/src/__tests__/settings.json",
        "/home/u/proj/testdata/settings.json",
        "/home/u/proj/fixtures/settings.json",
        "/home/u/proj/settings_test.json",
        "/home/u/proj/test_settings.json",
    ],
)
def test_test_fixtures_are_never_wiring(tmp_path: Path, scan_dir: ScanFn, inside: str) -> None:
    write(tmp_path, inside, '{"model": "gpt-4o", "killSwitch": {"enabled": true}}\n')
    _, doc = scan_dir(tmp_path)
    assert not wired(doc)
    assert not doc["kill_switches"]
    assert {loc["context"] for m in doc["models"] for loc in m["locations"]} <= {"test"}


def test_strings_of_a_system_library_are_not_kill_switches(tmp_path: Path, scan_dir: ScanFn) -> None:
    # libcap's capability names (CAP_KILL…) and any *_KILL constant in a system library are its own strings.
    elf = b"\x7fELF\x02\x01\x01" + b"\0" * 57 + b"CAP_KILL\0CAP_SETUID\0OOM_KILL\0"
    write(tmp_path, "/usr/lib/x86_64-linux-gnu/libcap.so.2.66", elf)
    write(tmp_path, "/lib/x86_64-linux-gnu/libfoo.so", elf)
    real = Path("/usr/lib/x86_64-linux-gnu/libcap.so.2.66")
    if real.exists():
        write(tmp_path, "/usr/lib/x86_64-linux-gnu/libcap.so.2", real.read_bytes())
    _, doc = scan_dir(tmp_path)
    assert not doc["kill_switches"]
    assert classify("/usr/lib/x86_64-linux-gnu/libcap.so.2.66", elf) is Context.PACKAGE
    assert classify("/opt/agent/bin/agentd", elf) is Context.BINARY  # an agent's own binary stays a binary


# --- section 6: kill switches in any structure -----------------------------------------------------


def test_kill_switch_tables_and_nested_objects(tmp_path: Path, scan_dir: ScanFn) -> None:
    write(
        tmp_path,
        "/etc/agent/daemon.toml",
        '[runtime]\nmodel = "muse-9"\n\n[runtime.kill_switch]\n# flip to stop every LLM call\nengaged = false\n'
        'reason = "maintenance"\npoll_secs = 5\n',
    )
    write(
        tmp_path,
        "/etc/agent/flags.json",
        '{\n  "safety": {\n    "killSwitch": {"enabled": true, "owner": "sre"}\n  }\n}\n',
    )
    write(tmp_path, "/etc/agent/policy.yaml", "llm:\n  kill-switch:\n    disabled: true\n")
    _, doc = scan_dir(tmp_path)
    assert switches(doc) == {
        "runtime.kill_switch": ("false", "off", [("/etc/agent/daemon.toml", 6, "config")]),
        "safety.killSwitch": ("true", "on", [("/etc/agent/flags.json", 3, "config")]),
        "llm.kill-switch": ("true", "off", [("/etc/agent/policy.yaml", 3, "config")]),
    }


def test_flagd_definitions_real_file_and_a_kill_switch_flag(tmp_path: Path, scan_dir: ScanFn) -> None:
    # The real otel-demo flags (LLM fault injection, not kill switches) report nothing …
    put(tmp_path, "feature-flags/otel-demo.demo.flagd.json", "/srv/flagd/demo.flagd.json")
    _, doc = scan_dir(tmp_path)
    assert not doc["kill_switches"]
    # … and the same file with kill-switch flags reports each with its default variant while ENABLED.
    flags = json.loads((DATA / "feature-flags/otel-demo.demo.flagd.json").read_text(encoding="utf-8"))
    flags["flags"]["llmKillSwitch"] = {
        "state": "ENABLED",
        "variants": {"on": True, "off": False},
        "defaultVariant": "on",
    }
    flags["flags"]["agent_kill_switch"] = {
        "state": "DISABLED",
        "variants": {"on": True, "off": False},
        "defaultVariant": "on",
    }
    write(tmp_path, "/srv/flagd/demo.flagd.json", json.dumps(flags, indent=2))
    _, doc = scan_dir(tmp_path)
    got = switches(doc)
    assert set(got) == {"llmKillSwitch", "agent_kill_switch"}
    assert got["llmKillSwitch"][:2] == ("true", "on")
    assert got["agent_kill_switch"][:2] == ("DISABLED", "off")


COMMENTED = {
    "/etc/systemd/system/agent.service.d/override.conf": (
        "[Service]\n#Environment=LLM_KILL_SWITCH=1\n; Environment=AGENT_KILL=1\n"
    ),
    "/etc/default/agent": "# AGENT_KILL_SWITCH=1\n#export LLM_KILL_SWITCH=on\n",
    "/home/u/.bashrc": "# export LLM_KILL_SWITCH=1\nexport PATH=$PATH:/opt/bin\n",
    "/opt/agent/start.sh": "#!/bin/sh\n# export AGENT_KILL_SWITCH=1\nexec agentd\n",
    "/etc/agent/agent.toml": '# kill_switch = true\nmodel = "muse-9"\n',
    "/etc/agent/agent.yaml": "# kill_switch: true\nmodel: muse-9\n",
    "/etc/agent/agent.ini": "[safety]\n; kill_switch = on\n",
}


def test_a_commented_out_line_is_never_a_setting(tmp_path: Path, scan_dir: ScanFn) -> None:
    for inside, text in COMMENTED.items():
        write(tmp_path, inside, text)
    _, doc = scan_dir(tmp_path)
    assert not [(k["name"], [loc["path"] for loc in k["locations"]]) for k in doc["kill_switches"]]


def test_env_assignments_in_env_files_units_and_shell(tmp_path: Path, scan_dir: ScanFn) -> None:
    write(tmp_path, "/etc/default/agent", "AGENT_KILL_SWITCH=1\n")
    write(tmp_path, "/etc/systemd/system/agent.service.d/override.conf", "[Service]\nEnvironment=LLM_KILL_SWITCH=0\n")
    write(tmp_path, "/home/u/.bashrc", "export CODER_KILL_SWITCH=yes\n")
    write(tmp_path, "/opt/agent/start.sh", "#!/bin/sh\nexport JARVIS_AI_DISABLED=true\nexec agentd\n")
    _, doc = scan_dir(tmp_path)
    got = {name: v[:2] for name, v in switches(doc).items()}
    assert got == {
        "AGENT_KILL_SWITCH": ("1", "on"),
        "LLM_KILL_SWITCH": ("0", "off"),
        "CODER_KILL_SWITCH": ("yes", "on"),
        "JARVIS_AI_DISABLED": ("true", "on"),
    }


def test_a_kill_switch_comment_marks_only_the_assignment_it_documents(tmp_path: Path, scan_dir: ScanFn) -> None:
    write(
        tmp_path,
        "/etc/agent/runtime.env",
        "# Live kill switch: set to 1 to stop all LLM traffic\n# AGENT_LLM_OFF=1\nNO_PROXY=localhost,127.0.0.1\n\n"
        "# the kill switch sits behind the proxy\nHTTPS_PROXY=http://proxy.internal:3128\n\n"
        "# Live kill switch: set to 1 to route all traffic through the reverse proxy\nFOO_OVERRIDE=0\n",
    )
    _, doc = scan_dir(tmp_path)
    got = switches(doc)
    assert set(got) == {"FOO_OVERRIDE"}
    assert got["FOO_OVERRIDE"][:2] == ("0", "off")


def test_a_family_matched_inside_a_label_or_description_is_not_an_id(tmp_path: Path, scan_dir: ScanFn) -> None:
    write(
        tmp_path,
        "/etc/agent/settings.json",
        '{\n  "models": [\n    {"id": "qwen3-coder:30b", "name": "Qwen3 Coder 30B (local)"},\n'
        '    {"id": "muse-9", "description": "a wrapper around gpt-4o and Claude Opus 4.5"}\n  ],\n'
        '  "title": "Llama 3.1 70B bench",\n  "fallback_model": "Llama-3.1-70B"\n}\n',
    )
    _, doc = scan_dir(tmp_path)
    assert wired(doc) == {"qwen3-coder:30b", "muse-9", "Llama-3.1-70B"}


def test_a_container_image_is_not_a_model(tmp_path: Path, scan_dir: ScanFn) -> None:
    # docker-compose-env sample shape: the Ollama server's image next to the model it serves.
    write(
        tmp_path,
        "/srv/gw/docker-compose.yml",
        "services:\n  ollama:\n    image: ollama/ollama:rocm\n    environment:\n      - OLLAMA_MODEL=llama3.1:8b\n"
        "  gw:\n    image: ghcr.io/berriai/litellm:main-stable\n    environment:\n      LLM_MODEL: ollama/qwen3:8b\n",
    )
    _, doc = scan_dir(tmp_path)
    assert "ollama/ollama:rocm" not in names(doc)
    assert "ollama/qwen3:8b" in wired(doc)


def test_a_session_log_among_test_fixtures_is_test_context(tmp_path: Path, scan_dir: ScanFn) -> None:
    session = REPO / "tests" / "data" / "sessions" / "claude-code" / "session-basic.jsonl"
    write(tmp_path, "/home/u/proj/tests/data/sessions/session-basic.jsonl", session.read_bytes())
    _, doc = scan_dir(tmp_path)
    assert names(doc)
    assert not wired(doc)
    assert {loc["context"] for m in doc["models"] for loc in m["locations"]} == {"test"}


def test_an_environment_override_beats_the_config_file(tmp_path: Path, scan_dir: ScanFn) -> None:
    write(
        tmp_path, "/etc/jarvis/daemon.toml", "[safety]\nkill_switch = true\n\n[runtime.kill_switch]\nengaged = false\n"
    )
    write(tmp_path, "/etc/jarvis/runtime.env", "JARVIS_SAFETY_KILL_SWITCH=0\n")
    write(tmp_path, "/etc/systemd/system/jarvis.service", "[Service]\nEnvironment=RUNTIME_KILL_SWITCH=on\n")
    _, doc = scan_dir(tmp_path)
    over = entry(doc, "findings", id="kill-switch-overridden:safety.kill_switch:JARVIS_SAFETY_KILL_SWITCH")
    assert over["severity"] == "high"
    assert "the environment override wins" in over["title"]
    armed = entry(doc, "findings", id="kill-switch-overridden:runtime.kill_switch:RUNTIME_KILL_SWITCH")
    assert armed["severity"] == "medium"
    assert len([f for f in doc["findings"] if f["id"].startswith("kill-switch-overridden")]) == 2


def test_nix_attrset_of_foundry_deployments(tmp_path: Path, scan_dir: ScanFn) -> None:
    # terranix feeding azurerm_cognitive_deployment: `deployments."<name>" = { model = {…}; sku = {…}; }`.
    put(tmp_path, "azure-foundry-deployments/codgician.akasha.models.nix", "/srv/infra/akasha.models.nix")
    _, doc = scan_dir(tmp_path)
    flash = entry(doc, "models", name="azure/deepseek-v4-flash")
    assert (flash["served_via"], flash["base_model"]) == ("azure", "DeepSeek-V4-Flash")
    assert entry(doc, "models", name="azure/gpt-realtime-2.1-mini")["base_model"] == "gpt-realtime-2.1-mini"
    assert not {"GlobalStandard", "DeepSeek", "OpenAI", "azure/sku", "azure/model"} & names(doc)


def test_a_service_accounts_oauth_urls_are_not_endpoints(tmp_path: Path, scan_dir) -> None:
    """The shape `gcloud iam service-accounts keys create` writes: its OAuth and certificate URLs name no model API."""
    sa = {
        "type": "service_account", "project_id": "demo-project",
        "client_email": "agent@demo-project.iam.gserviceaccount.com", "client_id": "123456789012345678901",
        "auth_uri": "https://accounts.google.com/o/oauth2/auth", "token_uri": "https://oauth2.googleapis.com/token",
        "auth_provider_x509_cert_url": "https://www.googleapis.com/oauth2/v1/certs",
        "client_x509_cert_url": "https://www.googleapis.com/robot/v1/metadata/x509/agent",
        "universe_domain": "googleapis.com",
    }
    (tmp_path / "home/bob/.config/gcloud").mkdir(parents=True)
    (tmp_path / "home/bob/.config/gcloud/sa.json").write_text(json.dumps(sa, indent=2))
    _, doc = scan_dir(tmp_path)
    assert [e["host"] for e in doc["endpoints"] if e["wired"]] == []


def test_a_git_remote_under_a_url_key_is_no_endpoint(tmp_path: Path, scan_dir) -> None:
    # An Argo CD application deploying LiteLLM's chart: its `source.repo_url` is where the chart comes from.
    tf = put(tmp_path, "../credentials/litellm-argocd.main.tf", "/srv/infra/litellm/main.tf")  # the real file
    _, doc = scan_dir(tmp_path)
    assert "github.com" not in {e["host"] for e in doc["endpoints"]}
    # The same key with a URL that is no repository stays an endpoint: the value decides, not the key.
    tf.write_text(tf.read_text().replace("BerriAI/litellm.git", "BerriAI/litellm"))
    _, doc = scan_dir(tmp_path)
    assert "github.com" in {e["host"] for e in doc["endpoints"]}


def test_a_disable_llm_flag_in_a_systemd_drop_in_is_a_kill_switch(tmp_path: Path, scan_dir) -> None:
    write(tmp_path, "/etc/systemd/system/agentd.service.d/override.conf",
          "[Service]\nEnvironment=AGENTD_DISABLE_LLM=0\n#Environment=AGENTD_DISABLE_LLM=1\n")
    _, doc = scan_dir(tmp_path)
    assert [(k["name"], k["value"], k["state"], [loc["line"] for loc in k["locations"]])
            for k in doc["kill_switches"]] == [("AGENTD_DISABLE_LLM", "0", "off", [2])]


def test_litellm_model_list_names_are_aliases_of_their_litellm_params_model(tmp_path: Path, scan_dir: ScanFn) -> None:
    # LiteLLM proxy config.yaml: `model_list: [{model_name, litellm_params: {model}}]`. The model_name is what clients
    # ask the proxy for; it serves litellm_params.model. The alias is reported with that base, never bare.
    put(tmp_path, "litellm-proxy/aiyadav.litellm-config.yml", "/etc/litellm/config.yaml")
    put(tmp_path, "litellm-proxy/ajayadahal.litellm_config.yaml", "/srv/gw/litellm_config.yaml")
    _, doc = scan_dir(tmp_path)
    sonnet = entry(doc, "models", name="ClaudeSonnet4")
    assert sonnet["base_model"] == "us.anthropic.claude-sonnet-4-20250514-v1:0" and sonnet["vendor"] == "anthropic"
    assert entry(doc, "models", name="NovaPro1")["base_model"] == "bedrock/amazon.nova-pro-v1:0"
    assert entry(doc, "models", name="kokoro-tts")["base_model"] == "openai/speaches-ai/Kokoro-82M-v1.0-ONNX"
    # The served model is a model of its own, with its route.
    served = entry(doc, "models", name="us.anthropic.claude-sonnet-4-20250514-v1:0")
    assert served["wired"] and served["served_via"] == "bedrock"
    assert not [m["name"] for m in doc["models"] if m["wired"] and m["canonical"] is None and not m["base_model"]
                and m["name"] in {"ClaudeSonnet4", "ClaudeOpus4", "NovaPro1", "kokoro-tts", "whisper-turbo"}]


def test_a_provider_or_backend_value_is_not_a_model(tmp_path: Path, scan_dir: ScanFn) -> None:
    # Gemini CLI settings.json: `"voice": {"backend": "gemini-live"}` names the voice backend, not a model id.
    put(tmp_path, "gemini-cli-settings/mai0313.gemini.settings.json", "/home/u/.gemini/settings.json")
    _, doc = scan_dir(tmp_path)
    assert "gemini-live" not in names(doc)


def test_an_mcp_servers_url_is_a_tool_not_a_model_endpoint(tmp_path: Path, scan_dir: ScanFn) -> None:
    # Real homes: Codex's `[mcp_servers.rube] url`, opencode's `mcp: {jina: {type: remote, url}}`, Gemini CLI's
    # `mcpServers.context7.httpUrl`, kubectl-ai's `servers: [{name, url: …/mcp}]` (a container no product shares).
    put(tmp_path, "codex-config-toml/dennywu.config.toml", "/home/dw/.codex/config.toml")
    put(tmp_path, "opencode-json/dennywu.opencode.json", "/home/dw/.config/opencode/opencode.json")
    put(tmp_path, "gemini-cli-settings/thefermisea.gemini.settings.json", "/home/tf/.gemini/settings.json")
    put(tmp_path, "mcp-servers-json/albanandrieu.kubectl-ai.mcp.yaml", "/home/aa/.config/kubectl-ai/mcp.yaml")
    # An MCP server on localhost beside the models of the same file: they are not made local by it.
    put(tmp_path, "opencode-json/eckii24.opencode.json", "/home/ek/.config/opencode/opencode.json")
    # The control: a provider's base URL in an opencode file stays a model endpoint.
    put(tmp_path, "opencode-json/mai0313.opencode.json", "/home/mai/.config/opencode/opencode.json")
    _, doc = scan_dir(tmp_path)
    hosts = {e["host"] for e in doc["endpoints"]}
    assert hosts & {"rube.app", "mcp.jina.ai", "mcp.context7.com", "docs.mcp.cloudflare.com", "open.bigmodel.cn",
                    "localhost"} == set()
    assert "api.mai0313.com" in hosts
    servers = {(s["name"], s["url"]) for s in doc["mcp_servers"] if s["url"]}
    assert {("rube", "https://rube.app/mcp"), ("jina", "https://mcp.jina.ai/v1"),
            ("context7", "https://mcp.context7.com/mcp")} <= servers  # still listed, as the tools they are
    assert {m["name"] for m in doc["local_models"]} & {"github-copilot/claude-opus-4.5"} == set()


def test_a_data_store_or_an_identity_providers_url_is_no_model_endpoint(tmp_path: Path, scan_dir: ScanFn) -> None:
    # AWS IAM Identity Center start URLs (`sso_start_url = https://d-….awsapps.com/start`), in the real file.
    put(tmp_path, "aws-config/brianvia.aws.config", "/home/bv/.aws/config")
    # LiteLLM's chart values: `db: {endpoint: localhost}` is its Postgres, not the proxy's model upstream, so the
    # benchmark's `custom/wiremock/wiremock` is not made a local model by it.
    put(tmp_path, "litellm-helm-values/kong-benchmark.litellm.values.yaml", "/srv/charts/litellm/values.yaml")
    # An OpenTelemetry collector on localhost beside `LLM_MODEL=azure/gpt-5.5` and `LLM_BASE_URL`.
    put(tmp_path, "env-style/otel-demo.env", "/srv/otel-demo/.env")
    # A compose file's `DATABASE_URL=postgres://…`, with a host that has a domain (the real one says `postgres`).
    compose = put(tmp_path, "docker-compose-env/curmens.ai-router.docker-compose.yml", "/srv/router/compose.yml")
    compose.write_text(compose.read_text().replace("@postgres:5432", "@pg.internal.example.com:5432"))
    _, doc = scan_dir(tmp_path)
    hosts = {e["host"] for e in doc["endpoints"]}
    assert not {h for h in hosts if h.endswith(".awsapps.com")}
    assert hosts & {"localhost", "pg.internal.example.com"} == set()
    assert "local-llm.com" in hosts  # the model's base URL stays
    local = {m["name"] for m in doc["local_models"]}
    assert local & {"custom/wiremock/wiremock", "azure/gpt-5.5"} == set()


def test_a_server_under_a_products_own_container_is_a_tool_too(tmp_path: Path, scan_dir: ScanFn) -> None:
    # VS Code's user `mcp.json` keeps its servers under `servers` (its docs' shape), a container only the catalog names
    # for that file; a remote server's URL whose path says nothing of MCP is still the tool's, not model traffic.
    write(tmp_path, "/home/al/.config/Code/User/mcp.json", json.dumps({"servers": {
        "jina": {"type": "http", "url": "https://mcp.jina.ai/v1"},
        "fetch": {"command": "uvx", "args": ["mcp-server-fetch"]},
    }}, indent=2))
    _, doc = scan_dir(tmp_path)
    assert doc["endpoints"] == []
    assert ("jina", "https://mcp.jina.ai/v1") in {(s["name"], s["url"]) for s in doc["mcp_servers"]}

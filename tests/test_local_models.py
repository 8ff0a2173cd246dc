"""Local models end to end: a machine built from real parts (tests/local_tree.py) scanned, and what the inventory
says of each model checked against what was written: stores, digests, servers, the agents that use them."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from scanner import api
from scanner.catalog import Catalog
from scanner.diff.compare import diff_inventories
from scanner.inventory.document import dumps
from scanner.kinds import Inventory
from scanner.options import ScanOptions
from scanner.render import render
from scanner.render._view import ReportOptions
from scanner.targets import Walker, WalkOptions
from tests import local_tree
from tests.conftest import ScanFn, validate_document


@pytest.fixture(scope="module")
def machine(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, dict[str, Any]]:
    root = tmp_path_factory.mktemp("machine")
    return root, local_tree.build(root)


@pytest.fixture(scope="module")
def scanned(machine: tuple[Path, dict[str, Any]], catalog: Catalog) -> tuple[Inventory, dict[str, Any]]:
    inv = api.scan(Walker(str(machine[0]), WalkOptions()), api.ScanRequest(ScanOptions()), catalog)
    doc = json.loads(dumps(inv))
    validate_document(doc)
    return inv, doc


def _by_name(doc: dict[str, Any]) -> dict[str, dict[str, Any]]:
    return {e["name"]: e for e in doc["local_models"]}


def test_every_model_on_the_machine_is_one_entry_with_its_digests(
    machine: tuple[Path, dict[str, Any]], scanned: tuple[Inventory, dict[str, Any]]
) -> None:
    truth, found = machine[1], _by_name(scanned[1])
    assert set(found) == {m["name"] for m in truth["models"]}
    for m in truth["models"]:
        e = found[m["name"]]
        assert (e["store"], e["present"], e["vendor"]) == (m["store"], m["present"], m["vendor"]), m["name"]
        assert {f["path"]: f["sha256"] for f in e["files"]} == m["files"], m["name"]
        assert sorted({s["server"] for s in e["servers"]}) == m["servers"], m["name"]
        assert e["used_by"] == m["used_by"], m["name"]
        assert e["route"] == "local"


def test_store_digests_are_checked_against_the_bytes(scanned: tuple[Inventory, dict[str, Any]]) -> None:
    found = _by_name(scanned[1])
    for name in ("qwen3-coder:30b", "llama3.2:3b", "Qwen/Qwen3-0.6B"):
        (f,) = found[name]["files"]
        assert f["digest_check"] == "match" and f["store_digest"] == f["sha256"]
    assert all(f["digest_check"] is None for f in found["Qwen3-32B"]["files"])  # a folder claims no digest


def test_headers_and_store_configs_say_what_each_model_is(scanned: tuple[Inventory, dict[str, Any]]) -> None:
    found = _by_name(scanned[1])
    coder = found["qwen3-coder:30b"]["facts"]
    assert (coder["architecture"], coder["size_label"], coder["quantization"], coder["context_length"],
            coder["license"]) == ("qwen3moe", "30.5B", "Q4_K_M", 262144, "apache-2.0")  # fmt: skip
    assert found["qwen3-coder:30b"]["params"] == [["temperature", "0.6"]]  # Ollama's params layer
    hub = found["Qwen/Qwen3-0.6B"]["facts"]
    assert (hub["architecture"], hub["license"]) == ("qwen3", "apache-2.0")
    assert hub["base_models"] == ["Qwen/Qwen3-0.6B-Base"]
    served = found["Qwen3-32B"]
    assert served["facts"]["parameters"] == 2 * 128 * 32 and served["facts"]["context_length"] == 32768
    assert "qwen3-32b" in served["names"]  # the alias vLLM serves it as
    (vllm,) = served["servers"]
    assert (vllm["host"], vllm["port"], vllm["aliases"], vllm["source"]) == ("127.0.0.1", 8000, ["qwen3-32b"],
                                                                              "vllm.service")  # fmt: skip
    (tgi,) = found["gemma-3-4b-it"]["servers"]
    assert tgi["port"] == 80 and tgi["source"] == "tgi"  # the image's own PORT; 8080 is what the host publishes


def test_a_configured_model_no_store_holds_is_said_plainly(scanned: tuple[Inventory, dict[str, Any]]) -> None:
    absent = _by_name(scanned[1])["llama3.3:70b"]
    assert absent["present"] is False and absent["files"] == []
    assert absent["note"] == "configured, weights not on this machine"
    assert [loc["path"] for loc in absent["locations"]] == ["/home/dev/.config/opencode/opencode.json"]


def test_findings_are_the_registered_rules(scanned: tuple[Inventory, dict[str, Any]]) -> None:
    ids = {f["id"]: f for f in scanned[1]["findings"] if f["id"].startswith("local-")}
    assert set(ids) == {
        "local-pickle-unsafe-globals:classifier:classifier.pkl",
        "local-weights-world-writable:lmstudio-community/gpt-oss-20b-GGUF",
        "local-license-restricts-use:llama3.2:3b",
    }
    assert ids["local-license-restricts-use:llama3.2:3b"]["severity"] == "low"  # Llama's terms restrict scale only
    assert "posix.system" in ids["local-pickle-unsafe-globals:classifier:classifier.pkl"]["title"]


def test_a_blob_changed_in_place_is_a_digest_mismatch_and_a_change(
    tmp_path: Path, scan_dir: ScanFn, catalog: Catalog
) -> None:
    local_tree.build(tmp_path)
    before, _ = scan_dir(tmp_path)
    blob = Path(tmp_path, next(f.path for e in before.local_models if e.name == "llama3.2:3b" for f in e.files)[1:])
    data = bytearray(blob.read_bytes())
    data[-1] ^= 0xFF
    blob.write_bytes(bytes(data))
    after, doc = scan_dir(tmp_path)
    (hit,) = [f for f in doc["findings"] if f["id"].startswith("local-weights-digest-mismatch:llama3.2:3b")]
    assert hit["severity"] == "high" and hit["locations"][0]["path"] == "/" + str(blob.relative_to(tmp_path))
    changes = [c for c in diff_inventories(before, after).changes if c.section == "local_models"]
    assert [c.key for c in changes] == ["ollama:llama3.2:3b"]


def test_no_hash_weights_reads_headers_and_hashes_nothing(tmp_path: Path, catalog: Catalog) -> None:
    local_tree.build(tmp_path)
    options = ScanOptions(turned_off=frozenset({"hash-weights"}))
    inv = api.scan(Walker(str(tmp_path), WalkOptions()), api.ScanRequest(options), catalog)
    files = [f for e in inv.local_models for f in e.files]
    assert files and all(f.sha256 is None for f in files)
    assert {f.digest_check for f in files if f.store_digest} == {"unchecked"}
    assert all(e.facts.architecture for e in inv.local_models if e.format == "gguf")


def test_a_weight_file_past_the_read_cap_is_hashed_whole_in_place(tmp_path: Path, scan_dir: ScanFn) -> None:
    local_tree.build(tmp_path)
    f32 = local_tree.gguf.LlamaFileType.ALL_F32
    big = local_tree.gguf_file(tmp_path / "srv/gguf/big.gguf", "llama", "Big", "1B", f32, 4096)
    with big.open("ab") as out:  # tensor data past the header, as a real file's is: many windows of it
        out.write(bytes(range(256)) * 4096 * 3)
    inv, _ = scan_dir(tmp_path, max_file_size=64 << 10, window_size=32 << 10, window_overlap=8 << 10)
    (e,) = [e for e in inv.local_models if e.files and e.files[0].path == "/srv/gguf/big.gguf"]
    assert e.files[0].sha256 == local_tree.sha(big) and e.facts.architecture == "llama"


def test_spdx_local_models_are_verified_ai_packages_agents_depend_on(
    scanned: tuple[Inventory, dict[str, Any]]
) -> None:
    from tests.test_aibom import spdx_strict

    text = render("spdx", scanned[0], ReportOptions(all=True))
    spdx_strict(text)  # the SPDX project's own bindings read it back strictly
    graph = json.loads(text)["@graph"]
    local = {o["name"]: o for o in graph if "#local-model:" in o.get("spdxId", "")}
    coder = local["qwen3-coder:30b"]
    assert coder["type"] == "ai_AIPackage" and coder["software_primaryPurpose"] == "model"
    assert coder["software_packageUrl"].startswith("pkg:generic/qwen3-coder@30b?checksum=sha256:")
    entry = next(e for e in scanned[0].local_models if e.name == "qwen3-coder:30b")
    assert [h["hashValue"] for h in coder["verifiedUsing"]] == [f.sha256 for f in entry.files if f.sha256]
    agent = next(o["spdxId"] for o in graph if o["type"] == "ai_AIPackage" and o["name"] == "opencode")
    uses = {t for o in graph if o["type"] == "Relationship" and o["from"] == agent
            and o["relationshipType"] == "dependsOn" for t in o["to"]}
    assert {coder["spdxId"], local["llama3.3:70b"]["spdxId"]} <= uses


@pytest.mark.parametrize("fmt", ["table", "markdown", "html", "sarif", "cyclonedx"])
def test_every_format_shows_local_models(scanned: tuple[Inventory, dict[str, Any]], fmt: str) -> None:
    text = render(fmt, scanned[0], ReportOptions(all=True, wide=True))
    if fmt == "cyclonedx":
        bom = json.loads(text)
        parts = {c["name"]: c for c in bom["components"] if c["bom-ref"].startswith("local-model:")}
        revision = next(e.revision for e in scanned[0].local_models if e.store == "hf-hub")
        assert revision and parts["Qwen/Qwen3-0.6B"]["purl"] == f"pkg:huggingface/Qwen/Qwen3-0.6B@{revision}"
        assert parts["qwen3-coder:30b"]["purl"].startswith("pkg:generic/qwen3-coder@30b?checksum=sha256:")
        assert parts["qwen3-coder:30b"]["type"] == "machine-learning-model"
        assert parts["qwen3-coder:30b"]["hashes"][0]["alg"] == "SHA-256"
        agent = next(c["bom-ref"] for c in bom["components"] if c["type"] == "application" and c["name"] == "opencode")
        (deps,) = [d.get("dependsOn", []) for d in bom["dependencies"] if d["ref"] == agent]
        assert parts["qwen3-coder:30b"]["bom-ref"] in deps and parts["llama3.3:70b"]["bom-ref"] in deps
        from cyclonedx.schema import SchemaVersion
        from cyclonedx.validation.json import JsonStrictValidator

        assert JsonStrictValidator(SchemaVersion.V1_6).validate_str(text) is None
    elif fmt == "sarif":
        rules = {r["id"] for r in json.loads(text)["runs"][0]["tool"]["driver"]["rules"]}
        assert {"local-weights-world-writable", "local-pickle-unsafe-globals"} <= rules
    else:
        assert "Local models" in text and "qwen3-coder:30b" in text
        assert "configured, weights not on this machine" in text
        assert "local models: 8 on this machine via local (alibaba 3, google 1, meta 1, openai 1, unknown vendor 2)" \
            in text


def test_header_bombs_are_recorded_skips_not_allocations(tmp_path: Path, scan_dir: ScanFn) -> None:
    import struct

    bombs = tmp_path / "srv/bombs"
    bombs.mkdir(parents=True)
    (bombs / "keys.gguf").write_bytes(b"GGUF" + struct.pack("<IQQ", 3, 0, 1 << 40) + b"\0" * 64)  # 2^40 keys
    (bombs / "huge.safetensors").write_bytes(struct.pack("<Q", 1 << 60) + b'{"a": 1}')  # a 2^60-byte header
    inv, doc = scan_dir(tmp_path)
    skips = {(s["path"], s["reason"]): s["detail"] for s in doc["skipped"]}
    assert "claims 1099511627776 keys" in skips[("/srv/bombs/keys.gguf", "budget-exceeded")]
    assert "header length 1152921504606846976" in skips[("/srv/bombs/huge.safetensors", "budget-exceeded")]
    assert inv.local_models == ()


def test_no_hash_weights_on_the_command_line(tmp_path: Path) -> None:
    from typer.testing import CliRunner

    from scanner.cli import app

    local_tree.build(tmp_path / "vm")
    out = tmp_path / "inv.json"
    result = CliRunner().invoke(app, ["scan", str(tmp_path / "vm"), "--no-hash-weights", "-f", "json", "-q",
                                      "-o", str(out)])  # fmt: skip
    assert result.exit_code == 0, result.output
    files = [f for e in json.loads(out.read_text())["local_models"] for f in e["files"]]
    assert files and {f["sha256"] for f in files} == {None}


def test_servers_in_pods_wrappers_and_drop_ins(tmp_path: Path, scan_dir: ScanFn) -> None:
    local_tree.build(tmp_path)
    (tmp_path / "etc/systemd/system/vllm.service.d").mkdir()
    (tmp_path / "etc/systemd/system/vllm.service.d/port.conf").write_text(
        "[Service]\nExecStart=\nExecStart=/opt/vllm/bin/vllm serve /srv/models/Qwen3-32B --served-model-name "
        "qwen3-32b-fast --port 8001\n")  # fmt: skip
    (tmp_path / "srv/k8s").mkdir(parents=True)
    (tmp_path / "srv/k8s/sglang.yaml").write_text(
        "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: sglang}\nspec:\n  template:\n    spec:\n"
        "      containers:\n      - name: sglang\n        image: lmsysorg/sglang:v0.5.2\n"
        "        command: [python3, -m, sglang.launch_server, --model-path, /models/gemma-3-4b-it, --port, '30000']\n"
        "        volumeMounts:\n"
        "        - {name: models, mountPath: /models}\n      volumes:\n      - name: models\n"
        "        hostPath: {path: /srv/tgi-models}\n")  # fmt: skip
    (tmp_path / "usr/local/bin").mkdir(parents=True)
    (tmp_path / "usr/local/bin/serve-gguf.sh").write_text(
        "#!/bin/sh\nexport LLAMA_ARG_PORT=8081\nexec llama-server -m /srv/gguf/missing.gguf --alias local-small\n")
    inv, _ = scan_dir(tmp_path)
    found = {e.name: e for e in inv.local_models}
    served = found["Qwen3-32B"]
    assert {(s.port, s.aliases) for s in served.servers} == {(8000, ("qwen3-32b",)), (8001, ("qwen3-32b-fast",))}
    assert {(s.server, s.port) for s in found["gemma-3-4b-it"].servers} == {("tgi", 80), ("sglang", 30000)}
    missing = found["missing.gguf"]
    assert not missing.present and missing.servers[0].port == 8081 and "local-small" in missing.names


def test_pooled_workers_hash_big_files_as_one_worker_does(tmp_path: Path, scan_dir: ScanFn) -> None:
    local_tree.build(tmp_path)
    big = local_tree.gguf_file(tmp_path / "srv/gguf/big.gguf", "llama", "Big", "1B",
                               local_tree.gguf.LlamaFileType.ALL_F32, 4096)  # fmt: skip
    with big.open("ab") as out:
        out.write(bytes(range(256)) * 4096 * 2)
    small = {"max_file_size": 64 << 10, "window_size": 32 << 10, "window_overlap": 8 << 10}
    one, _ = scan_dir(tmp_path, **small)
    two, _ = scan_dir(tmp_path, jobs=2, **small)
    assert one.local_models == two.local_models
    assert any(f.sha256 == local_tree.sha(big) for e in two.local_models for f in e.files)


def test_a_session_a_local_model_served_counts_as_a_use(tmp_path: Path, scan_dir: ScanFn) -> None:
    from tests.test_sessions import json_block

    root = tmp_path
    weights = local_tree.gguf_file(tmp_path / "coder.gguf", "qwen2", "Qwen2.5 Coder 7B Instruct", "7B",
                                   local_tree.gguf.LlamaFileType.MOSTLY_Q8_0, 32768)  # fmt: skip
    local_tree.ollama_model(root, "qwen2.5-coder", "7b-instruct-q8_0", weights.read_bytes(),
                            {"model_format": "gguf", "model_family": "qwen2", "file_type": "Q8_0"}, "")  # fmt: skip
    weights.unlink()
    # A capture of Ollama's OpenAI-compatible API serving that model (a real one: tests/data/sessions/ollama).
    capture = root / "var/log/x/capture.json"
    capture.parent.mkdir(parents=True)
    capture.write_bytes(json_block("ollama/ollama-openai-compat-sses.md"))
    inv, _ = scan_dir(root)
    (entry,) = inv.local_models
    assert entry.name == "qwen2.5-coder:7b-instruct-q8_0" and entry.present and entry.sessions == 1

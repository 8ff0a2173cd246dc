"""The `binaries` detector on real executables: sample_vm's daemon, a Go build, an ELF with a `.dep-v0`."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import zlib
from pathlib import Path

import pytest

from scanner.formats import gobuild
from tests.conftest import SAMPLE_VM, ScanFn, entry, names, write
from tests.gobuildinfo import go_binary


def test_sample_daemon_yields_its_clients_models_hosts_and_crates(scan_dir: ScanFn) -> None:
    _, doc = scan_dir(SAMPLE_VM)
    anthropic = entry(doc, "clients", provider="anthropic", kind="compiled")
    assert anthropic["vendor"] == "anthropic"
    assert anthropic["components"] == ["SSE stream parser", "prompt conversion", "request flow"]
    assert anthropic["locations"][0]["path"] == "/opt/jarvis/bin/jarvisd"
    azure = entry(doc, "clients", provider="azure", kind="compiled")
    assert (azure["vendor"], azure["served_via"]) == ("openai", "azure")
    assert entry(doc, "clients", provider="muse")["vendor"] is None  # in-house, still listed
    crate = entry(doc, "sdks", ecosystem="cargo", name="async-openai")
    assert (crate["version"], crate["installed"], crate["environment"]) == ("0.29.0", True, "/opt/jarvis/bin/jarvisd")
    in_binary = {m["name"] for m in doc["models"] if any(loc["context"] == "binary" for loc in m["locations"])}
    assert {"claude-opus-4-8", "claude-haiku-4-5", "gpt-5.5", "kimi-k3"} <= in_binary
    hosts = {
        e["host"] for e in doc["endpoints"] if any(loc["path"] == "/opt/jarvis/bin/jarvisd" for loc in e["locations"])
    }
    assert {"api.anthropic.com", "api.openai.com", "jarvis-prod.openai.azure.com", "api.fireworks.ai"} <= hosts


def _elf_copy(tmp_path: Path) -> Path:
    original = Path("/bin/true")
    if not original.exists() or not original.read_bytes().startswith(b"\x7fELF"):
        pytest.skip("no ELF /bin/true here")
    return original


@pytest.mark.skipif(shutil.which("objcopy") is None, reason="objcopy (binutils) not installed")
def test_cargo_auditable_section_names_crates_with_versions(tmp_path: Path, scan_dir: ScanFn) -> None:
    # The format cargo-auditable writes: zlib-compressed JSON in an ELF section named .dep-v0.
    deps = {
        "packages": [
            {"name": "agentd", "version": "0.3.1", "source": "local", "root": True, "dependencies": [1, 2]},
            {"name": "async-openai", "version": "0.29.0", "source": "crates.io"},
            {"name": "serde", "version": "1.0.219", "source": "crates.io"},
        ]
    }
    blob = tmp_path / "deps.zlib"
    blob.write_bytes(zlib.compress(json.dumps(deps).encode()))
    root = tmp_path / "vm"
    target = root / "usr/local/bin/agentd"
    target.parent.mkdir(parents=True)
    subprocess.run(["objcopy", "--add-section", f".dep-v0={blob}", str(_elf_copy(tmp_path)), str(target)], check=True)
    _, doc = scan_dir(root)
    sdk = entry(doc, "sdks", ecosystem="cargo", name="async-openai")
    assert (sdk["version"], sdk["environment"]) == ("0.29.0", "/usr/local/bin/agentd")
    assert names(doc, "sdks") == {"async-openai"}  # serde is no LLM SDK


@pytest.mark.skipif(shutil.which("objcopy") is None, reason="objcopy (binutils) not installed")
@pytest.mark.parametrize("head", [16 << 10, 1 << 20])
def test_crates_of_an_executable_larger_than_a_window_are_read_from_its_section(
    tmp_path: Path, scan_dir: ScanFn, head: int
) -> None:
    # An executable past one window is read a window at a time, its head included; its section headers sit
    # at its end, so `.dep-v0` is found by positional reads (also past --max-file-size, where no head holds them).
    deps = {"packages": [{"name": "async-openai", "version": "0.29.0", "source": "crates.io"}]}
    blob, pad = tmp_path / "deps.zlib", tmp_path / "pad"
    blob.write_bytes(zlib.compress(json.dumps(deps).encode()))
    pad.write_bytes(os.urandom(300_000))  # incompressible filler before the section and its headers
    root = tmp_path / "vm"
    target = root / "usr/local/bin/agentd"
    target.parent.mkdir(parents=True)
    subprocess.run(["objcopy", "--add-section", f".pad={pad}", "--add-section", f".dep-v0={blob}",
                    str(_elf_copy(tmp_path)), str(target)], check=True)  # fmt: skip
    assert target.stat().st_size > 300_000
    _, doc = scan_dir(root, max_file_size=head, window_size=32 << 10, window_overlap=8 << 10)
    sdk = entry(doc, "sdks", ecosystem="cargo", name="async-openai")
    assert (sdk["version"], sdk["environment"]) == ("0.29.0", "/usr/local/bin/agentd")


@pytest.mark.parametrize("before_edge", [40, 200, 2000])
def test_go_build_info_running_past_a_window_edge_is_read_whole(
    tmp_path: Path, scan_dir: ScanFn, before_edge: int
) -> None:
    # The header owned by one window, its inline module list running past that window's bytes.
    deps = [(f"example.com/m{i}", f"v1.{i}.0") for i in range(400)] + [("github.com/openai/openai-go/v2", "v2.7.1")]
    blob = go_binary(deps)
    assert len(blob) > 16 << 10
    edge = (32 << 10) - (8 << 10) + 4096  # where the head's owned part ends (head = one 32 KiB window)
    data = b"\x7fELF" + b"\x00" * (edge - before_edge - 4) + blob + b"\x00" * 100_000
    write(tmp_path, "/usr/local/bin/agent", data)
    _, doc = scan_dir(tmp_path, max_file_size=1 << 20, window_size=32 << 10, window_overlap=8 << 10)
    sdk = entry(doc, "sdks", ecosystem="go", name="github.com/openai/openai-go")
    assert sdk["version"] == "v2.7.1"


_GO_MAIN = """package main

import (
\t"fmt"

\topenai "github.com/sashabaranov/go-openai"
)

func main() { fmt.Println(openai.GPT4o) }
"""
_GO_STUB = """package openai

const GPT4o = "gpt-4o"
"""


@pytest.mark.skipif(shutil.which("go") is None, reason="no Go toolchain here")
def test_go_build_info_is_read_without_running_the_binary(tmp_path: Path, scan_dir: ScanFn) -> None:
    src = tmp_path / "src"
    write(src, "main.go", _GO_MAIN)
    write(src, "stub/openai.go", _GO_STUB)
    write(src, "stub/go.mod", "module github.com/sashabaranov/go-openai\n\ngo 1.19\n")
    write(
        src,
        "go.mod",
        "module example.com/agentd\n\ngo 1.19\n\nrequire github.com/sashabaranov/go-openai v1.41.2\n\n"
        "replace github.com/sashabaranov/go-openai v1.41.2 => ./stub\n",
    )
    root = tmp_path / "vm"
    out = root / "usr/local/bin/agentd"
    out.parent.mkdir(parents=True)
    env = {
        **os.environ,
        "GOPROXY": "off",
        "GOFLAGS": "-mod=mod",
        "GOCACHE": str(tmp_path / "cache"),
        "GOPATH": str(tmp_path / "gopath"),
        "CGO_ENABLED": "0",
    }
    subprocess.run(["go", "build", "-o", str(out), "."], cwd=src, env=env, check=True, capture_output=True)
    info = gobuild.parse(out.read_bytes())
    assert info is not None and info.go_version and info.go_version.startswith("go1.")
    assert info.path == "example.com/agentd"
    assert gobuild.GoModule("github.com/sashabaranov/go-openai", "v1.41.2") in info.deps
    (src / "go.mod").unlink()  # the declared go.mod must not be what the scan reads
    _, doc = scan_dir(root)
    sdk = entry(doc, "sdks", ecosystem="go", name="github.com/sashabaranov/go-openai")
    assert (sdk["version"], sdk["installed"], sdk["environment"]) == ("v1.41.2", True, "/usr/local/bin/agentd")


def test_go_build_info_inline_format() -> None:
    # Go >= 1.18 layout: 32-byte header (magic, pointer size, flags=2), then varint-prefixed strings.
    start = bytes.fromhex("3077af0c9274080241e1c107e6d618e6")
    end = bytes.fromhex("f932433186182072008242104116d8f2")
    modinfo = (
        b"path\texample.com/x\nmod\texample.com/x\tv1.2.3\t\n"
        b"dep\tgithub.com/anthropics/anthropic-sdk-go\tv1.4.0\th1:abc=\n"
    )
    body = start + modinfo + end
    header = b"\xff Go buildinf:" + b"\x08\x02" + b"\0" * 16
    version = b"go1.22.5"
    data = (
        b"\0" * 100 + header + bytes([len(version)]) + version + bytes([len(body) & 0x7F | 0x80, len(body) >> 7]) + body
    )
    info = gobuild.parse(data)
    assert info is not None
    assert info.go_version == "go1.22.5" and info.main == gobuild.GoModule("example.com/x", "v1.2.3")
    assert info.deps == (gobuild.GoModule("github.com/anthropics/anthropic-sdk-go", "v1.4.0"),)


def test_not_go_and_truncated_inputs_give_nothing() -> None:
    assert gobuild.parse(b"") is None
    assert gobuild.parse(b"\xff Go buildinf:") is None
    assert gobuild.parse(b"\xff Go buildinf:\x08\x02" + b"\0" * 16 + b"\xff\xff") is None


def test_utf16_strings_of_a_pe_file_are_matched(tmp_path: Path, scan_dir: ScanFn) -> None:
    pe = b"MZ" + b"\0" * 62 + b"PE\0\0" + b"\0" * 200
    pe += "claude-opus-4-8".encode("utf-16-le") + b"\0\0" + "https://api.anthropic.com/v1".encode("utf-16-le")
    write(tmp_path, "/opt/agent/agent.exe", pe + b"\0" * 64)
    _, doc = scan_dir(tmp_path)
    model = entry(doc, "models", name="claude-opus-4-8")
    assert model["wired"] and model["locations"][0]["context"] == "binary"
    assert "https://api.anthropic.com/v1" in entry(doc, "endpoints", host="api.anthropic.com")["urls"]

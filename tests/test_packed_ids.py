"""Ids in compiled code respect string boundaries: Rust packs literals back to back, `.pyc` marshals them."""

from __future__ import annotations

import py_compile
import shutil
import subprocess
from pathlib import Path

import pytest

from tests.conftest import ScanFn, write

LITERALS = [
    "openai.gpt-5.6-sol",
    "openai.gpt-5.6-terra",
    "claude-opus-4-1",
    "claude-sonnet-4-5",
    "anthropic.claude-code-url-handler",
    "gpt-6-",
    "anthropic/claude-plugins",
    "claude-code@latest",
]
WANTED = {"openai.gpt-5.6-sol", "openai.gpt-5.6-terra", "claude-opus-4-1", "claude-sonnet-4-5"}


def _models(doc: dict) -> set[str]:
    return {m["name"] for m in doc["models"]}


@pytest.mark.skipif(shutil.which("rustc") is None, reason="needs rustc")
def test_rust_literals_back_to_back_are_split_at_id_boundaries(tmp_path: Path, scan_dir: ScanFn) -> None:
    src = tmp_path / "m.rs"
    items = ", ".join(f'"{s}"' for s in LITERALS)
    src.write_text(
        f"static A: &[&str] = &[{items}];\n"
        'fn main() { for s in A { if std::env::args().count() > 5 { println!("{}", s); } } }\n'
    )
    out = tmp_path / "vm/usr/local/bin/agent"
    out.parent.mkdir(parents=True)
    subprocess.run(["rustc", "-O", "-C", "strip=symbols", str(src), "-o", str(out)], check=True, capture_output=True)
    assert "".join(LITERALS).encode() in out.read_bytes()  # really packed, no separator
    _, doc = scan_dir(tmp_path / "vm")
    assert _models(doc) == WANTED  # two ids where they join; no bundle id, path, or cut `gpt-6`


def test_pyc_marshal_strings_never_make_joined_or_cut_ids(tmp_path: Path, scan_dir: ScanFn) -> None:
    src = tmp_path / "models.py"
    src.write_text("MODELS = (" + ", ".join(repr(s) for s in LITERALS) + ")\nSWITCH = {'claude-sonnet-4-5': None}\n")
    pyc = tmp_path / "vm/usr/lib/python3/dist-packages/agent/__pycache__/models.cpython-312.pyc"
    pyc.parent.mkdir(parents=True)
    py_compile.compile(str(src), cfile=str(pyc), doraise=True)
    _, doc = scan_dir(tmp_path / "vm")
    found = _models(doc)
    assert found <= WANTED  # whatever is found is a whole id, never a join of two strings
    assert found == WANTED  # each marshalled string read by its own length: never joined, never cut


def test_ids_and_their_bundle_lookalikes_in_a_binary(tmp_path: Path, scan_dir: ScanFn) -> None:
    blob = b"\x7fELF\x02\x01\x01\x00" + b"\x00" * 64
    for s in ["src/providers/azure/mod.rs", "node_modules/@aws-sdk/client-bedrock/dist-cjs/index.js",
              "us.anthropic.claude-opus-4-1-20250805-v1:0anthropic.claude-3-haiku-20240307-v1:0", "gpt-4o."]:
        blob += s.encode() + b"\x00"
    write(tmp_path, "/usr/bin/agentd", blob)
    _, doc = scan_dir(tmp_path)
    assert _models(doc) == {
        "us.anthropic.claude-opus-4-1-20250805-v1:0",
        "anthropic.claude-3-haiku-20240307-v1:0",
        "gpt-4o",
    }

"""What an agent product ships (`agents[].ships`) and what its model lists put in `models` (issue 16 §3, §4).

The model-list files are real: byte ranges of Claude Code's and opencode's single executables and a part of
aider's model-settings.yml (tests/data/agents/SOURCE.txt). They are laid out as `npm install -g` and
`uv tool install` place them, and a big executable is read in windows whose edges cut through the lists.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as hs

from scanner.catalog import Catalog
from scanner.catalog.matcher import PatternKind
from scanner.catalog.packed_ids import packed_tables
from scanner.detectors.agent_files import AgentFileDetector
from scanner.detectors.agent_native import NativeAgentDetector
from scanner.fileview.view import FileView
from scanner.kinds.agents import AgentFileEvidence
from scanner.model import FileMeta
from scanner.targets.base import FileEntry
from tests.conftest import ScanFn, entry, write

DATA = Path(__file__).parent / "data" / "agents"
GLOBAL = "/usr/lib/node_modules"
CLAUDE_PKG = "@anthropic-ai/claude-code"
CLAUDE_BIN = f"{GLOBAL}/{CLAUDE_PKG}/node_modules/@anthropic-ai/claude-code-linux-x64/claude"
OPENCODE_BIN = f"{GLOBAL}/opencode-ai/node_modules/opencode-linux-x64/bin/opencode"
ELF = b"\x7fELF\x02\x01\x01" + b"\0" * 64


def _manifest(root: Path, where: str, name: str, version: str) -> None:
    write(root, f"{where}/package.json", f'{{"name": "{name}", "version": "{version}"}}')


def _claude(root: Path, binary: bytes) -> None:
    write(root, f"{GLOBAL}/{CLAUDE_PKG}/package.json", (DATA / "npm" / CLAUDE_PKG / "package.json").read_bytes())
    _manifest(root, CLAUDE_BIN.rsplit("/", 1)[0], "@anthropic-ai/claude-code-linux-x64", "2.1.197")
    write(root, CLAUDE_BIN, binary)


def _ships(doc: dict, product: str) -> set[str]:
    return set(entry(doc, "agents", name=product)["ships"])


def test_claude_code_ships_the_ids_of_its_model_table(tmp_path: Path, scan_dir: ScanFn) -> None:
    _claude(tmp_path, ELF + (DATA / "bundles/claude-code-model-table-excerpt.js").read_bytes())
    _, doc = scan_dir(tmp_path)
    ships = _ships(doc, "claude-code")
    # Whole literals of the table: the first-party ids and the Vertex pins (`vertex:"claude-opus-4-1@20250805"`).
    assert {"claude-opus-4-0", "claude-opus-4-1", "claude-opus-4-1-20250805", "claude-opus-4-1@20250805",
            "claude-opus-4-5@20251101", "claude-sonnet-5-5", "claude-opus-4@20250514"} <= ships  # fmt: skip
    # A route's form of an id is an id the product calls on that cloud (`bedrock:"us.anthropic.claude-opus-4-1-…
    # -v1:0"`), whole; a display name (`display_name:"Opus 4.1"`, `modelName:"Claude 3 Opus"`) is none.
    assert {"us.anthropic.claude-opus-4-1-20250805-v1:0", "anthropic.claude-opus-4-1-20250805-v1:0"} <= ships
    assert not {s for s in ships if " " in s or s.endswith(("-", ".", ":"))}
    for name in ships:
        assert entry(doc, "models", name=name)["wired"] is False
    # The Bedrock forms reach `models`, whole, with their route.
    assert entry(doc, "models", name="us.anthropic.claude-opus-4-1-20250805-v1:0")["served_via"] == "bedrock"


def test_opencode_ships_models_dev_ids_never_display_names(tmp_path: Path, scan_dir: ScanFn) -> None:
    _manifest(tmp_path, f"{GLOBAL}/opencode-ai", "opencode-ai", "1.18.33")
    _manifest(tmp_path, OPENCODE_BIN.rsplit("/bin/", 1)[0], "opencode-linux-x64", "1.18.33")
    write(tmp_path, OPENCODE_BIN, ELF + (DATA / "bundles/opencode-models-dev-excerpt.js").read_bytes())
    _, doc = scan_dir(tmp_path)
    ships = _ships(doc, "opencode")
    # Offerings' variants and regional pins are ids of their own, never cut to the line's id.
    assert {"claude-opus-4-6@eu", "claude-opus-4-7-thinking", "gemma-4-31b-it"} <= ships
    assert "DeepSeek-R1" not in ships  # `name:"DeepSeek-R1"`: the label of deepseek/deepseek-r1
    assert "deepseek/deepseek-r1" not in ships  # a provider's form: the model is in `models`
    names = {m["name"] for m in doc["models"]}
    assert {"claude-opus-4-6@eu", "claude-opus-4-7-thinking", "deepseek/deepseek-r1"} <= names
    assert "claude-opus-4-6" not in names and "claude-opus-4-7" not in names  # never a cut id


# models.dev records of a provider's own ids (Cline's and Kilo's tables hold the same records, as read in their
# 2026 releases): the model of a provider-prefixed literal.
ROUTED = (b',"cohere/command-a-plus":{id:"cohere/command-a-plus",name:"Cohere: Command A+",limit:{context:128000}}'
          b',"TEE/gemma-4-26b-a4b-uncensored":{id:"TEE/gemma-4-26b-a4b-uncensored",limit:{context:131072}}};\n')


def test_the_same_bytes_name_the_same_models_in_a_model_list_and_elsewhere(tmp_path: Path, scan_dir: ScanFn) -> None:
    """A provider-prefixed literal in opencode's model list names the model any other file's would: the models
    section is one answer for the same bytes, whichever product's file holds them; `ships` stays the product's
    own ids."""
    body = ELF + (DATA / "bundles/opencode-models-dev-excerpt.js").read_bytes() + ROUTED
    _manifest(tmp_path / "a", f"{GLOBAL}/opencode-ai", "opencode-ai", "1.18.33")
    _manifest(tmp_path / "a", OPENCODE_BIN.rsplit("/bin/", 1)[0], "opencode-linux-x64", "1.18.33")
    write(tmp_path / "a", OPENCODE_BIN, body)
    _manifest(tmp_path / "b", f"{GLOBAL}/other-cli", "other-cli", "1.0.0")
    write(tmp_path / "b", f"{GLOBAL}/other-cli/bin/other", body)
    _, in_list = scan_dir(tmp_path / "a")
    _, elsewhere = scan_dir(tmp_path / "b")
    routed = {"cohere/command-a-plus", "gemma-4-26b-a4b-uncensored"}
    assert routed <= {m["name"] for m in in_list["models"]}
    assert routed <= {m["name"] for m in elsewhere["models"]}
    assert not routed & _ships(in_list, "opencode")


def test_aider_ships_its_model_settings_names(tmp_path: Path, scan_dir: ScanFn) -> None:
    site = "/home/dev/.local/share/uv/tools/aider-chat/lib/python3.11/site-packages"
    write(tmp_path, f"{site}/aider_chat-0.86.2.dist-info/METADATA", (DATA / "pypi/METADATA").read_bytes())
    listing = (DATA / "pypi/model-settings.yml").read_text()
    write(tmp_path, f"{site}/aider/resources/model-settings.yml", listing)
    _, doc = scan_dir(tmp_path)
    names = [line.split(": ", 1)[1] for line in listing.splitlines() if line.startswith("- name: ")]
    assert sorted(_ships(doc, "aider")) == sorted(names)
    models = {m["name"]: m for m in doc["models"]}
    for name in (
        "bedrock/anthropic.claude-3-7-sonnet-20250219-v1:0",
        "bedrock_converse/eu.anthropic.claude-opus-4-20250514-v1:0",
    ):
        assert models[name]["served_via"] == "bedrock"  # the whole hosted form, not its anthropic.claude-… part
    assert models["cohere_chat/command-a-03-2025"]["vendor"] == "cohere"
    assert models["command-r-plus"]["vendor"] == "cohere"


@pytest.mark.parametrize("shift", [0, 7, 19, 40])
def test_ships_from_every_window_of_a_big_executable(tmp_path: Path, scan_dir: ScanFn, shift: int) -> None:
    """The model table sits past the read cap and across window edges: each id is found whole, once."""
    table = (DATA / "bundles/claude-code-model-table-excerpt.js").read_bytes()
    window = 64 << 10
    # Past the 1 MiB cap, with the table laid so that window edges (every window - overlap bytes) cut it.
    pad = b"\0" * ((3 << 20) - window // 2 + shift)
    _claude(tmp_path, ELF + b'["claude-sonnet-4-6"]' + pad + table * 4 + b"\0" * 4096)
    _, doc = scan_dir(tmp_path, max_file_size=1 << 20, window_size=window, window_overlap=16 << 10)
    ships = _ships(doc, "claude-code")
    assert {"claude-sonnet-4-6", "claude-opus-4-1@20250805", "claude-opus-4-0", "claude-sonnet-5-5"} <= ships
    assert not {s for s in ships if s.endswith(("-", ".", "@"))}


_PIECES = hs.sampled_from(
    [
        b'"claude-opus-4-7"',
        b'"claude-opus-4-7-thinking"',
        b'"us.anthropic.claude-opus-4-7"',
        b'name:"GPT-5.5"',
        b'"gpt-6-',
        b"gpt-5.5",
        b'"gemini-2.5-flash-base"',
        b"'o3-mini'",
        b"`claude-opus-4-6@eu`",
        b'"',
        b"\0",
        b",",
        b"{id:",
        b"-thinking",
        b"claude-sonnet-4-5",
        b'"qwen3guard-gen-8b"',
    ]  # fmt: skip
)


def _shipped(view: FileView) -> list[object]:
    """What the detectors of an agent product's files give for one view."""
    return [*AgentFileDetector().extract(view), *NativeAgentDetector().extract(view)]


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(pieces=hs.lists(hs.one_of(_PIECES, hs.binary(max_size=12)), max_size=30))
def test_shipped_ids_are_whole_quoted_literals(catalog: Catalog, pieces: list[bytes]) -> None:
    """Whatever surrounds them, the ids a model-list file ships are whole literals the catalogs know."""
    data = ELF + b"".join(pieces)
    path = f"{OPENCODE_BIN}"
    view = FileView(FileEntry(path, len(data), 0o100755, 0, 0), data, catalog, lambda e: FileMeta("0755", "r:r"),
                    lambda p, n: None)  # fmt: skip
    for ev in _shipped(view):
        if isinstance(ev, AgentFileEvidence) and ev.role == "ships":
            starts = [h.start for h in view.hits if h.kind in (PatternKind.MODEL, PatternKind.HOSTED)]
            tables = packed_tables(view.catalog, view.data, starts)
            for name in ev.models:
                text = name.encode()
                # quoted; or a string of the binary's string table; or a packed table's
                quoted = any(q + text + q in data for q in (b'"', b"'", b"`"))
                # between unprintable bytes (a NUL, a length byte, a control byte), long and hyphenated
                edge = rb"[\t\n\r\x20-\x7e]"
                bounded = re.search(rb"(?<!" + edge + rb")" + re.escape(text) + rb"(?!" + edge + rb")", data)
                c_string = bounded is not None and b"-" in text and len(text) >= 10
                assert quoted or c_string or name in tables, name
                assert catalog.identify(name).catalog != "unknown" and not name.endswith(("-", ".", "@"))


def test_bun_string_table_strings_end_where_their_length_says(tmp_path: Path, scan_dir: ScanFn) -> None:
    # JavaScriptCore's string table in Claude Code's executable: `claude-haiku-3-5` is followed by the next
    # string's length header, whose first byte is `5`: the id is claude-haiku-3-5, never claude-haiku-3-55.
    table = (DATA / "bundles/claude-code-bun-string-table.bin").read_bytes()
    assert b"claude-haiku-3-55" in table
    _claude(tmp_path, ELF + table)
    _, doc = scan_dir(tmp_path)
    names = {m["name"] for m in doc["models"]}
    assert "claude-haiku-3-5" in names and "claude-haiku-3-55" not in names
    assert "claude-sonnet-3-7" in names


@pytest.mark.parametrize("before, after", [(b"\0", b"\0"), (b"\x0b", b"\0\0"), (b"\x01", b"\x02"), (b"\x90", b"\xe8")])
def test_an_id_is_shipped_whatever_unprintable_layout_surrounds_it(catalog: Catalog, before: bytes,
                                                                   after: bytes) -> None:
    """The same id is shipped whether a release's compiler put it between NULs, after a length byte or between
    control bytes; between printable bytes it is a word of text (help, a sentence), never shipped."""
    for layout, shipped in ((before + b"claude-opus-5-9" + after, True), (b" claude-opus-5-9 ", False)):
        data = ELF + b"\0" * 64 + layout + b"\0" * 64
        view = FileView(FileEntry(OPENCODE_BIN, len(data), 0o100755, 0, 0), data, catalog,
                        lambda e: FileMeta("0755", "r:r"), lambda p, n: None)  # fmt: skip
        ships = [ev for ev in _shipped(view) if isinstance(ev, AgentFileEvidence) and ev.role == "ships"]
        assert ("claude-opus-5-9" in ships[0].models) is shipped, layout


def test_the_pypi_product_whose_package_ships_a_file_is_each_products_own_answer(catalog: Catalog) -> None:
    """One pattern of every PyPI product's model-list files answers as asking each product in turn."""
    shipped = [glob for p in catalog.pypi_agents for glob in p.ships]
    assert shipped  # aider's model settings at least
    relatives = ["/" + glob.replace("**/", "").replace("*", "x") for glob in shipped]
    relatives += ["/aider/resources/other.yml", "/aider/__init__.py", "/requests/api.py", "/", ""]
    for relative in relatives:
        one_by_one = next((p for p in catalog.pypi_agents if catalog.ships_file(p, relative)), None)
        assert catalog.pypi_ships_file(relative) is one_by_one, relative
    assert any(catalog.pypi_ships_file(r) is not None for r in relatives)

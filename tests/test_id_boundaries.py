"""Where a model id begins and ends in products' files (issue 16 §2, §4), on real byte excerpts.

Each excerpt is a byte range of a product the dev-machine corpus installs (tests/data/agents/SOURCE.txt):
machine code that spells half an id, a URL anchor, packed Rust literals, sentences of a message, a guide, help
text and docs, and Gemini CLI's model-config aliases. Laid out where `npm install -g` puts them.
"""

from __future__ import annotations

from pathlib import Path

from tests.conftest import ScanFn, write

DATA = Path(__file__).parent / "data" / "agents" / "bundles"
GLOBAL = "/usr/lib/node_modules"
ELF = b"\x7fELF\x02\x01\x01" + b"\0" * 64
CODEX = f"{GLOBAL}/@openai/codex"
CODEX_BIN = f"{CODEX}/node_modules/@openai/codex-linux-x64/vendor/x86_64-unknown-linux-musl/bin/codex"
CLAUDE = f"{GLOBAL}/@anthropic-ai/claude-code"
CLAUDE_BIN = f"{CLAUDE}/node_modules/@anthropic-ai/claude-code-linux-x64/claude"
GEMINI = f"{GLOBAL}/@google/gemini-cli"
COPILOT = f"{GLOBAL}/@github/copilot"


def _pkg(root: Path, where: str, name: str, version: str) -> None:
    write(root, f"{where}/package.json", f'{{"name": "{name}", "version": "{version}"}}')


def _codex(root: Path, binary: bytes) -> None:
    _pkg(root, CODEX, "@openai/codex", "0.171.0")
    _pkg(root, f"{CODEX}/node_modules/@openai/codex-linux-x64", "@openai/codex-linux-x64", "0.171.0")
    write(root, CODEX_BIN, binary, 0o755)


def _names(doc: dict) -> set[str]:
    return {m["name"] for m in doc["models"]}


def _ships(doc: dict, product: str) -> set[str]:
    return {s for a in doc["agents"] if a["name"] == product for s in a["ships"]}


def test_a_movabs_immediate_is_no_id(tmp_path: Path, scan_dir: ScanFn) -> None:
    # Codex: `48 ba "gpt-5.6-"` (movabs rdx, imm64) then `31 f6` (xor esi, esi); then it compares `luna`.
    code = (DATA / "codex-movabs.bin").read_bytes()
    assert b"\x48\xbagpt-5.6-1\xf6" in code
    _codex(tmp_path, ELF + code)
    write(tmp_path, "/usr/local/bin/other", ELF + code, 0o755)
    _, doc = scan_dir(tmp_path)
    assert not {n for n in _names(doc) if n.startswith("gpt-5.6")}


def test_an_id_never_begins_inside_a_hyphenated_word(tmp_path: Path, scan_dir: ScanFn) -> None:
    # Codex's bundled model guide: `guides/model-selection#when-to-consider-gpt-61-sol` is a URL anchor.
    text = (DATA / "codex-model-docs-anchor.bin").read_bytes()
    assert b"#when-to-consider-gpt-61-sol" in text
    _codex(tmp_path, ELF + text)
    write(tmp_path, "/srv/guide.md", text)
    write(tmp_path, "/srv/agent.yaml", "model: prod-gpt-4o\nfallback: gpt-4o\n")
    _, doc = scan_dir(tmp_path)
    names = _names(doc)
    assert "gpt-61-sol" not in names
    assert "gpt-4o" in names  # the same family as a value of its own


def test_packed_rust_literals_are_shipped_whole(tmp_path: Path, scan_dir: ScanFn) -> None:
    # Codex: `…base_url.openai.gpt-5.6-solopenai.gpt-5.6-terra…openai.gpt-6-lunagateway access token…`
    _codex(tmp_path, ELF + (DATA / "codex-packed-model-ids.bin").read_bytes())
    _, doc = scan_dir(tmp_path)
    ships = _ships(doc, "codex")
    assert {"openai.gpt-5.6-sol", "openai.gpt-5.6-terra", "openai.gpt-5.6-luna", "openai.gpt-6.1-sol",
            "openai.gpt-6.1-terra", "openai.gpt-6.2-astra", "openai.gpt-6.2-sol", "openai.gpt-6-astra"} <= ships
    assert not {s for s in ships if "gateway" in s or s.endswith(("-", "."))}
    assert ships <= _names(doc)


def test_ids_in_sentences_are_words_not_ids(tmp_path: Path, scan_dir: ScanFn) -> None:
    # Claude Code: a guide (`(\`claude-opus-4-6\`, not \`claude-opus-4-6-20251101\`). Guessing an ID will 404.`)
    # and a message (`(e.g. anthropic.claude-sonnet-4-5-v1:0) or an inference-profile ARN`); Gemini CLI's docs
    # (`(for example, \`gemini-3-preview\`). Defaults to`). Not in the product's binary: anywhere.
    for i, name in enumerate(["claude-code-migration-prose.bin", "claude-code-bedrock-message.bin"]):
        write(tmp_path, f"/opt/tool/lib/part{i}.js", (DATA / name).read_bytes())
    write(tmp_path, f"{GEMINI}/bundle/docs/core/subagents.md", (DATA / "gemini-cli-subagents-doc-line.md").read_bytes())
    write(tmp_path, "/opt/tool/lib/models.js", b'const M = ["claude-opus-4-6-20251101", "gemini-3-preview"];\n')
    write(tmp_path, "/opt/tool/CHANGELOG.md", b"- Removed support for claude-3-opus-20240229 and gpt-4-turbo.\n")
    _, doc = scan_dir(tmp_path)
    names = _names(doc)
    assert {"claude-3-opus-20240229", "gpt-4-turbo"} <= names  # a sentence names a model by a listed id
    assert "anthropic.claude-sonnet-4-5-v1:0" not in names
    assert {"claude-opus-4-6-20251101", "gemini-3-preview"} <= names  # only from the literals of models.js
    for id_ in ("claude-opus-4-6-20251101", "gemini-3-preview"):
        paths = {loc["path"] for m in doc["models"] if m["name"] == id_ for loc in m["locations"]}
        assert paths == {"/opt/tool/lib/models.js"}, paths


def test_help_text_of_a_model_list_file_names_no_model(tmp_path: Path, scan_dir: ScanFn) -> None:
    # GitHub Copilot CLI's app.js (a model-list file): `COPILOT_MODEL=deepseek-coder-v2:16b \\` in its help text.
    _pkg(tmp_path, COPILOT, "@github/copilot", "1.0.12")
    help_text = (DATA / "copilot-help-examples.js").read_bytes()
    write(tmp_path, f"{COPILOT}/app.js", b'const D = "claude-sonnet-4.5";\nconst H = `' + help_text + b"`;\n")
    _, doc = scan_dir(tmp_path)
    assert "deepseek-coder-v2:16b" not in _names(doc)
    assert "claude-sonnet-4.5" in _ships(doc, "copilot-cli")
    # Named by a config too, the id is a model, located at the config only.
    write(tmp_path, "/etc/agent/config.yaml", "model: deepseek-coder-v2:16b\n")
    _, doc = scan_dir(tmp_path)
    found = [m for m in doc["models"] if m["name"] == "deepseek-coder-v2:16b"]
    assert [loc["path"] for m in found for loc in m["locations"]] == ["/etc/agent/config.yaml"]


def test_gemini_cli_config_aliases_and_voice_backend_are_no_models(tmp_path: Path, scan_dir: ScanFn) -> None:
    _pkg(tmp_path, GEMINI, "@google/gemini-cli", "0.61.0")
    parts = ("gemini-cli-model-config-aliases.js", "gemini-cli-voice-backend.js")
    body = b"".join((DATA / n).read_bytes() for n in parts)
    write(tmp_path, f"{GEMINI}/bundle/chunk-5FZXKDXH.js", b"var c = {\n" + body)
    _, doc = scan_dir(tmp_path)
    ships = _ships(doc, "gemini-cli")
    assert {"gemini-3-flash-preview", "gemini-3.5-flash"} <= ships  # the models the aliases stand for
    names = _names(doc)
    assert not {n for n in names if n.endswith("-base")}
    assert "gemini-live" not in names


OPENCODE = f"{GLOBAL}/opencode-ai"
QWEN = f"{GLOBAL}/@qwen-code/qwen-code"


def test_a_family_value_and_a_comment_word_are_not_shipped(tmp_path: Path, scan_dir: ScanFn) -> None:
    _pkg(tmp_path, OPENCODE, "opencode-ai", "1.18.33")
    _pkg(tmp_path, f"{OPENCODE}/node_modules/opencode-linux-x64", "opencode-linux-x64", "1.18.33")
    record = (DATA / "opencode-models-dev-family.bin").read_bytes()
    write(tmp_path, f"{OPENCODE}/node_modules/opencode-linux-x64/bin/opencode", ELF + record, 0o755)
    _pkg(tmp_path, QWEN, "@qwen-code/qwen-code", "0.24.4")
    comment = (DATA / "qwen-code-model-comment.js").read_bytes()
    write(tmp_path, f"{QWEN}/chunks/chunk-P5OXAI4R.js", comment + b'const M = ["deepseek-v4.1-flash"];\n')
    _, doc = scan_dir(tmp_path)
    assert "command-a-03-2025" in _ships(doc, "opencode")
    assert "command-a" not in _ships(doc, "opencode")  # `family:"command-a"`
    ships = _ships(doc, "qwen-code")
    assert "deepseek-v4.1-flash" in ships and "deepseek-flash" not in ships


def test_an_id_in_a_sentence_is_no_location_where_the_same_file_spells_it_as_a_literal(
    tmp_path: Path, scan_dir: ScanFn
) -> None:
    """What a file's hits name is worked out once per spelling, but whether a hit sits in a sentence is asked of
    each: the guide's words around one copy never make it, nor its literal twin, a place the other stands for."""
    literal = b'const M = ["claude-opus-4-6-20251101"];\n'
    prose = b"Use the alias (`claude-opus-4-6`, not `claude-opus-4-6-20251101`). Guessing an ID will 404.\n"
    write(tmp_path, "/opt/tool/lib/first.js", literal + prose)
    write(tmp_path, "/opt/tool/lib/second.js", prose + literal)
    _, doc = scan_dir(tmp_path)
    lines = {(loc["path"], loc["line"]) for m in doc["models"] if m["name"] == "claude-opus-4-6-20251101"
             for loc in m["locations"]}
    assert lines == {("/opt/tool/lib/first.js", 1), ("/opt/tool/lib/second.js", 2)}

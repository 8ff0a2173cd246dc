"""Shared helpers of the corpus builders: running installers, writing files, fake secrets, truth TOML.

Nothing here imports the scanner: the truth of a corpus comes from what the builder writes and from
inspecting installed files, never from modelcensus output.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

EVAL_DIR = Path(__file__).resolve().parent
REPO = EVAL_DIR.parent
CACHE = REPO / ".eval"
SAMPLES = Path(os.environ.get("MODELCENSUS_SAMPLES", "/work/shared/samples/configs"))
# Configs copied into the repo (tests/data/configs/<shape>/): the builders read these, so a clean clone
# builds the same corpora without /work/shared.
CONFIG_COPIES = REPO / "tests" / "data" / "configs"
# Samples only the eval uses, copied beside it (eval/samples/<shape>/, each with its SOURCE.txt).
EVAL_COPIES = EVAL_DIR / "samples"


def sample(shape: str, name: str) -> str:
    """Text of a real config sample, from the repo copy when present, else from the shared samples."""
    for base in (CONFIG_COPIES, EVAL_COPIES, SAMPLES):
        path = base / shape / name
        if path.is_file():
            return path.read_text(encoding="utf-8")
    raise SystemExit(f"eval: sample {shape}/{name} not found in {CONFIG_COPIES}, {EVAL_COPIES} or {SAMPLES}")


def as_list(v: Any) -> list[Any]:
    return v if isinstance(v, list) else [v]


def run(cmd: list[str], **kw: Any) -> None:
    print("eval: $", " ".join(cmd), file=sys.stderr, flush=True)
    subprocess.run(cmd, check=True, **kw)


def write(root: Path, path: str, text: str, mode: int = 0o644) -> Path:
    """Write `text` at `path` (absolute inside the tree) under `root`."""
    target = root / path.lstrip("/")
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_text(text, encoding="utf-8")
    target.chmod(mode)
    return target


def write_json(root: Path, path: str, data: Any, mode: int = 0o644) -> Path:
    return write(root, path, json.dumps(data, indent=2) + "\n", mode)


def npm_global(prefix: Path, specs: list[str]) -> None:
    """`npm install -g --prefix` as a user installs an agent CLI; platform packages of linux-x64 land."""
    prefix.mkdir(parents=True, exist_ok=True)
    run(["npm", "install", "-g", "--prefix", str(prefix), "--os", "linux", "--cpu", "x64",
         "--no-fund", "--no-audit", "--loglevel", "error", *specs])


def npm_local(prefix: Path, specs: list[str]) -> None:
    prefix.mkdir(parents=True, exist_ok=True)
    run(["npm", "install", "--prefix", str(prefix), "--no-fund", "--no-audit", "--loglevel", "error",
         "--no-package-lock", *specs])


def venv_install(venv: Path, specs: list[str], compile_pyc: bool = True) -> None:
    if not (venv / "bin" / "python").exists():
        run([sys.executable, "-m", "venv", str(venv)])
    extra = [] if compile_pyc else ["--no-compile"]
    run([str(venv / "bin" / "python"), "-m", "pip", "install", "--quiet", "--disable-pip-version-check",
         *extra, *specs])


def pip_target(target: Path, specs: list[str]) -> None:
    target.mkdir(parents=True, exist_ok=True)
    run([sys.executable, "-m", "pip", "install", "--quiet", "--disable-pip-version-check",
         "--target", str(target), *specs])


def done(root: Path, step: str) -> bool:
    return (root.parent / f".{step}.done").exists()


def mark(root: Path, step: str) -> None:
    (root.parent / f".{step}.done").write_text("ok\n")


def reset(path: Path) -> None:
    if path.exists():
        shutil.rmtree(path)


# ---------------------------------------------------------------- fake secrets of the real formats

_ALNUM = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789"


def _stream(seed: str, alphabet: str, n: int) -> str:
    out: list[str] = []
    counter = 0
    while len(out) < n:
        block = hashlib.sha256(f"{seed}:{counter}".encode()).digest()
        out.extend(alphabet[b % len(alphabet)] for b in block)
        counter += 1
    return "".join(out[:n])


def fake_secret(kind: str, seed: str) -> str:
    """A deterministic fake secret of the real format of `kind` (never a live key)."""
    upper = "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"
    b64 = _ALNUM + "+/"
    url = _ALNUM + "-_"
    hexd = "0123456789abcdef"
    forms = {
        "anthropic": lambda: "sk-ant-api03-" + _stream(seed, url, 93) + "AA",
        "openai": lambda: "sk-proj-" + _stream(seed, url, 156),
        "openrouter": lambda: "sk-or-v1-" + _stream(seed, hexd, 64),
        "aws-access-key-id": lambda: "AKIA" + _stream(seed, upper, 16),
        "aws-secret": lambda: _stream(seed, b64, 40),
        "azure-openai": lambda: _stream(seed, hexd, 32),
        "google-api-key": lambda: "AIza" + _stream(seed, url, 35),
        "github-pat": lambda: "ghp_" + _stream(seed, _ALNUM, 36),
        "dashscope": lambda: "sk-" + _stream(seed, hexd, 32),
        "mistral": lambda: _stream(seed, _ALNUM, 32),
        "litellm-master": lambda: "sk-" + _stream(seed, _ALNUM, 22),
        # OpenAI's project key as issued: 74 characters, the `T3BlbkFJ` marker, 74 more
        "openai-proj": lambda: "sk-proj-" + _stream(seed, url, 74) + "T3BlbkFJ" + _stream(seed + "/2", url, 74),
        "xai": lambda: "xai-" + _stream(seed, _ALNUM, 80),
        "moonshot": lambda: "sk-" + _stream(seed, _ALNUM, 48),
    }
    return forms[kind]()


def system_files(root: Path, users: dict[str, int], hostname: str) -> None:
    """A Debian machine's account list, hostname and release file, for the users of a corpus."""
    passwd = "root:x:0:0:root:/root:/bin/bash\n" + "".join(
        f"{u}:x:{uid}:{uid}:{u.title()}:/home/{u}:/bin/bash\n" for u, uid in users.items())
    write(root, "/etc/passwd", passwd)
    write(root, "/etc/hostname", f"{hostname}\n")
    write(root, "/etc/os-release", 'PRETTY_NAME="Debian GNU/Linux 12 (bookworm)"\nID=debian\nVERSION_ID="12"\n')


def commented(root: Path, path: str, text: str) -> dict[str, Any]:
    """A commented-out line the builder planted, with its line number: never to be reported as a setting."""
    lines = (root / path.lstrip("/")).read_text().splitlines()
    return {"path": path, "line": lines.index(text) + 1, "text": text}


def sha256(text: str) -> str:
    return hashlib.sha256(text.encode()).hexdigest()


def rsa_pem(seed_dir: Path) -> str:
    """A freshly generated RSA key (openssl), cached per corpus so the truth hash stays stable."""
    key = seed_dir / "planted_rsa.pem"
    if not key.exists():
        seed_dir.mkdir(parents=True, exist_ok=True)
        run(["openssl", "genpkey", "-algorithm", "RSA", "-pkeyopt", "rsa_keygen_bits:2048", "-out", str(key)],
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    return key.read_text()


# ---------------------------------------------------------------- inspection of installed files

def package_json_version(pkg_dir: Path) -> str | None:
    try:
        return str(json.loads((pkg_dir / "package.json").read_text())["version"])
    except (OSError, KeyError, ValueError):
        return None


def dist_info_version(site: Path, name: str) -> str | None:
    norm = re.sub(r"[-_.]+", "_", name).lower()
    for meta in site.glob("*.dist-info/METADATA"):
        stem = meta.parent.name[: -len(".dist-info")]
        dist, _, version = stem.rpartition("-")
        if re.sub(r"[-_.]+", "_", dist).lower() == norm:
            return version
    return None


# Model ids as a product ships them: whole string literals of a vendor's id grammar. A literal is delimited by
# quotes (JS source, which Bun/Node single executables keep as text) or by NULs (C strings, string tables).
# A cloud's provider-prefixed form (`us.anthropic.claude-…` on Bedrock, `openai.gpt-…`) is the same literal.
# Each vendor's grammar is its published naming, older lines included, as products' tables hold them (read in
# the corpus files): Anthropic's `claude-2.1`, `claude-instant-1.2`, `claude-3-5-haiku-20241022` (a deprecation
# table), `claude-mythos-preview`; OpenAI's legacy, embedding, moderation, image, audio, realtime and video models
# (`babbage-002`, `text-embedding-3-large` in tiktoken's model-to-encoding switch, `gpt-image-1`, `sora-2`,
# `o1-preview-2024-09-12`); Google's `gemini-embedding-001`, `gemini-live-2.5-…`, `gemma-4-31b-it`; and the
# hosting platforms' capitalised spellings of open-weight ids (`DeepSeek-V4-Flash`, `Qwen3-Coder-Next-FP8`,
# `Kimi-K2.5`, `Meta-Llama-3-1-8B-Instruct-FP8`) as models.dev keys and ids name them.
_REGION = rb"(?:us|eu|apac|global|jp|au|in|ca)\."
# Bedrock's provider names, the prefix of its model ids (`qwen.qwen3-32b-v1:0`, `us.anthropic.claude-…`).
_PROVIDER = rb"(?:(?:" + _REGION + rb")?(?:anthropic|openai|qwen|mistral|meta|google|deepseek|moonshot|moonshotai|zai|minimax)\.)?"
_VENDOR_ID = _PROVIDER + (
    rb"(?:claude-(?:[0-9][a-z0-9.@:-]*|instant-[0-9][a-z0-9.@:-]*"
    rb"|(?:opus|sonnet|haiku|fable|mythos)-[a-z0-9][a-z0-9.@:-]*)"
    rb"|(?:gpt-[0-9][a-z0-9.-]*|gpt-(?:image|audio|realtime|oss)(?:-[a-z0-9.]+)*"
    rb"|chatgpt-4o[a-z0-9.-]*|o[134](?:-mini|-pro|-preview|-deep-research)(?:-[0-9]{4}-[0-9]{2}-[0-9]{2})?"
    rb"|o[134]-[0-9]{4}-[0-9]{2}-[0-9]{2}"
    rb"|(?:babbage|davinci)-002|text-embedding-(?:3-small|3-large|ada-002)|omni-moderation-[a-z0-9-]+"
    rb"|sora-[0-9][a-z0-9-]*|tts-1(?:-hd)?|whisper-1|dall-e-[23])"
    rb"|gemini-(?:[0-9]|embedding-|live-[0-9])[a-z0-9.-]*|gemma-?[0-9][a-z0-9.-]*"
    rb"|qwen[0-9][a-z0-9.-]*|grok-[0-9][a-z0-9.-]*|codestral-[a-z0-9.-]+|glm-(?:[4-9]|z1)[a-z0-9.-]*|minimax-[mh][0-9][a-z0-9.-]*"
    rb"|mistral-(?:large|medium|small)[a-z0-9.-]*|deepseek-(?:chat|reasoner|v[0-9][a-z0-9.-]*)"
    rb"|(?:DeepSeek-(?:V|R)[0-9]|Qwen[0-9]|Kimi-K[0-9]|(?:Meta-)?Llama-[0-9]|GLM-[4-9]|MiniMax-[MH][0-9])[A-Za-z0-9._-]*)"
)
SHIP_ID = re.compile(rb"""(["'`\x00])(""" + _VENDOR_ID + rb""")(?=\1)""")
# `"gemini-3.5-flash-base": { extends: "base", modelConfig: { model: … } }` names a config alias, not a model;
# so it is wherever the file names it (`modelConfigKey: { model: "gemini-3-flash-base" }`), unless it is also the
# model an alias resolves to (`"gemini-2.5-flash": { extends: "chat-base-2.5", modelConfig: { model:
# "gemini-2.5-flash" } }`: that name is a model too).
CONFIG_ALIAS = re.compile(rb"""\s*:\s*\{\s*["']?extends["']?\s*:""")
RESOLVES_TO = re.compile(rb"""\bmodelConfig["']?\s*:\s*\{\s*["']?model["']?\s*:\s*["'`]([A-Za-z0-9._:@/-]+)["'`]""")
# The value of a label key is a name for people (`name:"DeepSeek-V4-Flash"` beside `id:"deepseek-v4-flash"`);
# a `family:"gemini-flash-lite"` names a family of records, not one model.
LABEL_BEFORE = re.compile(rb"""(?:name|displayName|display_name|label|title|description|family)["']?\s*[:=]\s*$""",
                          re.I)
# A model table's records (models.dev's `"kimi-k2.5":{id:"kimi-k2.5",…,limit:{context:…}}`, pi's and Qwen Code's
# `{ id: "kimi-k2.5", contextWindowSize: … }`, Codex's models.json `"slug": "gpt-daybreak-blue-latest", …
# "context_window": …`): the `id` / `slug` of a record that states a context window, token limit or price is a model
# id, whatever its vendor's grammar (`command-a-03-2025`, `devstral-2512`, `o3`). A bare `"o3"` elsewhere
# (`id.includes("o3")`, a help example `-c model="o3"`) is no model list. A router's path form (`cerebras/qwen3-32b`)
# is a route's spelling, not scored as shipped (README: ships are literals that begin with a family id).
# Only ids of the vendors the project catalogues (catalogs/*.toml: Anthropic, OpenAI, Google, Alibaba, xAI,
# Mistral, DeepSeek, Moonshot, Meta with its Muse line, Cohere, Z.ai's GLM, MiniMax) are catalog models a product
# ships; a record of another vendor's model (Nova) or a product's own pseudo-model (`codex-auto-review`, `auto`) is
# not scored.
CATALOGUED = re.compile(
    rb"(?:[a-z]{2,12}\.){0,2}(?:claude|gpt|chatgpt|o[1-9]|gemini|gemma|qwen|qwq|grok|codestral|muse|"
    rb"mistral|ministral|devstral|magistral|pixtral|mixtral|open-mistral|open-mixtral|deepseek|kimi|llama|"
    rb"meta-llama|command|text-embedding|dall-e|tts-|whisper|sora|omni-moderation|babbage|davinci|glm|minimax)(?![a-z])",
    re.I,
)
TABLE_ID = re.compile(rb"""(?<![A-Za-z0-9_$])(?:id|slug)["']?\s*:\s*["']([A-Za-z0-9][A-Za-z0-9._:@+-]{0,100})["']""")
NEXT_RECORD = re.compile(rb"""(?<![A-Za-z0-9_$])(?:id|slug)["']?\s*:""")
MODEL_FIELDS = re.compile(rb"""limit:\{context|contextWindow|context_window|maxTokens|max_tokens|cost:\{input""")
_RECORD_REACH = 1200
# A backquoted literal between words of running text (docs, comments) is a mention, not a model list's entry.
PROSE_BEFORE = re.compile(rb"[A-Za-z]{2,}[,;]? $")
PROSE_AFTER = re.compile(rb"[.,;:)]{0,3} \(?[A-Za-z]{2,}")
# Rust packs its string literals back to back, with no delimiter: `openai.gpt-5.6-solopenai.gpt-5.6-terra…`.
# In a run of at least three such pieces, each piece but the last ends where the next begins; the last one's
# end is unknown (it runs into the next literal), so it is not taken.
PACKED_RUN = re.compile(rb"openai\.gpt-[0-9][A-Za-z0-9.-]*")
PACKED_PIECE = re.compile(rb"(?=openai\.gpt-[0-9])")
_REGION_TAIL = re.compile(rb"(?:us|eu|apac|global)\.$")


def shipped_ids(files: list[Path], chunk: int = 64 << 20) -> list[str]:
    """Vendor-grammar literals in the given files (read in overlapping chunks)."""
    found: set[str] = set()
    aliases: set[str] = set()
    resolved: set[str] = set()
    for path in files:
        with path.open("rb") as fh:
            tail = b""
            while True:
                block = fh.read(chunk)
                if not block:
                    break
                data = tail + block
                for m in SHIP_ID.finditer(data):
                    ident = m.group(2).decode()
                    if CONFIG_ALIAS.match(data, m.end() + 1):
                        aliases.add(ident)
                        continue
                    if ident.endswith(("-", ".", ":")) or LABEL_BEFORE.search(data, max(0, m.start() - 24), m.start()):
                        continue
                    if m.group(1) == b"`" and PROSE_BEFORE.search(data, max(0, m.start() - 40), m.start()) \
                            and PROSE_AFTER.match(data, m.end() + 1):
                        continue  # `do not invent a separate \`gpt-6-pro\` model slug`: a word of a sentence
                    # Between NULs, a short id (`o1`, `gpt-5`) is as likely any two bytes of machine code.
                    if m.group(1) == b"\x00" and ("-" not in ident or len(ident) < 10):
                        continue
                    ident = _string_table_cut(data, m.start(2), ident)
                    found.add(ident)
                resolved |= {m.group(1).decode() for m in RESOLVES_TO.finditer(data)}
                found |= _table_ids(data)
                found |= _packed(data)
                tail = data[-256:]
    return sorted(found - (aliases - resolved))


def _table_ids(data: bytes) -> set[str]:
    out: set[str] = set()
    for m in TABLE_ID.finditer(data):
        record = data[m.end() : m.end() + _RECORD_REACH]
        nxt = NEXT_RECORD.search(record)
        if MODEL_FIELDS.search(record[: nxt.start() if nxt else len(record)]) and CATALOGUED.match(m.group(1)):
            out.add(m.group(1).decode())
    return out


def _string_table_cut(data: bytes, start: int, ident: str) -> str:
    """A JavaScriptCore (Bun) string-table entry is `<u32 length | 0x80000000><u32 hash><bytes>`, padded with
    NULs; the next entry's length byte can follow a string with no NUL between (`claude-haiku-3-5` + `5`).
    Where such a header precedes the literal, its length is where the literal ends."""
    if start < 8:
        return ident
    length = int.from_bytes(data[start - 8:start - 4], "little")
    if length & 0x80000000 and 0 < (length & 0x7FFFFFFF) < len(ident):
        return ident[: length & 0x7FFFFFFF]
    return ident


def _packed(data: bytes) -> set[str]:
    out: set[str] = set()
    for run in PACKED_RUN.finditer(data):
        pieces = [p for p in PACKED_PIECE.split(run.group(0)) if p]
        if len(pieces) < 3:
            continue
        for piece in pieces[:-1]:
            ident = _REGION_TAIL.sub(b"", piece).decode()
            if not ident.endswith(("-", ".")):
                out.add(ident)
    return out


# ---------------------------------------------------------------- a small TOML writer for truth files

def _toml_value(v: Any) -> str:
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, (int, float)):
        return str(v)
    if isinstance(v, str):
        return json.dumps(v, ensure_ascii=False)
    if isinstance(v, (list, tuple)) and all(not isinstance(x, dict) for x in v):
        return "[" + ", ".join(_toml_value(x) for x in v) + "]"
    if isinstance(v, dict):
        return "{ " + ", ".join(f"{_key(k)} = {_toml_value(x)}" for k, x in v.items()) + " }"
    if v is None:
        return '""'
    raise TypeError(f"cannot write {v!r} as TOML")


def _key(k: str) -> str:
    return k if re.fullmatch(r"[A-Za-z0-9_-]+", k) else json.dumps(k)


def _table_lines(prefix: str, table: dict[str, Any], out: list[str]) -> None:
    scalars = {k: v for k, v in table.items()
               if not (isinstance(v, dict) or (isinstance(v, list) and v and all(isinstance(x, dict) for x in v)))}
    for k, v in scalars.items():
        out.append(f"{_key(k)} = {_toml_value(v)}")
    for k, v in table.items():
        if k in scalars:
            continue
        name = f"{prefix}.{_key(k)}" if prefix else _key(k)
        if isinstance(v, dict):
            out.append("")
            out.append(f"[{name}]")
            _table_lines(name, v, out)
        else:
            for item in v:
                out.append("")
                out.append(f"[[{name}]]")
                _table_lines(name, item, out)


def dump_toml(data: dict[str, Any], header: str = "") -> str:
    out: list[str] = [f"# {line}" if line else "#" for line in header.splitlines()]
    _table_lines("", data, out)
    return "\n".join(out).strip() + "\n"


def write_truth(name: str, data: dict[str, Any], header: str, planted: list[str]) -> None:
    """The corpus's truth, beside it and under eval/truth/; the planted secrets only beside it, outside the repo."""
    text = dump_toml(data, header)
    (CACHE / name / "truth.toml").write_text(text)
    (CACHE / name / "planted-secrets.json").write_text(json.dumps(sorted(set(planted)), indent=1))
    (EVAL_DIR / "truth").mkdir(exist_ok=True)
    (EVAL_DIR / "truth" / f"{name}.toml").write_text(text)

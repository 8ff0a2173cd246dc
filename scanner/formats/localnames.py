"""The names of a local model, as each store or folder spells them, and the spellings a catalog may know.

- LM Studio keeps `models/<publisher>/<repo>/<file>.gguf`: the model is `publisher/repo`;
- llama.cpp's flat cache keeps `<org>_<repo>_<file>.gguf` beside `manifest=<org>=<repo>=<tag>.json`, which
  names the repo (`org/repo:tag`) the files came from;
- GPT4All keeps bare `<file>.gguf` files: the model is the file's stem.

A local name is looked up in the catalogs in several spellings, the most specific first: the name as
written, without its Ollama tag or registry prefix, without the Hugging Face organisation, and without the
`-GGUF`-style suffix repackagers add (`bartowski/Qwen3-8B-GGUF` -> `Qwen3-8B`).
"""

from __future__ import annotations

import re

_PACKAGING = re.compile(r"[-_.](?:gguf|ggml|mlx|awq|gptq|exl2|fp8|int4|int8|bnb-4bit|4bit|8bit)$", re.IGNORECASE)
_MANIFEST = re.compile(r"manifest=([^=/]+)=([^=/]+)=([^=/]+)\.json")


def lmstudio_name(relative: str) -> tuple[str, str] | None:
    """(`publisher/repo`, file) of a path under LM Studio's models directory, or None."""
    parts = relative.strip("/").split("/")
    if len(parts) < 3 or not all(parts):
        return None
    return f"{parts[0]}/{parts[1]}", "/".join(parts[2:])


def llamacpp_manifest(file_name: str) -> str | None:
    """The repo a llama.cpp cache manifest names (`manifest=org=repo=tag.json` -> `org/repo:tag`)."""
    m = _MANIFEST.fullmatch(file_name)
    return f"{m.group(1)}/{m.group(2)}:{m.group(3)}" if m else None


def llamacpp_file_repo(file_name: str, repos: list[str]) -> str | None:
    """Which of the cache's manifest repos (`org/repo:tag`) a flat file `org_repo_file.gguf` came from."""
    for repo in sorted(repos, key=len, reverse=True):
        org_repo = repo.split(":", 1)[0]
        if file_name.startswith(org_repo.replace("/", "_") + "_"):
            return repo
    return None


def file_stem(file_name: str) -> str:
    """A bare weight file's model name (GPT4All, a llama.cpp models folder): its name without the extension."""
    return file_name.rsplit(".", 1)[0] if "." in file_name else file_name


def candidates(name: str) -> list[str]:
    """Spellings of a local model's name to look up in the catalogs, the most specific first."""
    out: list[str] = []

    def add(value: str) -> None:
        value = value.strip()
        if value and value not in out:
            out.append(value)

    add(name)
    bare = name
    if "/" in bare:  # a registry host or namespace (Ollama), an organisation (Hugging Face)
        bare = bare.rsplit("/", 1)[1]
    add(bare)
    untagged, _, tag = bare.partition(":")
    if tag:
        add(f"{untagged}-{tag}")  # qwen3-coder:30b -> qwen3-coder-30b, how catalogs write sizes
        add(untagged)
    unpacked = _PACKAGING.sub("", untagged)
    add(unpacked)
    return out

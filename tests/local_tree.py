"""A machine with models on it, built from real parts: weights written by the formats' own libraries, stores laid
out as their tools lay them out, servers run the way their docs say, and agent configs pointing at them.

`build(root)` writes the tree and returns what is true of it, read off the files it wrote (never off a scan). Nothing
here imports the scanner: the eval's `local-models` corpus is this tree.
"""

from __future__ import annotations

import hashlib
import json
import os
import pickle
import shutil
from pathlib import Path
from typing import Any

import gguf
import numpy as np
from safetensors.numpy import save_file

HERE = Path(__file__).parent
OLLAMA = "usr/share/ollama/.ollama/models"
LLAMA_32 = ("LLAMA 3.2 COMMUNITY LICENSE AGREEMENT\n\nLlama 3.2 Version Release Date: September 25, 2024\n\n"
            "“Agreement” means the terms and conditions for use, reproduction, distribution...\n")  # fmt: skip
APACHE = "\n                                 Apache License\n                           Version 2.0, January 2004\n"
# The unit Ollama's Linux install script writes (scripts/install.sh, configure_systemd).
OLLAMA_UNIT = """[Unit]
Description=Ollama Service
After=network-online.target

[Service]
ExecStart=/usr/local/bin/ollama serve
User=ollama
Group=ollama
Restart=always
RestartSec=3
Environment="PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin"

[Install]
WantedBy=default.target
"""


def _blob(store: Path, data: bytes) -> dict[str, object]:
    """Writes a layer as Ollama's NewLayer does (blobs/sha256-<hex>) and returns its manifest entry."""
    hexdigest = hashlib.sha256(data).hexdigest()
    (store / "blobs").mkdir(parents=True, exist_ok=True)
    (store / "blobs" / f"sha256-{hexdigest}").write_bytes(data)
    return {"digest": f"sha256:{hexdigest}", "size": len(data)}


def hf_cache(root: Path, repo: str, files: dict[str, bytes], lfs: set[str]) -> Path:
    """A repo downloaded into the hub cache as huggingface_hub lays it out: blobs, refs/main, relative links."""
    cache = root / "home/dev/.cache/huggingface/hub"
    folder = cache / ("models--" + repo.replace("/", "--"))
    commit = hashlib.sha1(repo.encode()).hexdigest()
    for name, data in files.items():
        git = hashlib.sha1(b"blob %d\0" % len(data) + data)
        etag = hashlib.sha256(data).hexdigest() if name in lfs else git.hexdigest()
        (folder / "blobs").mkdir(parents=True, exist_ok=True)
        (folder / "blobs" / etag).write_bytes(data)
        link = folder / "snapshots" / commit / name
        link.parent.mkdir(parents=True, exist_ok=True)
        os.symlink(os.path.relpath(folder / "blobs" / etag, link.parent), link)
    (folder / "refs").mkdir(exist_ok=True)
    (folder / "refs/main").write_text(commit)
    return cache


def gguf_file(path: Path, arch: str, name: str, size_label: str, ftype: gguf.LlamaFileType, ctx: int,
              license_id: str | None = None) -> Path:  # fmt: skip
    """A GGUF written by llama.cpp's own `gguf` writer, with the general.* keys converters write."""
    path.parent.mkdir(parents=True, exist_ok=True)
    w = gguf.GGUFWriter(str(path), arch)
    w.add_name(name)
    w.add_size_label(size_label)
    if license_id:
        w.add_license(license_id)
    w.add_context_length(ctx)
    w.add_file_type(ftype)
    w.add_token_list([f"t{i}" for i in range(300)])
    w.add_tensor("token_embd.weight", np.ones((32, 16), dtype=np.float32))
    w.add_tensor("output.weight", np.ones((16, 32), dtype=np.float16))
    w.write_header_to_file()
    w.write_kv_data_to_file()
    w.write_tensors_to_file()
    w.close()
    return path


def safetensors_file(path: Path, shape: tuple[int, int], seed: int) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    rng = np.random.default_rng(seed)
    save_file({"model.embed_tokens.weight": rng.standard_normal(shape).astype(np.float16)}, str(path),
              metadata={"format": "pt"})  # fmt: skip
    return path


def ollama_model(root: Path, model: str, tag: str, weights: bytes, config: dict[str, Any], license_text: str) -> None:
    """A model pulled into Ollama's store: blobs named by their SHA-256, the manifest Ollama writes."""
    store = root / OLLAMA
    media = "application/vnd.ollama.image."
    layers = [{"mediaType": media + "model", **_blob(store, weights)},
              {"mediaType": media + "template", **_blob(store, b"{{ .Prompt }}")},
              {"mediaType": media + "license", **_blob(store, license_text.encode())},
              {"mediaType": media + "params", **_blob(store, b'{"temperature":0.6}')}]  # fmt: skip
    config = {**config, "architecture": "amd64", "os": "linux",
              "rootfs": {"type": "layers", "diff_ids": [layer["digest"] for layer in layers]}}  # fmt: skip
    manifest = {"schemaVersion": 2, "mediaType": "application/vnd.docker.distribution.manifest.v2+json",
                "config": {"mediaType": "application/vnd.docker.container.image.v1+json",
                           **_blob(store, json.dumps(config).encode())}, "layers": layers}  # fmt: skip
    path = store / "manifests/registry.ollama.ai/library" / model / tag
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(manifest) + "\n")


class _Runs:
    """Its pickle names os.system: unpickling it would run a command (it is never unpickled here or by the scan)."""

    def __reduce__(self) -> tuple[Any, tuple[str]]:
        return os.system, ("true",)


def sha(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def build(root: Path) -> dict[str, Any]:
    """Writes the tree under `root`; returns its truth: each local model's facts and file digests."""
    tmp = root / ".parts"
    tmp.mkdir(parents=True)
    coder = gguf_file(tmp / "coder.gguf", "qwen3moe", "Qwen3 Coder 30B A3B Instruct", "30B-A3B",
                      gguf.LlamaFileType.MOSTLY_Q4_K_M, 262144, "apache-2.0")  # fmt: skip
    ollama_model(root, "qwen3-coder", "30b", coder.read_bytes(),
                 {"model_format": "gguf", "model_family": "qwen3moe", "model_families": ["qwen3moe"],
                  "model_type": "30.5B", "file_type": "Q4_K_M"}, APACHE)  # fmt: skip
    llama = gguf_file(tmp / "llama.gguf", "llama", "Llama 3.2 3B Instruct", "3B", gguf.LlamaFileType.MOSTLY_Q4_K_M,
                      131072, "llama3.2")  # fmt: skip
    ollama_model(root, "llama3.2", "3b", llama.read_bytes(),
                 {"model_format": "gguf", "model_family": "llama", "model_families": ["llama"],
                  "model_type": "3.2B", "file_type": "Q4_K_M"}, LLAMA_32)  # fmt: skip
    (root / "etc/systemd/system").mkdir(parents=True)
    (root / "etc/systemd/system/ollama.service").write_text(OLLAMA_UNIT)

    small = safetensors_file(tmp / "small.safetensors", (64, 16), 1)
    card = b"---\nlicense: apache-2.0\nbase_model:\n- Qwen/Qwen3-0.6B-Base\npipeline_tag: text-generation\n---\n# Q\n"
    config = {"architectures": ["Qwen3ForCausalLM"], "model_type": "qwen3", "torch_dtype": "bfloat16",
              "max_position_embeddings": 40960}  # fmt: skip
    hf_cache(root, "Qwen/Qwen3-0.6B", {"config.json": json.dumps(config).encode(), "README.md": card,
                                       "model.safetensors": small.read_bytes()}, lfs={"model.safetensors"})  # fmt: skip

    served = root / "srv/models/Qwen3-32B"
    for i in (1, 2):
        safetensors_file(served / f"model-0000{i}-of-00002.safetensors", (128, 32), 10 + i)
    (served / "config.json").write_text(json.dumps({**config, "max_position_embeddings": 32768}))
    (root / "etc/systemd/system/vllm.service").write_text(
        "[Unit]\nDescription=vLLM OpenAI server\n\n[Service]\nUser=vllm\nEnvironment=HF_HOME=/srv/hf\n"
        "ExecStart=/opt/vllm/bin/vllm serve /srv/models/Qwen3-32B --served-model-name qwen3-32b \\\n"
        "    --host 127.0.0.1 --port 8000 --max-model-len 32768\nRestart=on-failure\n\n[Install]\n"
        "WantedBy=multi-user.target\n")  # fmt: skip

    gemma = root / "srv/tgi-models/gemma-3-4b-it"
    safetensors_file(gemma / "model.safetensors", (32, 32), 3)
    (gemma / "config.json").write_text(json.dumps({"architectures": ["Gemma3ForConditionalGeneration"],
                                                   "model_type": "gemma3", "torch_dtype": "bfloat16"}))  # fmt: skip
    (root / "opt/tgi").mkdir(parents=True)
    (root / "opt/tgi/docker-compose.yml").write_text(
        "services:\n  tgi:\n    image: ghcr.io/huggingface/text-generation-inference:3.3.4\n"
        "    command: --model-id /data/gemma-3-4b-it --max-input-length 4096\n    ports:\n      - \"8080:80\"\n"
        "    volumes:\n      - /srv/tgi-models:/data\n    shm_size: 1g\n")  # fmt: skip

    lms = gguf_file(root / "home/dev/.lmstudio/models/lmstudio-community/gpt-oss-20b-GGUF/gpt-oss-20b-MXFP4.gguf",
                    "gpt-oss", "Gpt Oss 20b", "20B", gguf.LlamaFileType.MOSTLY_Q8_0, 131072, "apache-2.0")  # fmt: skip
    lms.chmod(0o666)

    exp = root / "home/dev/experiments"
    exp.mkdir(parents=True)
    (exp / "classifier.pkl").write_bytes(pickle.dumps({"model": _Runs()}, protocol=4))
    shutil.copy(HERE / "data/weights/tiny_state_dict.pt", exp / "tiny.pt")

    oc = root / "home/dev/.config/opencode/opencode.json"
    oc.parent.mkdir(parents=True)
    oc.write_text(json.dumps({
        "$schema": "https://opencode.ai/config.json", "model": "ollama/qwen3-coder:30b",
        "provider": {
            "ollama": {"npm": "@ai-sdk/openai-compatible", "options": {"baseURL": "http://localhost:11434/v1"},
                       "models": {"qwen3-coder:30b": {}, "llama3.3:70b": {}}},
            "vllm": {"npm": "@ai-sdk/openai-compatible", "options": {"baseURL": "http://127.0.0.1:8000/v1"},
                     "models": {"qwen3-32b": {}}},
        },
    }, indent=2) + "\n")  # fmt: skip
    shutil.rmtree(tmp)
    return truth(root)


def truth(root: Path) -> dict[str, Any]:
    """What is true of the tree, from its files: each model's store, presence, vendor and file digests."""
    blobs = root / OLLAMA / "blobs"

    def weight_blob(model: str, tag: str) -> str:
        manifest = json.loads((root / OLLAMA / "manifests/registry.ollama.ai/library" / model / tag).read_text())
        digest = next(x["digest"] for x in manifest["layers"] if x["mediaType"].endswith(".model"))
        return "/" + str((blobs / digest.replace(":", "-")).relative_to(root))

    def files(*paths: str) -> dict[str, str]:
        return {p: sha(root / p.lstrip("/")) for p in paths}

    hub = "/home/dev/.cache/huggingface/hub/models--Qwen--Qwen3-0.6B/blobs/"
    hub_blob = next(p.name for p in (root / hub.lstrip("/")).iterdir() if len(p.name) == 64)
    return {"models": [
        {"name": "qwen3-coder:30b", "store": "ollama", "present": True, "vendor": "alibaba",
         "files": files(weight_blob("qwen3-coder", "30b")), "servers": ["ollama"], "used_by": ["opencode (dev)"]},
        {"name": "llama3.2:3b", "store": "ollama", "present": True, "vendor": "meta",
         "files": files(weight_blob("llama3.2", "3b")), "servers": ["ollama"], "used_by": [],
         "license": "llama3.2"},
        {"name": "Qwen/Qwen3-0.6B", "store": "hf-hub", "present": True, "vendor": "alibaba",
         "files": files(hub + hub_blob), "servers": [], "used_by": []},
        {"name": "Qwen3-32B", "store": "folder", "present": True, "vendor": "alibaba",
         "files": files(*(f"/srv/models/Qwen3-32B/model-0000{i}-of-00002.safetensors" for i in (1, 2))),
         "servers": ["vllm"], "used_by": ["opencode (dev)"], "aliases": ["qwen3-32b"]},
        {"name": "gemma-3-4b-it", "store": "folder", "present": True, "vendor": "google",
         "files": files("/srv/tgi-models/gemma-3-4b-it/model.safetensors"), "servers": ["tgi"], "used_by": []},
        {"name": "lmstudio-community/gpt-oss-20b-GGUF", "store": "lmstudio", "present": True, "vendor": "openai",
         "files": files("/home/dev/.lmstudio/models/lmstudio-community/gpt-oss-20b-GGUF/gpt-oss-20b-MXFP4.gguf"),
         "servers": [], "used_by": [], "world_writable": True},
        {"name": "classifier", "store": "file", "present": True, "vendor": None,
         "files": files("/home/dev/experiments/classifier.pkl"), "servers": [], "used_by": [],
         "unsafe_globals": ["posix.system"]},
        {"name": "tiny", "store": "file", "present": True, "vendor": None,
         "files": files("/home/dev/experiments/tiny.pt"), "servers": [], "used_by": []},
        {"name": "llama3.3:70b", "store": "none", "present": False, "vendor": "meta", "files": {}, "servers": [],
         "used_by": ["opencode (dev)"]},
    ]}  # fmt: skip

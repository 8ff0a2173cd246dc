"""The project's own real-parts tree for `make bench` (`.bench/real`, cached), and its 10% and 1% subsets.

Laid out as a machine is, one kind of file per top-level part, so each part can be measured on its own:
- `/opt`: pip-installed torch, transformers and the LLM SDKs;
- `/usr`: a hard-linked copy of the host's `/usr` (no space) and the npm agent products of the eval developer
  machine under `/usr/lib/node_modules` (their 100-400 MB executables);
- `/home`: ~425 MB of Claude Code, Codex and Kimi sessions, and `/var`: ~75 MB of LiteLLM proxy spend logs
  beside the host's dpkg database. The sessions are written by the lived-in eval corpus's writers
  (`eval/lived_*.py`): fresh ids and text in every record, tool output quoting real files (the SDKs' sources,
  litellm's price list, the host's `/usr/share/doc`), as sessions on a machine in use are;
- `/srv`: one 2 GB GGUF weight file (`srv/models/bench-2g.gguf`), written by llama.cpp's `gguf` writer with its
  tensor data in full (not sparse): its header read in place and its SHA-256 fed from the windows.
"""

from __future__ import annotations

import os
import random
import shutil
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
BENCH = REPO / ".bench"
REAL = BENCH / "real"
STAMP = BENCH / "real.version"
VERSION = "2"
MIB = 1 << 20
SITE = "opt/ml/venv/lib/python3.11/site-packages"
PIP = ["torch==2.13.0", "transformers==4.57.1", "openai", "anthropic", "litellm", "google-genai", "mistralai"]
SEED = 20261202
DAY = 86400.0
T0 = 1787000000.0


def _run(*cmd: str) -> None:
    subprocess.run(list(cmd), check=True)


def _same_fs(a: Path, b: Path) -> bool:
    return os.stat(a).st_dev == os.stat(b).st_dev


def _copy_tree(src: Path, dest: Path) -> None:
    """`src`'s content into `dest`: hard links on the same filesystem (no space), a copy otherwise."""
    dest.mkdir(parents=True, exist_ok=True)
    flag = "-al" if _same_fs(src, dest) else "-a"
    subprocess.run(["cp", flag, "--no-clobber", f"{src}/.", str(dest)], check=False, stderr=subprocess.DEVNULL)


WEIGHTS = Path("srv/models/bench-2g.gguf")
WEIGHT_TENSORS = 16  # of 8192 x 8192 float16 values (128 MiB) each: 2 GiB of tensor data


def weights(root: Path) -> Path:
    """A 2 GB GGUF under `root`, written once: the gguf writer's header and tensor infos, then the tensors."""
    import gguf
    import numpy as np

    path = root / WEIGHTS
    if path.is_file() and path.stat().st_size > WEIGHT_TENSORS * 128 * MIB:
        return path
    path.parent.mkdir(parents=True, exist_ok=True)
    part = path.with_suffix(".part")
    w = gguf.GGUFWriter(str(part), "llama")
    w.add_name("Bench Llama 2G")
    w.add_size_label("1B")
    w.add_context_length(8192)
    w.add_file_type(gguf.LlamaFileType.MOSTLY_F16)
    tensor = np.random.default_rng(SEED).standard_normal((8192, 8192), dtype=np.float32).astype(np.float16)
    for i in range(WEIGHT_TENSORS):
        w.add_tensor_info(f"blk.{i}.ffn_up.weight", tensor.shape, tensor.dtype, tensor.nbytes)
    w.write_header_to_file()
    w.write_kv_data_to_file()
    w.write_ti_data_to_file()
    for _ in range(WEIGHT_TENSORS):
        w.write_tensor_data(tensor)
    w.close()
    part.rename(path)
    return path


def build() -> None:
    weights(REAL)  # added to a tree built before it, without rebuilding the rest
    if STAMP.is_file() and STAMP.read_text().strip() == VERSION and REAL.is_dir():
        return
    old = BENCH / "real.old"
    shutil.rmtree(old, ignore_errors=True)
    if REAL.is_dir() and (REAL / SITE).is_dir():  # the pip install is the slow part: kept from an older layout
        REAL.rename(old)
    REAL.mkdir(parents=True, exist_ok=True)
    site = REAL / SITE
    if (old / SITE).is_dir():
        site.parent.mkdir(parents=True, exist_ok=True)
        (old / SITE).rename(site)
    else:
        _run(sys.executable, "-m", "pip", "install", "--quiet", "--no-compile", "--target", str(site), *PIP)
    _copy_tree(Path("/usr"), REAL / "usr")
    modules = REPO / ".eval/dev-machine/root/usr/lib/node_modules"
    if modules.is_dir():
        _copy_tree(modules, REAL / "usr/lib/node_modules")
    else:
        _run("npm", "install", "-g", "--silent", "--prefix", str(REAL / "usr"), "--os", "linux", "--cpu", "x64",
             "@anthropic-ai/claude-code@2.1.332", "@openai/codex@0.171.0", "opencode-ai@1.18.33")
    if Path("/var/lib/dpkg").is_dir():
        _copy_tree(Path("/var/lib/dpkg"), REAL / "var/lib/dpkg")
    sessions(REAL, site, 500 * MIB)
    shutil.rmtree(old, ignore_errors=True)
    for pct in (10, 1):
        subset(REAL, BENCH / f"real-{pct}", pct, link=True)
    STAMP.write_text(VERSION + "\n")


def sessions(root: Path, site: Path, total: int) -> None:
    """`total` bytes of sessions and proxy logs, by the lived-in corpus's writers: 45% Claude Code, 35% Codex,
    5% Kimi under /home, 15% LiteLLM spend logs under /var/log/litellm."""
    sys.path.insert(0, str(REPO / "eval"))
    import lived_claude
    import lived_codex
    import lived_more
    import lived_others
    from lived_base import Ctx, Spec
    from lived_filler import Filler
    from lived_ids import Ids

    rng = random.Random(SEED)
    ctx = Ctx(root, Ids(SEED), Filler(site, Path("/usr/share/doc"), SEED), rng)
    plan = [(0.45, lived_claude.write, ["claude-sonnet-4-5-20250929", "claude-opus-4-5-20251101"]),
            (0.35, lived_codex.write, ["gpt-5.1-codex", "gpt-5-codex"]),
            (0.05, lived_others.kimi, ["kimi-for-coding"])]
    for share, write, models in plan:
        written = 0
        while written < share * total:
            size = int(min(rng.lognormvariate(14.5, 1.0), 24 * MIB))
            spec = Spec(rng.choice(["alice", "bob"]), rng.choice(models), "direct", T0 + rng.uniform(0, 90) * DAY,
                        size, rng.choice(["visible", "encrypted"]), {})
            write(ctx, spec)
            written += size
    routes = [("ClaudeSonnet4", "us.anthropic.claude-sonnet-4-20250514-v1:0", "anthropic"),
              ("NovaPro1", "amazon.nova-pro-v1:0", "aws")]
    days = 20
    for d in range(days):
        lived_more.litellm_logs(ctx, T0 + d * DAY, int(0.15 * total / days), routes, f"spend-logs-{d:02d}.jsonl")


def subset(root: Path, dest: Path, pct: int, link: bool) -> None:
    """Every (100/pct)th regular file of `root`, in sorted order, at the same path under `dest`: hard links
    when `link` (the tree is ours), copies otherwise (a shared tree whose link counts must not change)."""
    shutil.rmtree(dest, ignore_errors=True)
    files = sorted(p for p in root.rglob("*") if p.is_file() and not p.is_symlink())
    for i, path in enumerate(files):
        if i % (100 // pct):
            continue
        target = dest / path.relative_to(root)
        target.parent.mkdir(parents=True, exist_ok=True)
        try:
            os.link(path, target) if link else shutil.copy2(path, target)
        except OSError:
            continue  # unreadable (a host file only root may read): left out of the subset

"""The `local-models` corpus: a machine with models on it, built from real parts (`tests/local_tree.py`: GGUF by
the `gguf` writer, safetensors by `safetensors`, an Ollama store and a Hugging Face cache laid out as their tools
lay them out, vLLM, Ollama and TGI run by a systemd unit and a Compose file, an opencode config pointing at them),
and its truth, read off the files the builder wrote (`eval/truth/local-models.toml` is a copy)."""

from __future__ import annotations

import shutil
import sys
from typing import Any

import common as c

sys.path.insert(0, str(c.REPO))
from tests import local_tree  # noqa: E402  (the tree's builder is shared with the tests)

HEADER = """Truth of the local-models corpus, read off the files eval/build_local_models.py wrote: each local model,
its store, whether its weights are here, its vendor, its weight files' SHA-256, its servers and the agents whose
configs use it."""


def main() -> None:
    base = c.CACHE / "local-models"
    shutil.rmtree(base, ignore_errors=True)
    truth = local_tree.build(base / "root")
    models: list[dict[str, Any]] = []
    for m in truth["models"]:
        entry = {k: v for k, v in m.items() if k != "files" and v is not None}
        entry["files"] = [{"path": p, "sha256": h} for p, h in sorted(m["files"].items())]
        models.append(entry)
    text = c.dump_toml({"models": models}, HEADER)
    (base / "truth.toml").write_text(text)
    (c.EVAL_DIR / "truth" / "local-models.toml").write_text(text)


if __name__ == "__main__":
    main()

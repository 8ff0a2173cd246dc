"""The keys of the inference hosts an ML machine holds beside the model makers' (Hugging Face, Perplexity, Cerebras,
NVIDIA, Replicate), where their own tools keep them: each found, named by its vendor, and shown only redacted."""

from __future__ import annotations

import json
from pathlib import Path

from tests.conftest import ScanFn, entry, write

# Well-formed fakes of each format (keyformats.json: hf_ + 34 letters, pplx- + 48, csk- + 48, nvapi- + 64, r8_ + 37).
HF = "hf_FAKEfakeFAKEfakeFAKEfakeFAKEfakeFA"
KEYS = {
    "PERPLEXITY_API_KEY": "pplx-FAKE0000fake0000FAKE0000fake0000FAKE0000fake0000",
    "CEREBRAS_API_KEY": "csk-fake0000fake0000fake0000fake0000fake0000fake0000",
    "NVIDIA_API_KEY": "nvapi-FAKE0000fake0000FAKE0000fake0000FAKE0000fake0000FAKE0000fake0000",
    "REPLICATE_API_TOKEN": "r8_FAKE0000fake0000FAKE0000fake0000FAKE0",
}


def test_inference_host_keys_are_found_where_their_tools_keep_them(tmp_path: Path, scan_dir: ScanFn) -> None:
    # huggingface_hub's `hf auth login` writes the bare token to ~/.cache/huggingface/token (no name beside it).
    write(tmp_path, "/home/ml/.cache/huggingface/token", HF)
    write(tmp_path, "/home/ml/proj/.env", "".join(f"{name}={value}\n" for name, value in KEYS.items()))
    _, doc = scan_dir(tmp_path)
    found = {(c["type"], c["vendor"]) for c in doc["credentials"]}
    assert found == {
        ("huggingface-access-token", "huggingface"),
        ("perplexity-api-key", "perplexity"),
        ("cerebras-api-key", "cerebras"),
        ("nvidia-api-key", "nvidia"),
        ("replicate-api-token", "replicate"),
    }
    text = json.dumps(doc)
    assert all(secret not in text for secret in (HF, *KEYS.values()))
    assert entry(doc, "credentials", type="huggingface-access-token")["redacted"].startswith("hf_…")


def test_an_inference_host_is_a_route_not_a_maker(tmp_path: Path, scan_dir: ScanFn) -> None:
    # NVIDIA's hosted NIM API through the OpenAI SDK's variable: the route is NVIDIA's, the model's maker stays Meta's.
    write(tmp_path, "/srv/app/.env", "OPENAI_BASE_URL=https://integrate.api.nvidia.com/v1\n"
          "OPENAI_MODEL=meta/llama-3.3-70b-instruct\n")
    _, doc = scan_dir(tmp_path)
    gateway = entry(doc, "endpoints", host="integrate.api.nvidia.com")
    assert (gateway["vendor"], gateway["served_via"]) == (None, "nvidia")
    assert gateway["overrides"] == [{"vendor": "openai", "set_by": "OPENAI_BASE_URL"}]
    assert "endpoint-unlisted:integrate.api.nvidia.com" not in {f["id"] for f in doc["findings"]}

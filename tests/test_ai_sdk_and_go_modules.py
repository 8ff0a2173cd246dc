"""SDKs of issue 16 §7: the Vercel AI SDK (`ai`, `@ai-sdk/*`) from real npm metadata, Go modules with /vN."""

from __future__ import annotations

import shutil
from pathlib import Path

from tests.conftest import REPO, ScanFn, write
from tests.gobuildinfo import go_binary

NPM = REPO / "tests/data/npm-ai-sdk"


def _installed(doc: dict) -> dict[tuple[str, str], dict]:
    return {(s["name"], s["environment"]): s for s in doc["sdks"] if s["installed"]}


def test_ai_and_every_ai_sdk_provider_with_version_vendor_and_route(tmp_path: Path, scan_dir: ScanFn) -> None:
    shutil.copytree(NPM, tmp_path / "srv/app")
    (tmp_path / "srv/app/SOURCE.txt").unlink()
    _, doc = scan_dir(tmp_path)
    sdks = _installed(doc)
    env = "/srv/app/node_modules"
    expected = {
        "ai": ("6.0.326", None, None),
        "@ai-sdk/openai": ("3.0.141", "openai", None),
        "@ai-sdk/anthropic": ("3.0.140", "anthropic", None),
        "@ai-sdk/amazon-bedrock": ("4.0.186", "aws", "bedrock"),
        "@ai-sdk/google-vertex": ("4.0.208", "google", "vertex"),
        "@ai-sdk/google": ("3.0.129", "google", None),
        "@ai-sdk/azure": ("3.0.128", "microsoft", "azure"),
        "@ai-sdk/xai": ("3.0.138", "xai", "direct"),
        "@ai-sdk/deepseek": ("2.0.69", "deepseek", "direct"),
        "@ai-sdk/openai-compatible": ("2.0.92", None, None),
        "@ai-sdk/gateway": ("3.0.232", None, "vercel-ai-gateway"),
    }
    for name, (version, vendor, route) in expected.items():
        s = sdks[(name, env)]
        assert (s["version"], s["vendor"], s["served_via"]) == (version, vendor, route), name
    # npm nests an older copy under the package that pins it: another environment, its own version.
    nested = sdks[("@ai-sdk/openai", "/srv/app/node_modules/@ai-sdk/azure/node_modules")]
    assert nested["version"] == "3.0.120"
    # Framework packages name no provider.
    assert not {n for n, _ in sdks if n in ("@ai-sdk/provider", "@ai-sdk/provider-utils")}
    declared = {s["name"]: s["version"] for s in doc["sdks"] if not s["installed"]}
    assert declared["ai"] == "^6.0.326"


def test_go_modules_with_a_major_version_suffix_from_build_info(tmp_path: Path, scan_dir: ScanFn) -> None:
    # Built by hand in the layout of Go >= 1.18 (no Go toolchain on this machine; tests/gobuildinfo.py).
    blob = go_binary([
        ("github.com/openai/openai-go/v2", "v2.7.1"),
        ("github.com/anthropics/anthropic-sdk-go", "v1.19.0"),
        ("google.golang.org/genai", "v1.36.0"),
        ("github.com/aws/aws-sdk-go-v2/service/bedrockruntime", "v1.42.3"),
        ("github.com/spf13/cobra", "v1.10.1"),
    ])
    write(tmp_path, "/usr/local/bin/agentd", b"\x7fELF\x02\x01\x01\x00" + b"\x00" * 4096 + blob + b"\x00" * 64)
    _, doc = scan_dir(tmp_path)
    got = {s["name"]: (s["version"], s["environment"]) for s in doc["sdks"] if s["ecosystem"] == "go"}
    assert got == {
        "github.com/openai/openai-go": ("v2.7.1", "/usr/local/bin/agentd"),
        "github.com/anthropics/anthropic-sdk-go": ("v1.19.0", "/usr/local/bin/agentd"),
        "google.golang.org/genai": ("v1.36.0", "/usr/local/bin/agentd"),
        "github.com/aws/aws-sdk-go-v2/service/bedrockruntime": ("v1.42.3", "/usr/local/bin/agentd"),
    }

"""The `source` detector: SDK constructions, calls and the literals passed to them, in several languages."""

from __future__ import annotations

from pathlib import Path

from tests.conftest import SAMPLE_VM, ScanFn, entry, write

_BEDROCK_PY = """import anthropic
from anthropic import AnthropicBedrock

client = AnthropicBedrock(aws_region="us-east-1")

def ask(q):
    return client.messages.create(
        model="us.anthropic.claude-opus-4-7-v1:0",
        max_tokens=512,
        messages=[{"role": "user", "content": q}],
    )
"""

_AZURE_TS = """import { AzureOpenAI } from 'openai';
const client = new AzureOpenAI({ endpoint: "https://acme-eu.openai.azure.com/", apiVersion: "2025-04-01-preview" });
export async function run(input: string) {
  return client.responses.create({ model: "acme-gpt-internal", input });
}
"""

_GO = """package llm

import (
\t"context"

\t"github.com/openai/openai-go"
\t"github.com/openai/openai-go/option"
)

func Ask(ctx context.Context) {
\tclient := openai.NewClient(option.WithBaseURL("http://llm-gateway.internal:4000/v1"))
\tclient.Chat.Completions.New(ctx, openai.ChatCompletionNewParams{Model: "muse-3-preview"})
}
"""


def test_routes_models_and_clients_from_source(tmp_path: Path, scan_dir: ScanFn) -> None:
    write(tmp_path, "/srv/app/bot.py", _BEDROCK_PY)
    write(tmp_path, "/srv/web/src/run.ts", _AZURE_TS)
    write(tmp_path, "/srv/gw/llm/ask.go", _GO)
    _, doc = scan_dir(tmp_path)
    bedrock = entry(doc, "clients", provider="AnthropicBedrock")
    assert (bedrock["served_via"], bedrock["kind"], bedrock["components"]) == ("bedrock", "source", ["messages.create"])
    assert bedrock["locations"][0]["line"] == 4
    model = entry(doc, "models", name="us.anthropic.claude-opus-4-7-v1:0")
    assert model["served_via"] == "bedrock" and model["locations"][0]["line"] == 8
    azure = entry(doc, "clients", provider="AzureOpenAI")
    assert azure["served_via"] == "azure" and azure["components"] == ["responses.create"]
    inhouse = entry(doc, "models", name="acme-gpt-internal")  # no catalog knows it; the call says it is a model
    assert (inhouse["served_via"], inhouse["wired"], inhouse["locations"][0]["line"]) == ("azure", True, 4)
    assert "https://acme-eu.openai.azure.com/" in entry(doc, "endpoints", host="acme-eu.openai.azure.com")["urls"]
    assert entry(doc, "clients", provider="OpenAI")["components"] == ["chat.completions.create"]
    assert entry(doc, "models", name="muse-3-preview")["locations"][0]["line"] == 12


def test_minified_bundle_reads_only_windows(tmp_path: Path, scan_dir: ScanFn) -> None:
    filler = "var a=function(){return 1};" * 20000  # one line of ~540 KB
    bundle = (
        filler + 'import{createAnthropic}from"@ai-sdk/anthropic";import{generateText}from"ai";'
        'const p=createAnthropic({baseURL:"https://llm-proxy.corp.example/anthropic"});'
        'generateText({model:p("claude-sonnet-4-6"),prompt:x});' + filler
    )
    write(tmp_path, "/opt/app/dist/main.js", bundle)
    _, doc = scan_dir(tmp_path)
    client = entry(doc, "clients", provider="Anthropic")
    assert client["locations"][0]["line"] == 1 and client["components"] == ["generateText"]
    assert entry(doc, "endpoints", host="llm-proxy.corp.example")["wired"]
    assert entry(doc, "models", name="claude-sonnet-4-6")["wired"]


def test_code_without_an_llm_sdk_gives_no_clients(tmp_path: Path, scan_dir: ScanFn) -> None:
    write(tmp_path, "/srv/app/db.py", 'rows = db.messages.create(model="invoice", body=x)\n')
    _, doc = scan_dir(tmp_path)
    assert doc["clients"] == [] and doc["models"] == []


def test_sample_vm_python_client(scan_dir: ScanFn) -> None:
    _, doc = scan_dir(SAMPLE_VM)
    client = entry(doc, "clients", provider="Anthropic", kind="source")
    assert client["locations"][0]["path"] == "/opt/jarvis/lib/jarvis/providers/anthropic_client.py"
    assert client["components"] == ["messages.create"]

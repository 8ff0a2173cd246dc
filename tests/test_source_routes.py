"""The route of a model named in application source (issue 16 section 2: wired models with vendor and route), on
the SDKs' own README examples (tests/data/source/SOURCE.txt): a model takes the route of its vendor's client built
in the file, else of its vendor's SDK imported there; a model maker's client never routes another maker's model."""

from __future__ import annotations

import shutil
from pathlib import Path

from tests.conftest import REPO, ScanFn, entry

DATA = REPO / "tests" / "data" / "source"


def _put(root: Path, sample: str, inside: str) -> None:
    dest = root / inside.lstrip("/")
    dest.parent.mkdir(parents=True, exist_ok=True)
    shutil.copyfile(DATA / sample, dest)


def _route(doc: dict, name: str) -> tuple[str | None, str | None, bool]:
    m = entry(doc, "models", name=name)
    return m["vendor"], m["served_via"], m["wired"]


def test_ai_sdk_provider_factories_reach_the_vendors_own_api(tmp_path: Path, scan_dir: ScanFn) -> None:
    # `model: anthropic('claude-haiku-5-5')` after `import { anthropic } from '@ai-sdk/anthropic'`.
    _put(tmp_path, "ai-sdk-anthropic.usage.ts", "/srv/app/src/summarize.ts")
    _put(tmp_path, "ai-sdk-openai.usage.ts", "/srv/app/src/classify.ts")
    _, doc = scan_dir(tmp_path)
    assert _route(doc, "claude-haiku-5-5") == ("anthropic", "direct", True)
    assert _route(doc, "gpt-6-luna") == ("openai", "direct", True)


def test_vertex_client_routes_gemini_and_never_mistral(tmp_path: Path, scan_dir: ScanFn) -> None:
    # genai.Client(vertexai=True) sends gemini-3.8-flash to Vertex AI; the Mistral call after it is Mistral's own
    # API (its SDK is imported), not Vertex: Google's client serves Google's models only.
    _put(tmp_path, "genai-vertex-and-mistral.py.txt", "/srv/app/llm.py")
    _, doc = scan_dir(tmp_path)
    assert _route(doc, "gemini-3.8-flash") == ("google", "vertex", True)
    assert _route(doc, "mistral-large-latest") == ("mistral", "direct", True)


def test_a_model_with_no_sdk_of_its_vendor_in_the_file_keeps_no_route(tmp_path: Path, scan_dir: ScanFn) -> None:
    # The openai example names an OpenAI model; the Anthropic SDK in another file says nothing about it, and a
    # file that imports no SDK of a model's vendor states no route for it.
    _put(tmp_path, "ai-sdk-anthropic.usage.ts", "/srv/app/src/summarize.ts")
    (tmp_path / "srv/app/src/names.ts").write_text('export const FALLBACK = "gpt-5.5";\n')
    _, doc = scan_dir(tmp_path)
    assert _route(doc, "gpt-5.5")[1] is None


def test_a_vendor_client_given_a_gateway_base_url_is_not_direct(tmp_path: Path, scan_dir: ScanFn) -> None:
    # The @ai-sdk/openai README example, with the provider built against an in-house gateway: createOpenAI(
    # {baseURL}) is OpenAI's client, but its traffic goes to the gateway, so the model's route is not evident.
    text = (DATA / "ai-sdk-openai.usage.ts").read_text().replace(
        "import { openai } from '@ai-sdk/openai';",
        "import { createOpenAI } from '@ai-sdk/openai';\n"
        "const openai = createOpenAI({ baseURL: 'https://llm-gw.corp.internal/v1' });",
    )
    (tmp_path / "srv/app/src").mkdir(parents=True)
    (tmp_path / "srv/app/src/classify.ts").write_text(text)
    _, doc = scan_dir(tmp_path)
    assert _route(doc, "gpt-6-luna") == ("openai", None, True)


def test_a_gateway_url_of_another_call_leaves_the_vendors_client_direct(tmp_path: Path, scan_dir: ScanFn) -> None:
    # A module with OpenAI's own client and, right after, a LiteLLM gateway call with its own api_base: that URL
    # is the litellm call's argument, not the OpenAI client's, so the OpenAI model keeps OpenAI's own API.
    (tmp_path / "srv/app").mkdir(parents=True)
    (tmp_path / "srv/app/llm.py").write_text(
        "import litellm\nimport openai\n\nclient = openai.OpenAI()\nOPENAI_MODEL = \"gpt-5.5\"\n\n"
        'resp = litellm.completion(model="litellm_proxy/team-default", api_base="http://127.0.0.1:4000", messages=[])\n'
    )
    _, doc = scan_dir(tmp_path)
    assert _route(doc, "gpt-5.5") == ("openai", "direct", True)

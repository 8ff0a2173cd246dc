"""Where a host name puts its server, asked in one place: a local model's join, a base URL's route and a bill of
materials' trust boundary all read `scanner/hosts.py`."""

from __future__ import annotations

import pytest

from scanner.catalog import Catalog
from scanner.configs.providers import url_route
from scanner.hosts import crosses_trust_boundary, filled_slots, is_loopback, is_self_hosted, is_tool_server_url


@pytest.mark.parametrize("host", ["localhost", "LOCALHOST.", "ollama.localhost", "127.0.0.1", "127.8.9.10", "::1",
                                  "[::1]", "0.0.0.0", "::"])
def test_loopback_names_and_addresses(host: str) -> None:
    assert is_loopback(host) and is_self_hosted(host) and not crosses_trust_boundary(host)


@pytest.mark.parametrize("host", ["127.attacker.example", "localhost.example.com", "10.0.0.5", "api.openai.com",
                                  "host.docker.internal", "studio.local"])
def test_not_loopback(host: str) -> None:
    assert not is_loopback(host)


def test_self_hosted_is_this_machine_its_container_host_or_an_mdns_name() -> None:
    assert is_self_hosted("host.docker.internal") and is_self_hosted("studio.local")
    assert not is_self_hosted("gpu.lab.local") and not is_self_hosted("10.0.0.5")
    assert not is_self_hosted("127.attacker.example")


def test_trust_boundary() -> None:
    for inside in ("10.0.0.5", "192.168.1.2", "169.254.1.1", "proxy", "proxy.internal", "gw.corp.lan", "a.svc",
                   "x.home.arpa", "api.localhost"):
        assert not crosses_trust_boundary(inside), inside
    for outside in ("api.openai.com", "8.8.8.8", "127.attacker.example"):
        assert crosses_trust_boundary(outside), outside


def test_a_base_url_routes_as_its_host_says(catalog: Catalog) -> None:
    assert url_route("http://ollama.localhost:11434/v1", catalog) == "self-hosted"
    assert url_route("http://[::1]:8000/v1", catalog) == "self-hosted"
    assert url_route("http://host.docker.internal:4000", catalog) == "self-hosted"
    assert url_route("http://127.attacker.example/v1", catalog) == "127.attacker.example"


@pytest.mark.parametrize(("url", "route"), [
    ("https://<>.openai.azure.com/", "azure"),  # ../shared/samples/configs/autogen-oai-config-list
    ("https://<your-resource-name>.openai.azure.com/openai", "azure"),
    ("https://${AZURE_OPENAI_RESOURCE}.openai.azure.com", "azure"),
    ("https://{{ .Values.azureResource }}.openai.azure.com", "azure"),
    ("https://$RESOURCE.services.ai.azure.com/models", "azure"),
    ("https://{RESOURCE}.openai.azure.com", "azure"),  # aichat's config.example.yaml
    ("https://YOUR_RESOURCE_NAME.openai.azure.com", "azure"),  # mods' config template
    ("https://my_proxy.example.com/v1", None),
    ("http://<YOUR_WIREMOCK_NLB>:9021/chat/completions", None),  # samples/configs/litellm-helm-values
    ("http://${LITELLM_HOST}:4000", None),
    ("https://litellm.corp.example/v1", "litellm.corp.example"),  # a real name stays the gateway it is
])
def test_a_template_slot_in_a_base_url_is_read_around_never_taken_for_a_gateway(
    catalog: Catalog, url: str, route: str | None
) -> None:
    assert url_route(url, catalog) == route


def test_a_host_with_a_slot_is_placed_by_the_catalogued_suffix_around_it(catalog: Catalog) -> None:
    assert filled_slots("<>.openai.azure.com") == "slot.openai.azure.com"
    assert filled_slots("api.openai.com") is None
    spec = catalog.host_info("<my-aoai>.openai.azure.com")
    assert spec is not None and (spec.vendor, spec.served_via) == ("openai", "azure")
    assert catalog.host_info("<>.openai.azure.com.evil.example") is None  # the suffix must end the name


@pytest.mark.parametrize("url", [
    "https://mcp.context7.com/mcp",  # Gemini CLI's httpUrl in ../shared/samples/configs
    "https://open.bigmodel.cn/api/mcp/zread/mcp",  # the vendor's own host, a tool server's path
    "https://api.githubcopilot.com/mcp/",
    "https://mcp.example.com/sse?token=x",
    "http://localhost:37373/mcp#frag",
])
def test_an_mcp_servers_url_is_known_by_its_path(url: str) -> None:
    assert is_tool_server_url(url)


@pytest.mark.parametrize("url", [
    "https://open.bigmodel.cn/api/paas/v4",
    "https://api.z.ai/api/anthropic",
    "https://mcp.jina.ai/v1",  # an MCP server only its record's role tells (`mcp.jina.url`)
    "https://example.com/mcp-gateway/v1",
    "https://mcp",
    "mcp",
])
def test_a_model_apis_url_is_no_tool_server(url: str) -> None:
    assert not is_tool_server_url(url)

"""Where a host name puts its server, asked in one place: a local model's join, a base URL's route and a bill of
materials' trust boundary all read `scanner/hosts.py`."""

from __future__ import annotations

import pytest

from scanner.catalog import Catalog
from scanner.configs.providers import url_route
from scanner.hosts import crosses_trust_boundary, is_loopback, is_self_hosted


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

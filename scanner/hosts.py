"""Where a host name puts its server: on this machine, on the machine's own network, or beyond it.

Network conventions (`localhost`, loopback and private addresses, the names a private network resolves itself), not
catalog knowledge: which vendor or gateway a host belongs to is the catalogs' (`Catalog.host_info`).
"""

from __future__ import annotations

import ipaddress
import re

# Names a private network resolves itself: mDNS, home and corporate networks, cluster DNS, the reserved `.internal`.
_PRIVATE_SUFFIXES = (".internal", ".local", ".lan", ".localdomain", ".svc", ".cluster.local", ".home.arpa")
# The name a container reaches the machine it runs on by.
_CONTAINER_HOST = "host.docker.internal"

Address = ipaddress.IPv4Address | ipaddress.IPv6Address
# A template's slot where a name goes (`<your-resource>`, `<>`, `${AZURE_RESOURCE}`, `{{ .Values.host }}`, `$HOST`,
# `{RESOURCE}`, `YOUR_RESOURCE_NAME`): a config or a doc left unfilled. Only these characters mark one: no host name
# holds them.
_SLOT = re.compile(
    r"<[^<>/]{0,80}>|\$\{[^{}/]{0,80}\}|\{\{[^{}/]{0,120}\}\}|\{[a-z_][a-z0-9_\-]{0,80}\}|\$[a-z_][a-z0-9_]{0,80}"
    r"|(?:^|(?<=\.))[a-z0-9\-]{0,40}_[a-z0-9_\-]{0,80}(?=\.)",  # a label with `_` (`YOUR_RESOURCE_NAME.`): no host's
    re.IGNORECASE,
)
SLOT = "slot"  # what fills a slot: one plain label, so a catalogued suffix around it still reads


# The last part of an MCP server's URL path (`https://mcp.context7.com/mcp`, `…/sse`): the conventional paths of
# the protocol's streamable-HTTP and SSE transports.
_TOOL_SERVER_TAILS = frozenset({"mcp", "sse"})


def is_tool_server_url(url: str) -> bool:
    """Whether a URL is an MCP server's (its path ends in `/mcp` or `/sse`): a tool the agent calls, not an API a
    model is reached through, whatever host serves it (`https://open.bigmodel.cn/api/mcp/zread/mcp`)."""
    rest = url.partition("://")[2] or url
    path = rest.split("?", 1)[0].split("#", 1)[0].rstrip("/")
    head, slash, tail = path.rpartition("/")
    return bool(slash and head) and tail.lower() in _TOOL_SERVER_TAILS


def _name(host: str) -> str:
    return host.strip("[]").lower().rstrip(".")


def _address(name: str) -> Address | None:
    try:
        return ipaddress.ip_address(name)
    except ValueError:
        return None


def is_loopback(host: str) -> bool:
    """A server on this machine: `localhost` (and its subdomains), a loopback address, or the unspecified address
    (`0.0.0.0`, `::`) a server listens on, written as a client's target."""
    name = _name(host)
    address = _address(name)
    if address is None:
        return name == "localhost" or name.endswith(".localhost")
    return address.is_loopback or address.is_unspecified


def is_self_hosted(host: str) -> bool:
    """A server the machine's owner runs: on this machine, on the machine a container runs on, or a `.local`
    (mDNS) machine of the local network."""
    name = _name(host)
    return is_loopback(name) or name == _CONTAINER_HOST or (name.endswith(".local") and name.count(".") == 1)


def crosses_trust_boundary(host: str) -> bool:
    """Whether a call to `host` leaves the machine's own network: False for loopback, private addresses,
    single-label names and the private suffixes (`.internal`, `.local`, …), True for every other host."""
    name = _name(host)
    address = _address(name)
    if address is None:
        return not (is_loopback(name) or "." not in name or name.endswith(_PRIVATE_SUFFIXES))
    return not (address.is_private or address.is_loopback or address.is_link_local)


def filled_slots(host: str) -> str | None:
    """The host with each template slot filled by one plain label (`<>.openai.azure.com` ->
    `slot.openai.azure.com`), so a catalogued suffix around it still names its route; None when it has none."""
    filled, slots = _SLOT.subn(SLOT, host)
    return filled if slots else None

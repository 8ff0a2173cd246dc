"""A process's sockets, each mapped to an endpoint of the inventory where the VM's own evidence allows.

No DNS and no traffic: a remote address is named only by the audited machine's `/etc/hosts`, by a base
URL the process itself is configured with (its environment), or, for TLS on 443, by the one API host
the files it runs and reads are configured for. Anything less certain is a candidate, not a mapping.
"""

from __future__ import annotations

import ipaddress
from collections.abc import Iterable, Mapping, Sequence
from urllib.parse import urlsplit

from scanner.catalog import Catalog
from scanner.kinds.connections import ConnectionEntry
from scanner.live.process_facts import Socket
from scanner.textsafe import display_path

_DEFAULT_PORTS = {"https": 443, "http": 80, "wss": 443, "ws": 80}
HostsMap = Mapping[str, tuple[str, ...]]


def parse_hosts(text: str) -> dict[str, tuple[str, ...]]:
    """`/etc/hosts` as address -> names (lower-case, in file order)."""
    names: dict[str, list[str]] = {}
    for raw in text.splitlines():
        fields = raw.split("#", 1)[0].split()
        if len(fields) < 2:
            continue
        addr = _norm_ip(fields[0])
        if addr is None:
            continue
        bucket = names.setdefault(addr, [])
        bucket += [n.lower().rstrip(".") for n in fields[1:] if n.lower() not in bucket]
    return {a: tuple(n) for a, n in names.items()}


def _norm_ip(text: str) -> str | None:
    try:
        ip = ipaddress.ip_address(text.split("%", 1)[0])
    except ValueError:
        return None
    if isinstance(ip, ipaddress.IPv6Address) and ip.ipv4_mapped is not None:
        return str(ip.ipv4_mapped)
    return str(ip)


def _url_target(url: str) -> tuple[str, int | None] | None:
    text = url if "://" in url else f"https://{url}"
    try:
        parts = urlsplit(text)
        host = parts.hostname
        port = parts.port or _DEFAULT_PORTS.get(parts.scheme.lower())
    except ValueError:
        return None
    return (host.lower(), port) if host else None


def _addr(addr: tuple[str, int] | None) -> str | None:
    if addr is None:
        return None
    ip = _norm_ip(addr[0]) or addr[0]
    return f"[{ip}]:{addr[1]}" if ":" in ip else f"{ip}:{addr[1]}"


def map_sockets(
    pid: int,
    process: str,
    sockets: Sequence[Socket],
    base_urls: Iterable[str],
    configured_hosts: Iterable[str],
    hosts: HostsMap,
    known_hosts: frozenset[str],
    catalog: Catalog,
) -> tuple[ConnectionEntry, ...]:
    """Pure: the connection entries of one process.

    `base_urls` come from the process's environment; `configured_hosts` are the API hosts of the files it
    runs or is handed (its executable, `--config FILE`), as the filesystem scan found them;
    `known_hosts` are every endpoint host of the inventory (in-house ones too).
    """
    targets = [t for t in (_url_target(u) for u in base_urls) if t is not None]
    tls_hosts = sorted({h for h in configured_hosts if _norm_ip(h) is None and catalog.host_info(h) is not None})
    tls_hosts += sorted({h for h, p in targets if p == 443 and _norm_ip(h) is None} - set(tls_hosts))
    out = []
    for s in sockets:
        entry = ConnectionEntry(
            pid=pid,
            process=display_path(process),
            protocol=s.protocol,
            local=_addr(s.local) or "",
            remote=_addr(s.remote),
            state=s.state,
            endpoint=None,
            vendor=None,
            mapped_by=None,
        )
        if s.remote is not None:
            entry = _map(entry, s.remote, s.state, targets, tls_hosts, hosts, known_hosts, catalog)
        out.append(entry)
    return tuple(out)


def _map(
    entry: ConnectionEntry,
    remote: tuple[str, int],
    state: str,
    targets: list[tuple[str, int | None]],
    tls_hosts: list[str],
    hosts: HostsMap,
    known_hosts: frozenset[str],
    catalog: Catalog,
) -> ConnectionEntry:
    ip = _norm_ip(remote[0]) or remote[0]
    port = remote[1]
    names = hosts.get(ip, ())
    endpoint: str | None = None
    how: str | None = None
    candidates: tuple[str, ...] = ()
    for host, want in sorted(targets, key=lambda t: (t[0], t[1] or 0)):
        if want != port:
            continue
        if _norm_ip(host) == ip:
            endpoint, how = host, "base-url"
            break
        if host in names:
            endpoint, how = host, "base-url+etc-hosts"
            break
    if endpoint is None:
        known = [n for n in names if n in known_hosts or catalog.host_info(n) is not None]
        if known:
            endpoint, how = known[0], "etc-hosts"
    if endpoint is None and port == 443 and state == "ESTABLISHED" and tls_hosts:
        if len(tls_hosts) == 1:
            endpoint, how = tls_hosts[0], "sole-configured-host"
        else:
            candidates = tuple(tls_hosts)
    spec = catalog.host_info(endpoint) if endpoint else None
    return ConnectionEntry(
        entry.pid,
        entry.process,
        entry.protocol,
        entry.local,
        entry.remote,
        entry.state,
        endpoint,
        spec.vendor if spec else None,
        how,
        candidates,
    )

"""The one place a secret value is handled: it becomes a redacted form and a hash, nothing else.

Detectors call `credential_evidence` the moment they hold a secret; the value itself is dropped there.
`scrub` removes any credential from free text (URLs, values) before it can reach an output.
"""

from __future__ import annotations

import hashlib
import re
from urllib.parse import urlsplit, urlunsplit

_TAIL = 4
_USERINFO = re.compile(r"^([A-Za-z][A-Za-z0-9+.\-]*://)[^/@]*@")


_PEM = re.compile(r"-----BEGIN ([A-Z0-9 ]{0,20}PRIVATE KEY)-----(.*?)-----END ", re.DOTALL)
_PEM_BODY = re.compile(r"[A-Za-z0-9+/]")


def redact(secret: str, prefix: str) -> str:
    """The kind's public prefix plus at most the last 4 characters; shorter secrets show no tail."""
    if not secret.startswith(prefix):
        prefix = ""
    tail = secret[-_TAIL:] if len(secret) - len(prefix) >= 16 else ""
    return f"{prefix}…{tail}"


def fingerprint(secret: str) -> str:
    return hashlib.sha256(secret.encode("utf-8", "surrogateescape")).hexdigest()


def shown_and_hash(secret: str, prefix: str) -> tuple[str, str]:
    """What a credential's sighting keeps of its secret: the redacted form and the hash, never the value."""
    pem = _PEM.match(unescape_pem(secret))
    if pem is not None:
        # A PEM block: the whole block is hashed (as a file would hold it), only its header and the last
        # 4 characters of its body are shown.
        body = _PEM_BODY.findall(pem.group(2))
        shown = f"BEGIN {pem.group(1)}…{''.join(body[-_TAIL:]) if len(body) >= 64 else ''}"
        return shown, fingerprint(unescape_pem(secret))
    return redact(secret, prefix), fingerprint(secret)


def unescape_pem(block: str) -> str:
    """A PEM block as a file holds it, whether it was read from one or from a JSON string (`\\n`)."""
    if not block.startswith("-----BEGIN "):
        return block
    return block.replace("\\r", "").replace("\\n", "\n").replace("\r", "").strip()


def safe_url(url: str) -> str:
    """A URL without user info, query or fragment: those are where keys hide (`?key=AIza…`)."""
    try:
        parts = urlsplit(url)
        host = parts.hostname or ""
        netloc = f"{host}:{parts.port}" if parts.port else host
    except ValueError:  # a non-numeric port (`${PORT}`) and the like: strip by hand
        bare = url.split("?", 1)[0].split("#", 1)[0]
        return _USERINFO.sub(r"\1", bare)
    return urlunsplit((parts.scheme, netloc, parts.path, "", ""))


def scrub(text: str, patterns: list[re.Pattern[str]]) -> str:
    """`text` with anything that matches a credential pattern replaced by its redacted form."""
    for rx in patterns:
        text = rx.sub(lambda m: redact(m.group(), ""), text)
    return text

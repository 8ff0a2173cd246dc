"""The one place a secret value is handled: it becomes a redacted form and a hash, nothing else.

Detectors call `credential_evidence` the moment they hold a secret; the value itself is dropped there.
`scrub` removes any credential from free text (URLs, values) before it can reach an output.
"""

from __future__ import annotations

import hashlib
import re
from urllib.parse import urlsplit, urlunsplit

from scanner.model import CredentialEvidence, FileMeta, Location

_TAIL = 4
_USERINFO = re.compile(r"^([A-Za-z][A-Za-z0-9+.\-]*://)[^/@]*@")


def redact(secret: str, prefix: str) -> str:
    """The kind's public prefix plus at most the last 4 characters; shorter secrets show no tail."""
    if not secret.startswith(prefix):
        prefix = ""
    tail = secret[-_TAIL:] if len(secret) - len(prefix) >= 16 else ""
    return f"{prefix}…{tail}"


def fingerprint(secret: str) -> str:
    return hashlib.sha256(secret.encode("utf-8", "surrogateescape")).hexdigest()


def credential_evidence(
    secret: str, type_: str, vendor: str | None, prefix: str, location: Location, meta: FileMeta | None
) -> CredentialEvidence:
    return CredentialEvidence(type_, vendor, redact(secret, prefix), fingerprint(secret), location, meta)


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

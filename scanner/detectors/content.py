"""Content anywhere: catalog patterns (model ids, hosted forms, API hosts, credentials) in any file.

Text and binaries alike: the matcher runs over raw bytes, so printable strings inside an ELF file are
found without extracting them first. Only what a catalog recognises is reported here; in-house model
ids that no catalog knows come from the config detector, which reads keys.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterator

from scanner.catalog.matcher import Hit, PatternKind
from scanner.detectors.base import FileView
from scanner.model import (
    MAX_LOCATIONS,
    Context,
    EndpointEvidence,
    Evidence,
    KillSwitchEvidence,
    ModelEvidence,
    SwitchState,
)
from scanner.secrets import credential_evidence, safe_url
from scanner.textsafe import decode

# Characters a model token can be made of (`us.anthropic.claude-opus-4-7`, `azure/muse-special`).
_TOKEN = frozenset(b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789._:@/-")
_TOKEN_TRIM = "._:/-@"
_MAX_TOKEN = 160
_URL_BEFORE = re.compile(rb"https?://[A-Za-z0-9._:@\-]*$")
_URL_AFTER = re.compile(rb"[^\s\x00-\x1f\x7f\"'<>`\\)\]}]*")
_NEARBY = 256


class ContentDetector:
    name = "content"
    description = "Model ids, hosted forms, API hosts and credentials from the catalogs, in any file"
    windowed = True

    def wants(self, view: FileView) -> bool:
        return True

    def extract(self, view: FileView) -> Iterator[Evidence]:
        repeats: Counter[bytes] = Counter()
        for hit in view.hits:
            repeats[hit.text] += 1
            if repeats[hit.text] > MAX_LOCATIONS:
                continue  # an entry keeps MAX_LOCATIONS locations: more of the same text in one file adds nothing
            if hit.kind in (PatternKind.MODEL, PatternKind.HOSTED):
                yield from self._model(view, hit)
            elif hit.kind is PatternKind.HOST:
                yield from self._host(view, hit)
            elif hit.kind is PatternKind.CREDENTIAL:
                yield from self._credential(view, hit)
            elif hit.kind is PatternKind.KILL_SWITCH and view.context is Context.BINARY:
                # In configs the config detector reads the switch with its value; in a binary the
                # name alone says the daemon knows the switch.
                yield KillSwitchEvidence(decode(hit.text), None, SwitchState.UNKNOWN, view.location(None))

    def _model(self, view: FileView, hit: Hit) -> Iterator[Evidence]:
        name = decode(hit.text)
        token = _token_around(view.data, hit.start, hit.end)
        if token != name and view.catalog.is_hosted_form(token):
            name = token
        elif hit.kind is PatternKind.HOSTED and not view.catalog.is_hosted_form(name):
            return
        yield ModelEvidence(name, view.location(view.line_of(hit.start), offset=hit.start))

    def _host(self, view: FileView, hit: Hit) -> Iterator[Evidence]:
        host = decode(hit.text).lower()
        url = None
        before = _URL_BEFORE.search(view.data, max(0, hit.start - 300), hit.start)
        if before:
            after = _URL_AFTER.match(view.data, hit.end)
            tail = after.group() if after else b""
            url = safe_url(decode(view.data[before.start() : hit.end] + tail[:300]))
        yield EndpointEvidence(host, url, view.location(view.line_of(hit.start), offset=hit.start))

    def _credential(self, view: FileView, hit: Hit) -> Iterator[Evidence]:
        spec = view.catalog.credentials[hit.index]
        secret = decode(hit.text)
        if view.catalog.is_placeholder(secret):
            return
        if spec.nearby:
            window = view.data[max(0, hit.start - _NEARBY) : hit.end + _NEARBY].lower()
            if not any(word.lower().encode() in window for word in spec.nearby):
                return
        location = view.location(view.line_of(hit.start), offset=hit.start)
        yield credential_evidence(secret, spec.type, spec.vendor, spec.prefix, location, view.meta)


def _token_around(data: bytes, start: int, end: int) -> str:
    lo = start
    while lo > 0 and start - lo < _MAX_TOKEN and data[lo - 1] in _TOKEN:
        lo -= 1
    hi = end
    while hi < len(data) and hi - end < _MAX_TOKEN and data[hi] in _TOKEN:
        hi += 1
    return decode(data[lo:hi]).strip(_TOKEN_TRIM)

"""Content anywhere: catalog patterns (model ids, hosted forms, API hosts, credentials) in any file.

Text and binaries alike: the matcher runs over raw bytes, so printable strings inside an ELF file are
found without extracting them first. Only what a catalog recognises is reported here; in-house model
ids that no catalog knows come from the config detector, which reads keys.
"""

from __future__ import annotations

import re
from bisect import bisect_left
from collections import Counter
from collections.abc import Iterator

from scanner.catalog import Catalog
from scanner.catalog.matcher import Hit, PatternKind
from scanner.detectors.base import FileView
from scanner.model import (
    MAX_LOCATIONS,
    CatalogStatus,
    Context,
    EndpointEvidence,
    Evidence,
    KillSwitchEvidence,
    ModelEvidence,
    SwitchState,
)
from scanner.secrets import credential_evidence, fingerprint, safe_url
from scanner.textsafe import decode

# Characters a model token can be made of (`us.anthropic.claude-opus-4-7`, `azure/muse-special`).
_TOKEN = frozenset(b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789._:@/-")
_TOKEN_TRIM = "._:/-@"
_MAX_TOKEN = 160
_URL_BEFORE = re.compile(rb"https?://[A-Za-z0-9._:@\-]*$")
_URL_AFTER = re.compile(rb"[^\s\x00-\x1f\x7f\"'<>`\\)\]}]*")
_NEARBY = 256
_ALNUM = frozenset(b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789")
# Compiled code and bytecode (and bundles installed as packages): literals may sit back to back there.
_PACKED = frozenset({Context.BINARY, Context.PACKAGE})


_ELF = b"\x7fELF"


class ContentDetector:
    name = "content"
    description = "Model ids, hosted forms, API hosts and credentials from the catalogs, in any file"
    windowed = True

    def wants(self, view: FileView) -> bool:
        return True

    def extract(self, view: FileView) -> Iterator[Evidence]:
        repeats: Counter[bytes] = Counter()
        claimed: set[tuple[int, int]] = set()
        packed = view.context in _PACKED
        # Compiled code of an installed package or a system library holds its own fixtures, not this machine's
        # keys; a key written into a config, env file or source of a package is still found.
        compiled_package = view.context is Context.PACKAGE and (view.name.endswith(".pyc") or view.head[:4] == _ELF)
        runs: list[int] = [-1, -1]  # the token run of a binary last split into ids: [start, end)
        starts = [h.start for h in view.hits if h.kind in (PatternKind.MODEL, PatternKind.HOSTED)] if packed else []
        # Formats that need words nearby are tried first, so they name a secret a generic format also matches.
        credentials = view.catalog.credentials
        hits = sorted(
            view.hits,
            key=lambda h: (h.start, h.kind is not PatternKind.CREDENTIAL or not credentials[h.index].nearby),
        )
        for hit in hits:
            repeats[hit.text] += 1
            if repeats[hit.text] > MAX_LOCATIONS:
                continue  # an entry keeps MAX_LOCATIONS locations: more of the same text in one file adds nothing
            if hit.kind in (PatternKind.MODEL, PatternKind.HOSTED) and packed:
                yield from self._packed(view, hit, runs, starts)
            elif hit.kind in (PatternKind.MODEL, PatternKind.HOSTED):
                yield from self._model(view, hit)
            elif hit.kind is PatternKind.HOST:
                yield from self._host(view, hit)
            elif hit.kind is PatternKind.CREDENTIAL:
                if compiled_package:
                    continue  # a library's own test keys (libgnutls' PEM vectors, a test .pyc): never the agent's
                yield from self._credential(view, hit, claimed)
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
        if name in view.label_words:
            return  # a word of a display name or description (the config detector read the structure)
        yield ModelEvidence(name, view.location(view.line_of(hit.start), offset=hit.start))

    def _packed(self, view: FileView, hit: Hit, runs: list[int], starts: list[int]) -> Iterator[Evidence]:
        """Model ids in compiled code and bytecode, where literals sit back to back.

        Rust and Go pack string literals without separators and `.pyc` marshals strings back to back, so
        the token around a hit can hold several ids (`openai.gpt-5.6-solopenai.gpt-5.6-terra`), or one id
        and the bytes that follow it. The token is split with the catalog grammar: each part must be an id
        the catalogs recognise (a listed model, a family id, or a hosted form of one), so a bundle id or a
        path (`anthropic.claude-code-url-handler`, `bedrock/dist-cjs`) is no model, and an id is never cut
        (`gpt-6-`, `claude-sonnet-4` of `claude-sonnet-4-5r`).
        """
        catalog, data = view.catalog, view.data
        exact = _marshal_string(data, hit.start, hit.end) if view.head[2:4] == b"\r\n" else None
        lo, hi = exact or _run_around(data, hit.start, hit.end)
        if runs[0] <= hit.start and hit.end <= runs[1]:
            return  # hits come in order: this one's run was split already
        runs[:] = [lo, hi]
        if data[lo:hi] == hit.text and _recognised(catalog, decode(hit.text)):
            yield ModelEvidence(decode(hit.text), view.location(view.line_of(hit.start), offset=hit.start))
            return
        run = data[lo:hi]
        inside = sorted({s - lo for s in starts[bisect_left(starts, lo) : bisect_left(starts, hi)]})
        for start, name in _split(catalog, run, inside):
            yield ModelEvidence(name, view.location(view.line_of(lo + start), offset=lo + start))

    def _host(self, view: FileView, hit: Hit) -> Iterator[Evidence]:
        host = decode(hit.text).lower()
        url = None
        before = _URL_BEFORE.search(view.data, max(0, hit.start - 300), hit.start)
        if before:
            after = _URL_AFTER.match(view.data, hit.end)
            tail = after.group() if after else b""
            url = safe_url(decode(view.data[before.start() : hit.end] + tail[:300]))
        yield EndpointEvidence(host, url, view.location(view.line_of(hit.start), offset=hit.start))

    def _credential(self, view: FileView, hit: Hit, claimed: set[tuple[int, int]]) -> Iterator[Evidence]:
        catalog = view.catalog
        spec = catalog.credentials[hit.index]
        secret, at = decode(hit.text), hit.start
        if "(?P<secret>" in spec.pattern:
            # A format known by the key that names it (`aws_secret_access_key = …`): the value is the secret.
            m = catalog.credential_rx(hit.index).match(secret)
            if m is None or m.group("secret") is None:
                return
            secret = m.group("secret")
            at = hit.start + len(m.string[: m.start("secret")].encode("utf-8", "surrogateescape"))
        if catalog.is_placeholder(secret):
            return
        if spec.nearby:
            window = view.data[max(0, hit.start - _NEARBY) : hit.end + _NEARBY].lower()
            if not any(word.lower().encode() in window for word in spec.nearby):
                return
        span = (hit.start, hit.end)
        if span in claimed:
            return  # a more specific format (one that needs words nearby) already named this secret
        claimed.add(span)
        pair = _pair(view, catalog, hit, _PAIR_IDS[spec.type]) if spec.type in _PAIR_IDS else None
        location = view.location(view.line_of(at), offset=at)
        yield credential_evidence(secret, spec.type, spec.vendor, spec.prefix, location, view.meta, spec.route, pair)


# The id a secret goes with, by the secret's type: an AWS secret access key's AKIA/ASIA access key id, a
# service-account private key's private_key_id. The id is group 1.
_PAIR_IDS = {
    "aws-secret-access-key": re.compile(rb"\b((?:AKIA|ASIA)[A-Z2-7]{16})\b"),
    "gcp-service-account-key": re.compile(rb'"private_key_id"\s{0,8}:\s{0,8}"([a-f0-9]{40})"'),
}
_PAIR_REACH = 1024


def _pair(view: FileView, catalog: Catalog, hit: Hit, id_rx: re.Pattern[bytes]) -> str | None:
    """sha256 of the id that goes with a secret: the nearest one in the same INI section or block (no
    `[section]` line between them), within _PAIR_REACH bytes."""
    data = view.data
    lo, hi = max(0, hit.start - _PAIR_REACH), min(len(data), hit.end + _PAIR_REACH)
    best: tuple[int, bytes] | None = None
    for m in id_rx.finditer(data, lo, hi):
        a, b = sorted((m.start(), hit.start))
        if _SECTION.search(data, a, b) or catalog.is_placeholder(decode(m.group(1))):
            continue
        distance = abs(m.start() - hit.start)
        if best is None or distance < best[0]:
            best = (distance, m.group(1))
    return fingerprint(decode(best[1])) if best else None


_SECTION = re.compile(rb"\n[ \t]*\[[^\]\n]{1,200}\][ \t]*\r?\n")


# marshal's short string types (ascii, ascii interned, and both with FLAG_REF): a type byte, a length byte,
# then exactly that many bytes. A .pyc holds its strings this way, back to back.
_MARSHAL_SHORT = frozenset({0x7A, 0x5A, 0xFA, 0xDA})


def _marshal_string(data: bytes, start: int, end: int) -> tuple[int, int] | None:
    """The bounds of the marshalled short string a hit starts in (a .pyc): a hit may run past its end."""
    for p in range(start, max(1, start - _MAX_TOKEN) - 1, -1):
        if p >= 2 and data[p - 2] in _MARSHAL_SHORT and p + data[p - 1] > start:
            return p, p + data[p - 1]
        if p < start and data[p] not in _TOKEN:
            return None
    return None


def _run_around(data: bytes, start: int, end: int) -> tuple[int, int]:
    """The run of token characters around a hit, at most _MAX_TOKEN each side."""
    lo = start
    while lo > 0 and start - lo < _MAX_TOKEN and data[lo - 1] in _TOKEN:
        lo -= 1
    hi = end
    while hi < len(data) and hi - end < _MAX_TOKEN and data[hi] in _TOKEN:
        hi += 1
    return lo, hi


def _split(catalog: Catalog, run: bytes, starts: list[int]) -> list[tuple[int, str]]:
    """The recognised ids a run of packed literals is made of, each with its offset in the run.

    From each candidate start (where the matcher found a hit) the longest prefix the catalogs recognise
    is taken. It must end at the run's end, at a separator (`/` `:` `@`, or `.` not starting a file
    extension), or where another id begins; never before `-` or `_` (that is a cut id), and a run ending
    in `-` is a prefix literal, not an id.
    An id must begin at a separator or where the one before it ended.
    """
    while run and run[-1] in b"./:@":
        run = run[:-1]
    starts4 = _starts(catalog)

    def longest(p: int) -> int | None:
        # An id is at most _MAX_TOKEN long, so the work per run is bounded by its hits times that.
        for e in range(min(len(run), p + _MAX_TOKEN), p, -1):
            if run[e - 1] not in _ALNUM:
                continue
            if e < len(run):
                nxt = run[e]
                if nxt in _ALNUM:
                    if run[e : e + 4] not in starts4:
                        continue  # packed: the next literal must begin like an id, a vendor or a route
                elif nxt not in b"./:@" or (nxt == 0x2E and e + 1 < len(run) and run[e + 1] in _ALNUM):
                    continue  # `-` or `_` next: a cut id; `.rs`, `.json` next: a file name
            if _recognised(catalog, decode(run[p:e])):
                return e
        return None

    out: list[tuple[int, str]] = []
    pending = sorted(s for s in starts if s < len(run))
    ended = -1
    while pending:
        p = pending.pop(0)
        if p < ended or (p > 0 and p != ended and run[p - 1] in _ALNUM):
            continue
        e = longest(p)
        if e is None:
            continue
        out.append((p, decode(run[p:e])))
        ended = e
        if e < len(run) and run[e] in _ALNUM:
            pending.insert(0, e)  # packed: the next literal starts right here
    return out


def _recognised(catalog: Catalog, text: str) -> bool:
    """A listed model, a family id, a hosted form of one, or a deployment name (free by definition)."""
    return catalog.identify(text).catalog != CatalogStatus.UNKNOWN or catalog.names_deployment(text)


_STARTS: dict[int, frozenset[bytes]] = {}


def _starts(catalog: Catalog) -> frozenset[bytes]:
    """The first four bytes an id (or a vendor or route prefix of one) can begin with, per catalog."""
    known = _STARTS.get(id(catalog))
    if known is None:
        models = [m for f in catalog.files for m in f.models]
        words = [m.id for m in models] + [a for m in models for a in m.aliases]
        words += list(catalog.vendor_names) + [h.route for h in catalog.hosted_forms]
        words += [f"{region}.a" for region in ("us", "eu", "jp", "au", "in", "ca")] + ["apac", "glob"]
        known = frozenset(w.lower().encode()[:4] for w in words if len(w) >= 4 or "." in w)
        _STARTS[id(catalog)] = known
    return known


def _token_around(data: bytes, start: int, end: int) -> str:
    lo = start
    while lo > 0 and start - lo < _MAX_TOKEN and data[lo - 1] in _TOKEN:
        lo -= 1
    hi = end
    while hi < len(data) and hi - end < _MAX_TOKEN and data[hi] in _TOKEN:
        hi += 1
    return decode(data[lo:hi]).strip(_TOKEN_TRIM)

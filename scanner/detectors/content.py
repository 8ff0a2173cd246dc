"""Content anywhere: catalog patterns (model ids, hosted forms, API hosts, credentials) in any file.

Text and binaries alike: the matcher runs over raw bytes, so printable strings inside an ELF file are
found without extracting them first. Only what a catalog recognises is reported here; in-house model
ids that no catalog knows come from the config detector, which reads keys.
"""

from __future__ import annotations

import re
from bisect import bisect_left
from collections import Counter
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any

from scanner.catalog import Catalog
from scanner.catalog.matcher import PatternHit, PatternKind
from scanner.catalog.packed_ids import named_in_prose, recognised, split_packed
from scanner.detectors.contract import Files, Needs, Reading
from scanner.fileview.contexts import is_package_test_file
from scanner.fileview.view import FileView
from scanner.formats.literals import JOINED, TOKEN_TRIM, Runs, in_sentence, marshal_string, run_around, sized
from scanner.hosts import is_tool_server_url
from scanner.kinds import Evidence
from scanner.kinds.credentials import credential_evidence
from scanner.kinds.endpoints import EndpointEvidence
from scanner.kinds.kill_switches import KillSwitchEvidence
from scanner.kinds.models import ModelEvidence
from scanner.model import MAX_LOCATIONS, CatalogStatus, Context, Skip, SkipReason
from scanner.secrets import fingerprint, safe_url
from scanner.textsafe import decode
from scanner.vocab import SwitchState

_URL_BEFORE = re.compile(rb"https?://[A-Za-z0-9._:@\-]*$")
_URL_AFTER = re.compile(rb"[^\s\x00-\x1f\x7f\"'<>`\\)\]}]*")
_NEARBY = 256
# Compiled code and bytecode (and bundles installed as packages): literals may sit back to back there.
_PACKED = frozenset({Context.BINARY, Context.PACKAGE})
# Where a setting or a served-by field selects a model: only there is a bare deployment name (`azure/<name>`) one.
_SELECTING = frozenset({Context.CONFIG, Context.ENV, Context.SESSION})


_ELF = b"\x7fELF"
_UNSEEN: Any = object()  # a key not looked up yet (None is an answer: the hit names nothing)
_IDS = (PatternKind.MODEL, PatternKind.HOSTED)


class ContentDetector:
    name = "content"
    description = "Model ids, hosted forms, API hosts and credentials from the catalogs, in any file"
    needs = Needs((Files(),), Reading.MATCH_ONLY)  # every file

    def extract(self, view: FileView) -> Iterator[Evidence | Skip]:
        if not view.hits:
            return  # most files: nothing the catalogs know
        repeats: Counter[bytes] = Counter()
        too_long: Counter[str] = Counter()  # family -> runs longer than any id it names
        claimed: set[tuple[int, int]] = set()
        packed = view.context in _PACKED
        # Compiled code and test files of an installed package or a system library hold its own fixtures, not
        # this machine's keys; a key written into a config, env file or source of a package is still found
        # (but no format the catalogs mark `in_packages = false`: PEM keys, JWTs).
        in_package = view.context is Context.PACKAGE
        package_fixture = in_package and (
            view.name.endswith(".pyc") or view.head[:4] == _ELF or is_package_test_file(view.entry.path)
        )
        # A session log's conversation (prompts, tool output, quoted files) names models and hosts in passing: each is
        # a mention; the session detector, which reads the log's structure, says what served it.
        talk = view.conversation
        if talk:
            packed = False
        runs: list[int] = [-1, -1]  # the token run of a binary last split into ids: [start, end)
        starts = [h.start for h in view.hits if h.kind in _IDS] if packed else []
        # Formats that need words nearby are tried first, so they name a secret a generic format also matches. Hits
        # come in order of offset: only when such a format matched is there anything to reorder.
        credentials = view.catalog.credentials
        hits: Sequence[PatternHit] = view.hits
        if any(h.kind is PatternKind.CREDENTIAL and credentials[h.pattern].nearby for h in hits):
            hits = sorted(
                hits, key=lambda h: (h.start, h.kind is not PatternKind.CREDENTIAL or not credentials[h.pattern].nearby)
            )
        families = view.catalog.families
        urls: dict[bytes, str | None] = {}  # each URL the file spells, made safe once; None: an MCP server's
        seen = _Seen(Runs(view.data))
        context = Context.CONVERSATION if talk else None
        for hit in hits:
            repeats[hit.text] += 1
            if repeats[hit.text] > MAX_LOCATIONS:
                continue  # an entry keeps MAX_LOCATIONS locations: more of the same text in one file adds nothing
            if hit.kind is PatternKind.MODEL and hit.end - hit.start > families[hit.pattern].longest:
                too_long[families[hit.pattern].id] += 1
                if not packed:
                    continue  # packed literals are split into the ids they hold, each within its bound
            if hit.kind in _IDS:
                if packed:
                    yield from self._packed(view, hit, runs, starts)
                elif (model := self._model(view, hit, seen, context)) is not None:
                    yield model
            elif hit.kind is PatternKind.HOST:
                if (endpoint := self._host(view, hit, urls, context)) is not None:
                    yield endpoint
            elif hit.kind is PatternKind.CREDENTIAL:
                if package_fixture or (in_package and not credentials[hit.pattern].in_packages):
                    continue  # a library's own test keys (libgnutls' PEM vectors, a test .pyc): never the agent's
                yield from self._credential(view, hit, claimed)
            elif hit.kind is PatternKind.KILL_SWITCH and view.context is Context.BINARY and not talk:
                # In configs the config detector reads the switch with its value; in a binary the
                # name alone says the daemon knows the switch.
                yield KillSwitchEvidence(decode(hit.text), None, SwitchState.UNKNOWN, view.location(None))
        if too_long:
            yield _too_long(view, too_long)

    def _model(self, view: FileView, hit: PatternHit, seen: _Seen, context: Context | None) -> Evidence | None:
        data, start = view.data, hit.start
        lo, hi, token = seen.runs.around(start, hit.end, hit.text)
        # What a hit names hangs on its text, the token around it and the byte before it, and whether that name is
        # a model on the name alone: each asked once per file (a proxy log names its models on every line), in the
        # order the checks read the file's labels.
        key = (hit.kind, hit.text, token, start > 0 and data[start - 1] in JOINED)
        found = seen.named.get(key, _UNSEEN)
        if found is _UNSEEN:
            found = seen.named[key] = self._named(view, hit, decode(token).strip(TOKEN_TRIM), key[3], context)
        if found is None:
            return None
        name, in_prose = found
        if not in_prose and in_sentence(data, lo, hi):
            return None
        kept = seen.kept.get(name)
        if kept is None:
            kept = seen.kept[name] = _kept(view, name, context)
        if not kept:
            return None
        return ModelEvidence(name, view.location(view.line_of(hit.start), context, offset=hit.start))

    def _named(
        self, view: FileView, hit: PatternHit, token: str, joined: bool, context: Context | None
    ) -> tuple[str, bool] | None:
        """The model a hit names (its text, or the hosted form around it) and whether a sentence may name it; None
        when it names none here, wherever it sits."""
        name = decode(hit.text)
        if token != name and view.catalog.is_hosted_form(token):
            name = token
        elif hit.kind is PatternKind.HOSTED and not view.catalog.is_hosted_form(name):
            return None
        elif joined:
            return None  # the tail of a longer word (`#when-to-consider-gpt-61-sol`, `prod-gpt-4o`): not this id
        if context is Context.CONVERSATION and name in view.session_labels:
            return None  # the session's own model, which the session detector places where its records name it
        return name, named_in_prose(view.catalog, name)

    def _packed(self, view: FileView, hit: PatternHit, runs: list[int], starts: list[int]) -> Iterator[Evidence]:
        """Model ids in compiled code and bytecode, where literals sit back to back.

        Rust and Go pack string literals without separators and `.pyc` marshals strings back to back, so
        the token around a hit can hold several ids (`openai.gpt-5.6-solopenai.gpt-5.6-terra`), or one id
        and the bytes that follow it. The token is split with the catalog grammar: each part must be an id
        the catalogs recognise (a listed model, a family id, or a hosted form of one), so a bundle id or a
        path (`anthropic.claude-code-url-handler`, `bedrock/dist-cjs`) is no model, and an id is never cut
        (`gpt-6-`, `claude-sonnet-4` of `claude-sonnet-4-5r`).
        """
        catalog, data = view.catalog, view.data
        exact = marshal_string(data, hit.start, hit.end) if view.head[2:4] == b"\r\n" else None
        lo, hi = exact or sized(data, *run_around(data, hit.start, hit.end))
        if runs[0] <= hit.start and hit.end <= runs[1]:
            return  # hits come in order: this one's run was split already
        runs[:] = [lo, hi]
        prose = in_sentence(data, lo, hi)
        whole = data[lo:hi].rstrip(b"./:@")
        if recognised(catalog, decode(whole)):
            # One id, the whole run: `bedrock/anthropic.claude-…-v1:0` of a model list is that hosted form,
            # not the `anthropic.claude-…` a `find` pattern located inside it.
            if not prose or named_in_prose(catalog, decode(whole)):
                yield ModelEvidence(decode(whole), view.location(view.line_of(lo), offset=lo))
            return
        run = data[lo:hi]
        inside = sorted({s - lo for s in starts[bisect_left(starts, lo) : bisect_left(starts, hi)]})
        for start, name in split_packed(catalog, run, inside):
            if not prose or named_in_prose(catalog, name):
                yield ModelEvidence(name, view.location(view.line_of(lo + start), offset=lo + start))

    def _host(
        self, view: FileView, hit: PatternHit, urls: dict[bytes, str | None], context: Context | None = None
    ) -> Evidence | None:
        """The API host a hit names, with the URL spelled around it; None when that URL is an MCP server's (a tool
        the agent calls on the vendor's host, `https://open.bigmodel.cn/api/mcp/zread/mcp`), not its model API."""
        host = decode(hit.text).lower()
        url = None
        data = view.data
        begins = url_start(data, hit.start)
        if begins is not None:
            after = _URL_AFTER.match(data, hit.end)
            tail = after.group() if after else b""
            spelled = data[begins : hit.end] + tail[:300]
            url = urls.get(spelled, _UNSEEN)
            if url is _UNSEEN:
                # Made safe and judged once per spelling (a proxy log repeats its upstream's URL on every line).
                safe = safe_url(decode(spelled))
                url = urls[spelled] = None if is_tool_server_url(safe) else safe
            if url is None:
                return None
        return EndpointEvidence(host, url, view.location(view.line_of(hit.start), context, offset=hit.start))

    def _credential(self, view: FileView, hit: PatternHit, claimed: set[tuple[int, int]]) -> Iterator[Evidence]:
        catalog = view.catalog
        spec = catalog.credentials[hit.pattern]
        found = _secret_of(catalog, hit)
        if found is None:
            return
        secret, at = found
        if spec.nearby:
            window = view.data[max(0, hit.start - _NEARBY) : hit.end + _NEARBY].lower()
            if not any(word.lower().encode() in window for word in spec.nearby):
                return
        span = (hit.start, hit.end)
        if span in claimed:
            return  # a more specific format (one that needs words nearby) already named this secret
        claimed.add(span)
        pair = _pair(view, hit, at, spec.pairs_with) if spec.pairs_with else None
        location = view.location(view.line_of(at), offset=at)
        yield credential_evidence(secret, spec.type, spec.vendor, spec.prefix, location, view.meta, spec.route, pair)


def url_start(data: bytes, start: int) -> int | None:
    """Where the URL that a host at `start` is in begins (its scheme), or None when it is in none."""
    # A base URL's host right after its scheme (most): no earlier start can reach the host, as the `/` before it is
    # no character the search lets a URL's run hold. The search looks only where the scheme is not right there.
    if data[max(0, start - 8) : start] == b"https://":
        return start - 8
    if data[max(0, start - 7) : start] == b"http://":
        return start - 7
    before = _URL_BEFORE.search(data, max(0, start - 300), start)
    return before.start() if before else None


@dataclass
class _Seen:
    """What one file's model hits were found to name, kept for its other hits (see `_model`), and the token runs
    around them, found in order."""

    runs: Runs
    named: dict[tuple[PatternKind, bytes, bytes, bool], tuple[str, bool] | None] = field(default_factory=dict)
    kept: dict[str, bool] = field(default_factory=dict)


def _kept(view: FileView, name: str, context: Context | None) -> bool:
    """Whether a name a hit gives, outside a sentence, is a model of this file."""
    if name in view.label_words:
        return False  # a word of a display name or description (the config detector read the structure)
    if context is Context.CONVERSATION and not recognised(view.catalog, name):
        return False  # a hosted form around no id the catalogs know (`claude-code@latest`, an npm package): no model
    # `azure/aks`, `azure/devops` in code or docs: a deployment's shape, but nothing selects it
    return (context or view.context) in _SELECTING or view.catalog.identify(name).catalog != CatalogStatus.UNKNOWN


def _too_long(view: FileView, runs: Counter[str]) -> Skip:
    """One skip per file for the runs a family's pattern matched past the longest id it names."""
    longest = {f.id: f.longest for f in view.catalog.families}
    which = ", ".join(f"{fam} (at most {longest[fam]} characters)" for fam in sorted(runs))
    detail = f"{sum(runs.values()):,} run(s) longer than any model id of their family not read as ids: {which}"
    return Skip(view.path, SkipReason.CAP_REACHED, detail)


def _secret_of(catalog: Catalog, hit: PatternHit) -> tuple[str, int] | None:
    """A credential hit's secret and its offset, or None for a placeholder. A format known by the key that
    names it (`aws_secret_access_key = …`) holds the secret in its `secret` group; the rest is context."""
    spec = catalog.credentials[hit.pattern]
    secret, at = decode(hit.text), hit.start
    if "(?P<secret>" in spec.pattern:
        m = catalog.credential_rx(hit.pattern).match(secret)
        if m is None or m.group("secret") is None:
            return None
        secret = m.group("secret")
        at = hit.start + len(m.string[: m.start("secret")].encode("utf-8", "surrogateescape"))
    if catalog.is_placeholder(secret):
        return None
    return secret, at


_PAIR_REACH = 1024


def _pair(view: FileView, hit: PatternHit, at: int, types: tuple[str, ...]) -> str | None:
    """sha256 of the id that goes with a secret (a format of `types`, the catalog's `pairs_with`): the nearest
    one in the same INI section or block (no `[section]` line between them), within _PAIR_REACH bytes."""
    catalog, data, hits = view.catalog, view.data, view.hits
    best: tuple[int, str] | None = None
    # Hits are ordered by offset: only those within reach are looked at, so the work per secret is bounded.
    first = bisect_left(hits, at - _PAIR_REACH, key=lambda h: h.start)
    for other in hits[first:]:
        if other.start > hit.end + _PAIR_REACH:
            break
        if other.kind is not PatternKind.CREDENTIAL or catalog.credentials[other.pattern].type not in types:
            continue
        found = _secret_of(catalog, other)
        if found is None:
            continue
        a, b = sorted((found[1], at))
        if _SECTION.search(data, a, b):
            continue
        distance = abs(found[1] - at)
        if best is None or distance < best[0]:
            best = (distance, found[0])
    return fingerprint(best[1]) if best else None


_SECTION = re.compile(rb"\n[ \t]*\[[^\]\n]{1,200}\][ \t]*\r?\n")


DETECTOR = ContentDetector()

"""Application source: which LLM clients the code builds, what it calls, and the models and base URLs it passes.

The SDK signatures (imports, constructions like `AnthropicBedrock(`, calls like `.messages.create(`) are
catalog data searched by the one compiled ruleset; this detector only looks at a bounded window after
each hit, so a minified bundle with megabyte-long lines costs no more than its hits. A model literal
passed to a construction or a call is stronger evidence than a bare string, and it takes the route of
the client the file builds (`AnthropicBedrock` -> bedrock), so `served_via` is right.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from scanner.catalog.matcher import PatternHit, PatternKind
from scanner.detectors.contract import Files, Needs
from scanner.fileview.view import FileView
from scanner.kinds import Evidence
from scanner.kinds.clients import ClientEvidence
from scanner.kinds.endpoints import EndpointEvidence
from scanner.kinds.models import ModelEvidence
from scanner.model import Context
from scanner.secrets import safe_url
from scanner.textsafe import decode

_WINDOW = 1500  # bytes after a construction or call in which its arguments are read
_ARG = re.compile(rb"""(?:\b([A-Za-z_][A-Za-z0-9_]{0,40})["']?\s*[:=]\s*|\.(model)\(\s*)(["'`])([^"'`\s\\]{1,200})\3""")
_HOST = re.compile(r"^https?://([^/:?#\s]+)", re.IGNORECASE)


class SourceDetector:
    name = "source"
    description = "SDK imports, client constructions and calls in source, with the models and base URLs they get"
    needs = Needs((Files(contexts=frozenset({Context.SOURCE})),))

    def extract(self, view: FileView) -> Iterator[Evidence]:
        sigs = view.catalog.source_signatures
        hits = [h for h in view.hits if h.kind is PatternKind.SIGNATURE]
        clients = [h for h in hits if sigs[h.pattern].kind == "client"]
        if not clients and not any(sigs[h.pattern].kind == "import" for h in hits):
            return  # a stray `.create(` in code that uses no LLM SDK says nothing
        calls = tuple(sorted({sigs[h.pattern].name for h in hits if sigs[h.pattern].kind == "call"}))
        for hit in clients:
            sig = sigs[hit.pattern]
            location = view.location(view.line_of(hit.start), Context.SOURCE, offset=hit.start)
            yield ClientEvidence(sig.name, sig.vendor, sig.served_via, "source", calls, location)
        for hit in hits:
            if sigs[hit.pattern].kind != "import":
                yield from self._arguments(view, hit, _route(view, clients, hit))
        yield from self._named_models(view, hits, _proxied(view, hits))

    def _named_models(self, view: FileView, hits: list[PatternHit], proxied: set[str]) -> Iterator[Evidence]:
        """A catalogued model named anywhere in the file (a constant, a default, a provider factory's argument)
        takes the route of its vendor's clients built here, else of its vendor's SDK imported here, when that is
        one route: `import anthropic` + `Anthropic()` + `MODEL = "claude-sonnet-5"` is the vendor's own API.
        Not `direct` when the file gives that vendor's client a base URL no catalog knows."""
        sigs = view.catalog.source_signatures
        by_vendor: dict[str, dict[str, set[str]]] = {}
        for h in hits:
            sig = sigs[h.pattern]
            if sig.vendor and sig.served_via and sig.kind in ("client", "import"):
                if sig.vendor in proxied and sig.served_via == "direct":
                    continue
                by_vendor.setdefault(sig.vendor, {}).setdefault(sig.kind, set()).add(sig.served_via)
        if not by_vendor:
            return
        for hit in view.hits:
            if hit.kind is not PatternKind.MODEL:
                continue
            if hit.start and view.data[hit.start - 1 : hit.start] in (b"/", b".", b"@"):
                continue  # part of a longer token (`github-copilot/claude-…`, a hosted form): not this id alone
            name = decode(hit.text)
            ident = view.catalog.identify(name)
            found = by_vendor.get(ident.vendor or "")
            if ident.catalog == "unknown" or ident.served_via or not found:
                continue
            routes = found.get("client") or found.get("import") or set()
            if len(routes) == 1:
                location = view.location(view.line_of(hit.start), Context.SOURCE, offset=hit.start)
                yield ModelEvidence(name, location, served_via=next(iter(routes)))

    def _arguments(self, view: FileView, hit: PatternHit, route: PatternHit | None) -> Iterator[Evidence]:
        model_keys = view.catalog.keys("model")
        url_keys = view.catalog.keys("base_url")
        end = min(len(view.data), hit.end + _WINDOW)
        for m in _ARG.finditer(view.data, hit.end, end):
            key = decode(m.group(1) or m.group(2)).lower()
            value = decode(m.group(4))
            offset = m.start(4)
            location = view.location(view.line_of(offset), Context.SOURCE, offset=offset)
            if key in model_keys:
                yield ModelEvidence(value, location, served_via=_route_for(view, value, route))
            elif key.replace("_", "") in url_keys or key in url_keys:
                host = _HOST.match(value)
                if host:
                    yield EndpointEvidence(host.group(1).lower(), safe_url(value), location)


def _proxied(view: FileView, hits: list[PatternHit]) -> set[str]:
    """Vendors whose client construction here gets a base URL no catalog knows (a proxy, a gateway): their own
    API is no longer evident. Only the construction's own arguments count, up to the next signature."""
    sigs = view.catalog.source_signatures
    url_keys = view.catalog.keys("base_url")
    marks = sorted(h.start for h in hits if sigs[h.pattern].kind != "import")
    out: set[str] = set()
    for hit in hits:
        sig = sigs[hit.pattern]
        if sig.kind != "client" or not sig.vendor or sig.vendor in out:
            continue
        end = min([len(view.data), hit.end + _WINDOW, *(m for m in marks if m > hit.start)])
        for m in _ARG.finditer(view.data, hit.end, end):
            key = decode(m.group(1) or m.group(2)).lower()
            host = _HOST.match(decode(m.group(4)))
            url_key = key in url_keys or key.replace("_", "") in url_keys
            if url_key and host and view.catalog.host_info(host.group(1).lower()) is None:
                out.add(sig.vendor)
    return out


def _route_for(view: FileView, model: str, client: PatternHit | None) -> str | None:
    """The client's route, when the model can take it: a model maker's client serves that maker's models only
    (`genai.Client(vertexai=True)` never sends `mistral-large-latest`); a platform's (boto3 Bedrock, OpenRouter)
    serves any vendor's."""
    if client is None:
        return None
    sig = view.catalog.source_signatures[client.pattern]
    vendor = view.catalog.identify(model).vendor
    makers = {fam.vendor for fam in view.catalog.families}
    if vendor and sig.vendor in makers and vendor != sig.vendor:
        return None
    return sig.served_via


def _route(view: FileView, clients: list[PatternHit], hit: PatternHit) -> PatternHit | None:
    """The client built nearest before this hit (or the file's only client)."""
    before = [c for c in clients if c.start <= hit.start]
    chosen = before[-1] if before else (clients[0] if clients else None)
    if chosen is not None:
        # Two signatures at one place (`genai.Client(` and `genai.Client(vertexai=True`): the longer says more.
        chosen = max((c for c in clients if c.start == chosen.start), key=lambda c: c.end - c.start)
    return chosen


DETECTOR = SourceDetector()

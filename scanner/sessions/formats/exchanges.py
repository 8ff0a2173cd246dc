"""Recorded HTTP exchanges, found by their shape wherever a document keeps them: a request side (a URL, a method,
headers or a body) beside a response side (a status, headers or a body), under keys named for the request and the
response (`request`/`response`, `request_sample`/`response_sample`). VCR cassettes (vcrpy, pytest-recording: YAML or
JSON `interactions`), HAR files (`log.entries`) and a proxy's request log in JSON lines are all this shape; the
container's own keys are never asked for.

Each exchange becomes one record of the generic reader: the request's URL (its host names the route; a deployment,
a model or an inference profile in its path is what the agent asked for), the request and response bodies read to
JSON (an event stream, gzip or base64: `bodies.decode_body`), and the response headers: every name (a service's
own headers are fingerprints), and only the values of those that carry an id, a model or an upstream base URL (a
capture may hold a credential the recorder missed: no other value is kept). A document with no exchange in it is
handed on as it is. Bounded: YAML is parsed only up to MAX_CASSETTE bytes, the search looks at MAX_NODES
containers no deeper than MAX_DEPTH, and a file gives at most MAX_EXCHANGES exchanges.
"""

from __future__ import annotations

import re
from collections import deque
from collections.abc import Iterator
from typing import Any
from urllib.parse import unquote, urlsplit

import yaml

from scanner.sessions.bodies import decode_body
from scanner.sessions.budget import WorkBudget
from scanner.sessions.reader import GZIP_MAGIC, ReadNotes, Record, chunks, records

MAX_CASSETTE = 8 << 20  # YAML is parsed whole: bounded lower than JSON
MAX_DOCUMENTS = 1_000  # YAML documents of one file
MAX_EXCHANGES = 20_000
MAX_NODES = 50_000  # containers the search for exchanges looks at, per document
MAX_DEPTH = 6  # how deep in a document exchanges are looked for (`log.entries[]` is 3)
_LOADER = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
# The two sides of an exchange, by the role their key names.
_REQUEST = re.compile(r"^request(?:[_-][a-z]+)?$")
_RESPONSE = re.compile(r"^response(?:[_-][a-z]+)?$")
_REQUEST_PARTS = frozenset({"uri", "url", "method", "headers", "body", "json", "parsed_body", "postData", "raw"})
_RESPONSE_PARTS = frozenset({"status", "headers", "body", "json", "parsed_body", "content", "raw"})
# The head of a file of exchanges: a request side's key, then the response's or the request's URL or method.
_YAML_REQUEST = re.compile(rb"(?m)^[ \t]*(?:-[ \t]+)?request(?:_[a-z]+)?:[ \t]*$")
_YAML_OTHER = re.compile(rb"(?m)^[ \t]*(?:-[ \t]+)?(?:response(?:_[a-z]+)?|uri|url|method):")
_JSON_REQUEST = re.compile(rb'"request(?:_[a-z]+)?"\s*:\s*\{')
_JSON_OTHER = re.compile(rb'"(?:response(?:_[a-z]+)?|uri|url|method)"\s*:')
# Header values worth keeping: ids, a model, an upstream's base URL. Never a key, a cookie or an authorization.
_KEPT_VALUE = re.compile(r"(?:^|-)(?:request-?id|requestid|id|model(?:-name|-group)?|api-base|fingerprint)$")
# Facts a request path states: an Azure deployment, a Gemini/Vertex model, a Bedrock model or inference profile.
_DEPLOYMENT = re.compile(r"/deployments/([^/]+)/")
_MODELS = re.compile(r"/models/([^/:]+)(?::[A-Za-z]+)?$")
_BEDROCK = re.compile(r"/model/([^/]+)/(?:converse|invoke)")


class CaptureRead:
    """What the read of one file found, known once its records were read: its container's name (`har`,
    `vcr-cassette`, `http-capture`) and whether any exchange was in it."""

    __slots__ = ("format", "exchanges")

    def __init__(self) -> None:
        self.format = "http-capture"
        self.exchanges = 0

    @property
    def full(self) -> bool:
        return self.exchanges >= MAX_EXCHANGES


def sniff(name: str, head: bytes) -> bool:
    """Whether a file's head shows an exchange (the name only says which parser to use: YAML or JSON)."""
    if name.endswith((".yaml", ".yml")):
        return bool(_YAML_REQUEST.search(head)) and bool(_YAML_OTHER.search(head))
    stripped = head[:256].lstrip()[:1]
    return stripped in (b"{", b"[") and bool(_JSON_REQUEST.search(head)) and bool(_JSON_OTHER.search(head))


def read(name: str, data: bytes, notes: ReadNotes, found: CaptureRead) -> Iterator[Record]:
    """The file's exchanges as records; a JSON record or document holding none is handed on unchanged."""
    if name.endswith((".yaml", ".yml")):
        for document in _yaml_documents(data, notes):
            yield from _exchanges_of(document, None, found, notes.budget)
            if found.full:
                break
    else:
        searching = True  # a log whose first record is no exchange has none: the rest are handed on unsearched
        for number, record in enumerate(records(data, notes)):
            if not searching or found.full:
                yield record
                continue
            before = found.exchanges
            yield from _exchanges_of(record.value, record.line, found, notes.budget)
            if found.exchanges == before:
                if number == 0:
                    searching = False
                yield record
    if found.full:
        notes.extra.append(f"exchanges after the first {MAX_EXCHANGES} not read")


def _yaml_documents(data: bytes, notes: ReadNotes) -> Iterator[Any]:
    if data.startswith(GZIP_MAGIC):
        data = b"".join(chunks(data, MAX_CASSETTE + 1, notes))
    if len(data) > MAX_CASSETTE:
        notes.extra.append(f"cassette over {MAX_CASSETTE >> 20} MiB not parsed")
        return
    try:
        for number, document in enumerate(yaml.load_all(data, Loader=_LOADER)):  # noqa: S506 - a safe loader
            if number >= MAX_DOCUMENTS:
                notes.extra.append(f"YAML documents after the first {MAX_DOCUMENTS} not read")
                return
            yield document
    except (yaml.YAMLError, ValueError, RecursionError) as exc:
        first = str(exc).splitlines()[0][:120] if str(exc) else "YAML error"
        notes.extra.append(f"cassette not readable: {first}")


def _exchanges_of(value: Any, line: int | None, found: CaptureRead, budget: WorkBudget) -> Iterator[Record]:
    """The exchanges in one stored value, each as a record (up to the file's cap)."""
    if isinstance(value, dict) and isinstance(value.get("log"), dict):
        found.format = "har"
    elif isinstance(value, dict) and "interactions" in value:
        found.format = "vcr-cassette"
    for exchange in _find(value, budget):
        if found.full:
            return
        found.exchanges += 1
        yield Record(line, exchange)


def _sides(node: dict[str, Any]) -> tuple[dict[str, Any], dict[str, Any]] | None:
    """(request, response) when `node` is an exchange: a request side and a response side of their shapes."""
    request = response = None
    for key, value in node.items():
        if type(value) is not dict or type(key) is not str:
            continue
        if request is None and _REQUEST.match(key) and not _REQUEST_PARTS.isdisjoint(value):
            request = value
        elif response is None and _RESPONSE.match(key) and not _RESPONSE_PARTS.isdisjoint(value):
            response = value
    return (request, response) if request is not None and response is not None else None


def _find(document: Any, budget: WorkBudget) -> Iterator[dict[str, Any]]:
    """Every exchange in a document, in order, breadth first; an exchange's own parts are not searched."""
    queue: deque[tuple[Any, int]] = deque([(document, 0)])
    seen = 0
    while queue and seen < MAX_NODES:
        node, depth = queue.popleft()
        seen += 1
        if isinstance(node, dict):
            sides = _sides(node)
            if sides is not None:
                yield _exchange(node, *sides, budget)
                continue
            children: Any = node.values()
        elif isinstance(node, list):
            children = node
        else:
            continue
        if depth < MAX_DEPTH:
            queue.extend((child, depth + 1) for child in children if isinstance(child, dict | list))


def _exchange(node: dict[str, Any], request: dict[str, Any], response: dict[str, Any], budget: WorkBudget
              ) -> dict[str, Any]:
    url = request.get("uri", request.get("url"))
    record: dict[str, Any] = {
        "request": _request(url, _body(request, budget)),
        "response": {"headers": _headers(response.get("headers")), "body": _body(response, budget)},
    }
    started = node.get("startedDateTime")  # a HAR entry's time
    if isinstance(started, str):
        record["startedDateTime"] = started
    return record


def _body(part: dict[str, Any], budget: WorkBudget) -> Any:
    """A side's body read to JSON: parsed already (`parsed_body`, `json`), or as the recorder kept it (vcrpy's
    `body.string`, HAR's `postData.text` and `content.text`, plain text, gzip or base64)."""
    for key in ("parsed_body", "json"):
        if part.get(key) is not None:
            return part[key]
    body = part.get("body")
    if body is None:
        holder = part.get("postData", part.get("content"))
        body = holder.get("text") if isinstance(holder, dict) else None
    if isinstance(body, dict):
        body = body.get("string")
    if isinstance(body, str):
        body = body.strip()
    return decode_body(body, budget)


def _headers(headers: Any) -> dict[str, str]:
    """Response headers as {name: value}; a value only where it is an id, a model or a base URL."""
    pairs: list[tuple[Any, Any]] = []
    if isinstance(headers, dict):
        pairs = list(headers.items())
    elif isinstance(headers, list):  # HAR: [{name, value}]
        pairs = [(h.get("name"), h.get("value")) for h in headers if isinstance(h, dict)]
    out: dict[str, str] = {}
    for name, value in pairs[:200]:
        key = str(name).lower()
        if isinstance(value, list):
            value = value[0] if value else ""
        kept = isinstance(value, str) and len(value) <= 300 and bool(_KEPT_VALUE.search(key))
        out[key] = value if kept else ""
    return out


def _request(url: Any, body: Any) -> dict[str, Any]:
    """The request side: its URL, its body, and what its path says was asked for."""
    out: dict[str, Any] = {"uri": url if isinstance(url, str) else None, "body": body}
    if isinstance(url, str):
        path = urlsplit(url).path
        if m := _DEPLOYMENT.search(path):
            out["deployment_name"] = unquote(m.group(1))
        elif (m := _BEDROCK.search(path)) or (m := _MODELS.search(path)):
            out["model_id"] = unquote(m.group(1))
    return out

"""Recorded API traffic: VCR cassettes (vcrpy / pytest-recording, YAML or JSON, `interactions: [{request,
response}]`) and HAR files (`log.entries[{request, response}]`) that a test suite, a browser or a debugging proxy
wrote. Each exchange is one record: the request's URL (its host names the route; a deployment, a model or an
inference profile in its path is what the agent asked for), the request and response bodies (JSON, an event
stream, gzip or base64: `bodies.decode_body`), and the response headers: every name (a service's own headers
are fingerprints), and only the values of those that carry an id, a model or an upstream base URL (a capture may
hold a credential the recorder missed: no other value is kept)."""

from __future__ import annotations

import contextlib
import json
import re
from collections.abc import Iterator
from typing import Any
from urllib.parse import unquote, urlsplit

import yaml

from scanner.sessions.adapters.base import Facts, Passthrough, State, labels, stem
from scanner.sessions.bodies import decode_body
from scanner.sessions.reader import MAX_DOCUMENT, ReadNotes, Record

MAX_CASSETTE = 8 << 20  # YAML is parsed whole: bounded lower than JSON
MAX_EXCHANGES = 20_000
_LOADER = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
_YAML_TOP = re.compile(rb"(?m)^interactions:")
_JSON_TOP = re.compile(rb'^\s*\{[^{]{0,200}?"(?:interactions|log)"\s*:')
# Header values worth keeping: ids, a model, an upstream's base URL. Never a key, a cookie or an authorization.
_KEPT_VALUE = re.compile(r"(?:^|-)(?:request-?id|requestid|id|model(?:-name|-group)?|api-base|fingerprint)$")
# Facts a request path states: an Azure deployment, a Gemini/Vertex model, a Bedrock model or inference profile.
_DEPLOYMENT = re.compile(r"/deployments/([^/]+)/")
_MODELS = re.compile(r"/models/([^/:]+)(?::[A-Za-z]+)?$")
_BEDROCK = re.compile(r"/model/([^/]+)/(?:converse|invoke)")


def is_capture(name: str, head: bytes) -> bool:
    """A cassette or HAR file, by its top-level key (the name only says which parser to use)."""
    if name.endswith((".yaml", ".yml")):
        return bool(_YAML_TOP.search(head))
    if name.endswith((".json", ".har")):
        return bool(_JSON_TOP.match(head)) and (b'"interactions"' in head or b'"entries"' in head)
    return False


def _part_body(part: Any) -> Any:
    """The body of a cassette's request or response, read to JSON."""
    if not isinstance(part, dict):
        return None
    for key in ("parsed_body", "json"):
        if part.get(key) is not None:
            return part[key]
    body = part.get("body")
    return decode_body(body.get("string") if isinstance(body, dict) else body)


def _har_body(content: Any) -> Any:
    if not isinstance(content, dict):
        return None
    text = content.get("text")
    if content.get("encoding") == "base64" and isinstance(text, str):
        text = text.strip()  # decode_body reads base64 (and the gzip inside it)
    return decode_body(text)


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


class Capture(Passthrough):
    name = "vcr-cassette"

    def claims(self, path: str, first: dict[str, Any]) -> bool:
        return "__capture" in first

    def read(self, data: bytes, notes: ReadNotes) -> Iterator[Record]:
        doc = self._load(data, notes)
        if not isinstance(doc, dict):
            return
        log = doc.get("log")
        if isinstance(log, dict) and isinstance(log.get("entries"), list):
            yield from self._har(log["entries"], notes)
            return
        interactions = doc.get("interactions")
        for number, item in enumerate(interactions[:MAX_EXCHANGES] if isinstance(interactions, list) else (), 1):
            if not isinstance(item, dict):
                notes.malformed += 1
                continue
            request = item.get("request", item.get("request_sample"))
            response = item.get("response", item.get("response_sample"))
            headers = response.get("headers") if isinstance(response, dict) else None
            uri = request.get("uri") if isinstance(request, dict) else None
            yield Record(
                None,
                {
                    "__capture": number,
                    "request": _request(uri, _part_body(request)),
                    "response": {"headers": _headers(headers), "body": _part_body(response)},
                },
            )

    @staticmethod
    def _load(data: bytes, notes: ReadNotes) -> Any:
        if data.lstrip()[:1] == b"{":
            if len(data) > MAX_DOCUMENT:
                notes.document_too_large = True
                return None
            try:
                return json.loads(data)
            except (ValueError, RecursionError):
                notes.extra.append("capture not readable: not JSON")
                return None
        if len(data) > MAX_CASSETTE:
            notes.extra.append(f"cassette over {MAX_CASSETTE >> 20} MiB not parsed")
            return None
        try:
            return yaml.load(data, Loader=_LOADER)  # noqa: S506 - a safe loader (C or pure Python)
        except (yaml.YAMLError, ValueError, RecursionError) as exc:
            notes.extra.append(f"cassette not readable: {str(exc).splitlines()[0][:120] if str(exc) else 'YAML error'}")
            return None

    @staticmethod
    def _har(entries: list[Any], notes: ReadNotes) -> Iterator[Record]:
        for number, entry in enumerate(entries[:MAX_EXCHANGES], 1):
            if not isinstance(entry, dict):
                notes.malformed += 1
                continue
            request = entry.get("request")
            response = entry.get("response")
            request = request if isinstance(request, dict) else {}
            response = response if isinstance(response, dict) else {}
            post = request.get("postData")
            body = decode_body(post.get("text")) if isinstance(post, dict) else None
            record: dict[str, Any] = {
                "__capture": number,
                "__har": True,
                "request": _request(request.get("url"), body),
                "response": {"headers": _headers(response.get("headers")), "body": _har_body(response.get("content"))},
            }
            with contextlib.suppress(TypeError):
                record["startedDateTime"] = str(entry["startedDateTime"])
            yield Record(None, record)

    def facts(self, value: dict[str, Any], state: State) -> Facts:
        if value.get("__har"):
            state["format"] = "har"
        shape = state.get("shape")
        found = getattr(shape, "labels", ())
        return Facts(
            session_id=stem(str(state.get("path", ""))).removesuffix(".yaml").removesuffix(".yml").removesuffix(".har"),
            timestamp=getattr(shape, "timestamp", None),
            labels=labels(*found),
        )

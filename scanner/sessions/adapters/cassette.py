"""VCR cassettes (vcrpy / pytest-recording YAML, `interactions: [{request, response}]`): API traffic a test
suite or a debugging proxy recorded. Each interaction is one record: the request's URI (its host names the
route), the request and response bodies (`parsed_body`, or the JSON text of `body.string`), and the names
of the response headers (never their values: a cassette may hold a credential the recorder missed)."""

from __future__ import annotations

import contextlib
import json
import re
from collections.abc import Iterator
from typing import Any

import yaml

from scanner.sessions.adapters.base import Facts, Passthrough, State, labels, stem
from scanner.sessions.reader import ReadNotes, Record

MAX_CASSETTE = 8 << 20
_MAX_BODY = 4 << 20
_LOADER = getattr(yaml, "CSafeLoader", yaml.SafeLoader)


_TOP = re.compile(rb"(?m)^interactions:")


def is_cassette(name: str, head: bytes) -> bool:
    return name.lower().endswith((".yaml", ".yml")) and bool(_TOP.search(head))


def _body(part: Any) -> Any:
    if not isinstance(part, dict):
        return None
    for key in ("parsed_body", "json"):
        if part.get(key) is not None:
            return part[key]
    body = part.get("body")
    raw = body.get("string") if isinstance(body, dict) else body
    if isinstance(raw, bytes):
        raw = raw.decode("utf-8", "replace")
    if isinstance(raw, str) and raw.lstrip().startswith(("{", "[")) and len(raw) <= _MAX_BODY:
        with contextlib.suppress(ValueError, RecursionError):
            return json.loads(raw)
    return None


class Cassette(Passthrough):
    name = "vcr-cassette"

    def claims(self, path: str, first: dict[str, Any]) -> bool:
        return "__cassette" in first

    def read(self, data: bytes, notes: ReadNotes) -> Iterator[Record]:
        if len(data) > MAX_CASSETTE:
            notes.extra.append(f"cassette over {MAX_CASSETTE >> 20} MiB not parsed")
            return
        try:
            doc = yaml.load(data, Loader=_LOADER)  # noqa: S506 - a safe loader (C or pure Python)
        except (yaml.YAMLError, ValueError, RecursionError) as exc:
            notes.extra.append(f"cassette not readable: {str(exc).splitlines()[0][:120] if str(exc) else 'YAML error'}")
            return
        interactions = doc.get("interactions") if isinstance(doc, dict) else None
        for number, item in enumerate(interactions if isinstance(interactions, list) else (), 1):
            if not isinstance(item, dict):
                notes.malformed += 1
                continue
            request = item.get("request", item.get("request_sample"))
            response = item.get("response", item.get("response_sample"))
            headers = response.get("headers") if isinstance(response, dict) else None
            yield Record(
                None,
                {
                    "__cassette": number,
                    "request": {
                        "uri": request.get("uri") if isinstance(request, dict) else None,
                        "body": _body(request),
                    },
                    "response": {
                        "headers": {str(k): "" for k in headers} if isinstance(headers, dict) else {},
                        "body": _body(response),
                    },
                },
            )

    def facts(self, value: dict[str, Any], state: State) -> Facts:
        shape = state.get("shape")
        found = getattr(shape, "labels", ())
        return Facts(
            session_id=stem(str(state.get("path", ""))).removesuffix(".yaml").removesuffix(".yml"),
            timestamp=getattr(shape, "timestamp", None),
            labels=labels(*found),
        )

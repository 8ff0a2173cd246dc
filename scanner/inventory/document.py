"""The inventory as a JSON document: the contract other tools and later commands build on.

`to_document` is the only place the shape is written; `schema.json` beside it describes the same shape
and every test validates against it. Output is sorted and stable; only `stats` varies between runs.
"""

from __future__ import annotations

import json
from importlib import resources
from typing import Any

from scanner.model import CredentialLocation, Inventory, Location

SCHEMA_ID = "modelcensus/inventory@1"


def _loc(loc: Location) -> dict[str, Any]:
    return {
        "path": loc.path,
        "line": loc.line,
        "context": loc.context.value,
        "parse_error": loc.parse_error,
        "via": loc.via,
    }


def _cred_loc(cl: CredentialLocation) -> dict[str, Any]:
    return {**_loc(cl.location), "mode": cl.mode, "owner": cl.owner}


def to_document(inv: Inventory) -> dict[str, Any]:
    return {
        "schema": SCHEMA_ID,
        "tool": {"name": "modelcensus", "version": inv.tool_version},
        "catalogs": [{"name": c.name, "version": c.version, "origin": c.origin} for c in inv.catalogs],
        "target": {"kind": inv.target.kind, "location": inv.target.location},
        "stats": {
            "files_seen": inv.stats.files_seen,
            "files_read": inv.stats.files_read,
            "bytes_read": inv.stats.bytes_read,
            "seconds": inv.stats.seconds,
        },
        "models": [
            {
                "name": m.name,
                "canonical": m.canonical,
                "vendor": m.vendor,
                "family": m.family,
                "served_via": m.served_via,
                "base_model": m.base_model,
                "catalog": m.catalog,
                "lifecycle": m.lifecycle,
                "retires": m.retires,
                "wired": m.wired,
                "locations": [_loc(x) for x in m.locations],
            }
            for m in inv.models
        ],
        "sdks": [
            {
                "ecosystem": s.ecosystem,
                "name": s.name,
                "version": s.version,
                "vendor": s.vendor,
                "served_via": s.served_via,
                "installed": s.installed,
                "environment": s.environment,
                "locations": [_loc(x) for x in s.locations],
            }
            for s in inv.sdks
        ],
        "endpoints": [
            {
                "host": e.host,
                "vendor": e.vendor,
                "served_via": e.served_via,
                "urls": list(e.urls),
                "wired": e.wired,
                "locations": [_loc(x) for x in e.locations],
            }
            for e in inv.endpoints
        ],
        "credentials": [
            {
                "type": c.type,
                "vendor": c.vendor,
                "redacted": c.redacted,
                "sha256": c.sha256,
                "locations": [_cred_loc(x) for x in c.locations],
            }
            for c in inv.credentials
        ],
        "kill_switches": [
            {
                "name": k.name,
                "value": k.value,
                "state": k.state.value,
                "note": k.note,
                "locations": [_loc(x) for x in k.locations],
            }
            for k in inv.kill_switches
        ],
        "sessions": list(inv.sessions),
        "routes": list(inv.routes),
        "findings": [
            {"id": f.id, "severity": f.severity.value, "title": f.title, "locations": [_loc(x) for x in f.locations]}
            for f in inv.findings
        ],
        "skipped": [{"path": s.path, "reason": s.reason.value, "detail": s.detail} for s in inv.skipped],
        "clients": [
            {
                "provider": c.provider,
                "vendor": c.vendor,
                "served_via": c.served_via,
                "kind": c.kind,
                "components": list(c.components),
                "locations": [_loc(x) for x in c.locations],
            }
            for c in inv.clients
        ],
        "mcp_servers": [
            {
                "name": m.name,
                "transport": m.transport,
                "command": m.command,
                "url": m.url,
                "env": list(m.env),
                "user": m.user,
                "config": m.config,
                "locations": [_loc(x) for x in m.locations],
            }
            for m in inv.mcp_servers
        ],
    }


def dumps(inv: Inventory) -> str:
    # ensure_ascii: a control or bidi character from a hostile file name never reaches a terminal raw.
    return json.dumps(to_document(inv), indent=2, ensure_ascii=True) + "\n"


def load_schema() -> dict[str, Any]:
    text = resources.files("scanner.inventory").joinpath("schema.json").read_text(encoding="utf-8")
    result: dict[str, Any] = json.loads(text)
    return result

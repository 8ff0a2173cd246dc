"""The inventory as a JSON document: the contract other tools and later commands build on.

`to_document` is the only place the shape is written; `schema.json` beside it describes the same shape
and every test validates against it. Output is sorted and stable; only `stats` varies between runs.
"""

from __future__ import annotations

import json
from importlib import resources
from typing import Any

from scanner.model import (
    AgentEntry,
    ConnectionEntry,
    CredentialLocation,
    Inventory,
    LiveHost,
    Location,
    ProcessEntry,
    RouteEntry,
    SessionEntry,
)

SCHEMA_ID = "modelcensus/inventory@1"


def _loc(loc: Location) -> dict[str, Any]:
    out = {
        "path": loc.path,
        "line": loc.line,
        "context": loc.context.value,
        "parse_error": loc.parse_error,
        "via": loc.via,
    }
    if loc.layer is not None:  # container images only: a directory's locations keep their shape
        out["layer"] = loc.layer
    return out


def _cred_loc(cl: CredentialLocation) -> dict[str, Any]:
    return {**_loc(cl.location), "mode": cl.mode, "owner": cl.owner}


def session_document(s: SessionEntry) -> dict[str, Any]:
    """One session as the inventory JSON writes it."""
    return {
        "session_id": s.session_id,
        "format": s.format,
        "path": s.location.path,
        "location": _loc(s.location),
        "started_at": s.started_at,
        "ended_at": s.ended_at,
        "records": s.records,
        "labels": list(s.labels),
        "reasoning": s.reasoning,
        "providers": [
            {
                "vendor": p.vendor,
                "served_via": p.served_via,
                "api": p.api,
                "records": p.records,
                "confidence": p.confidence,
                "first_seen": p.first_seen,
                "last_seen": p.last_seen,
                "first_record": p.first_record,
                "last_record": p.last_record,
                "record_ranges": [list(r) for r in p.record_ranges],
                "candidates": list(p.candidates),
                "evidence": [
                    {"rule": e.rule, "count": e.count, "example": e.example, "confidence": e.confidence}
                    for e in p.evidence
                ],
            }
            for p in s.providers
        ],
        "fernet": None
        if s.fernet is None
        else {
            "tokens": s.fernet.tokens,
            "consistent": s.fernet.consistent,
            "inconsistent": s.fernet.inconsistent,
            "max_skew_seconds": s.fernet.max_skew_seconds,
        },
        "declared": s.declared,
        "parent_session_id": s.parent_session_id,
        "mismatched_labels": list(s.mismatched_labels),
        "notes": list(s.notes),
        "corroborated_by": [
            {"kind": c.kind, "detail": c.detail, "location": _loc(c.location)} for c in s.corroborated_by
        ],
    }


def _route(r: RouteEntry) -> dict[str, Any]:
    return {
        "alias": r.alias,
        "declared_via": r.declared_via,
        "base_model": r.base_model,
        "observed": {"vendor": r.observed_vendor, "served_via": r.observed_via, "api": r.observed_api},
        "sessions": r.sessions,
        "days": list(r.days),
        "confidence": r.confidence,
        "locations": [_loc(x) for x in r.locations],
    }


def agent_document(a: AgentEntry) -> dict[str, Any]:
    """One agent product as the inventory JSON writes it (the `agents` section)."""
    return {
        "name": a.name,
        "product": a.product,
        "version": a.version,
        "ecosystem": a.ecosystem,
        "install_path": a.install_path,
        "binaries": list(a.binaries),
        "sdks": [{"ecosystem": s.ecosystem, "name": s.name, "version": s.version} for s in a.sdks],
        "ships": list(a.ships),
        "configs": [
            {
                "user": c.user,
                "models": list(c.models),
                "served_via": c.served_via,
                "base_url": c.base_url,
                "mcp_servers": list(c.mcp_servers),
                "credentials": list(c.credentials),
                "files": list(c.files),
            }
            for c in a.configs
        ],
        "locations": [_loc(x) for x in a.locations],
    }


def _live(h: LiveHost) -> dict[str, Any]:
    return {
        "hostname": h.hostname,
        "kernel": h.kernel,
        "boot_time": h.boot_time,
        "audit_time": h.audit_time,
        "processes_inspected": h.processes_inspected,
        "parts": [{"name": p.name, "status": p.status, "detail": p.detail} for p in h.parts],
    }


def _process(p: ProcessEntry) -> dict[str, Any]:
    return {
        "pid": p.pid,
        "ppid": p.ppid,
        "name": p.name,
        "user": p.user,
        "exe": p.exe,
        "cmdline": list(p.cmdline),
        "started": p.started,
        "relevance": list(p.relevance),
        "sdks": [{"ecosystem": s.ecosystem, "name": s.name, "vendor": s.vendor, "path": s.path} for s in p.sdks],
        "environment": [
            {"name": v.name, "role": v.role, "value": v.value, "state": v.state.value if v.state else None}
            for v in p.environment
        ],
        "ties": [
            {
                "path": t.path,
                "role": t.role,
                "models": list(t.models),
                "endpoints": list(t.endpoints),
                "kill_switches": list(t.kill_switches),
                "credentials": list(t.credentials),
            }
            for t in p.ties
        ],
        "listening": list(p.listening),
    }


def _connection(c: ConnectionEntry) -> dict[str, Any]:
    return {
        "pid": c.pid,
        "process": c.process,
        "protocol": c.protocol,
        "local": c.local,
        "remote": c.remote,
        "state": c.state,
        "endpoint": c.endpoint,
        "vendor": c.vendor,
        "mapped_by": c.mapped_by,
        "candidates": list(c.candidates),
    }


def _live_sections(inv: Inventory) -> dict[str, Any]:
    """A live audit's sections; absent from a directory scan's document (absent = not inspected)."""
    out: dict[str, Any] = {}
    if inv.processes is not None:
        out["processes"] = [_process(p) for p in inv.processes]
    if inv.connections is not None:
        out["connections"] = [_connection(c) for c in inv.connections]
    return out


def to_document(inv: Inventory) -> dict[str, Any]:
    target: dict[str, Any] = {"kind": inv.target.kind, "location": inv.target.location}
    if inv.target.live is not None:
        target["live"] = _live(inv.target.live)
    if inv.target.image is not None:  # a container image: its format, manifest digest, platform and layers
        im = inv.target.image
        target.update(
            {
                "format": im.format,
                "digest": im.digest,
                "platform": im.platform,
                "tags": list(im.tags),
                "layers": [{"digest": x.digest, "media_type": x.media_type, "size": x.size} for x in im.layers],
            }
        )
    if inv.target.disk is not None:  # a disk image: its format and every filesystem found in it
        target.update(
            {
                "format": inv.target.disk.format,
                "filesystems": [
                    {"type": f.type, "mount": f.mount, "volume": f.volume, "size": f.size}
                    for f in inv.target.disk.filesystems
                ],
            }
        )
    return {
        "schema": SCHEMA_ID,
        "tool": {"name": "modelcensus", "version": inv.tool_version},
        "catalogs": [{"name": c.name, "version": c.version, "origin": c.origin} for c in inv.catalogs],
        "target": target,
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
                "overrides": [{"vendor": v, "set_by": var} for v, var in e.overrides],
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
                **({"route": c.route} if c.route else {}),
                **({"paired_with": c.paired_with} if c.paired_with else {}),
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
        "sessions": [session_document(x) for x in inv.sessions],
        "routes": [_route(x) for x in inv.routes],
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
        "agents": [agent_document(a) for a in inv.agents],
        **_live_sections(inv),
    }


def dumps(inv: Inventory) -> str:
    # ensure_ascii: a control or bidi character from a hostile file name never reaches a terminal raw.
    return json.dumps(to_document(inv), indent=2, ensure_ascii=True) + "\n"


def load_schema() -> dict[str, Any]:
    text = resources.files("scanner.inventory").joinpath("schema.json").read_text(encoding="utf-8")
    result: dict[str, Any] = json.loads(text)
    return result

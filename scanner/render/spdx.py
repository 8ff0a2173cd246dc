"""The inventory as an SPDX 3.0.1 AI bill of materials: JSON-LD with the Core, Software and AI profiles.

The scanned machine is the root `software_Package`; the `CreationInfo` names modelcensus and every catalog with its
version. Each model is an `ai_AIPackage`, a local model's verified by its weight files' SHA-256; agent products are
`ai_AIPackage`s of purpose `application` and SDKs `software_Package`s, both with package URLs; endpoints,
credentials (their SHA-256 only) and MCP servers are named packages. Relationships: the machine `contains` what is
on it (marked `incomplete` when the scan could not read everything) and `dependsOn` the models and endpoints it is
configured for; an agent `dependsOn` its SDKs, endpoints, credentials, models and the local models its configs
select (with a comment: SPDX 3.1's `usesModel` will say it) and `usesTool` its MCP servers; an endpoint `dependsOn`
the models it serves; a model `hasEvidence` the annotations of what sessions observed behind it.

Written as JSON-LD directly: the graph is plain data, and the tests read every document back with the SPDX
project's own bindings (`spdx-python-model`), strictly and offline.
"""

from __future__ import annotations

import json
from datetime import datetime, timezone
from typing import Any

from scanner.kinds import Inventory
from scanner.kinds.base import BomPart
from scanner.kinds.sessions import SessionEntry
from scanner.render import _aibom
from scanner.render import _spdx_parts as part
from scanner.render._headline import not_wiring
from scanner.render._view import DEFAULT, ReportOptions
from scanner.textsafe import safe

description = "an AI bill of materials as SPDX 3.0.1 JSON-LD (Core, Software and AI profiles)"

CONTEXT = "https://spdx.org/rdf/3.0.1/spdx-context.jsonld"
_USES_MODEL = "uses these models: SPDX 3.1's usesModel will say so; 3.0.1 has dependsOn"
_MAX_GAPS = 200


def _created() -> str:
    epoch = _aibom.source_date_epoch()
    when = datetime.fromtimestamp(epoch, tz=timezone.utc) if epoch is not None else datetime.now(timezone.utc)
    return when.strftime("%Y-%m-%dT%H:%M:%SZ")


def _creation(base: str, inv: Inventory) -> list[dict[str, Any]]:
    """CreationInfo: made by modelcensus, using modelcensus and each catalog at its version."""
    me = part.element_id(base, "tool", "modelcensus")
    tools = [part.element("Tool", me, f"modelcensus {inv.tool_version}")]
    tools += [part.element("Tool", part.element_id(base, "tool", "catalog", c.name), f"catalog {c.name} {c.version}",
                           comment=safe(f"origin: {c.origin}")) for c in inv.catalogs]
    author = part.element("SoftwareAgent", part.element_id(base, "software-agent", "modelcensus"), "modelcensus")
    info = {
        "type": "CreationInfo", "@id": part.CREATION, "specVersion": "3.0.1", "created": _created(),
        "createdBy": [author["spdxId"]], "createdUsing": [t["spdxId"] for t in tools],
        "comment": safe(f"modelcensus {inv.tool_version}; catalogs "
                        + ", ".join(f"{c.name}@{c.version}" for c in inv.catalogs)),
    }
    return [info, author, *tools]


def _machine(base: str, inv: Inventory) -> dict[str, Any]:
    t = inv.target
    digest = t.image.digest if t.image and t.image.digest else None
    hashes = [{"type": "Hash", "algorithm": "sha256", "hashValue": digest.split(":", 1)[1]}] \
        if digest and digest.startswith("sha256:") else None
    return part.element(
        "software_Package", part.element_id(base, "machine"), t.location.rstrip("/").rsplit("/", 1)[-1] or "/",
        software_primaryPurpose=part._PURPOSE.get(t.kind, "operatingSystem"),
        verifiedUsing=hashes,
        comment=safe(f"agent machine ({t.kind}) at {t.location}, scanned by modelcensus {inv.tool_version}; "
                     f"{len(inv.credentials)} credential(s), {len(inv.kill_switches)} kill switch(es)"),
    )


def _session_text(s: SessionEntry) -> str:
    seen = "; ".join(
        f"{p.vendor}" + (f" via {p.served_via}" if p.served_via else "") + (f" ({p.api})" if p.api else "")
        + f", {p.records} record(s), confidence {p.confidence}" for p in s.providers) or "no provider recognised"
    parts = [f"session {s.session_id} ({s.format}, {s.records} records, {s.started_at or '?'} to "
             f"{s.ended_at or '?'}) observed: {seen}"]
    if s.labels:
        parts.append("labelled " + ", ".join(s.labels))
    if s.declared:
        parts.append(f"declared {s.declared}")
    if s.mismatched_labels:
        parts.append("fingerprints contradict the label(s) " + ", ".join(s.mismatched_labels))
    return "; ".join(parts) + f"; log {s.location.path}"


def _observations(base: str, inv: Inventory, machine: str, models: dict[str, str]) -> list[dict[str, Any]]:
    """What sessions observed: one annotation per session and per route sessions observed, on the model its label
    names (else the machine); each model `hasEvidence` its annotations."""
    out: list[dict[str, Any]] = []
    evidence: dict[str, list[str]] = {}
    for s in inv.sessions:
        subject = next((models[label] for label in s.labels if label in models), machine)
        note = part.annotation(base, f"session:{s.session_id}:{s.location.path}", subject, _session_text(s))
        out.append(note)
        evidence.setdefault(subject, []).append(note["spdxId"])
    for r in inv.routes:
        if r.alias not in models or not r.observed_vendor:
            continue
        text = (f"route {r.alias}: declared via {r.declared_via or '?'}; {r.sessions} session(s) observed "
                f"{r.observed_vendor}" + (f" via {r.observed_via}" if r.observed_via else "")
                + f", confidence {r.confidence or 'low'}, on {', '.join(r.days) or '?'}")
        note = part.annotation(base, f"route:{r.alias}", models[r.alias], text)
        out.append(note)
        evidence.setdefault(models[r.alias], []).append(note["spdxId"])
    out += [part.relationship(subj, "hasEvidence", ids) for subj, ids in evidence.items() if subj != machine]
    return out


def _organizations(base: str, inv: Inventory, parts: list[BomPart]) -> list[dict[str, Any]]:
    """Every vendor the inventory names, as the `Organization` that supplies its models, SDKs and services."""
    vendors = {m.vendor for m in inv.models} | {s.vendor for s in inv.sdks} | {e.vendor for e in inv.endpoints} \
        | {c.vendor for c in inv.credentials} | {p.supplier for p in parts}
    return [part.element("Organization", oid, v) for v in sorted(filter(None, vendors))
            if (oid := part.organization_id(base, v))]


def _graph(inv: Inventory, every_model: bool) -> tuple[str, list[dict[str, Any]]]:
    base = part.namespace(inv)
    w = _aibom.wiring(inv)
    done = _aibom.completeness(inv)
    machine = _machine(base, inv)
    mid = machine["spdxId"]
    shown = [m for m in inv.models if every_model or m.wired]
    models = {m.name: part.model(base, inv, w, m) for m in shown}
    model_ids = {name: obj["spdxId"] for name, obj in models.items()}
    sdks = {(s.ecosystem, s.name, s.version): part.sdk(base, s) for s in inv.sdks}
    agents = [(a, part.agent(base, a)) for a in inv.agents]
    endpoints = {e.host: part.endpoint(base, e) for e in inv.endpoints}
    creds = {c.sha256: part.credential(base, c) for c in inv.credentials}
    mcp = {part.mcp_id(base, s): part.mcp_server(base, s) for s in inv.mcp_servers}
    by_kind = [(key.replace("_", "-"), [(p, part.bom_part(base, p)) for p in ps]) for key, ps in _aibom.bom_parts(inv)]
    parts = [po for _, pos in by_kind for po in pos]
    orgs = _organizations(base, inv, [p for p, _ in parts])
    rels = [
        part.relationship(mid, "contains", [o["spdxId"] for _, o in agents] + [o["spdxId"] for o in sdks.values()]
                          + [o["spdxId"] for o in creds.values()]
                          + [part.mcp_id(base, s) for s in inv.mcp_servers if s.transport == "stdio"]
                          + [o["spdxId"] for p, o in parts if p.present],
                          completeness="complete" if done.complete else "incomplete"),
        part.relationship(mid, "dependsOn", [endpoints[e.host]["spdxId"] for e in inv.endpoints if e.wired],
                          "endpoints"),
        part.relationship(mid, "dependsOn", [model_ids[m.name] for m in shown if m.wired], "models",
                          comment=_USES_MODEL),
    ]
    for s in inv.sdks:
        served = [endpoints[e.host]["spdxId"] for e in _aibom.vendor_endpoints(inv, s)]
        rels.append(part.relationship(sdks[(s.ecosystem, s.name, s.version)]["spdxId"], "dependsOn", served))
    for host, served_models in w.endpoint_models.items():
        rels.append(part.relationship(endpoints[host]["spdxId"], "dependsOn",
                                      [model_ids[m.name] for m in served_models if m.name in model_ids],
                                      comment="serves these models"))
    for a, obj in agents:
        key = _aibom.agent_key(a)
        rels += [
            part.relationship(obj["spdxId"], "dependsOn", [sdks[(b.ecosystem, b.name, b.version)]["spdxId"]
                                                           for b in a.sdks if (b.ecosystem, b.name, b.version) in sdks]
                              + [endpoints[e.host]["spdxId"] for e in w.agent_endpoints.get(key, ())]
                              + [creds[h]["spdxId"] for h in w.agent_credentials.get(key, ()) if h in creds]),
            part.relationship(obj["spdxId"], "dependsOn", [model_ids[m.name] for m in w.agent_models.get(key, ())
                                                           if m.name in model_ids], "models", comment=_USES_MODEL),
            part.relationship(obj["spdxId"], "usesTool", [part.mcp_id(base, s) for s in w.agent_mcp.get(key, ())]),
        ]
        rels += [part.relationship(obj["spdxId"], "dependsOn", [o["spdxId"] for p, o in pos if p.used_by_agent(a.name)],
                                   tag, comment=_USES_MODEL) for tag, pos in by_kind]
    notes = _observations(base, inv, mid, model_ids)
    notes += [part.annotation(base, f"not-wiring:{m.source}", mid, f"{m.models} model id(s) in {m.context} of "
                              f"{m.source}: not wiring (--all lists each)") for m in ([] if every_model else
                                                                                  not_wiring(inv))]
    if not done.complete:  # unread files, a live part or an image's layer or volume not read whole
        listed = ", ".join(f"{g.path} ({g.reason.value})" for g in done.gaps[:_MAX_GAPS])
        notes.append(part.annotation(base, "incomplete", mid, "incomplete scan: " + "; ".join(done.why)
                                     + (f"; not fully read: {listed}" if listed else "")))
    elements = [machine, *orgs, *models.values(), *(o for _, o in parts), *sdks.values(),
                *(o for _, o in agents), *endpoints.values(),
                *creds.values(), *mcp.values(), *(r for r in rels if r.get("to")), *notes]
    return mid, elements


def to_document(inv: Inventory, every_model: bool = False) -> dict[str, Any]:
    base = part.namespace(inv)
    root, elements = _graph(inv, every_model)
    creation = _creation(base, inv)
    doc = part.element(
        "SpdxDocument", part.element_id(base, "document"), f"AI bill of materials of {inv.target.location}",
        profileConformance=["core", "software", "ai"], rootElement=[root],
        element=sorted(e["spdxId"] for e in [*creation[1:], *elements]),
    )
    graph = sorted([*creation[1:], *elements], key=lambda e: e["spdxId"])
    return {"@context": CONTEXT, "@graph": [creation[0], doc, *graph]}


def render(inv: Inventory, opts: ReportOptions = DEFAULT) -> str:
    return json.dumps(to_document(inv, opts.all), indent=2) + "\n"

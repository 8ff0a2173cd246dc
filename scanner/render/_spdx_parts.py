"""The elements of the SPDX 3.0.1 AI bill of materials, as JSON-LD objects in the 3.0.1 context's compact terms.

Every element id is an IRI derived from the inventory's identities (a model by name, route and vendor; an SDK by
ecosystem, name, version and environment; a credential by its hash), under a document namespace derived from the
target: two runs over the same machine name every element alike.
"""

from __future__ import annotations

import uuid
from typing import Any
from urllib.parse import quote

from scanner.hosts import crosses_trust_boundary
from scanner.kinds import Inventory
from scanner.kinds.agents import AgentEntry
from scanner.kinds.base import BomPart
from scanner.kinds.credentials import CredentialEntry
from scanner.kinds.endpoints import EndpointEntry
from scanner.kinds.mcp_servers import McpServerEntry
from scanner.kinds.models import ModelEntry
from scanner.kinds.sdks import SdkEntry
from scanner.render import _aibom
from scanner.render._cdx_parts import agent_purl, clean_url, purl
from scanner.textsafe import safe
from scanner.vocab import PSEUDO_VENDORS

CREATION = "_:creationinfo"
_PURPOSE = {"container-image": "container", "disk-image": "diskImage", "live": "platform"}
_SUPPORT = {"retired": "noSupport", "deprecated": "limitedSupport", "active": "support"}
Obj = dict[str, Any]


# What a part of a kind is in SPDX: its element type and primary purpose, by its CycloneDX component type.
_PART_TYPE = {"machine-learning-model": ("ai_AIPackage", "model")}


def namespace(inv: Inventory) -> str:
    """The document's IRI: a name-based UUID of what was scanned (kind, location, image digest or host)."""
    t = inv.target
    key = [t.kind, t.location, t.image.digest if t.image else None, t.live.hostname if t.live else None]
    return f"urn:uuid:{uuid.uuid5(uuid.NAMESPACE_URL, 'modelcensus:' + repr(key))}"


def element_id(base: str, kind: str, *parts: str | None) -> str:
    return f"{base}#{kind}" + "".join(":" + quote(safe(p or "-"), safe="") for p in parts)


def element(type_: str, spdx_id: str, name: str | None = None, **fields: Any) -> Obj:
    """A JSON-LD element: unset fields (None, empty) are left out, as the context's compact form has it."""
    obj: Obj = {"type": type_, "spdxId": spdx_id, "creationInfo": CREATION}
    if name is not None:
        obj["name"] = safe(name)
    obj.update({k: v for k, v in fields.items() if v not in (None, "", [], ())})
    return obj


def day(date: str | None) -> str | None:
    return f"{date}T00:00:00Z" if date else None


def organization_id(base: str, vendor: str | None) -> str | None:
    return element_id(base, "organization", vendor) if vendor and vendor not in PSEUDO_VENDORS else None


def model_id(base: str, m: ModelEntry) -> str:
    return element_id(base, "model", m.vendor, m.served_via, m.name)


def model(base: str, inv: Inventory, w: _aibom.Wiring, m: ModelEntry) -> Obj:
    """A model as an `ai_AIPackage`: its id as named, the vendor as supplier, the catalog's canonical id as the
    version it resolves to, what it does and how it is built where the catalogs know, how it is used (route and
    users) and its lifecycle."""
    use = [f"served via {m.served_via}" if m.served_via else "route not stated"]
    if m.base_model:
        use.append(f"alias of {m.base_model}")
    if users := _aibom.users_of(w, inv, m):
        use.append("selected by " + ", ".join(users))
    use.append(("wired; " if m.wired else "not wiring; ") + "seen at " + _aibom.where_seen(m.locations))
    limits = [x for x in (_aibom.lifecycle_text(m), _aibom.contradiction(inv, m)) if x]
    return element(
        "ai_AIPackage", model_id(base, m), m.name,
        suppliedBy=organization_id(base, m.vendor),
        software_packageVersion=safe(m.canonical) if m.canonical else None,
        software_primaryPurpose="model",
        releaseTime=day(m.released),
        validUntilTime=day(m.retires),
        supportLevel=[_SUPPORT[m.lifecycle]] if m.lifecycle in _SUPPORT else None,
        ai_typeOfModel=[m.architecture] if m.architecture else None,
        ai_domain=[m.task] if m.task else None,
        ai_informationAboutApplication=safe("; ".join(use)),
        ai_limitation=safe("; ".join(limits)) if limits else None,
        comment=safe(f"catalog: {m.catalog}" + (f"; family {m.family}" if m.family else "")),
    )


def part_id(base: str, p: BomPart) -> str:
    return element_id(base, p.ref.partition(":")[0], p.ref)


def bom_part(base: str, p: BomPart) -> Obj:
    """A kind's entry as the kind lists it, verified by its hashes' SHA-256 and named by its package URL (a local
    model: an `ai_AIPackage` verified by each weight file, `pkg:huggingface/…@revision`, `pkg:generic/…`)."""
    type_, purpose = _PART_TYPE.get(p.type, ("software_Package", "other"))
    return element(
        type_, part_id(base, p), p.name,
        suppliedBy=organization_id(base, p.supplier),
        software_packageVersion=safe(p.version) if p.version else None,
        software_packageUrl=p.purl,
        software_primaryPurpose=purpose,
        ai_typeOfModel=[safe(p.architecture)] if p.architecture and type_ == "ai_AIPackage" else None,
        ai_informationAboutApplication=safe(p.about) if p.about and type_ == "ai_AIPackage" else None,
        verifiedUsing=[{"type": "Hash", "algorithm": "sha256", "hashValue": h} for alg, h in p.hashes
                       if alg == "SHA-256"],
        comment=safe(p.description) if p.description else None,
    )


def sdk_id(base: str, s: SdkEntry) -> str:
    state = "installed" if s.installed else "declared"
    return element_id(base, "sdk", s.ecosystem, s.name, s.version, state, s.environment)


def sdk(base: str, s: SdkEntry) -> Obj:
    p = purl(s)
    return element(
        "software_Package", sdk_id(base, s), s.name,
        software_packageVersion=safe(s.version) if s.version else None,
        software_packageUrl=p.to_string() if p else None,
        software_primaryPurpose="library",
        suppliedBy=organization_id(base, s.vendor),
        comment=safe(("installed in " if s.installed else "declared in ") + (s.environment or "?")),
    )


def agent_id(base: str, a: AgentEntry) -> str:
    return element_id(base, "agent", a.name, a.version, a.install_path)


def agent(base: str, a: AgentEntry) -> Obj:
    """An agent product: AI software, so an `ai_AIPackage` (a `software_Package`) with its package URL. Whether it
    acts without a human depends on its users' approval settings, which the inventory does not read."""
    p = agent_purl(a)
    users = sorted({c.user or "(system)" for c in a.configs})
    where = f"installed at {a.install_path}" if a.install_path else "configured, not found installed"
    return element(
        "ai_AIPackage", agent_id(base, a), a.product,
        software_packageVersion=safe(a.version) if a.version else None,
        software_packageUrl=p.to_string() if p else None,
        software_primaryPurpose="application",
        ai_autonomyType="noAssertion",
        ai_informationAboutApplication=safe(f"{where}; configured by {', '.join(users) or 'nobody'}"),
        comment=safe(f"agent product {a.name}" + (f"; {len(a.ships)} model id(s) shipped" if a.ships else "")),
    )


def endpoint_id(base: str, e: EndpointEntry) -> str:
    return element_id(base, "endpoint", e.host)


def endpoint(base: str, e: EndpointEntry) -> Obj:
    """An API endpoint. SPDX 3.0.1 has no service class: a package of purpose `other`, its URLs as references."""
    urls = list(dict.fromkeys(filter(None, map(clean_url, e.urls))))
    trust = "leaves the machine's network" if crosses_trust_boundary(e.host) else "on the local network"
    return element(
        "software_Package", endpoint_id(base, e), e.host,
        software_primaryPurpose="other",
        suppliedBy=organization_id(base, e.vendor),
        externalRef=[{"type": "ExternalRef", "externalRefType": "other", "locator": urls}] if urls else None,
        comment=safe(f"API endpoint ({'wired' if e.wired else 'named only'}"
                     + (f", served via {e.served_via}" if e.served_via else "") + f"); {trust}; seen at "
                     + _aibom.where_seen(e.locations)),
    )


def credential_id(base: str, sha256: str) -> str:
    return element_id(base, "credential", sha256)


def credential(base: str, c: CredentialEntry) -> Obj:
    """A credential, by its SHA-256 only: neither the secret nor its redacted form leaves the inventory."""
    where = ", ".join(dict.fromkeys(
        f"{cl.location.path} ({cl.mode})" if cl.mode else cl.location.path for cl in c.locations))
    return element(
        "software_Package", credential_id(base, c.sha256), f"{c.type} credential",
        software_primaryPurpose="other",
        suppliedBy=organization_id(base, c.vendor),
        verifiedUsing=[{"type": "Hash", "algorithm": "sha256", "hashValue": c.sha256}],
        comment=safe(f"a credential (only its SHA-256 is kept) for {c.route or c.vendor or 'an unknown vendor'}"
                     f"; stored in {where}"),
    )


def mcp_id(base: str, s: McpServerEntry) -> str:
    return element_id(base, "mcp", s.user, s.name, s.config)


def mcp_server(base: str, s: McpServerEntry) -> Obj:
    what = s.url if s.transport == "http" and s.url else s.command
    return element(
        "software_Package", mcp_id(base, s), s.name,
        software_primaryPurpose="application",
        comment=safe(f"MCP server ({s.transport}): {what or '?'}; declared in {s.config} for {s.user or '(system)'}"),
    )


def annotation(base: str, key: str, subject: str, statement: str) -> Obj:
    return element("Annotation", element_id(base, "annotation", key), None, subject=subject,
                   annotationType="other", statement=safe(statement))


def relationship(frm: str, kind: str, to: list[str], tag: str = "", **fields: Any) -> Obj:
    rid = f"{frm}/{kind}" + (f"/{tag}" if tag else "")
    return element("Relationship", rid, None, relationshipType=kind, to=sorted(set(to)), **fields, **{"from": frm})

"""The components and services of the CycloneDX AI bill of materials, each with how it was found.

Every component carries `evidence.identity` (the field identified, each technique that found it with its
confidence) and `evidence.occurrences` (where). The library's sort keys are computed once per component
(`frozen`): it rebuilds them at every comparison otherwise, most of a BOM's time on thousands of models.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from decimal import Decimal
from typing import Any
from urllib.parse import quote

from cyclonedx.model import HashAlgorithm, HashType, Property, XsUri
from cyclonedx.model.component import Component, ComponentType
from cyclonedx.model.component_evidence import (
    AnalysisTechnique,
    ComponentEvidence,
    Identity,
    IdentityField,
    Method,
    Occurrence,
)
from cyclonedx.model.contact import OrganizationalEntity
from cyclonedx.model.service import Service
from packageurl import PackageURL

from scanner.hosts import crosses_trust_boundary
from scanner.kinds import Inventory
from scanner.kinds.agents import AgentEntry
from scanner.kinds.base import BomPart
from scanner.kinds.endpoints import EndpointEntry
from scanner.kinds.mcp_servers import McpServerEntry
from scanner.kinds.models import ModelEntry
from scanner.kinds.sdks import SdkEntry
from scanner.model import Context, Location, Skip
from scanner.render import _aibom
from scanner.render._headline import Mention
from scanner.textsafe import safe

NS = "modelcensus"
MAX_OCCURRENCES = 20
# Package-URL types of the ecosystems the catalogs name SDKs in.
_PURL_TYPE = {"pypi": "pypi", "npm": "npm", "go": "golang", "cargo": "cargo", "gem": "gem", "maven": "maven",
              "nuget": "nuget"}
# Where a URL taken from a binary stops: the first byte that cannot be part of one (control, space, an undecodable
# byte carried as a surrogate, quote marks and brackets that delimit URLs in text).
_URL_END = re.compile(r"[\x00-\x20\x7f-\x9f\ud800-\udfff\"'<>\\^`{|}]")
_KEY = "_Component__comparable_tuple"  # the library's private sort key of a component


def clean_url(url: str) -> str | None:
    """`url` cut at the first character no URI may hold, the rest percent-encoded; None if nothing usable is left."""
    head = _URL_END.split(url, 1)[0]
    head = re.sub(r"%(?![0-9A-Fa-f]{2})", "%25", head)
    text = quote(head, safe=":/?#[]@!$&'()*+,;=%-._~")
    return text if re.match(r"^[A-Za-z][A-Za-z0-9+.-]*://[^/]", text) else None


def frozen(c: Component) -> Component:
    """`c` with its sort key computed once; a component is not changed once built here, so it cannot go stale."""
    key = getattr(c, _KEY)()
    setattr(c, _KEY, lambda: key)
    return c


def props(**values: object) -> list[Property]:
    return [Property(name=f"{NS}:{k}", value=str(v).lower() if isinstance(v, bool) else safe(v))
            for k, v in values.items() if v is not None and v != ""]


def _identity(field: IdentityField, value: str, found: Sequence[_aibom.Method]) -> Identity:
    return Identity(
        field=field,
        confidence=Decimal(str(max((m.confidence for m in found), default=0.0))),
        concluded_value=safe(value),
        methods=[Method(technique=AnalysisTechnique(m.technique), confidence=Decimal(str(m.confidence)),
                        value=safe(m.value)) for m in found],
    )


def evidence(owner: str, locs: Iterable[Location], identities: Sequence[Identity]) -> ComponentEvidence:
    seen = list(dict.fromkeys((loc.path, loc.line, loc.context.value) for loc in locs))[:MAX_OCCURRENCES]
    # Each occurrence gets a reference derived from its owner: the library orders occurrences by reference first,
    # and unset references would make that order (and so the output bytes) change from run to run.
    occurrences = [Occurrence(bom_ref=f"{owner}#{i:02d}", location=safe(path), line=line, additional_context=ctx)
                   for i, (path, line, ctx) in enumerate(seen)]
    return ComponentEvidence(identity=identities, occurrences=occurrences)


def _exact(version: str | None) -> str | None:
    # A declared requirement (`^1.14.0`, `>=2`) is not a version a package URL may carry.
    return version if version and version[0].isdigit() and not any(c in version for c in "<>=^~*, |") else None


def purl(sdk: SdkEntry) -> PackageURL | None:
    kind = _PURL_TYPE.get(sdk.ecosystem)
    if kind is None:
        return None
    name, namespace = sdk.name, None
    if kind == "maven" and ":" in name:
        namespace, name = name.split(":", 1)
    elif "/" in name:  # `@scope/pkg`, `github.com/org/module/v3`
        namespace, name = name.rsplit("/", 1)
    return PackageURL(type=kind, namespace=namespace, name=name, version=_exact(sdk.version))


def agent_purl(a: AgentEntry) -> PackageURL | None:
    """An agent product's package URL, when it is installed as an npm package (its folder names the package)."""
    if not a.install_path or a.ecosystem != "npm" or "/node_modules/" not in a.install_path:
        return None
    package = a.install_path.rsplit("/node_modules/", 1)[1]
    return purl(SdkEntry("npm", package, a.version, None, None, True, None, ()))


def model_ref(m: ModelEntry) -> str:
    return safe(f"model:{m.vendor or '-'}:{m.served_via or '-'}:{m.name}")


def model(inv: Inventory, m: ModelEntry) -> Component:
    ref = model_ref(m)
    identities = [_identity(IdentityField.NAME, m.name, _aibom.methods(m.locations, m.name))]
    if vendor := _aibom.vendor_methods(inv, m):
        identities.append(_identity(IdentityField.GROUP, m.vendor or vendor[-1].value.split(" ")[0], vendor))
    milestones = [Property(name=f"cdx:lifecycle:milestone:{k}", value=v) for k, v in _aibom.milestones(m)]
    return Component(
        type=ComponentType.MACHINE_LEARNING_MODEL,
        name=safe(m.name),
        bom_ref=ref,
        supplier=OrganizationalEntity(name=m.vendor) if m.vendor else None,
        group=m.vendor,
        properties=milestones + props(
            vendor=m.vendor, served_via=m.served_via, base_model=m.base_model, canonical=m.canonical,
            family=m.family, catalog=m.catalog, lifecycle=m.lifecycle, wired=m.wired,
            contexts=",".join(sorted({loc.context.value for loc in m.locations})),
            observed=_aibom.contradiction(inv, m),
        ),
        evidence=evidence(ref, m.locations, identities),
    )


def bom_part(part: BomPart) -> Component:
    """A kind's entry as the kind lists it (a model whose weights are on the machine: its files' digests are its
    hashes)."""
    return Component(
        type=ComponentType(part.type), name=safe(part.name), bom_ref=safe(part.ref),
        version=safe(part.version) if part.version else None, group=part.supplier,
        supplier=OrganizationalEntity(name=part.supplier) if part.supplier else None,
        purl=PackageURL.from_string(part.purl), description=part.description,
        hashes=[HashType(alg=HashAlgorithm.SHA_256, content=h) for alg, h in part.hashes if alg == "SHA-256"],
        properties=[Property(name=k, value=safe(v)) for k, v in part.properties],
        evidence=evidence(part.ref, part.locations, [_identity(IdentityField.NAME, part.name, [])]),
    )  # fmt: skip


def model_card(m: ModelEntry) -> dict[str, Any] | None:
    """The model card the catalogs can fill: task and architecture family (added to the JSON: the library has no
    model cards)."""
    params = {k: v for k, v in (("task", m.task), ("architectureFamily", m.architecture)) if v}
    return {"bom-ref": f"{model_ref(m)}#card", "modelParameters": params} if params else None


def sdk_ref(s: SdkEntry) -> str:
    state = "installed" if s.installed else "declared"
    return safe(f"sdk:{s.ecosystem}:{s.name}:{s.version or '-'}:{state}:{s.environment or '-'}")


def sdk(s: SdkEntry) -> Component:
    p = purl(s)
    ref = sdk_ref(s)
    identities = [_identity(IdentityField.NAME, s.name, _aibom.methods(s.locations, s.name))]
    if s.version:
        identities.append(_identity(IdentityField.VERSION, s.version, _aibom.methods(s.locations, s.version)))
    return Component(
        type=ComponentType.LIBRARY,
        name=safe(s.name),
        version=safe(s.version) if s.version else None,
        bom_ref=ref,
        purl=p,
        supplier=OrganizationalEntity(name=s.vendor) if s.vendor else None,
        properties=props(ecosystem=s.ecosystem, vendor=s.vendor, served_via=s.served_via, installed=s.installed,
                         environment=s.environment),
        evidence=evidence(ref, s.locations, identities),
    )


def agent_ref(a: AgentEntry) -> str:
    return safe(f"agent:{_aibom.agent_key(a)}")


def agent(a: AgentEntry) -> Component:
    """An installed (or only configured) agent product: an `application` with its package URL (npm)."""
    ref = agent_ref(a)
    config_locs = [Location(f, None, Context.CONFIG) for c in a.configs for f in c.files]
    locs = list(a.locations) + config_locs
    identities = [_identity(IdentityField.NAME, a.name, _aibom.methods(locs, a.name))]
    if a.version:
        # A native install names its version by its folder (`…/claude/versions/2.0.14`), a package by its manifest.
        technique = "filename" if a.ecosystem == "binary" else "manifest-analysis"
        identities.append(_identity(IdentityField.VERSION, a.version, [_aibom.Method(technique, 0.9, a.version)]))
    return Component(
        type=ComponentType.APPLICATION,
        name=safe(a.name),
        version=a.version,
        bom_ref=ref,
        purl=agent_purl(a),
        description=a.product,
        properties=props(install_path=a.install_path, ecosystem=a.ecosystem, ships=len(a.ships),
                         users=",".join(sorted({c.user or "(system)" for c in a.configs}))),
        evidence=evidence(ref, locs, identities),
    )


def mentions(m: Mention) -> Component:
    """Model ids one package or source only mentions, as one component: how many, and in which files."""
    ref = safe(f"mentions:{m.source}")
    locs = [Location(p, None, Context.PACKAGE) for p in m.paths]
    identities = [_identity(IdentityField.NAME, m.source, [_aibom.Method("manifest-analysis", 0.3, m.source)])]
    return Component(
        type=ComponentType.DATA,
        name=safe(f"model ids in {m.source}"),
        bom_ref=ref,
        description=safe(f"{m.models} model id(s) in {m.context}; not wiring (--all lists each)"),
        properties=props(source=m.source, model_ids=m.models, files=len(m.paths), wired=False),
        evidence=ComponentEvidence(identity=identities, occurrences=[
            Occurrence(bom_ref=f"{ref}#{i:02d}", location=safe(loc.path)) for i, loc in enumerate(locs[:20])]),
    )


def gap_ref(s: Skip) -> str:
    return safe(f"unread:{s.path}")


def gap(s: Skip) -> Component:
    """A file whose content the scan could not (fully) read: what a composition marked incomplete points at."""
    ref = gap_ref(s)
    return Component(
        type=ComponentType.FILE,
        name=safe(s.path),
        bom_ref=ref,
        description=safe(f"not fully read: {s.reason.value}" + (f" ({s.detail})" if s.detail else "")),
        properties=props(skipped=s.reason.value),
        evidence=evidence(ref, [Location(s.path)],
                          [_identity(IdentityField.NAME, s.path, [_aibom.Method("filename", 1.0, s.path)])]),
    )


def endpoint(e: EndpointEntry) -> Service:
    return Service(
        name=safe(e.host),
        bom_ref=safe(f"service:{e.host}"),
        provider=OrganizationalEntity(name=e.vendor) if e.vendor else None,
        group=e.vendor,
        endpoints=[XsUri(u) for u in dict.fromkeys(filter(None, map(clean_url, e.urls)))],
        authenticated=_aibom.requires_authentication(e),
        x_trust_boundary=crosses_trust_boundary(e.host),
        properties=props(vendor=e.vendor, served_via=e.served_via, wired=e.wired,
                         contexts=",".join(sorted({loc.context.value for loc in e.locations})),
                         where=_aibom.where_seen(e.locations)),
    )


def mcp_ref(s: McpServerEntry) -> str:
    return safe(f"mcp:{s.user or '-'}:{s.name}:{s.config}")


def mcp_server(s: McpServerEntry) -> Service:
    """An MCP server an agent's config declares: a tool the agent calls, local (stdio) or remote (http)."""
    url = clean_url(s.url) if s.url else None
    host = _aibom.host_of(url)
    return Service(
        name=safe(s.name),
        bom_ref=mcp_ref(s),
        description=safe(f"MCP server ({s.transport})"),
        endpoints=[XsUri(url)] if url else [],
        x_trust_boundary=crosses_trust_boundary(host) if host else None,
        properties=props(transport=s.transport, command=s.command, env=",".join(s.env), user=s.user,
                         config=s.config),
    )

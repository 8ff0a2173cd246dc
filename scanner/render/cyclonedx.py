"""The inventory as a CycloneDX AI bill of materials (1.6, or 1.7 on request), for supply-chain tools.

The scanned machine or image is the BOM's subject (`metadata.component`, typed operating-system, container or
platform), modelcensus and its catalogs are `metadata.tools`, and `metadata.lifecycles` says when the BOM was
taken (`operations` for a live audit, `post-build` for an image or a directory). Wired models are
`machine-learning-model` components with a model card where the catalogs know the task and architecture; SDKs are
`library` components with package URLs; agent products are `application`s; endpoints and MCP servers are services
(`authenticated`, `x-trust-boundary`, their URLs). Dependencies make "agent X reaches model Y through endpoint Z"
a path: agent -> endpoint -> model. Every component says how it was found (`evidence.identity` with techniques
and confidences, `evidence.occurrences`), and `compositions` says whether the scan read everything: `incomplete`
with the files it could not read. Credentials are not components: a BOM travels further than an audit report,
so it carries only how many there are.

Model ids that are only mentioned (an SDK's own price list, docs, tests) are not models the machine uses: as in the
human formats' headline they are one `data` component per package or source with the count as a property, unless
`--all` asks for one component per id. (Thousands of components also cost the library seconds of sorting.)
"""

from __future__ import annotations

import hashlib
import json
import uuid
from collections.abc import Iterable
from datetime import datetime, timezone
from typing import Any

from cyclonedx.model.bom import Bom
from cyclonedx.model.component import Component, ComponentType
from cyclonedx.model.contact import OrganizationalEntity
from cyclonedx.model.dependency import Dependency
from cyclonedx.model.lifecycle import LifecyclePhase, PredefinedLifecycle
from cyclonedx.output.json import JsonV1Dot6, JsonV1Dot7

from scanner.kinds import Inventory
from scanner.kinds.sdks import SdkEntry
from scanner.render import _aibom, _cdx_parts
from scanner.render._cdx_parts import props, purl
from scanner.render._headline import not_wiring
from scanner.render._view import CYCLONEDX_VERSIONS, DEFAULT, ReportOptions
from scanner.textsafe import safe

description = "an AI bill of materials as CycloneDX 1.6 JSON (models, SDKs, agents, endpoints, how each was found)"

__all__ = ["purl", "render", "to_bom", "description", "VERSIONS"]

VERSIONS = dict(zip(CYCLONEDX_VERSIONS, (JsonV1Dot6, JsonV1Dot7), strict=True))
_MAX_GAPS = 200  # files not fully read that get a component of their own; the subject counts them all
_SUBJECT_TYPE = {"container-image": ComponentType.CONTAINER, "live": ComponentType.PLATFORM}


def _indexed(bom: Bom) -> Bom:
    """`bom` with a `register_dependency` that finds a target through a dict. The library's looks each target up by
    scanning every dependency, and its output step registers every component again: quadratic, about 40 s on 5,000
    models. (Set on the instance: the serializer only knows the `Bom` class itself.)"""
    index: dict[str, Dependency] = {}

    def register_dependency(target: Any, depends_on: Iterable[Any] | None = None) -> None:
        deps = list(depends_on or ())
        key = str(target.bom_ref)
        known = index.get(key)
        if known is None:
            known = Dependency(ref=target.bom_ref, dependencies=[Dependency(ref=d.bom_ref) for d in deps])
            index[key] = known
            bom.dependencies.add(known)
        elif deps:
            bom.dependencies.remove(known)  # its sort key changes with its dependencies
            known.dependencies.update(Dependency(ref=d.bom_ref) for d in deps)
            bom.dependencies.add(known)
        for d in deps:
            if str(d.bom_ref) not in index:
                register_dependency(d)

    bom.register_dependency = register_dependency  # type: ignore[method-assign]
    return bom


def _subject(inv: Inventory, every_model: bool, done: _aibom.Completeness) -> Component:
    """The machine or image scanned: a VM's root tree or disk is an operating system, an image a container, a
    running machine audited live a platform."""
    return Component(
        type=_SUBJECT_TYPE.get(inv.target.kind, ComponentType.OPERATING_SYSTEM),
        name=safe(inv.target.location.rstrip("/").rsplit("/", 1)[-1] or "/"),
        bom_ref="target",
        description=f"agent VM ({inv.target.kind}) scanned by modelcensus {inv.tool_version}",
        properties=props(
            target_kind=inv.target.kind,
            credentials=len(inv.credentials),
            kill_switches=len(inv.kill_switches),
            catalogs=", ".join(f"{c.name}@{c.version}" for c in inv.catalogs),
            models_listed="all" if every_model else "wired",
            models_not_wiring=sum(1 for m in inv.models if not m.wired),
            skipped=len(inv.skipped),
            not_fully_read=len(done.gaps),
            incomplete="; ".join(done.why),
        ),
    )


def _metadata(bom: Bom, inv: Inventory, subject: Component) -> None:
    epoch = _aibom.source_date_epoch()
    if epoch is not None:  # reproducible builds: the same inventory gives the same bytes
        bom.metadata.timestamp = datetime.fromtimestamp(epoch, tz=timezone.utc)
        bom.serial_number = uuid.UUID(bytes=hashlib.sha256(
            repr((epoch, inv.target.location, [m.name for m in inv.models], [s.name for s in inv.sdks],
                  [e.host for e in inv.endpoints])).encode("utf-8", "backslashreplace")).digest()[:16], version=4)
    bom.metadata.component = subject
    phase = LifecyclePhase.OPERATIONS if inv.target.kind == "live" else LifecyclePhase.POST_BUILD
    bom.metadata.lifecycles = [PredefinedLifecycle(phase)]
    bom.metadata.tools.components.add(Component(type=ComponentType.APPLICATION, name="modelcensus",
                                                version=inv.tool_version, bom_ref="tool:modelcensus"))
    for c in inv.catalogs:
        bom.metadata.tools.components.add(Component(
            type=ComponentType.DATA, name=safe(f"catalog {c.name}"), version=safe(c.version),
            bom_ref=safe(f"tool:catalog:{c.name}"), supplier=OrganizationalEntity(name="modelcensus"),
            properties=props(origin=c.origin)))


def to_bom(inv: Inventory, every_model: bool = False) -> Bom:
    """The BOM of `inv`: wired models one component each and the other ids counted per source, or every model id
    one component each (`every_model`, the CLI's `--all`)."""
    bom = _indexed(Bom())
    done = _aibom.completeness(inv)
    subject = _subject(inv, every_model, done)
    _metadata(bom, inv, subject)
    models = {m.name: _cdx_parts.frozen(_cdx_parts.model(inv, m)) for m in inv.models if every_model or m.wired}
    others = [] if every_model else [_cdx_parts.frozen(_cdx_parts.mentions(m)) for m in not_wiring(inv)]
    sdks = [(s, _cdx_parts.frozen(_cdx_parts.sdk(s))) for s in inv.sdks]
    services = {e.host: _cdx_parts.endpoint(e) for e in inv.endpoints}
    mcp = {_cdx_parts.mcp_ref(s): _cdx_parts.mcp_server(s) for s in inv.mcp_servers}
    gaps = [_cdx_parts.frozen(_cdx_parts.gap(s)) for s in done.gaps[:_MAX_GAPS]]
    for svc in [*services.values(), *mcp.values()]:
        bom.services.add(svc)
    parts = [(p, _cdx_parts.frozen(_cdx_parts.bom_part(p))) for _, kind_parts in _aibom.bom_parts(inv)
             for p in kind_parts]
    listed = [c for _, c in parts]
    for c in [*models.values(), *listed, *others, *(c for _, c in sdks), *gaps]:
        bom.components.add(c)
    for s, c in sdks:
        vendor_services = [services[e.host] for e in _aibom.vendor_endpoints(inv, s)]
        if vendor_services:
            bom.register_dependency(c, vendor_services)
    agents = _agents(bom, inv, models, services, mcp, sdks)
    for p, c in parts:  # an agent that uses a kind's part (a local model its config selects) depends on it
        for a, ac in zip(inv.agents, agents, strict=True):
            if p.used_by_agent(a.name):
                bom.register_dependency(ac, [c])
    bom.register_dependency(subject, [*models.values(), *listed, *others, *(c for _, c in sdks), *agents])
    return bom


def _agents(bom: Bom, inv: Inventory, models: dict[str, Component], services: dict[str, Any],
            mcp: dict[str, Any], sdks: list[tuple[SdkEntry, Component]]) -> list[Component]:
    """Agent components and the chain agent -> endpoint -> model; an agent whose models no endpoint serves
    depends on them directly."""
    wiring = _aibom.wiring(inv)
    for host, served in wiring.endpoint_models.items():
        targets = [models[m.name] for m in served if m.name in models]
        if targets and host in services:
            bom.register_dependency(services[host], targets)
    out: list[Component] = []
    for a in inv.agents:
        c = _cdx_parts.frozen(_cdx_parts.agent(a))
        bom.components.add(c)
        key = _aibom.agent_key(a)
        via = wiring.agent_endpoints.get(key, ())
        reached = {m.name for e in via for m in wiring.endpoint_models.get(e.host, ())}
        direct = [models[m.name] for m in wiring.agent_models.get(key, ()) if m.name not in reached]
        bundled = {(b.ecosystem, b.name, b.version) for b in a.sdks}
        deps = [services[e.host] for e in via] + direct + [mcp[_cdx_parts.mcp_ref(s)] for s in
                                                          wiring.agent_mcp.get(key, ())]
        deps += [sc for s, sc in sdks if (s.ecosystem, s.name, s.version) in bundled]
        if deps:
            bom.register_dependency(c, deps)
        out.append(c)
    return out


def _compositions(inv: Inventory, done: _aibom.Completeness) -> list[dict[str, Any]]:
    """How complete the BOM is: `complete` when the scan read everything it looked at, else `incomplete` with the
    files it could not read among the assemblies (the first of them; the subject counts them all)."""
    gaps = [_cdx_parts.gap_ref(s) for s in done.gaps[:_MAX_GAPS]]
    return [{
        "bom-ref": "composition:target",
        "aggregate": "complete" if done.complete else "incomplete",
        "assemblies": ["target", *gaps],
        "dependencies": ["target"],
    }]


def _extend(text: str, inv: Inventory, every_model: bool) -> str:
    """What the library cannot write yet (model cards, compositions) added to its JSON."""
    doc = json.loads(text)
    cards = {_cdx_parts.model_ref(m): card for m in inv.models if (every_model or m.wired)
             and (card := _cdx_parts.model_card(m))}
    for c in doc.get("components", []):
        if c.get("bom-ref") in cards:
            c["modelCard"] = cards[c["bom-ref"]]
    doc["compositions"] = _compositions(inv, _aibom.completeness(inv))
    return json.dumps(doc, indent=2)


def render(inv: Inventory, opts: ReportOptions = DEFAULT) -> str:
    writer = VERSIONS.get(opts.cyclonedx_version, JsonV1Dot6)
    text: str = writer(to_bom(inv, opts.all)).output_as_string(indent=2)
    return _extend(text, inv, opts.all) + "\n"

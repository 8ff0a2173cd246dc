"""The inventory as a CycloneDX 1.6 AI bill of materials, for supply-chain tools.

The scanned VM is the BOM's subject. Wired models are `machine-learning-model` components (vendor as supplier, route
and base model as properties, where they were seen as evidence occurrences); SDKs are `library` components with
package URLs; endpoints are services; each SDK depends on the services of the vendor it talks to. Credentials are not
components: a BOM travels further than an audit report, so it carries only how many there are.

Model ids that are only mentioned (an SDK's own price list, docs, tests) are not models the machine uses: as in the
human formats' headline they are one `data` component per package or source with the count as a property, unless
`--all` asks for one component per id. (Thousands of components also cost the library seconds of sorting.)
"""

from __future__ import annotations

import hashlib
import os
import re
import uuid
from collections.abc import Iterable
from datetime import datetime, timezone
from typing import Any
from urllib.parse import quote

from cyclonedx.model import Property, XsUri
from cyclonedx.model.bom import Bom
from cyclonedx.model.component import Component, ComponentType
from cyclonedx.model.component_evidence import ComponentEvidence, Occurrence
from cyclonedx.model.contact import OrganizationalEntity
from cyclonedx.model.dependency import Dependency
from cyclonedx.model.service import Service
from cyclonedx.output.json import JsonV1Dot6
from packageurl import PackageURL

from scanner.model import AgentEntry, Inventory, Location, ModelEntry, SdkEntry
from scanner.render._headline import Mention, not_wiring
from scanner.render._view import DEFAULT, ReportOptions
from scanner.textsafe import safe

description = "an AI bill of materials as CycloneDX 1.6 JSON (models, SDKs with package URLs, endpoints)"

_NS = "modelcensus"
_MAX_OCCURRENCES = 20
# Package-URL types of the ecosystems the catalogs name SDKs in.
_PURL_TYPE = {"pypi": "pypi", "npm": "npm", "go": "golang", "cargo": "cargo", "gem": "gem", "maven": "maven",
              "nuget": "nuget"}


# Where a URL taken from a binary stops: the first byte that cannot be part of one (control, space, an undecodable
# byte carried as a surrogate, quote marks and brackets that delimit URLs in text).
_URL_END = re.compile(r"[\x00-\x20\x7f-\x9f\ud800-\udfff\"'<>\\^`{|}]")


def clean_url(url: str) -> str | None:
    """`url` cut at the first character no URI may hold, the rest percent-encoded; None if nothing usable is left."""
    head = _URL_END.split(url, 1)[0]
    head = re.sub(r"%(?![0-9A-Fa-f]{2})", "%25", head)
    text = quote(head, safe=":/?#[]@!$&'()*+,;=%-._~")
    return text if re.match(r"^[A-Za-z][A-Za-z0-9+.-]*://[^/]", text) else None


def _text(value: object) -> str:
    return safe(value)


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


_KEY = "_Component__comparable_tuple"  # the library's private sort key of a component


def _frozen(c: Component) -> Component:
    """`c` with its sort key computed once. The library rebuilds a 30-field tuple (properties and evidence
    included) at every comparison and hash while it keeps components sorted: most of the BOM's time on thousands of
    models. A component is not changed once built here, so its key cannot go stale."""
    key = getattr(c, _KEY)()
    setattr(c, _KEY, lambda: key)
    return c


def _props(**values: object) -> list[Property]:
    return [Property(name=f"{_NS}:{k}", value=str(v).lower() if isinstance(v, bool) else _text(v))
            for k, v in values.items() if v is not None and v != ""]


def _evidence(owner: str, locs: Iterable[Location]) -> ComponentEvidence | None:
    seen = list(dict.fromkeys((loc.path, loc.line, loc.context.value) for loc in locs))[:_MAX_OCCURRENCES]
    # Each occurrence gets a reference derived from its owner: the library orders occurrences by reference first,
    # and unset references would make that order (and so the output bytes) change from run to run.
    occurrences = [Occurrence(bom_ref=f"{owner}#{i:02d}", location=_text(path), line=line, additional_context=ctx)
                   for i, (path, line, ctx) in enumerate(seen)]
    return ComponentEvidence(occurrences=occurrences) if occurrences else None


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


def _model(m: ModelEntry) -> Component:
    ref = _text(f"model:{m.vendor or '-'}:{m.served_via or '-'}:{m.name}")
    return Component(
        type=ComponentType.MACHINE_LEARNING_MODEL,
        name=_text(m.name),
        bom_ref=ref,
        supplier=OrganizationalEntity(name=m.vendor) if m.vendor else None,
        group=m.vendor,
        properties=_props(
            vendor=m.vendor, served_via=m.served_via, base_model=m.base_model, canonical=m.canonical,
            family=m.family, catalog=m.catalog, lifecycle=m.lifecycle, wired=m.wired,
            contexts=",".join(sorted({loc.context.value for loc in m.locations})),
        ),
        evidence=_evidence(ref, m.locations),
    )


def _sdk(s: SdkEntry) -> Component:
    p = purl(s)
    state = "installed" if s.installed else "declared"
    ref = _text(f"sdk:{s.ecosystem}:{s.name}:{s.version or '-'}:{state}:{s.environment or '-'}")
    return Component(
        type=ComponentType.LIBRARY,
        name=_text(s.name),
        version=_text(s.version) if s.version else None,
        bom_ref=ref,
        purl=p,
        supplier=OrganizationalEntity(name=s.vendor) if s.vendor else None,
        properties=_props(ecosystem=s.ecosystem, vendor=s.vendor, served_via=s.served_via, installed=s.installed,
                          environment=s.environment),
        evidence=_evidence(ref, s.locations),
    )


def _agent(a: AgentEntry) -> Component:
    """An installed agent product: an `application` with its package URL (npm / pypi)."""
    eco = a.ecosystem or ""
    package = None
    if a.install_path and eco == "npm" and "/node_modules/" in a.install_path:
        package = a.install_path.rsplit("/node_modules/", 1)[1]
    p = purl(SdkEntry(eco, package, a.version, None, None, True, None, ())) if package else None
    ref = f"agent:{a.name}:{a.version or '-'}:{a.install_path or '-'}"
    return Component(
        type=ComponentType.APPLICATION,
        name=_text(a.name),
        version=a.version,
        bom_ref=_text(ref),
        purl=p,
        description=a.product,
        properties=_props(install_path=a.install_path, ecosystem=a.ecosystem, ships=len(a.ships),
                          users=",".join(sorted({c.user or "(system)" for c in a.configs}))),
        evidence=_evidence(ref, a.locations),
    )


def _mentions(m: Mention) -> Component:
    """Model ids one package or source only mentions, as one component: how many, and in which files."""
    ref = _text(f"mentions:{m.source}")
    occurrences = [Occurrence(bom_ref=f"{ref}#{i:02d}", location=_text(path))
                   for i, path in enumerate(m.paths[:_MAX_OCCURRENCES])]
    return Component(
        type=ComponentType.DATA,
        name=_text(f"model ids in {m.source}"),
        bom_ref=ref,
        description=_text(f"{m.models} model id(s) in {m.context}; not wiring (--all lists each)"),
        properties=_props(source=m.source, model_ids=m.models, files=len(m.paths), wired=False),
        evidence=ComponentEvidence(occurrences=occurrences) if occurrences else None,
    )


def _source_date_epoch() -> int | None:
    value = os.environ.get("SOURCE_DATE_EPOCH", "").strip()
    return int(value) if value.isascii() and value.isdigit() else None


def to_bom(inv: Inventory, every_model: bool = False) -> Bom:
    """The BOM of `inv`: wired models one component each and the other ids counted per source, or every model id
    one component each (`every_model`, the CLI's `--all`)."""
    bom = _indexed(Bom())
    epoch = _source_date_epoch()
    if epoch is not None:  # reproducible builds: the same inventory gives the same bytes
        bom.metadata.timestamp = datetime.fromtimestamp(epoch, tz=timezone.utc)
        bom.serial_number = uuid.UUID(bytes=hashlib.sha256(
            repr((epoch, inv.target.location, [m.name for m in inv.models], [s.name for s in inv.sdks],
                  [e.host for e in inv.endpoints])).encode("utf-8", "backslashreplace")).digest()[:16], version=4)
    subject = Component(
        type=ComponentType.PLATFORM,
        name=_text(inv.target.location.rstrip("/").rsplit("/", 1)[-1] or "/"),
        bom_ref="target",
        description=f"agent VM ({inv.target.kind}) scanned by modelcensus {inv.tool_version}",
        properties=_props(
            target_kind=inv.target.kind,
            credentials=len(inv.credentials),
            kill_switches=len(inv.kill_switches),
            catalogs=", ".join(f"{c.name}@{c.version}" for c in inv.catalogs),
            models_listed="all" if every_model else "wired",
            models_not_wiring=sum(1 for m in inv.models if not m.wired),
        ),
    )
    bom.metadata.component = subject
    bom.metadata.tools.components.add(Component(type=ComponentType.APPLICATION, name="modelcensus",
                                                version=inv.tool_version))
    models = [_frozen(_model(m)) for m in inv.models if every_model or m.wired]
    if not every_model:
        models += [_frozen(_mentions(m)) for m in not_wiring(inv)]
    sdks = [(s, _frozen(_sdk(s))) for s in inv.sdks]
    services: dict[str, list[Service]] = {}
    for e in inv.endpoints:
        svc = Service(
            name=_text(e.host),
            bom_ref=_text(f"service:{e.host}"),
            provider=OrganizationalEntity(name=e.vendor) if e.vendor else None,
            group=e.vendor,
            endpoints=[XsUri(u) for u in dict.fromkeys(filter(None, map(clean_url, e.urls)))],
            properties=_props(vendor=e.vendor, served_via=e.served_via, wired=e.wired),
        )
        bom.services.add(svc)
        services.setdefault(e.vendor or "", []).append(svc)
    for c in models:
        bom.components.add(c)
    for s, c in sdks:
        bom.components.add(c)
        if s.vendor and services.get(s.vendor):
            bom.register_dependency(c, services[s.vendor])
    agents = [_frozen(_agent(a)) for a in inv.agents]
    for c in agents:
        bom.components.add(c)
    bom.register_dependency(subject, models + [c for _, c in sdks] + agents)
    return bom


def render(inv: Inventory, opts: ReportOptions = DEFAULT) -> str:
    text: str = JsonV1Dot6(to_bom(inv, opts.all)).output_as_string(indent=2)
    return text + "\n"

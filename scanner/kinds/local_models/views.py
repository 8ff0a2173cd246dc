"""What the report formats show of local models: the table's rows, the BOM component of each, the diff's facts."""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence
from typing import Any
from urllib.parse import quote

from scanner.kinds.base import BomPart
from scanner.kinds.local_models.facts import LocalModelEntry

TITLE = "Local models"
COLUMNS = ("model", "vendor", "store", "here", "format", "params", "quant", "license", "served by", "used by",
           "sha256", "where")  # fmt: skip


def _params(e: LocalModelEntry) -> str:
    if e.facts.size_label:
        return e.facts.size_label
    n = e.facts.parameters
    if not n:
        return ""
    return f"{n / 1e9:.1f}B" if n >= 1e9 else f"{n / 1e6:.1f}M" if n >= 1e6 else str(n)


def _served(e: LocalModelEntry) -> str:
    return ", ".join(dict.fromkeys(f"{s.server}@{s.host or '?'}:{s.port or '?'}" for s in e.servers))


def _digest(e: LocalModelEntry) -> str:
    digests = [f.sha256[:12] + ("!" if f.digest_check == "mismatch" else "") for f in e.files if f.sha256]
    return ", ".join(digests[:2]) + (f" (+{len(digests) - 2})" if len(digests) > 2 else "")


def rows(entries: Sequence[LocalModelEntry], where: Any) -> tuple[tuple[str, ...], ...]:
    """One row per model; `where` lays out its places as the other tables do."""
    return tuple(
        (
            e.name, e.vendor or "", e.store, "yes" if e.present else f"no: {e.note or 'weights not here'}",
            e.format or "", _params(e),
            e.facts.quantization or "", e.facts.license or "", _served(e),
            ", ".join(e.used_by) + (f" (+{e.sessions} session(s))" if e.sessions else ""), _digest(e),
            where(e.locations),
        )
        for e in entries
    )  # fmt: skip


def headline(entries: Sequence[LocalModelEntry]) -> str | None:
    """One line for the headline: local models counted by vendor (route `local`), their servers, and the
    configured ones whose weights are not here."""
    if not entries:
        return None
    here = [e for e in entries if e.present]
    per = Counter(e.vendor or "unknown vendor" for e in here)
    servers = sorted({s.server for e in entries for s in e.servers})
    absent = len(entries) - len(here)
    return (f"local models: {len(here)} on this machine via local"
            + (f" ({', '.join(f'{v} {n}' for v, n in sorted(per.items()))})" if here else "")
            + (f"; served by {', '.join(servers)}" if servers else "")
            + (f"; {absent} configured or served, weights not on this machine" if absent else ""))


def order(e: LocalModelEntry) -> tuple[str, str, str]:
    return (e.vendor or "~", e.name, e.store)


def diff_key(e: LocalModelEntry) -> str:
    return f"{e.store}:{e.name}"


def diff_facets(e: LocalModelEntry) -> Mapping[str, Any]:
    """A weight file whose bytes changed under the same name is a change of its model."""
    return {
        "present": e.present, "vendor": e.vendor, "format": e.format, "quantization": e.facts.quantization,
        "license": e.facts.license, "servers": sorted({f"{s.server}:{s.port}" for s in e.servers}),
        "used_by": list(e.used_by), "files": {f.path: f.sha256 for f in e.files},
    }  # fmt: skip


def purl(e: LocalModelEntry) -> str:
    """`pkg:huggingface/org/name@revision` for a Hub repo; `pkg:generic/name@tag` otherwise, with the digest of a
    single weight file as its checksum."""
    if e.store == "hf-hub" and "/" in e.name:
        org, _, name = e.name.partition("/")
        at = f"@{e.revision}" if e.revision else ""
        return f"pkg:huggingface/{quote(org, safe='')}/{quote(name, safe='')}{at}"
    name, _, tag = e.name.partition(":")
    out = f"pkg:generic/{quote(name.rsplit('/', 1)[-1], safe='')}" + (f"@{quote(tag, safe='')}" if tag else "")
    sums = [f.sha256 for f in e.files if f.sha256]
    return out + (f"?checksum=sha256:{sums[0]}" if len(sums) == 1 else "")


_FILE_PROPERTY = "modelcensus:local:file:"  # a weight file's digest: the part's hashes say it


def bom_part(e: LocalModelEntry) -> BomPart:
    """A local model as a bill of materials lists it: a machine-learning-model component, its weight files' digests
    its hashes; the machine contains it when its weights are here."""
    props = {
        "modelcensus:local:store": e.store, "modelcensus:local:present": str(e.present).lower(),
        "modelcensus:local:route": e.route, "modelcensus:local:format": e.format, "modelcensus:local:family": e.family,
        "modelcensus:local:architecture": e.facts.architecture, "modelcensus:local:parameters": _params(e) or None,
        "modelcensus:local:quantization": e.facts.quantization,
        "modelcensus:local:context_length": str(e.facts.context_length) if e.facts.context_length else None,
        "modelcensus:local:license": e.facts.license, "modelcensus:local:served_by": _served(e) or None,
        "modelcensus:local:used_by": ", ".join(e.used_by) or None,
    }  # fmt: skip
    props.update({f"{_FILE_PROPERTY}{f.path}": f.sha256 or "not hashed" for f in e.files})
    properties = tuple((k, v) for k, v in props.items() if v)
    about = "; ".join(f"{k.rsplit(':', 1)[-1].replace('_', ' ')} {v}" for k, v in properties
                      if not k.startswith(_FILE_PROPERTY))
    return BomPart(
        ref=f"local-model:{e.store}:{e.name}", type="machine-learning-model", name=e.name,
        version=e.name.partition(":")[2] or None, supplier=e.vendor, purl=purl(e),
        hashes=tuple(("SHA-256", f.sha256) for f in e.files if f.sha256), properties=properties,
        locations=e.locations, description=e.note, architecture=e.facts.architecture, about=about or None,
        present=e.present, used_by=e.used_by,
    )  # fmt: skip

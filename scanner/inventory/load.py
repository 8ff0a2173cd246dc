"""An inventory JSON document back into the typed model: the inverse of `document.to_document`.

The document is validated against the shipped schema before anything is built from it, so a foreign or
hand-edited file fails with one clear message (`InventoryLoadError`) and never with a KeyError deep inside.
"""

from __future__ import annotations

import json
from functools import cache
from pathlib import Path
from typing import TYPE_CHECKING, Any

from scanner.inventory.document import SCHEMA_ID, load_schema
from scanner.model import (
    AgentConfig,
    AgentEntry,
    BundledSdk,
    CatalogRef,
    ClientEntry,
    Context,
    CredentialEntry,
    CredentialLocation,
    DiskFilesystem,
    DiskInfo,
    EndpointEntry,
    FernetTimes,
    Finding,
    ImageInfo,
    ImageLayer,
    Inventory,
    KillSwitchEntry,
    Location,
    McpServerEntry,
    ModelEntry,
    RouteEntry,
    RuleEvidence,
    SdkEntry,
    SessionCorroboration,
    SessionEntry,
    SessionProvider,
    Severity,
    Skip,
    SkipReason,
    Stats,
    SwitchState,
    TargetInfo,
)

if TYPE_CHECKING:
    import jsonschema

# An inventory file is small next to a VM, but a wrong argument (a disk image) must not be read whole.
MAX_DOCUMENT_BYTES = 256 << 20


class InventoryLoadError(ValueError):
    """The file is not a readable `modelcensus/inventory@1` document; the message says why."""


@cache
def _validator() -> jsonschema.Draft202012Validator:
    # Imported here: jsonschema's import costs seconds, and only reading an inventory back needs it.
    import jsonschema

    return jsonschema.Draft202012Validator(load_schema())


def load_file(path: Path) -> Inventory:
    try:
        size = path.stat().st_size
        if size > MAX_DOCUMENT_BYTES:
            raise InventoryLoadError(f"{path}: {size} bytes is too large for an inventory document")
        with path.open("rb") as fh:
            data = json.loads(fh.read(MAX_DOCUMENT_BYTES + 1))
    except OSError as exc:
        raise InventoryLoadError(f"{path}: cannot read: {exc.strerror or exc}") from None
    except (ValueError, RecursionError) as exc:  # UnicodeDecodeError and JSONDecodeError are ValueErrors
        raise InventoryLoadError(f"{path}: not JSON ({type(exc).__name__})") from None
    try:
        return from_document(data)
    except InventoryLoadError as exc:
        raise InventoryLoadError(f"{path}: {exc}") from None


def from_document(doc: Any) -> Inventory:
    if not isinstance(doc, dict) or doc.get("schema") != SCHEMA_ID:
        found = doc.get("schema") if isinstance(doc, dict) else type(doc).__name__
        raise InventoryLoadError(f"not a modelcensus inventory (schema {found!r}, expected {SCHEMA_ID!r})")
    from jsonschema.exceptions import best_match

    error = best_match(_validator().iter_errors(doc))
    if error is not None:
        where = "/".join(str(p) for p in error.absolute_path) or "(document)"
        raise InventoryLoadError(f"does not match {SCHEMA_ID} at {where}: {error.message[:200]}")
    return _build(doc)


def _loc(d: dict[str, Any]) -> Location:
    return Location(d["path"], d["line"], Context(d["context"]), d["parse_error"], d["via"], d.get("layer"))


def _locs(items: list[dict[str, Any]]) -> tuple[Location, ...]:
    return tuple(_loc(x) for x in items)


def _image(d: dict[str, Any]) -> ImageInfo | None:
    if "layers" not in d:
        return None
    layers = tuple(ImageLayer(x["digest"], x["media_type"], x["size"]) for x in d["layers"])
    return ImageInfo(d["format"], d["digest"], d["platform"], layers, tuple(d["tags"]))


def _disk(d: dict[str, Any]) -> DiskInfo | None:
    if "filesystems" not in d:
        return None
    found = tuple(DiskFilesystem(f["type"], f["mount"], f["volume"], f["size"]) for f in d["filesystems"])
    return DiskInfo(d["format"], found)


def _build(doc: dict[str, Any]) -> Inventory:
    st = doc["stats"]
    return Inventory(
        tool_version=doc["tool"]["version"],
        catalogs=tuple(CatalogRef(c["name"], c["version"], c["origin"]) for c in doc["catalogs"]),
        target=TargetInfo(
            doc["target"]["kind"],
            doc["target"]["location"],
            image=_image(doc["target"]),
            disk=_disk(doc["target"]),
        ),
        stats=Stats(st["files_seen"], st["files_read"], st["bytes_read"], float(st["seconds"])),
        models=tuple(
            ModelEntry(
                m["name"],
                m["canonical"],
                m["vendor"],
                m["family"],
                m["served_via"],
                m["base_model"],
                m["catalog"],
                m["lifecycle"],
                m["wired"],
                _locs(m["locations"]),
                m.get("retires"),
            )
            for m in doc["models"]
        ),
        sdks=tuple(
            SdkEntry(
                s["ecosystem"],
                s["name"],
                s["version"],
                s["vendor"],
                s["served_via"],
                s["installed"],
                s["environment"],
                _locs(s["locations"]),
            )
            for s in doc["sdks"]
        ),
        endpoints=tuple(
            EndpointEntry(
                e["host"],
                e["vendor"],
                e["served_via"],
                tuple(e["urls"]),
                e["wired"],
                _locs(e["locations"]),
                tuple((o["vendor"], o["set_by"]) for o in e.get("overrides", ())),
            )
            for e in doc["endpoints"]
        ),
        credentials=tuple(
            CredentialEntry(
                c["type"],
                c["vendor"],
                c["redacted"],
                c["sha256"],
                tuple(CredentialLocation(_loc(x), x["mode"], x["owner"]) for x in c["locations"]),
                c.get("route"),
                c.get("paired_with"),
            )
            for c in doc["credentials"]
        ),
        kill_switches=tuple(
            KillSwitchEntry(k["name"], k["value"], SwitchState(k["state"]), _locs(k["locations"]), k["note"])
            for k in doc["kill_switches"]
        ),
        findings=tuple(
            Finding(f["id"], Severity(f["severity"]), f["title"], _locs(f["locations"])) for f in doc["findings"]
        ),
        skipped=tuple(_skip(s) for s in doc["skipped"]),
        sessions=tuple(_session(x) for x in doc["sessions"]),
        routes=tuple(_route(x) for x in doc["routes"]),
        clients=tuple(
            ClientEntry(
                c["provider"], c["vendor"], c["served_via"], c["kind"], tuple(c["components"]), _locs(c["locations"])
            )
            for c in doc.get("clients", ())
        ),
        mcp_servers=tuple(
            McpServerEntry(
                m["name"],
                m["transport"],
                m["command"],
                m["url"],
                tuple(m["env"]),
                m["user"],
                m["config"],
                _locs(m["locations"]),
            )
            for m in doc.get("mcp_servers", ())
        ),
        agents=tuple(_agent(a) for a in doc.get("agents", ())),
    )


def _agent(d: dict[str, Any]) -> AgentEntry:
    return AgentEntry(
        d["name"],
        d["product"],
        d["version"],
        d["ecosystem"],
        d["install_path"],
        tuple(d["binaries"]),
        tuple(BundledSdk(s["ecosystem"], s["name"], s["version"]) for s in d["sdks"]),
        tuple(d["ships"]),
        tuple(
            AgentConfig(
                c["user"],
                tuple(c["models"]),
                c["served_via"],
                c["base_url"],
                tuple(c["mcp_servers"]),
                tuple(c["credentials"]),
                tuple(c["files"]),
            )
            for c in d["configs"]
        ),
        _locs(d["locations"]),
    )


def _session(d: dict[str, Any]) -> SessionEntry:
    fernet = d.get("fernet")
    return SessionEntry(
        session_id=d["session_id"],
        format=d["format"],
        location=_loc(d["location"]),
        started_at=d["started_at"],
        ended_at=d["ended_at"],
        records=d["records"],
        labels=tuple(d["labels"]),
        reasoning=d["reasoning"],
        providers=tuple(
            SessionProvider(
                p["vendor"],
                p["served_via"],
                p["api"],
                p["records"],
                p["confidence"],
                p["first_seen"],
                p["last_seen"],
                tuple(RuleEvidence(e["rule"], e["count"], e["example"], e["confidence"]) for e in p["evidence"]),
                tuple(p.get("candidates", ())),
                tuple((int(r[0]), int(r[1])) for r in p.get("record_ranges", ())),
            )
            for p in d["providers"]
        ),
        fernet=None
        if fernet is None
        else FernetTimes(fernet["tokens"], fernet["consistent"], fernet["inconsistent"], fernet["max_skew_seconds"]),
        declared=d["declared"],
        parent_session_id=d["parent_session_id"],
        mismatched_labels=tuple(d["mismatched_labels"]),
        notes=tuple(d["notes"]),
        corroborated_by=tuple(
            SessionCorroboration(d["session_id"], c["kind"], c["detail"], _loc(c["location"]))
            for c in d.get("corroborated_by", ())
        ),
    )


def _route(d: dict[str, Any]) -> RouteEntry:
    observed = d["observed"]
    return RouteEntry(
        d["alias"],
        d["declared_via"],
        d["base_model"],
        observed["vendor"],
        observed["served_via"],
        observed["api"],
        d["sessions"],
        tuple(d["days"]),
        d["confidence"],
        _locs(d["locations"]),
    )


def _skip(s: dict[str, Any]) -> Skip:
    try:
        return Skip(s["path"], SkipReason(s["reason"]), s["detail"])
    except ValueError:
        # The schema leaves reasons open so newer scanners can add some; an unknown one keeps its name in detail.
        return Skip(s["path"], SkipReason.OTHER_TYPE, f"{s['reason']}: {s['detail']}".rstrip(": "))

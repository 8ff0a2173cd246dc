"""The findings as SARIF 2.1.0, for code-scanning dashboards.

One rule per kind of finding: the part of a finding id before the first ':' (`credential`, `kill-switch-disarmed`)
is the rule id, so a dashboard groups every credential under one rule. The full finding id is the result's
fingerprint: finding ids hold no path or line number, so the same fact keeps the same fingerprint across scans and
a dashboard de-duplicates it. Paths are inside-VM paths, made relative to the scanned root (`uriBaseId` VMROOT).
"""

from __future__ import annotations

import hashlib
import json
from collections import Counter
from typing import Any
from urllib.parse import quote

from scanner.model import Finding, Inventory, Location, Severity
from scanner.render._view import DEFAULT, ReportOptions
from scanner.textsafe import safe, unsurrogate

description = "findings as SARIF 2.1.0 for code-scanning dashboards (one rule per kind of finding)"

INFORMATION_URI = "https://github.com/modelcensus/modelcensus"
SCHEMA_URI = "https://docs.oasis-open.org/sarif/sarif/v2.1.0/errata01/os/schemas/sarif-schema-2.1.0.json"
ROOT_ID = "VMROOT"
_LEVEL = {Severity.HIGH: "error", Severity.MEDIUM: "warning", Severity.LOW: "note", Severity.INFO: "note"}
# The number dashboards sort and colour by (GitHub's `security-severity`, 0-10).
_SCORE = {Severity.HIGH: "8.0", Severity.MEDIUM: "5.5", Severity.LOW: "3.0", Severity.INFO: "0.0"}

# What each kind of finding means and what to do about it. A rule added later without an entry here still gets a
# rule, with the generic text below.
_HELP: dict[str, tuple[str, str]] = {
    "external-model-wired": (
        "A third-party model is wired into the VM",
        "The VM's configuration, environment, code or binaries name models of an outside vendor reached through the "
        "stated route. Data sent to those models leaves for that vendor. Check that this vendor and route are "
        "approved for the data the agent handles.",
    ),
    "uncatalogued-models-wired": (
        "Model ids no catalog knows are wired",
        "These ids are used by the VM but match no catalog: in-house models, aliases a router resolves, or vendors "
        "the catalogs do not know yet. Find out which model serves each, or add a catalog with --catalog.",
    ),
    "model-deprecated": (
        "A deprecated model is still wired",
        "The vendor has announced the retirement of this model. Plan the move to its successor before it stops "
        "answering.",
    ),
    "model-retired": (
        "A retired model is still wired",
        "The vendor no longer serves this model: calls to it fail, or a router silently sends them elsewhere. "
        "Replace it.",
    ),
    "credential": (
        "An API credential is stored on the VM",
        "A provider credential is stored in a file of the VM (shown redacted, with the SHA-256 of the exact value "
        "so it can be matched against a key inventory). Whoever can read the file can spend on the account and read "
        "what the key can read. Check that it belongs here and is scoped and rotated.",
    ),
    "credential-world-readable": (
        "An API credential is in a world-readable file",
        "Every user and process of the VM can read this credential. Restrict the file's mode (0400 or 0600, owned "
        "by the service that needs it) and rotate the key.",
    ),
    "kill-switch-disarmed": (
        "A kill switch is disarmed by an environment setting",
        "A setting that is meant to stop or redirect model traffic is turned off in the environment the service "
        "runs with. Check whether traffic reaches a vendor that the switch was meant to keep it from.",
    ),
    "kill-switch-overridden": (
        "An environment setting overrides a kill switch of a config file",
        "A config file sets a kill switch one way and an environment assignment of the same switch (an env file, a "
        "unit's Environment=) sets it the other way. The environment override is the one in force.",
    ),
    "kill-switch-armed": (
        "A kill switch is set",
        "A setting that stops or redirects model traffic is set. Recorded so that a change of its state shows up.",
    ),
    "endpoint-unlisted": (
        "Model traffic may go to a host no catalog lists",
        "A base URL or endpoint of the VM points at a host that is not a known vendor API: a proxy, a router or an "
        "in-house service. What it forwards to is not visible from here; find out which vendors stand behind it.",
    ),
    "base-url-override": (
        "A vendor's base URL is pointed at another host",
        "The variable a vendor's SDK reads for its base URL sends that vendor's traffic to a different host: a "
        "reverse proxy or gateway sits between the agent and the vendor. Find out what it logs, changes or forwards.",
    ),
    "dormant-client": (
        "A provider client is shipped but not configured",
        "A client for this vendor is compiled into a binary, built in source or installed, yet no configuration, "
        "environment or session routes to the vendor. It can be switched on without a new release.",
    ),
    "kill-switch-runtime-differs": (
        "A running process disagrees with the configured kill switch",
        "The environment of a running process sets a kill switch differently from the files on disk. The running "
        "value is the one in force.",
    ),
    "setting-runtime-differs": (
        "A running process uses another base URL or model than configured",
        "A process's environment sets a base URL or model variable to a different value than the VM's files do. "
        "The running value is the one in force; the files do not describe what the agent does.",
    ),
    "live-connection": (
        "A process is connected to a model endpoint",
        "At the time of the audit a process held a connection to this endpoint. Recorded so that live traffic can be "
        "compared with the configuration.",
    ),
    "session-external-provider": (
        "A session was served by an outside provider",
        "The records of this session carry the fingerprints of an outside vendor's API, whatever its label says. "
        "The data of that session went to that vendor.",
    ),
    "session-label-mismatch": (
        "A session's label and its fingerprints disagree",
        "The session names a model or route, but its records carry another provider's id formats and markers. The "
        "label does not say who served it.",
    ),
    "session-reasoning-encrypted": (
        "A session's reasoning is encrypted at the source",
        "The provider returned its reasoning only as an encrypted blob: the operator of the agent cannot read what "
        "the model reasoned about their data.",
    ),
    "session-fernet-time-mismatch": (
        "Encrypted reasoning was made at another time than its record",
        "The creation time inside a Fernet token does not match the time of the record that holds it: the record "
        "was replayed, copied from another session, or its clock is wrong.",
    ),
}
_GENERIC = ("modelcensus finding", "See the finding's message and locations.")


def rule_id(finding_id: str) -> str:
    return finding_id.split(":", 1)[0]


def _uri(path: str) -> str:
    # Inside-VM paths are absolute (`/etc/x`); relative to the scanned root they lose the leading slash.
    return quote(unsurrogate(path).lstrip("/"), safe="/") or "."


def _location(loc: Location) -> dict[str, Any]:
    physical: dict[str, Any] = {"artifactLocation": {"uri": _uri(loc.path), "uriBaseId": ROOT_ID}}
    if loc.line:
        physical["region"] = {"startLine": loc.line}
    out: dict[str, Any] = {"physicalLocation": physical}
    note = loc.context.value + (f", reached through {safe(loc.via)}" if loc.via else "")
    out["message"] = {"text": note}
    return out


def _rule(rid: str, severity: Severity) -> dict[str, Any]:
    short, full = _HELP.get(rid, _GENERIC)
    return {
        "id": rid,
        "name": "".join(part.capitalize() for part in rid.split("-")),
        "shortDescription": {"text": short},
        "fullDescription": {"text": full},
        "help": {"text": full, "markdown": f"**{short}**\n\n{full}"},
        "defaultConfiguration": {"level": _LEVEL[severity]},
        "properties": {"tags": ["ai-inventory", "security"], "security-severity": _SCORE[severity]},
    }


def _root_location() -> dict[str, Any]:
    # A finding about the machine as a whole (no file) still needs a location for code scanning to accept it.
    return {
        "physicalLocation": {"artifactLocation": {"uri": ".", "uriBaseId": ROOT_ID}},
        "message": {"text": "the scanned VM as a whole"},
    }


def _result(f: Finding, index: int, ignored: str | None) -> dict[str, Any]:
    digest = hashlib.sha256(f.id.encode("utf-8", "surrogateescape")).hexdigest()
    out: dict[str, Any] = {
        "ruleId": rule_id(f.id),
        "ruleIndex": index,
        "level": _LEVEL[f.severity],
        "message": {"text": safe(f.title)},
        "locations": [_location(loc) for loc in f.locations] or [_root_location()],
        "fingerprints": {"modelcensus/finding/v1": digest},
        "partialFingerprints": {"modelcensusFindingId/v1": safe(f.id)},
        "properties": {"findingId": safe(f.id), "severity": f.severity.value},
    }
    if ignored is not None:
        out["suppressions"] = [{"kind": "external", "status": "accepted", "justification": safe(ignored)}]
    return out


def _notifications(inv: Inventory) -> list[dict[str, Any]]:
    reasons = Counter(s.reason.value for s in inv.skipped)
    return [
        {
            "descriptor": {"id": f"skipped-{reason}"},
            "level": "note",
            "message": {"text": f"{count} file(s) not read: {reason}"},
        }
        for reason, count in sorted(reasons.items())
    ]


def to_sarif(inv: Inventory, opts: ReportOptions = DEFAULT) -> dict[str, Any]:
    rules: dict[str, Severity] = {}
    for f in inv.findings:  # findings come most severe first: a rule's default level is its worst result
        rules.setdefault(rule_id(f.id), f.severity)
    order = sorted(rules)
    index = {rid: i for i, rid in enumerate(order)}
    invocation: dict[str, Any] = {"executionSuccessful": True}
    notes = _notifications(inv)
    if notes:
        invocation["toolExecutionNotifications"] = notes
    return {
        "$schema": SCHEMA_URI,
        "version": "2.1.0",
        "runs": [
            {
                "tool": {
                    "driver": {
                        "name": "modelcensus",
                        "version": inv.tool_version,
                        "semanticVersion": inv.tool_version,
                        "informationUri": INFORMATION_URI,
                        "rules": [_rule(rid, rules[rid]) for rid in order],
                    }
                },
                "originalUriBaseIds": {ROOT_ID: {"description": {"text": "the root (/) of the scanned VM"}}},
                "invocations": [invocation],
                "results": [_result(f, index[rule_id(f.id)], opts.ignored.get(f.id)) for f in inv.findings],
                "columnKind": "unicodeCodePoints",
                "properties": {
                    "catalogs": [f"{c.name}@{c.version}" for c in inv.catalogs],
                    "target": inv.target.kind,
                },
            }
        ],
    }


def render(inv: Inventory, opts: ReportOptions = DEFAULT) -> str:
    return json.dumps(to_sarif(inv, opts), indent=2, ensure_ascii=True) + "\n"

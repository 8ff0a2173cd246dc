"""The findings as SARIF 2.1.0, for code-scanning dashboards.

One rule per kind of finding: the part of a finding id before the first ':' (`credential`, `kill-switch-disarmed`)
is the rule id, so a dashboard groups every credential under one rule; its text and default level are the finding
rule's registered data (`scanner.findings.derive.RULES`). The full finding id is the result's
fingerprint: finding ids hold no path or line number, so the same fact keeps the same fingerprint across scans and
a dashboard de-duplicates it. Paths are inside-VM paths, made relative to the scanned root (`uriBaseId` VMROOT).
"""

from __future__ import annotations

import hashlib
from collections import Counter
from collections.abc import Iterator
from typing import Any
from urllib.parse import quote

from scanner.findings.derive import RULE_BY_ID
from scanner.findings.rule import FindingRule, RuleHit
from scanner.kinds import Inventory
from scanner.model import Finding, Location, Severity
from scanner.render._view import DEFAULT, ReportOptions
from scanner.render.json import dumps
from scanner.textsafe import path_bytes, safe

description = "findings as SARIF 2.1.0 for code-scanning dashboards (one rule per kind of finding)"

INFORMATION_URI = "https://github.com/modelcensus/modelcensus"
SCHEMA_URI = "https://docs.oasis-open.org/sarif/sarif/v2.1.0/errata01/os/schemas/sarif-schema-2.1.0.json"
ROOT_ID = "VMROOT"
_LEVEL = {Severity.HIGH: "error", Severity.MEDIUM: "warning", Severity.LOW: "note", Severity.INFO: "note"}
# The number dashboards sort and colour by (GitHub's `security-severity`, 0-10).
_SCORE = {Severity.HIGH: "8.0", Severity.MEDIUM: "5.5", Severity.LOW: "3.0", Severity.INFO: "0.0"}
_GENERIC = ("modelcensus finding", "See the finding's message and locations.")


def rule_id(finding_id: str) -> str:
    return finding_id.split(":", 1)[0]


def _uri(path: str) -> str:
    # Inside-VM paths are absolute (`/etc/x`); relative to the scanned root they lose the leading slash. A name
    # that is not UTF-8 is percent-encoded from its bytes (`%FF`), as RFC 3986 encodes any octet.
    return quote(path_bytes(path).lstrip(b"/"), safe="/") or "."


def _location(loc: Location) -> dict[str, Any]:
    physical: dict[str, Any] = {"artifactLocation": {"uri": _uri(loc.path), "uriBaseId": ROOT_ID}}
    if loc.line:
        physical["region"] = {"startLine": loc.line}
    out: dict[str, Any] = {"physicalLocation": physical}
    note = loc.context.value + (f", reached through {safe(loc.via)}" if loc.via else "")
    out["message"] = {"text": note}
    return out


def _rules(inv: Inventory) -> list[FindingRule]:
    """The registry's rules that have results here, by id. A finding of no registered rule (an inventory written
    by another version and read back) still gets a rule, with generic text, at its worst result's level."""
    worst: dict[str, Severity] = {}
    for f in inv.findings:
        rid = rule_id(f.id)
        if rid not in worst or f.severity.rank > worst[rid].rank:
            worst[rid] = f.severity
    return [RULE_BY_ID.get(rid) or FindingRule(rid, worst[rid], *_GENERIC, find=_nothing) for rid in sorted(worst)]


def _nothing(inv: Inventory) -> Iterator[RuleHit]:
    return iter(())


def _rule(rule: FindingRule) -> dict[str, Any]:
    return {
        "id": rule.id,
        "name": "".join(part.capitalize() for part in rule.id.split("-")),
        "shortDescription": {"text": rule.title},
        "fullDescription": {"text": rule.help},
        "help": {"text": rule.help, "markdown": f"**{rule.title}**\n\n{rule.help}"},
        "defaultConfiguration": {"level": _LEVEL[rule.severity]},
        "properties": {"tags": ["ai-inventory", "security"], "security-severity": _SCORE[rule.severity]},
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
    rules = _rules(inv)
    index = {r.id: i for i, r in enumerate(rules)}
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
                        "rules": [_rule(r) for r in rules],
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
    return dumps(to_sarif(inv, opts))

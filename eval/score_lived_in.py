"""Score an inventory of the lived-in corpus against its truth (stdlib only).

    python eval/score_lived_in.py TRUTH.toml INVENTORY.json

Sections: wired models (recall over the truth's served and config-selected models, precision over every model
reported wired), their vendor and route; sessions found (and reported sessions that are none: metadata,
fixtures counted apart); per-session vendor, route and reasoning visibility; label mismatches (precision over
each session reported mismatched); test fixtures
never counted as wiring; findings that name a model the truth does not hold.

Reads only `models[].name/canonical/base_model/wired/vendor/served_via/locations`, `sessions[].path/location/
providers[].vendor/served_via/reasoning/labels/mismatched_labels` and `findings[].id/title`: fields added later
(a `mentioned` count) change nothing here.
"""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path
from typing import Any

import tomllib
from score import Section, _as_list, _model_keys, _where

WIRING = {"config", "env", "source", "binary", "session"}


def truth_keys(truth: dict[str, Any]) -> set[str]:
    keys = set(truth.get("acceptable", {}).get("wired", []))
    for w in truth.get("wired", []):
        keys |= {w["id"], w["canonical"]}
    return keys


def score_wired(truth: dict[str, Any], inv: dict[str, Any]) -> list[Section]:
    wired = [m for m in inv.get("models", []) if m.get("wired")]
    sec = Section("lived-in: wired models (served or config-selected)")
    route = Section("lived-in: wired models: vendor and route")
    for t in truth.get("wired", []):
        cands = [m for m in wired if {t["id"], t["canonical"]} & _model_keys(m)]
        label = f"{t['id']} ({t['source']}: {t['product']}/{t['user']}) at {t['path']}"
        sec.truth(bool(cands), label)
        if cands:
            vendors, routes = _as_list(t["vendor"]), _as_list(t["route"])
            good = [m for m in cands if m.get("vendor") in vendors and (m.get("served_via") or "unstated") in routes]
            got = sorted({f"{m.get('vendor')}/{m.get('served_via')}" for m in cands})
            route.truth(bool(good), f"{label}: want {'|'.join(vendors)}/{'|'.join(routes)}, got {', '.join(got)}")
    keys = truth_keys(truth)
    for m in wired:
        sec.reported(bool(_model_keys(m) & keys), f"{m.get('name')} (vendor {m.get('vendor')}) at {_where(m)}")
    return [sec, route]


def _session_path(s: dict[str, Any]) -> str:
    return str(s.get("path") or (s.get("location") or {}).get("path") or "")


def _reasoning(values: list[str]) -> str:
    kinds = set(values) - {"absent"}
    if not kinds:
        return "absent" if values else "none"
    return kinds.pop() if len(kinds) == 1 else "mixed"


def score_sessions(truth: dict[str, Any], inv: dict[str, Any]) -> list[Section]:
    by_path: dict[str, list[dict[str, Any]]] = {}
    for s in inv.get("sessions", []):
        by_path.setdefault(_session_path(s), []).append(s)
    found = Section("lived-in: sessions found (precision: files reported as sessions that hold one)")
    vendor = Section("lived-in: sessions: vendor right")
    route = Section("lived-in: sessions: served_via right")
    reasoning = Section("lived-in: sessions: reasoning visibility right")
    mismatch = Section("lived-in: sessions: label mismatch reported")
    known: set[str] = set()
    for t in truth.get("sessions", []):
        paths = t.get("paths", [t["path"]])
        known |= set(paths)
        if t["context"] == "test":
            continue
        got = [s for p in paths for s in by_path.get(p, [])]
        if t.get("optional") and not got:
            continue
        label = f"{t['agent']} {t['path']}"
        found.truth(bool(got), label)
        providers = [p for s in got for p in s.get("providers", [])]
        v = sorted({str(p.get("vendor")) for p in providers})
        r = sorted({str(p.get("served_via") or "unstated") for p in providers})
        vendor.truth(v == t["vendors"], f"{label}: want {t['vendors']}, got {v}")
        route.truth(r == t["served_via"], f"{label}: want {t['served_via']}, got {r}")
        seen = _reasoning([str(s.get("reasoning")) for s in got])
        reasoning.truth(seen == t["reasoning"], f"{label}: want {t['reasoning']}, got {seen}")
        if t.get("label_mismatch"):
            mismatch.truth(any(s.get("mismatched_labels") for s in got), f"{label}: labels {t['labels']}")
    flagged = {p for t in truth.get("sessions", []) if t.get("label_mismatch") for p in t.get("paths", [t["path"]])}
    for path, sessions in sorted(by_path.items()):  # per file: a proxy log holds thousands of request sessions
        found.reported(path in known, f"{path}: {len(sessions)} session(s), not a session file of the truth")
        wrong = sum(1 for s in sessions if s.get("mismatched_labels"))
        if wrong:  # each session a mismatch is reported on, so a proxy log's false ones count one by one
            for _ in range(wrong if path not in flagged else 0):
                mismatch.reported(False, f"{path}: labels {_labels(sessions)} reported as mismatched")
            if path in flagged:
                mismatch.reported(True, path)
    return [found, vendor, route, reasoning, mismatch]


def _labels(sessions: list[dict[str, Any]]) -> list[str]:
    return sorted({label for s in sessions for label in s.get("mismatched_labels") or ()})[:4]


def score_fixtures(truth: dict[str, Any], inv: dict[str, Any]) -> list[Section]:
    """A model wired by a location inside a test fixture counts against it; metadata is never a session."""
    fixtures = {p for t in truth.get("sessions", []) if t["context"] == "test" for p in t.get("paths", [t["path"]])}
    sec = Section("lived-in: test fixtures never wiring")
    for m in inv.get("models", []):
        hits = [loc for loc in m.get("locations", []) or [] if loc.get("path") in fixtures
                and loc.get("context") in WIRING]
        if hits:
            sec.truth(False, f"{m.get('name')} wired by {hits[0].get('path')} [{hits[0].get('context')}]")
    for p in sorted(fixtures):
        sec.truth(True, p)
    meta = Section("lived-in: metadata files never sessions")
    reported = {_session_path(s) for s in inv.get("sessions", [])}
    for p in truth.get("metadata_files", []):
        meta.truth(p not in reported, f"{p} reported as a session")
    return [sec, meta]


_SPLIT = re.compile(r"[\s,;()]+")


def finding_models(f: dict[str, Any], inv: dict[str, Any], names: set[str]) -> set[str]:
    """The model ids a finding names: a group finding (`external-model-wired:<vendor>:<via>`) names every wired
    model of its group, even those its title cuts off; any other names the model ids in its title."""
    fid = str(f.get("id", ""))
    if fid.startswith("external-model-wired:"):
        _, vendor, via = (fid.split(":", 2) + ["", ""])[:3]
        return {str(m.get("name")) for m in inv.get("models", []) if m.get("wired") and m.get("vendor") == vendor
                and (m.get("served_via") or "unstated route") == via}
    words = {w.strip(".:'\"") for w in _SPLIT.split(str(f.get("title", "")))}
    if ":" in fid:
        words.add(fid.split(":", 1)[1])
    return words & names


def score_findings(truth: dict[str, Any], inv: dict[str, Any]) -> list[Section]:
    sec = Section("lived-in: findings naming only served or config-selected models")
    keys = truth_keys(truth)
    canon: dict[str, set[str]] = {}
    for m in inv.get("models", []):
        canon[str(m.get("name"))] = _model_keys(m)
    names = set(canon)
    naming = 0
    rules: dict[str, int] = {}
    for f in inv.get("findings", []):
        named = finding_models(f, inv, names)
        if not named:
            continue
        naming += 1
        off = sorted(n for n in named if not canon.get(n, {n}) & keys)
        sec.truth(not off, f"{f.get('id')}: {len(off)} model(s) outside the truth: {', '.join(off[:6])}")
        if off:
            rule = str(f.get("id", "")).split(":", 1)[0]
            rules[rule] = rules.get(rule, 0) + 1
    sec.notes.append(f"{naming} of {len(inv.get('findings', []))} findings name a model; "
                     f"{sum(rules.values())} name one the truth does not hold")
    if rules:
        sec.notes.append("those by rule: " + ", ".join(f"{r} {n}" for r, n in sorted(rules.items())))
    return [sec]


def score(truth: dict[str, Any], inv: dict[str, Any]) -> list[Section]:
    return [*score_wired(truth, inv), *score_sessions(truth, inv), *score_fixtures(truth, inv),
            *score_findings(truth, inv)]


def main(argv: list[str] | None = None) -> int:
    args = argv if argv is not None else sys.argv[1:]
    if len(args) != 2:
        print(__doc__, file=sys.stderr)
        return 2
    truth = tomllib.loads(Path(args[0]).read_text())
    inv = json.loads(Path(args[1]).read_text())
    for s in score(truth, inv):
        s.print()
    return 0


if __name__ == "__main__":
    sys.exit(main())

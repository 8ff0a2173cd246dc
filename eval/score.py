"""Score a modelcensus inventory against a corpus truth file (stdlib only).

    python eval/score.py TRUTH.toml INVENTORY.json [--outputs DIR] [--json SUMMARY.json]
    python eval/score.py --diff DIFF_TRUTH.toml DIFF.json

Per section: recall (truth facts found), precision (reported facts that are true), the first 20 misses
and false positives. --outputs DIR: every file in DIR (the scan in each format) is searched for every
planted secret in full.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from pathlib import Path
from typing import Any

import agent_score
import tomllib

SHOW = 20


def _as_list(v: Any) -> list[Any]:
    if v is None or v == "":
        return []
    return v if isinstance(v, list) else [v]


class Section:
    def __init__(self, name: str) -> None:
        self.name = name
        self.tp_truth = 0
        self.n_truth = 0
        self.tp_reported = 0
        self.n_reported = 0
        self.misses: list[str] = []
        self.false_positives: list[str] = []
        self.notes: list[str] = []

    def truth(self, ok: bool, label: str) -> None:
        self.n_truth += 1
        if ok:
            self.tp_truth += 1
        else:
            self.misses.append(label)

    def reported(self, ok: bool, label: str) -> None:
        self.n_reported += 1
        if ok:
            self.tp_reported += 1
        else:
            self.false_positives.append(label)

    @property
    def recall(self) -> float | None:
        return self.tp_truth / self.n_truth if self.n_truth else None

    @property
    def precision(self) -> float | None:
        return self.tp_reported / self.n_reported if self.n_reported else None

    def summary(self) -> dict[str, Any]:
        return {"section": self.name, "recall": self.recall, "precision": self.precision,
                "truth": self.n_truth, "found": self.tp_truth, "reported": self.n_reported,
                "true_reported": self.tp_reported, "misses": len(self.misses),
                "false_positives": len(self.false_positives), "notes": self.notes}

    def print(self) -> None:
        def f(x: float | None) -> str:
            return "  n/a" if x is None else f"{x:.3f}"
        print(f"\n== {self.name}: recall {f(self.recall)} ({self.tp_truth}/{self.n_truth})"
              f"  precision {f(self.precision)} ({self.tp_reported}/{self.n_reported})")
        for note in self.notes:
            print(f"   note: {note}")
        if self.misses:
            print(f"   misses ({len(self.misses)}):")
            for m in self.misses[:SHOW]:
                print(f"     - {m}")
        if self.false_positives:
            print(f"   false positives ({len(self.false_positives)}):")
            for m in self.false_positives[:SHOW]:
                print(f"     + {m}")


def _paths(item: dict[str, Any]) -> list[str]:
    return [loc.get("path", "") for loc in item.get("locations", []) or []]


def _where(item: dict[str, Any]) -> str:
    locs = item.get("locations") or []
    if not locs:
        return "?"
    first = locs[0]
    more = f" (+{len(locs) - 1})" if len(locs) > 1 else ""
    line = f":{first.get('line')}" if first.get("line") else ""
    return f"{first.get('path')}{line} [{first.get('context')}]{more}"


def _model_keys(m: dict[str, Any]) -> set[str]:
    return {k for k in (m.get("name"), m.get("canonical"), m.get("base_model")) if k}


# ---------------------------------------------------------------- sections

def score_wired(truth: dict[str, Any], inv: dict[str, Any]) -> list[Section]:
    models = inv.get("models", [])
    wired = [m for m in models if m.get("wired")]
    sec = Section("wired models")
    route = Section("wired models: vendor and route")
    known: set[str] = set(truth.get("acceptable", {}).get("wired", []))
    for t in truth.get("wired", []):
        known |= {t["id"], t["canonical"]}
        cands = [m for m in wired if {t["id"], t["canonical"]} & _model_keys(m)
                 and (m.get("name") == t["id"] or t["path"] in _paths(m))]
        if not cands:
            cands = [m for m in wired if m.get("name") == t["id"]]
        label = f"{t['id']} ({t.get('product', '')}/{t.get('user', '')}) at {t['path']}"
        sec.truth(bool(cands), label)
        if cands:
            vendors, routes = _as_list(t["vendor"]), _as_list(t["route"])
            good = [m for m in cands if m.get("vendor") in vendors and m.get("served_via") in routes]
            got = sorted({f"{m.get('vendor')}/{m.get('served_via')}" for m in cands})
            route.truth(bool(good), f"{label}: want {'|'.join(vendors)}/{'|'.join(routes)}, got {', '.join(got)}")
    # A reported wired model is true when it names a truth id at one of that id's truth paths (or is acceptable).
    paths_of: dict[str, set[str]] = {}
    for t in truth.get("wired", []):
        for k in (t["id"], t["canonical"]):
            paths_of.setdefault(k, set()).add(t["path"])
    acceptable = set(truth.get("acceptable", {}).get("wired", []))
    for m in wired:
        keys = _model_keys(m)
        ok = bool(keys & acceptable) or any(paths_of.get(k, set()) & set(_paths(m)) for k in keys)
        label = f"{m.get('name')} (canonical {m.get('canonical')}) at {_where(m)}"
        if not ok and keys & known:
            label += " (a truth id, but wired at none of its truth paths)"
        sec.reported(ok, label)
    route.n_reported = 0
    return [sec, route]


def score_catalogued(truth: dict[str, Any], inv: dict[str, Any]) -> list[Section]:
    names: set[str] = set()
    for m in inv.get("models", []):
        names |= _model_keys(m)
    out = []
    by_product: dict[str, list[str]] = {}
    for t in truth.get("catalogued", []):
        by_product.setdefault(t["product"], []).append(t["id"])
    total = Section("catalogued models (shipped, in models)")
    for product, ids in sorted(by_product.items()):
        sec = Section(f"  ships of {product} (in models)")
        for i in ids:
            sec.truth(i in names, i)
            total.truth(i in names, f"{product}: {i}")
        out.append(sec)
    return [total, *out]


def score_sdks(truth: dict[str, Any], inv: dict[str, Any]) -> list[Section]:
    sec = Section("sdks (ecosystem, name, installed version)")
    want = {(s["ecosystem"], s["name"], s["version"]): s for s in truth.get("sdks", [])}
    # Products' own packages: fine to report (under any version), not required.
    acceptable_names = {tuple(x.split(":", 1)) for x in truth.get("acceptable", {}).get("sdks", [])}
    got: dict[tuple[str, str, str], dict[str, Any]] = {}
    for s in inv.get("sdks", []):
        if s.get("installed", True):
            got.setdefault((s.get("ecosystem"), s.get("name"), s.get("version")), s)
    for s in truth.get("sdks", []):
        if s.get("alias"):   # an npm alias may be reported under its package.json name
            want.setdefault((s["ecosystem"], s["alias"], s["version"]), s)
    for key, s in sorted(want.items()):
        if not s.get("required", True) or key[1] != s["name"]:
            continue
        ok = key in got or (s["ecosystem"], s.get("alias"), s["version"]) in got
        label = f"{key[0]} {key[1]} {key[2]} in {s['environments'][0]}"
        if not ok:
            other = sorted({str(v) for (e, n, v) in got if (e, n) == key[:2]})
            label += f" (reported versions: {', '.join(other) or 'none'})"
        sec.truth(ok, label)
    want_names = {k[:2] for k in want}
    for key, s in sorted(got.items(), key=lambda kv: tuple(str(x) for x in kv[0])):
        label = f"{key[0]} {key[1]} {key[2]} env {s.get('environment')} at {_where(s)}"
        if key[:2] in want_names and key not in want:
            label += f" (wrong version; installed: {', '.join(sorted(v for e, n, v in want if (e, n) == key[:2]))})"
        sec.reported(key in want or key[:2] in acceptable_names, label)
    return [sec]


def score_endpoints(truth: dict[str, Any], inv: dict[str, Any]) -> list[Section]:
    sec = Section("endpoints (hosts; precision over wired)")
    hosts = {e.get("host") for e in inv.get("endpoints", [])}
    ok_hosts = {t["host"] for t in truth.get("endpoints", [])} | set(truth.get("acceptable", {}).get("hosts", []))
    for t in truth.get("endpoints", []):
        if t.get("required", True):
            sec.truth(t["host"] in hosts, t["host"])
    for e in inv.get("endpoints", []):
        if e.get("wired"):
            sec.reported(e.get("host") in ok_hosts, f"{e.get('host')} at {_where(e)}")
    return [sec]


def score_credentials(truth: dict[str, Any], inv: dict[str, Any], outputs: Path | None,
                      secrets_file: Path | None = None) -> list[Section]:
    sec = Section("credentials (by sha256)")
    got = {c.get("sha256"): c for c in inv.get("credentials", [])}
    planted = set()
    for t in truth.get("credentials", []):
        keys = [t["sha256"], *t.get("sha256_alt", [])]
        planted |= set(keys)
        hit = next((got[k] for k in keys if k in got), None)
        sec.truth(hit is not None, f"{t['type']} at {t['path']}")
        if hit is not None:
            sec.notes.append(f"{t['type']} at {t['path']} reported as {hit.get('type')}/{hit.get('vendor')}")
    for c in inv.get("credentials", []):
        sec.reported(c.get("sha256") in planted, f"{c.get('type')} {c.get('redacted')} at {_where(c)}")
    out = [sec]
    if outputs is not None:
        leak = Section("credentials: no planted secret in any output")
        secrets = json.loads(secrets_file.read_text()) if secrets_file and secrets_file.exists() else []
        files = sorted(p for p in outputs.iterdir() if p.is_file() and p.name != "planted-secrets.json")
        for path in files:
            data = path.read_bytes()
            for s in secrets:
                probes = [s] + ([s.replace("\n", "\\n")] if "\n" in s else [])
                leaked = any(p.encode() in data for p in probes)
                leak.truth(not leaked, f"planted secret {s[:6]}… appears in full in {path.name}")
        leak.notes.append(f"{len(secrets)} secrets x {len(files)} outputs ({', '.join(p.name for p in files)})")
        out.append(leak)
    return out


def score_kill_switches(truth: dict[str, Any], inv: dict[str, Any]) -> list[Section]:
    sec = Section("kill switches (name + state)")
    got = inv.get("kill_switches", [])
    for t in truth.get("kill_switches", []):
        cands = [k for k in got if str(k.get("name", "")).lower() == t["name"].lower() or
                 (t.get("path") in _paths(k) and t.get("line") in [loc.get("line") for loc in k.get("locations", [])])]
        right = [k for k in cands if k.get("state") == t["state"]]
        label = f"{t['name']} = {t['state']} at {t['path']}:{t.get('line')}"
        if cands and not right:
            label += f" (reported state {', '.join(sorted({str(k.get('state')) for k in cands}))})"
        sec.truth(bool(right), label)
    names = {t["name"].lower() for t in truth.get("kill_switches", [])} | {
        n.lower() for n in truth.get("acceptable", {}).get("kill_switches", [])}
    spots = {(t.get("path"), t.get("line")) for t in truth.get("kill_switches", [])}
    for k in got:
        ok = str(k.get("name", "")).lower() in names or any(
            (loc.get("path"), loc.get("line")) in spots for loc in k.get("locations", []))
        sec.reported(ok, f"{k.get('name')} = {k.get('value')!r} ({k.get('state')}) at {_where(k)}")
    com = Section("commented lines never reported as settings")
    for t in truth.get("commented", []):
        hits = []
        for section in ("kill_switches", "models", "endpoints", "credentials"):
            for item in inv.get(section, []):
                if section == "models" and not item.get("wired"):
                    continue
                for loc in item.get("locations", []) or []:
                    if loc.get("path") == t["path"] and loc.get("line") == t["line"]:
                        hits.append(f"{section}:{item.get('name') or item.get('host') or item.get('type')}")
        com.truth(not hits, f"{t['path']}:{t['line']} `{t['text']}` reported as {', '.join(hits)}")
    return [sec, com]


def score_mcp(truth: dict[str, Any], inv: dict[str, Any]) -> list[Section]:
    sec = Section("mcp servers (name, user)")
    want = {(t["name"], t["user"]) for t in truth.get("mcp_servers", [])}
    got = {(m.get("name"), m.get("user")) for m in inv.get("mcp_servers", [])}
    for key in sorted(want):
        sec.truth(key in got, f"{key[0]} ({key[1]})")
    for m in inv.get("mcp_servers", []):
        sec.reported((m.get("name"), m.get("user")) in want, f"{m.get('name')} ({m.get('user')}) at {m.get('config')}")
    return [sec]


def score_agents(truth: dict[str, Any], inv: dict[str, Any]) -> list[Section]:
    if "agents" not in inv:
        sec = Section("agents")
        sec.notes.append("agents: section absent")
        return [sec]
    if any("names" in t for t in truth.get("agents", [])):
        return score_agents_by_product(truth, inv)
    got = {a.get("name"): a for a in inv["agents"]}
    prod = Section("agents (name + version)")
    ships = Section("agents: ships")
    conf = Section("agents: configured models per user (with route)")
    mcp = Section("agents: mcp servers per user")
    for t in truth.get("agents", []):
        a = got.get(t["name"])
        label = f"{t['name']} {t['version']}"
        if a is not None and a.get("version") != t["version"]:
            label += f" (reported version {a.get('version')})"
        prod.truth(a is not None and a.get("version") == t["version"], label)
        shipped = set(a.get("ships", [])) if a else set()
        for i in t.get("ships", []):
            ships.truth(i in shipped, f"{t['name']}: {i}")
        for i in sorted(shipped - set(t.get("ships", []))):
            ships.reported(False, f"{t['name']}: {i}")
        ships.n_reported += len(shipped & set(t.get("ships", [])))
        ships.tp_reported += len(shipped & set(t.get("ships", [])))
        users = {c.get("user"): c for c in (a or {}).get("configs", [])}
        for c in t.get("configs", []):
            r = users.get(c["user"])
            for m in c.get("models", []):
                ok = r is not None and m in r.get("models", [])
                routes = _as_list(c.get("route"))
                label = f"{t['name']}/{c['user']}: {m} via {'|'.join(routes)}"
                if r is not None:
                    ok = ok and (not routes or r.get("served_via") in routes)
                    label += f" (reported {r.get('models')} via {r.get('served_via')})"
                conf.truth(ok, label)
            for s in c.get("mcp_servers", []):
                mcp.truth(r is not None and s in r.get("mcp_servers", []), f"{t['name']}/{c['user']}: {s}")
    names = {t["name"] for t in truth.get("agents", [])}
    for a in inv["agents"]:
        prod.reported(a.get("name") in names, f"{a.get('name')} {a.get('version')} at {a.get('install_path')}")
    return [prod, ships, conf, mcp]


def score_agents_by_product(truth: dict[str, Any], inv: dict[str, Any]) -> list[Section]:
    """Agent products matched by install path or any of their names (agent_score.py)."""
    prod = Section("agents (name + version)")
    editor = Section("agents: editor of each extension")
    conf = Section("agents: configured models per user (with route)")
    alias = Section("agents: configured aliases with base_model")
    mcp = Section("agents: mcp servers per user")
    transport = Section("mcp servers: transport")
    for ps in agent_score.score_all(truth, inv):
        prod.truth(ps.entry, ps.entry_label)
        if ps.editor is not None:
            editor.truth(ps.editor, ps.name)
        for label, ok, detail in ps.models:
            conf.truth(ok, f"{ps.name}/{label} ({detail})")
        for label, ok, detail in ps.aliases:
            alias.truth(ok, f"{ps.name}/{label} ({detail})")
        for label, ok, _ in ps.mcp:
            mcp.truth(ok, f"{ps.name}/{label}")
        for label, ok, detail in ps.transports:
            transport.truth(ok, f"{ps.name}/{label}: {detail}")
    unmatched = agent_score.unmatched_reported(truth, inv)
    for a in inv.get("agents", []) or []:
        prod.reported(all(a is not u for u in unmatched),
                      f"{a.get('name')} {a.get('version')} at {a.get('install_path')}")
    return [prod, editor, conf, alias, mcp, transport]


def score(truth: dict[str, Any], inv: dict[str, Any], outputs: Path | None,
          secrets_file: Path | None = None) -> list[Section]:
    return [*score_wired(truth, inv), *score_catalogued(truth, inv), *score_sdks(truth, inv),
            *score_endpoints(truth, inv), *score_credentials(truth, inv, outputs, secrets_file),
            *score_kill_switches(truth, inv), *score_mcp(truth, inv), *score_agents(truth, inv)]


# ---------------------------------------------------------------- diff

def _spellings(value: Any) -> set[str]:
    """The spellings a model item's facet holds: one, or a list when several spellings are one model."""
    if isinstance(value, dict):
        value = value.get("spelling", value.get("key"))
    return {str(v) for v in (value if isinstance(value, list) else [value]) if v}


def model_moves(ch: dict[str, Any]) -> list[tuple[str, str]]:
    """(added | removed, id) of each model id a change of `models` brings or takes away: every spelling of a
    model added or removed, and the spellings a model gained or lost (`spelling` changed: `openai.gpt-6.1-sol`
    beside `gpt-6.1-sol` is one model)."""
    kind = ch.get("kind")
    if kind in ("added", "removed"):
        return [(kind, x) for x in sorted(_spellings(ch.get("new" if kind == "added" else "old")) | {ch.get("key")})]
    if kind == "changed" and ch.get("field") == "spelling":
        before, after = _spellings(ch.get("old")), _spellings(ch.get("new"))
        return [("added", x) for x in sorted(after - before)] + [("removed", x) for x in sorted(before - after)]
    return []


def score_diff(truth: dict[str, Any], diff: dict[str, Any],
               real_models: set[tuple[str, str]] | None = None) -> tuple[list[Section], int]:
    """Expected changes found, and the noise: every reported change inspection does not expect.
    `real_models`: (kind, id) of model ids added or removed that inspection of the trees confirms although the
    truth's grammar did not predict them (a literal of a grammar it does not know): listed, not noise.
    A model is one thing whatever its spellings: an expected id added (removed) is found as a model added
    (removed) under that spelling or as a spelling it gained (lost), and one change may answer several ids."""
    changes = diff.get("changes", [])
    expected = truth.get("expected", [])
    ambiguous = set(truth.get("ambiguous", []))
    sec = Section("diff: expected changes found")
    used: set[int] = set()
    for e in expected:
        # The change of the expectation's own section first: a product's version change is reported in `agents`;
        # only when that section lacks it does its package's version change in `sdks` stand for it.
        # Its own install first: a CLI and an editor extension of one product (`cline`) share its names.
        hit = next((i for i, ch in enumerate(changes) if i not in used and _matches(e, ch) and _at_install(e, ch)),
                   None)
        if hit is None:
            hit = next((i for i, ch in enumerate(changes) if i not in used and _matches(e, ch)), None)
        if hit is None and e["section"] == "agents":
            hit = next((i for i, ch in enumerate(changes) if i not in used and _package_of(e, ch)), None)
        if hit is None and e["section"] == "models" and e.get("kind"):
            hit = next((i for i, ch in enumerate(changes) if ch.get("section") == "models"
                        and (e["kind"], e["key"]) in model_moves(ch)), None)
        label = f"{e['section']} {e.get('kind') or e.get('change', '')} {e['key']}" + (
            f" {e.get('field')}: {e.get('old')} -> {e.get('new')}" if e.get("field") else "")
        sec.truth(hit is not None, label)
        if hit is not None and not (e["section"] == "models" and model_moves(changes[hit])):
            used.add(hit)  # a model added, removed or respelled may answer several ids: it stays to be judged
    noise = Section("diff: noise (reported changes in models/sdks/agents/mcp_servers not expected)")
    other = Section("diff: other changes (sections the truth does not track; listed, not counted)")
    real = Section("diff: model ids added/removed in the trees, beyond the truth's grammar (not noise)")
    told = {(e.get("kind"), e["key"]) for e in expected if e["section"] == "models"}
    confirmed_all = real_models or set()

    def explained(moves: list[tuple[str, str]]) -> list[bool]:
        return [m in told or m[1] in ambiguous or m in confirmed_all for m in moves]

    # A model's route and base are the facts of its spellings: the route or base a respelling brought or took away
    # (`qwen/…` served via openrouter) is that same change, judged once, as the respelling.
    respelt = {ch.get("key") for ch in changes if ch.get("section") == "models" and ch.get("field") == "spelling"}
    for i, ch in enumerate(changes):
        if i in used:
            continue
        if ch.get("section") not in ("models", "sdks", "agents", "mcp_servers"):
            other.truth(True, f"{ch.get('section')} {ch.get('kind')} {ch.get('key')} {ch.get('field') or ''}")
            other.misses.append(other_label(ch))
            continue
        # A second facet of an expected change (e.g. wired and served_via of the same model, the route of a
        # model newly selected) is not noise; nor is the version change of a product's own package (its main
        # package, its platform and core packages: `npm/@google/gemini-cli-core` of `npm/@google/gemini-cli`)
        # in step with the product's expected version change.
        if any(_same_thing(e, ch) or _own_package(e, ch) for e in expected):
            continue
        if ch.get("section") == "models" and ch.get("key") in ambiguous:
            continue
        if ch.get("section") == "models" and ch.get("field") in ("served_via", "base_model") and \
                ch.get("key") in respelt:
            continue
        moves = model_moves(ch) if ch.get("section") == "models" else []
        if moves:
            # A model added or removed is explained by any of its spellings; a respelling by each spelling it
            # gained or lost: expected, ambiguous, or a change inspection of the trees confirms.
            confirmed = [m for m in moves if m in confirmed_all]
            why = explained(moves)
            if all(why) or (ch.get("kind") != "changed" and any(why)):
                if confirmed:
                    real.truth(True, f"models {ch.get('kind')} {ch.get('key')} {ch.get('field') or ''}: "
                                     + ", ".join(f"{k} {i}" for k, i in confirmed))
                continue
        old, new = json.dumps(ch.get("old"))[:60], json.dumps(ch.get("new"))[:60]
        what = f"{ch.get('section')} {ch.get('kind')} {ch.get('key')} {ch.get('field') or ''}"
        noise.truth(False, f"{what} {old} -> {new}")
    noise.n_reported = 0
    return [sec, noise, real, other], len(noise.misses)


def _keyed(e: dict[str, Any], ch: dict[str, Any]) -> bool:
    """Whether a reported key names the expected thing: a model by its id (or the canonical id the truth gives
    it); anything else by its name, the diff adding `@<where installed>` (an SDK's environment, an agent
    product's install path); an agent product also by its install path alone (a product no catalog knows, or
    one the catalog names otherwise than the truth, is keyed `<its name>@<install path>`)."""
    key = str(ch.get("key", ""))
    if e["section"] == "models":
        return key in (e["key"], *e.get("aliases", []))
    if _at_install(e, ch):
        return True
    return any(key.startswith(f"{k}@") or key == k for k in [e["key"], *e.get("aliases", [])])


def _at_install(e: dict[str, Any], ch: dict[str, Any]) -> bool:
    """Whether a reported key is the expected product's install: an install moved to its next release's folder is
    keyed by the path they share (the release left out)."""
    key = _unreleased(str(ch.get("key", "")))
    return any(key.endswith(f"@{_unreleased(p)}") for p in e.get("install_paths", []))


_RELEASE = re.compile(r"^(?P<name>.*?-)?v?\d+(?:\.\d+)+(?:[-+][0-9A-Za-z.-]*)?$")


def _unreleased(path: str) -> str:
    """A path with the releases its folders name left out (`…/saoudrizwan.claude-dev-*`), as the diff keys it."""
    return "/".join(f"{m.group('name') or ''}*" if (m := _RELEASE.match(seg)) else seg for seg in path.split("/"))


def _matches(e: dict[str, Any], ch: dict[str, Any]) -> bool:
    if ch.get("section") != e["section"] or not _keyed(e, ch):
        return False
    if e["section"] == "sdks" and e.get("field") == "version" and (
            ch.get("old") != e.get("old") or ch.get("new") != e.get("new")):
        return False
    if e.get("kind") and ch.get("kind") != e["kind"]:
        return False
    return not (e.get("field") and ch.get("field") != e["field"])


def _package_of(e: dict[str, Any], ch: dict[str, Any]) -> bool:
    """A product's version change seen as its package's version change in `sdks`."""
    return (ch.get("section") == "sdks" and ch.get("field") == "version" and ch.get("new") == e.get("new")
            and any(str(ch.get("key")).startswith(f"{p}@") for p in e.get("aliases", [])))


def _same_thing(e: dict[str, Any], ch: dict[str, Any]) -> bool:
    """Another facet of the expected change: another field of the same model (wired and served_via of one
    config edit); for an agent product, the same field (its version) seen twice."""
    if ch.get("section") != e["section"] or not _keyed(e, ch):
        return False
    # A route moved with its base URL: the same config edit.
    return e["section"] != "agents" or ch.get("field") == e.get("field") or (
        e.get("field") == "served_via" and ch.get("field") == "base_url")


def _own_package(e: dict[str, Any], ch: dict[str, Any]) -> bool:
    """The product's own packages (named after it: `@google/gemini-cli-core`, `@openai/codex-linux-x64`)
    changing with its expected version change."""
    if e["section"] != "agents" or e.get("field") != "version" or ch.get("section") != "sdks":
        return False
    key = str(ch.get("key", ""))
    # an alias ending in `/` is the product's own npm scope (`npm/@cline/`): every package under it
    return any(key.startswith((f"{p}@", f"{p}-")) or (p.endswith("/") and key.startswith(p))
               for p in e.get("aliases", []))


def other_label(ch: dict[str, Any]) -> str:
    return f"{ch.get('section')} {ch.get('kind')} {ch.get('key')} {ch.get('field') or ''}"


def print_table(rows: list[tuple[str, str, float | None, float | None]]) -> None:
    def f(x: float | None) -> str:
        return "n/a" if x is None else f"{x:.3f}"
    width = max(len(r[1]) for r in rows) if rows else 10
    print(f"\n{'corpus':<16} {'section':<{width}}  recall  precision")
    for corpus, section, r, p in rows:
        print(f"{corpus:<16} {section:<{width}}  {f(r):>6}  {f(p):>9}")


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("truth", type=Path)
    ap.add_argument("report", type=Path, help="inventory JSON (or diff JSON with --diff)")
    ap.add_argument("--diff", action="store_true")
    ap.add_argument("--outputs", type=Path, help="directory of the scan in every format (secret leak check)")
    ap.add_argument("--secrets", type=Path, help="planted-secrets.json (the builder writes it beside the tree)")
    ap.add_argument("--json", type=Path, help="write the per-section summary here")
    a = ap.parse_args(argv)
    truth = tomllib.loads(a.truth.read_text())
    try:
        report = json.loads(a.report.read_text())
    except (OSError, ValueError) as exc:
        print(f"score: cannot read {a.report}: {exc}", file=sys.stderr)
        return 2
    print(f"# {truth.get('corpus', a.truth.stem)}: {a.report}")
    if a.diff:
        sections, noise = score_diff(truth, report)
        for s in sections:
            s.print()
        print(f"\nnoise changes: {noise}")
    else:
        sections = score(truth, report, a.outputs, a.secrets)
        for s in sections:
            s.print()
    if a.json:
        a.json.write_text(json.dumps([s.summary() for s in sections], indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())

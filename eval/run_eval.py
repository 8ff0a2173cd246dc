"""`make eval`: build the corpora that are missing (cached under .eval/), scan each with the current code in
every output format, score the JSON against the truth, score `modelcensus diff` old -> new, print a summary.

    python eval/run_eval.py [--only CORPUS ...] [--reuse] [--out DIR] [--formats FMT ...]
                            [--golden-save DIR | --golden DIR]

With --golden-save the JSON inventories and diffs are kept (less `stats`); with --golden they are compared byte
for byte with those kept, and a difference exits 1 (eval/golden.py).
"""

from __future__ import annotations

import argparse
import json
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import common as c
import golden
import score
import score_lived_in
import score_local_models
import tomllib
import zoo_diff

CORPORA = ["dev-machine", "debian-agent", "dev-machine-old", "lived-in", "agent-zoo", "agent-zoo-old",
           "local-models"]
# Release pairs scored with `modelcensus diff OLD NEW`; each one's expected changes, by inspection of the trees.
PAIRS = [("dev-machine-old", "dev-machine"), ("agent-zoo-old", "agent-zoo")]
FORMATS = {"json": "inventory.json", "table": "scan.txt", "markdown": "scan.md", "html": "scan.html",
           "sarif": "scan.sarif", "cyclonedx": "scan.cdx.json"}
MODELCENSUS = c.REPO / ".venv" / "bin" / "modelcensus"


def build(corpus: str) -> None:
    stamp = c.CACHE / corpus / ".built"
    if stamp.exists():
        return
    builder = {"dev-machine": ["build_dev_machine.py"], "dev-machine-old": ["build_dev_machine.py", "--old"],
               "debian-agent": ["build_debian_agent.py"], "lived-in": ["build_lived_in.py"],
               "agent-zoo": ["build_agent_zoo.py"], "agent-zoo-old": ["build_agent_zoo.py", "--old"],
               "local-models": ["build_local_models.py"]}[corpus]
    c.run([sys.executable, str(c.EVAL_DIR / builder[0]), *builder[1:]], cwd=c.EVAL_DIR)
    stamp.write_text("ok\n")


def scan(corpus: str, rescan: bool, results: Path, formats: list[str]) -> Path:
    base = c.CACHE / corpus
    out = results / corpus / "outputs"
    out.mkdir(parents=True, exist_ok=True)
    for fmt, name in FORMATS.items():
        if fmt not in formats:
            continue
        target = out / name
        if target.exists() and not rescan:
            continue
        proc = subprocess.run([str(MODELCENSUS), "scan", str(base / "root"), "-q", "-f", fmt, "-o", str(target)],
                              capture_output=True, text=True)
        if proc.returncode not in (0, 1):
            print(f"eval: scan of {corpus} as {fmt} failed ({proc.returncode}): {proc.stderr.strip()[:500]}")
    inventory = results / corpus / "inventory.json"
    if (out / "inventory.json").exists():
        inventory.write_bytes((out / "inventory.json").read_bytes())
    return inventory


def diff_truth(old: dict[str, Any], new: dict[str, Any]) -> dict[str, Any]:
    """The changes inspection expects between the two truths: model ids, product versions, SDK versions, MCP."""
    def states(t: dict[str, Any]) -> dict[str, str]:
        st = {m["id"]: "shipped" for m in t["catalogued"]}
        st.update({w["id"]: "wired" for w in t["wired"]})
        return st
    so, sn = states(old), states(new)
    expected: list[dict[str, Any]] = []
    for mid in sorted(set(so) | set(sn)):
        a, b = so.get(mid), sn.get(mid)
        if a == b:
            continue
        if a is None:
            expected.append({"section": "models", "kind": "added", "key": mid, "new": b})
        elif b is None:
            expected.append({"section": "models", "kind": "removed", "key": mid, "old": a})
        else:
            expected.append({"section": "models", "kind": "changed", "key": mid, "field": "wired",
                             "old": a == "wired", "new": b == "wired"})

    # An id that leaves (or joins) a changed product but is still (already) a quoted literal elsewhere in
    # the other tree is not a change inspection can assert: it is ambiguous, neither expected nor noise.
    ambiguous: set[str] = set()
    for kind, tree, tr in (("removed", "dev-machine", new), ("added", "dev-machine-old", old)):
        ids = [e["key"] for e in expected if e["section"] == "models" and e["kind"] == kind]
        ambiguous |= quoted_elsewhere(c.CACHE / tree / "root", ids,
                                      {f for a in tr["agents"] for f in a.get("ships_files", [])})
    expected = [e for e in expected if not (e["section"] == "models" and e["key"] in ambiguous)]

    alias = {f"{s['ecosystem']}/{s['name']}": f"{s['ecosystem']}/{s['alias']}"
             for t in (old, new) for s in t["sdks"] if s.get("alias")}
    expected += zoo_diff.sdk_changes(old, new, alias)
    packages = {a["name"]: a.get("package", "") for a in new["agents"] if a.get("package")}
    ao = {a["name"]: a["version"] for a in old["agents"]}
    an = {a["name"]: a["version"] for a in new["agents"]}
    for name in sorted(set(ao) | set(an)):
        if ao.get(name) != an.get(name):
            expected.append({"section": "agents", "kind": "changed", "key": name, "field": "version",
                             "old": ao.get(name) or "", "new": an.get(name) or "",
                             "aliases": [packages[name]] if name in packages else []})
    # What each product's users select (models, MCP servers), folded over users as the diff compares it.
    for name in sorted(set(ao) & set(an)):
        for field, conf_key in (("models", "models"), ("mcp_servers", "mcp_servers")):
            before, after = (sorted({x for a in t["agents"] if a["name"] == name for cf in a.get("configs", [])
                                     for x in cf.get(conf_key, [])}) for t in (old, new))
            if before != after:
                expected.append({"section": "agents", "kind": "changed", "key": name, "field": field,
                                 "old": before, "new": after})
    expected += zoo_diff.mcp_changes(old, new)
    return {"corpus": "dev-machine-old -> dev-machine", "expected": expected, "ambiguous": sorted(ambiguous)}


def quoted_elsewhere(root: Path, ids: list[str], skip: set[str]) -> set[str]:
    """Which of `ids` occur as a quoted literal in a file of `root` other than the `skip` paths."""
    if not ids:
        return set()
    # The patterns go to grep on stdin: the corpus cache is read-only to the eval.
    # In any quotes: a TypeScript declaration's `'gpt-realtime-1.5'` is as much a literal as a JSON "…".
    proc = subprocess.run(["grep", "-r", "-a", "-o", "-F", "-f", "-", str(root)],
                          input="".join(f"{q}{i}{q}\n" for i in ids for q in "\"'`"), capture_output=True,
                          text=True, errors="replace")
    found: set[str] = set()
    prefix = str(root)
    for line in proc.stdout.splitlines():
        m = re.fullmatch(r"(.*):([\"'`])(.+)\2", line)
        if m and m.group(1)[len(prefix):] not in skip:
            found.add(m.group(3))
    return found


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--only", nargs="*", choices=CORPORA)
    ap.add_argument("--show", type=int, default=20, help="misses and false positives listed per section")
    ap.add_argument("--reuse", action="store_true", help="score the last scan's outputs instead of scanning again")
    ap.add_argument("--out", type=Path, default=c.CACHE,
                    help="where scan outputs go (default: the cache); one directory per corpus")
    ap.add_argument("--formats", nargs="*", choices=list(FORMATS), default=list(FORMATS),
                    help="formats to scan in (default: all six; the leak check covers only these)")
    ap.add_argument("--golden-save", type=Path, metavar="DIR", help="keep the JSON outputs (less stats) in DIR")
    ap.add_argument("--golden", type=Path, metavar="DIR", help="compare the JSON outputs with those kept in DIR")
    a = ap.parse_args()
    corpora = a.only or CORPORA
    score.SHOW = a.show
    rows: list[tuple[str, str, float | None, float | None]] = []
    inventories: dict[str, Path] = {}
    for corpus in corpora:
        build(corpus)
        inventories[corpus] = scan(corpus, not a.reuse, a.out, a.formats)
        truth = tomllib.loads((c.CACHE / corpus / "truth.toml").read_text())
        inv = json.loads(inventories[corpus].read_text())
        print(f"\n######## {corpus}")
        if corpus == "lived-in":
            sections = score_lived_in.score(truth, inv)
        elif corpus == "local-models":
            sections = score_local_models.score(truth, inv)
        else:
            sections = score.score(truth, inv, a.out / corpus / "outputs", c.CACHE / corpus / "planted-secrets.json")
        for s in sections:
            s.print()
            rows.append((corpus, s.name.strip() if not s.notes or s.n_truth or s.n_reported else s.notes[0],
                         s.recall, s.precision))
    outputs = dict(inventories)
    for old_name, new_name in PAIRS:
        if {old_name, new_name} <= set(inventories):
            rows += score_pair(old_name, new_name, inventories, a.out)
            outputs[f"diff-{old_name}-{new_name}"] = diff_path(a.out, new_name)
    score.print_table(rows)
    outputs = {name: path for name, path in outputs.items() if path.exists()}
    if a.golden_save:
        golden.save(outputs, a.golden_save)
    if a.golden:
        return 1 if golden.check(outputs, a.golden) else 0
    return 0


def diff_path(out: Path, new_name: str) -> Path:
    return out / ("diff.json" if new_name == "dev-machine" else f"diff-{new_name}.json")


def pair_truth(old_name: str, new_name: str) -> dict[str, Any]:
    if new_name == "dev-machine":
        old = tomllib.loads((c.CACHE / old_name / "truth.toml").read_text())
        new = tomllib.loads((c.CACHE / new_name / "truth.toml").read_text())
        dt = diff_truth(old, new)
        text = c.dump_toml(dt, "Expected `modelcensus diff dev-machine-old dev-machine`, from the two truth files.")
        (c.EVAL_DIR / "truth" / "dev-machine.diff.toml").write_text(text)
        return dt
    # The builder found the model ids of the changed files (eval/zoo_diff.py, kept in diff-truth.toml); the rest is
    # read from the two truths and trees again, as this code reads them, and kept beside the other truths.
    dt = zoo_diff.current_expected(c.CACHE / old_name, c.CACHE / new_name)
    text = c.dump_toml(dt, f"Expected `modelcensus diff {old_name} {new_name}`, by inspection of the two trees\n"
                           "(eval/zoo_diff.py), never from modelcensus output.")
    (c.EVAL_DIR / "truth" / f"{new_name}.diff.toml").write_text(text)
    return dt


def score_pair(old_name: str, new_name: str, inventories: dict[str, Path],
               out: Path) -> list[tuple[str, str, float | None, float | None]]:
    dt = pair_truth(old_name, new_name)
    diff_json = diff_path(out, new_name)
    proc = subprocess.run([str(MODELCENSUS), "diff", str(inventories[old_name]), str(inventories[new_name]),
                           "-f", "json", "-o", str(diff_json)], capture_output=True, text=True)
    if proc.returncode not in (0, 1) or not diff_json.exists():
        print(f"eval: diff failed ({proc.returncode}): {proc.stderr.strip()[:500]}")
        return []
    diff = json.loads(diff_json.read_text())
    real = None if new_name == "dev-machine" else tree_model_changes(old_name, new_name, dt, diff)
    print(f"\n######## diff {old_name} -> {new_name}")
    sections, noise = score.score_diff(dt, diff, real)
    for s in sections:
        s.print()
    print(f"\nnoise changes: {noise}")
    tag = "diff" if new_name == "dev-machine" else f"diff {new_name}"
    return [(tag, sections[0].name, sections[0].recall, None), (tag, f"noise changes = {noise}", None, None)]


def tree_model_changes(old_name: str, new_name: str, dt: dict[str, Any],
                       diff: dict[str, Any]) -> set[tuple[str, str]]:
    """Reported model ids added (removed) that the trees confirm: named in the new (old) tree and in no file
    of the other one (a literal, or the model of a provider-prefixed literal). Inspection of the trees, asked only
    about the ids the diff reports beyond the truth: a model added or removed under each of its spellings, and the
    spellings a model gained or lost."""
    expected = {e["key"] for e in dt.get("expected", []) if e["section"] == "models"} | set(dt.get("ambiguous", []))
    asked = {(kind, name) for ch in diff.get("changes", []) if ch.get("section") == "models"
             for kind, name in score.model_moves(ch) if name not in expected}
    if not asked:
        return set()
    # A model is named by any literal that ends in its id (`fireworks_ai/…/kimi-k2p6-fast`); a spelling gained or
    # lost only by that exact literal.
    respelt = {(kind, name) for ch in diff.get("changes", []) if ch.get("section") == "models"
               and ch.get("field") == "spelling" for kind, name in score.model_moves(ch) if name not in expected}
    ids = {k for _, k in asked - respelt}
    spellings = {k for _, k in respelt}
    old_root, new_root = c.CACHE / old_name / "root", c.CACHE / new_name / "root"
    in_old = zoo_diff.named_in(old_root, ids) | zoo_diff.present_in(old_root, spellings, set())
    in_new = zoo_diff.named_in(new_root, ids) | zoo_diff.present_in(new_root, spellings, set())
    return {(kind, k) for kind, k in asked
            if (kind == "added" and k in in_new - in_old) or (kind == "removed" and k in in_old - in_new)}


if __name__ == "__main__":
    sys.exit(main())

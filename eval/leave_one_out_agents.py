"""Leave one product out: for each agent product of catalogs/agents.toml, load the catalogs through the library,
drop that product's entries ([[agents]] with its id, and every entry naming it as `tool`, `product` or `agent`,
such as its [[agent_configs]] MCP file globs), scan the agent-zoo corpus, and score what the generic path alone
still gives for that product: its agent entry (name and version), its users' configured models with route, its
MCP servers (eval/agent_score.py; truth eval/truth/agent-zoo.toml).

    .venv/bin/python eval/leave_one_out_agents.py [--only ID ...] [--jobs N] [--full] [--json ROWS.json]
    .venv/bin/python eval/leave_one_out_agents.py --inventory INV.json   # every zoo product, no catalog dropped

Each scan reads a view of the zoo (hard links under /tmp, removed afterwards) that holds every home's files and
/etc, and of the installed products only the ones the left-out entry describes: the other products' payloads
(hundreds of MB of bundles and executables) would not change what is found for this one, and reading them
thirty times would take hours on this machine. `--full` scans the whole zoo each time instead.
Targets: agent entry for >= 80% of products, configured models with route for >= 80%, MCP servers for >= 90%.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import os
import shutil
import sys
import tempfile
from pathlib import Path
from typing import Any

EVAL = Path(__file__).resolve().parent
sys.path.insert(0, str(EVAL))
sys.path.insert(0, str(EVAL.parent))

import agent_score  # noqa: E402
import common as c  # noqa: E402
import tomllib  # noqa: E402

from scanner import api  # noqa: E402
from scanner.catalog import Catalog  # noqa: E402
from scanner.catalog.loader import load_catalogs  # noqa: E402
from scanner.options import ScanOptions  # noqa: E402
from scanner.render import render  # noqa: E402

ZOO = c.CACHE / "agent-zoo"
NAMING = ("tool", "product", "agent")


def without(files: list[Any], pid: str) -> tuple[list[Any], int]:
    """The catalog files with every entry of product `pid` dropped; how many entries were dropped."""
    out, dropped = [], 0
    for cat in files:
        changes: dict[str, Any] = {}
        for f in dataclasses.fields(cat):
            value = getattr(cat, f.name)
            if not isinstance(value, tuple) or not value or not dataclasses.is_dataclass(value[0]):
                continue
            kept = tuple(x for x in value if not _names(x, pid, f.name))
            if len(kept) != len(value):
                dropped += len(value) - len(kept)
                changes[f.name] = kept
        out.append(dataclasses.replace(cat, **changes) if changes else cat)
    return out, dropped


def _names(entry: Any, pid: str, field_name: str) -> bool:
    if field_name == "agents" and getattr(entry, "id", None) == pid:
        return True
    return any(getattr(entry, attr, None) == pid for attr in NAMING)


def _strings(entry: Any) -> set[str]:
    """Every string an agent entry holds (its packages, binaries, extension ids, ...), lower-cased."""
    out: set[str] = set()
    def walk(v: Any) -> None:
        if isinstance(v, str):
            out.add(v.lower())
        elif isinstance(v, (tuple, list)):
            for x in v:
                walk(x)
        elif dataclasses.is_dataclass(v):
            for f in dataclasses.fields(v):
                if f.name not in ("settings", "routes", "aliases", "note", "ships"):
                    walk(getattr(v, f.name))
    walk(entry)
    return out


def products_of(entry: Any, truth: dict[str, Any]) -> list[dict[str, Any]]:
    """The zoo's products a catalog entry describes: by id, or by one of its packages or extension ids."""
    strings = _strings(entry)
    return [t for t in truth["agents"] if t["name"] == entry.id or t["package"].lower() in strings
            or entry.id in t.get("names", [])]


def view(products: list[dict[str, Any]], truth: dict[str, Any], where: Path) -> Path:
    """The zoo with the payloads of every other product left out (hard links)."""
    keep = {t["install_path"] for t in products}
    skip = {t["install_path"] for t in truth["agents"]} - keep
    src = ZOO / "root"
    for dirpath, dirs, names in os.walk(src):
        rel = "/" + os.path.relpath(dirpath, src) if dirpath != str(src) else "/"
        dirs[:] = [d for d in dirs if os.path.join(rel, d).replace("//", "/") not in skip]
        target = where / rel.lstrip("/")
        target.mkdir(parents=True, exist_ok=True)
        for n in names:
            p = Path(dirpath) / n
            if p.is_symlink():
                (target / n).symlink_to(os.readlink(p))
            else:
                os.link(p, target / n)
        for d in dirs:
            if (Path(dirpath) / d).is_symlink():
                (target / d).symlink_to(os.readlink(Path(dirpath) / d))
        dirs[:] = [d for d in dirs if not (Path(dirpath) / d).is_symlink()]
    return where


def scan(root: Path, files: list[Any], jobs: int) -> dict[str, Any]:
    inv = api.scan(root, api.ScanRequest(ScanOptions(jobs=jobs)), Catalog(files))
    data: dict[str, Any] = json.loads(render("json", inv))
    return data


def row(ps: agent_score.ProductScore) -> dict[str, Any]:
    return {"product": ps.name, "entry": ps.entry, "entry_label": ps.entry_label,
            "models": [sum(ok for _, ok, _ in ps.models), len(ps.models)],
            "mcp": [sum(ok for _, ok, _ in ps.mcp), len(ps.mcp)],
            "misses": [f"{label} ({detail})" for label, ok, detail in ps.models if not ok] +
                      [label for label, ok, _ in ps.mcp if not ok]}


def loo(pid: str, entry: Any, base: list[Any], truth: dict[str, Any], jobs: int, full: bool) -> list[dict[str, Any]]:
    products = products_of(entry, truth)
    if not products:
        return [{"entry_id": pid, "product": "-", "absent": True}]
    files, dropped = without(base, pid)
    tmp = Path(tempfile.mkdtemp(prefix=f"loo-{pid}-"))
    try:
        root = ZOO / "root" if full else view(products, truth, tmp / "root")
        inv = scan(root, files, jobs)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    servers = [s for s in truth.get("mcp_servers", [])]
    rows = []
    for t in products:
        ps = agent_score.score_product({**t, "_mcp": servers}, inv)
        rows.append({"entry_id": pid, "dropped": dropped, **row(ps)})
    return rows


def share(rows: list[dict[str, Any]]) -> dict[str, Any]:
    scored = [r for r in rows if not r.get("absent")]
    with_models = [r for r in scored if r["models"][1]]
    with_mcp = [r for r in scored if r["mcp"][1]]
    def frac(a: int, b: int) -> str:
        return f"{a}/{b} = {a / b:.0%}" if b else "n/a"
    return {
        "agent entry (name + version)": frac(sum(r["entry"] for r in scored), len(scored)),
        "configured models with route (products, all found)": frac(
            sum(r["models"][0] == r["models"][1] for r in with_models), len(with_models)),
        "configured models with route (models)": frac(sum(r["models"][0] for r in with_models),
                                                      sum(r["models"][1] for r in with_models)),
        "mcp servers (products, all found)": frac(sum(r["mcp"][0] == r["mcp"][1] for r in with_mcp), len(with_mcp)),
        "mcp servers (servers)": frac(sum(r["mcp"][0] for r in with_mcp), sum(r["mcp"][1] for r in with_mcp)),
    }


def print_table(rows: list[dict[str, Any]]) -> None:
    print(f"{'catalog entry':<16} {'zoo product':<18} {'entry':<6} {'models':<8} {'mcp':<6} misses")
    for r in rows:
        if r.get("absent"):
            print(f"{r['entry_id']:<16} {'(not in the zoo)':<18}")
            continue
        m, s = r["models"], r["mcp"]
        misses = "; ".join(([r["entry_label"]] if r["entry_label"] else []) + r["misses"])
        print(f"{r['entry_id']:<16} {r['product']:<18} {'yes' if r['entry'] else 'no':<6} "
              f"{m[0]}/{m[1]:<6} {s[0]}/{s[1]:<4} {misses[:300]}")
    print()
    for k, v in share(rows).items():
        print(f"{k:<52} {v}")


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--only", nargs="*", help="catalog ids to leave out (default: every [[agents]] entry)")
    ap.add_argument("--jobs", type=int, default=1)
    ap.add_argument("--full", action="store_true", help="scan the whole zoo each time (hours), not a view")
    ap.add_argument("--json", type=Path, help="write the rows here")
    ap.add_argument("--inventory", type=Path,
                    help="no scan: score every zoo product in this inventory of the whole zoo (all catalogs loaded)")
    a = ap.parse_args()
    if not (ZOO / "truth.toml").exists():
        print("leave_one_out: build the zoo first: python eval/build_agent_zoo.py", file=sys.stderr)
        return 2
    truth = tomllib.loads((ZOO / "truth.toml").read_text())
    if a.inventory:
        inv = json.loads(a.inventory.read_text())
        servers = truth.get("mcp_servers", [])
        rows = [{"entry_id": "(all loaded)", **row(agent_score.score_product({**t, "_mcp": servers}, inv))}
                for t in truth["agents"]]
        print_table(rows)
        return 0
    base = load_catalogs()
    entries = [(a_.id, a_) for cat in base for a_ in getattr(cat, "agents", ())]
    rows: list[dict[str, Any]] = []
    for pid, entry in entries:
        if a.only and pid not in a.only:
            continue
        print(f"leave_one_out: without {pid} ...", file=sys.stderr, flush=True)
        rows += loo(pid, entry, base, truth, a.jobs, a.full)
    print_table(rows)
    if a.json:
        a.json.write_text(json.dumps(rows, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())

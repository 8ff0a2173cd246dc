"""Corpora `agent-zoo` and `agent-zoo-old`: a developer machine with real installs of the agent products people run
(npm CLIs system-wide and under per-user prefixes, Python agents as uv tools and pipx venvs, editor extensions
in VS Code, Cursor and VS Code Server), configured for three users as each product documents it.

    python eval/build_agent_zoo.py [--old] [--truth-only]

`--old` is the same machine with some products at older real releases and a few config edits: it is a
hard-linked copy of `agent-zoo` (built first when missing) in which those products are removed and installed
again at the older release, and the edited files are replaced (never written through a shared link).

The truth (eval/truth/agent-zoo*.toml) is written from what this script plants and from the installed files
(package.json, *.dist-info, the editors' package.json), before modelcensus runs.
"""

from __future__ import annotations

import argparse
import json
import shutil
import subprocess
from pathlib import Path
from typing import Any

import common as c
import sdk_inventory
import zoo_diff
import zoo_homes_alice
import zoo_homes_bob
import zoo_homes_carol
import zoo_install as zi
from zoo_facts import Facts, secrets
from zoo_products import EDITOR_DIRS, EXTENSIONS, PRODUCTS, USERS, Product

EXT_DIR = c.EVAL_DIR / "extensions"
NEW, OLD = "agent-zoo", "agent-zoo-old"


def system_files(root: Path) -> None:
    passwd = "root:x:0:0:root:/root:/bin/bash\n" + "".join(
        f"{u}:x:{uid}:{uid}:{u.title()}:/home/{u}:/bin/bash\n" for u, uid in USERS.items())
    c.write(root, "/etc/passwd", passwd)
    c.write(root, "/etc/group", "root:x:0:\n" + "".join(f"{u}:x:{uid}:\n" for u, uid in USERS.items()))
    c.write(root, "/etc/hostname", "zoo-devbox\n")
    c.write(root, "/etc/os-release", 'PRETTY_NAME="Debian GNU/Linux 12 (bookworm)"\nID=debian\nVERSION_ID="12"\n')


# ---------------------------------------------------------------- editor extensions

def manifest(p: Product, old: bool) -> tuple[str, dict[str, Any]]:
    folder = EXT_DIR / p.id
    path = folder / "package.old.json" if old and (folder / "package.old.json").is_file() else folder / "package.json"
    text = path.read_text()
    return text, json.loads(text)


def extension_folder(meta: dict[str, Any]) -> str:
    """VS Code unpacks `<publisher>.<name>-<version>`, lower-cased."""
    return f"{meta['publisher']}.{meta['name']}-{meta['version']}".lower()


def install_extensions(root: Path, old: bool) -> None:
    by_editor: dict[tuple[str, str], list[tuple[str, str, str]]] = {}
    for p in EXTENSIONS:
        text, meta = manifest(p, old)
        home_dir = root / f"home/{p.user}/{EDITOR_DIRS[p.layout]}"
        for stale in home_dir.glob(f"{meta['publisher']}.{meta['name']}-*".lower()):
            shutil.rmtree(stale)   # the other release's folder, in a hard-linked copy
        folder = extension_folder(meta)
        target = zi.install_extension(root, p.user, p.layout, folder, text)
        c.write(root, "/" + str((target / "README.md").relative_to(root)), f"# {meta.get('displayName', p.display)}\n")
        by_editor.setdefault((p.user, p.layout), []).append((f"{meta['publisher']}.{meta['name']}", meta["version"],
                                                             folder))
    for (user, editor), entries in sorted(by_editor.items()):
        manifest_path = root / f"home/{user}/{EDITOR_DIRS[editor]}/extensions.json"
        if manifest_path.exists():
            manifest_path.unlink()
        zi.write_extensions_manifest(root, user, editor, entries)


# ---------------------------------------------------------------- truth

def installed_version(root: Path, p: Product) -> str:
    d = zi.package_dir(root, p)
    if p.ecosystem == "npm":
        return c.package_json_version(d) or ""
    sites = sorted(d.glob("lib/python3.*/site-packages"))
    return (c.dist_info_version(sites[0], p.package) or "") if sites else ""


def agent_truth(root: Path, facts: Facts, notes: dict[str, str]) -> list[dict[str, Any]]:
    agents = []
    for p in [*PRODUCTS, *EXTENSIONS]:
        if p.ecosystem == "vscode":
            folder = next(iter(sorted((root / f"home/{p.user}/{EDITOR_DIRS[p.layout]}").glob(
                f"{p.package.lower()}-*"))), None)
            if folder is None:
                continue
            meta = json.loads((folder / "package.json").read_text())
            version, install = str(meta["version"]), "/" + str(folder.relative_to(root))
        else:
            d = zi.package_dir(root, p)
            if not d.is_dir():
                continue
            version, install = installed_version(root, p), "/" + str(d.relative_to(root))
        configs = [{"user": user, "models": conf["models"], "route": conf["route"], "mcp_servers": conf["mcp"],
                    "base_models": conf["base_models"], "model_routes": conf["model_routes"], "files": conf["files"]}
                   for (prod, user), conf in sorted(facts.configs.items()) if prod == p.id]
        entry: dict[str, Any] = {
            "name": p.id, "names": sorted({p.id, *p.names} - {""}), "display": p.display, "version": version,
            "ecosystem": p.ecosystem, "package": p.package, "install_path": install, "layout": p.layout,
            "ships_scored": False, "configs": configs}
        if p.ecosystem == "vscode":
            entry["editor"] = p.layout
        if p.id in notes:
            entry["note"] = notes[p.id]
        agents.append(entry)
    return agents


def truth(root: Path, name: str, old: bool, facts: Facts, notes: dict[str, str]) -> dict[str, Any]:
    products = [p for p in PRODUCTS if p.ecosystem == "npm"]
    return {
        "corpus": name,
        "built_from": "eval/build_agent_zoo.py" + (" --old" if old else ""),
        "not_installed": {k: v for k, v in sorted(notes.items()) if "not installed" in v},
        "wired": facts.wired,
        "acceptable": {
            "wired": sorted(set(facts.acceptable_wired)),
            "sdks": [f"npm:{p.package}" for p in products] + [f"pypi:{p.package}" for p in PRODUCTS
                                                              if p.ecosystem == "pypi"],
            "hosts": ["api.anthropic.com", "api.openai.com", "openrouter.ai", "api.githubcopilot.com",
                      "generativelanguage.googleapis.com", "aiplatform.googleapis.com", "api.x.ai",
                      "api.mistral.ai", "api.moonshot.ai", "mcp.context7.com", "mcp.sentry.dev", "mcp.linear.app",
                      "mcp.notion.com", "mcp.acme-corp.net", "ampcode.com", "us-central1-aiplatform.googleapis.com",
                      "us-east5-aiplatform.googleapis.com", "bedrock-runtime.us-east-1.amazonaws.com"],
            "kill_switches": ["DISABLE_TELEMETRY", "CLAUDE_CODE_ENABLE_TELEMETRY", "telemetrySetting",
                              "cline.telemetrySetting"],
        },
        "sdks": sdk_inventory.scan(root),
        "endpoints": facts.endpoints,
        "credentials": facts.credentials,
        "kill_switches": [],
        "commented": facts.commented,
        "mcp_servers": facts.mcp_servers,
        "agents": agent_truth(root, facts, notes),
    }


# ---------------------------------------------------------------- build

def plant_homes(root: Path, old: bool) -> Facts:
    facts = Facts(root, old)
    s = secrets()
    for mod in (zoo_homes_alice, zoo_homes_bob, zoo_homes_carol):
        mod.plant(facts, s)
    return facts


def copy_tree(src: Path, dst: Path) -> None:
    """A hard-linked copy: the old machine shares every unchanged file with the new one."""
    dst.parent.mkdir(parents=True, exist_ok=True)
    c.run(["cp", "-al", str(src), str(dst)])


def install(root: Path, old: bool, notes: dict[str, str]) -> None:
    if not old:
        zi.install_products(root, False, notes)
        return
    if not root.exists():
        new_root = c.CACHE / NEW / "root"
        if not (c.CACHE / NEW / ".built").exists():
            build(False)
        copy_tree(new_root, root)
        for p in PRODUCTS:
            if p.old:
                zi.remove_product(root, p)
        # the stamps say what this tree holds: the shared products are done, the downgraded ones not yet
        for p in PRODUCTS:
            if not p.old and c.done(new_root, f"install-{p.id}"):
                c.mark(root, f"install-{p.id}")
    zi.install_products(root, True, notes, only={p.id for p in PRODUCTS if p.old})


def build(old: bool, truth_only: bool = False) -> Path:
    name = OLD if old else NEW
    base = c.CACHE / name
    root = base / "root"
    notes_path = base / "install-notes.json"
    base.mkdir(parents=True, exist_ok=True)
    notes: dict[str, str] = json.loads(notes_path.read_text()) if notes_path.exists() else {}
    if old and not truth_only:
        # the old tree's notes start from the new tree's (the products it shares were installed there)
        new_notes = c.CACHE / NEW / "install-notes.json"
        if not notes and new_notes.exists():
            notes = json.loads(new_notes.read_text())
    if not truth_only:
        root.mkdir(parents=True, exist_ok=True) if not old else None
        try:
            install(root, old, notes)
        finally:
            notes_path.write_text(json.dumps(notes, indent=1, sort_keys=True) + "\n")
        install_extensions(root, old)
    system_files(root)
    facts = plant_homes(root, old)
    data = truth(root, name, old, facts, notes)
    header = (f"Truth of corpus {name}, written by eval/build_agent_zoo.py from the files it plants and from\n"
              "inspection of the installed packages (never from modelcensus output). Regenerate: make eval.")
    c.write_truth(name, data, header, facts.planted)
    # the expected diff, whenever both trees have their truth (either one may have been rebuilt)
    zoo_diff.write_expected(c.CACHE / OLD, c.CACHE / NEW)
    (base / ".built").write_text("ok\n")
    print(f"eval: {name} built at {root}; truth at eval/truth/{name}.toml")
    return root


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--old", action="store_true", help="build agent-zoo-old (some products at older releases)")
    ap.add_argument("--truth-only", action="store_true", help="rewrite configs and truth, install nothing")
    a = ap.parse_args()
    build(a.old, a.truth_only)
    subprocess.run(["sync"], check=False)


if __name__ == "__main__":
    main()

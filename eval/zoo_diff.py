"""The changes between agent-zoo-old and agent-zoo, found by inspecting the two trees (never modelcensus output).

agent-zoo-old is a hard-linked copy of agent-zoo in which some products were installed again at older releases
and a few files rewritten: a file whose inode the two trees share is the same file, so what changed is exactly
the files they do not share. The expected `modelcensus diff old new`:
- each product whose version differs (the truths' `agents`), and what its users select (models, MCP servers);
- MCP servers added or removed, models newly wired or no longer wired (the truths' `wired`);
- SDK versions (sdk_inventory over each tree);
- model ids that appear or disappear as literals of a vendor's grammar (common.shipped_ids) in the files that
  changed, unless the same literal stays in a file both trees share (then the id is in both trees: ambiguous).
"""

from __future__ import annotations

import json
import os
import re
import subprocess
from pathlib import Path
from typing import Any

import common as c
import tomllib


def differing_files(old_root: Path, new_root: Path) -> tuple[list[str], list[str]]:
    """Regular files of each tree that the other does not share (by inode), as tree paths."""
    def files(root: Path) -> dict[str, int]:
        out: dict[str, int] = {}
        for dirpath, _dirs, names in os.walk(root):
            for n in names:
                p = Path(dirpath) / n
                st = p.lstat()
                if p.is_file() and not p.is_symlink():
                    out["/" + str(p.relative_to(root))] = st.st_ino
        return out
    a, b = files(old_root), files(new_root)
    return (sorted(p for p, ino in a.items() if b.get(p) != ino),
            sorted(p for p, ino in b.items() if a.get(p) != ino))


def literal_ids(root: Path, paths: list[str]) -> set[str]:
    return set(c.shipped_ids([root / p.lstrip("/") for p in paths if not p.endswith((".toml.bak",))]))


def present_in(root: Path, ids: set[str], skip: set[str]) -> set[str]:
    """Which ids occur, as a quoted or NUL-delimited literal, in a file of `root` outside `skip`."""
    if not ids:
        return set()
    pats = "".join(f"{q}{i}{q}\n" for i in sorted(ids) for q in ('"', "'", "`")) + \
        "".join(f"\0{i}\0\n" for i in sorted(ids) if "\n" not in i)
    proc = subprocess.run(["grep", "-r", "-a", "-o", "-F", "-f", "-", str(root)], input=pats.encode(),
                          capture_output=True)
    found: set[str] = set()
    prefix = len(str(root))
    for line in proc.stdout.decode("utf-8", "replace").splitlines():
        m = re.fullmatch(r"(.*?):([\"'`\x00])(.+)\2", line)
        if m and m.group(1)[prefix:] not in skip:
            found.add(m.group(3))
    return found


def named_in(root: Path, ids: set[str]) -> set[str]:
    """Which ids `root` still names: as a literal (`present_in`), or as the model of a provider-prefixed literal
    (`"TEE/gemma-4-26b-a4b-uncensored"`, `"clarifai/xai.image-generation.grok-2-image-1212"`: the same model,
    served by that provider)."""
    found = present_in(root, ids, set())
    rest = sorted(ids - found)
    for i in range(0, len(rest), 200):
        chunk = rest[i:i + 200]
        names = "|".join(re.escape(x) for x in chunk)
        pattern = r"""["'`][A-Za-z0-9_.:/-]{0,80}[/.](""" + names + r""")["'`]"""
        proc = subprocess.run(["grep", "-r", "-a", "-o", "-h", "-E", pattern, str(root)], capture_output=True)
        tail = re.compile(r"[/.](" + names + r")$")
        for line in proc.stdout.decode("utf-8", "replace").splitlines():
            m = tail.search(line[1:-1])
            if m:
                found.add(m.group(1))
    return found & ids


def _folded(t: dict[str, Any], name: str, key: str) -> list[str]:
    return sorted({x for a in t["agents"] if a["name"] == name for cf in a.get("configs", [])
                   for x in cf.get(key, [])})


def _own_packages(agent: dict[str, Any], roots: tuple[Path, ...] = ()) -> list[str]:
    """The product's own packages as the diff keys them: `npm/<package>`, its scope (`npm/@cline/` for the
    platform and library packages a scoped product ships under its own scope), and the platform packages its
    manifest lists as optional dependencies and that are installed inside it (`@cline/cli-linux-x64` of `cline`),
    read in each tree."""
    eco, pkg = agent.get("ecosystem", ""), agent.get("package", "")
    if eco not in ("npm", "pypi") or not pkg:
        return []
    out = [f"{eco}/{pkg}"]
    if pkg.startswith("@"):
        out.append(f"{eco}/{pkg.split('/')[0]}/")
    for root in roots if eco == "npm" and agent.get("install_path") else ():
        pkg_dir = root / agent["install_path"].lstrip("/")
        try:
            optional = json.loads((pkg_dir / "package.json").read_text()).get("optionalDependencies") or {}
        except (OSError, ValueError):
            continue
        out += [f"npm/{dep}" for dep in sorted(optional) if (pkg_dir / "node_modules" / dep).is_dir()]
    return sorted(set(out), key=out.index)


def _routes(t: dict[str, Any], name: str) -> list[str]:
    """What the product's users' configs route through, as the diff folds it over users (`-` for none)."""
    return sorted({(cf.get("route") or ["-"])[0] for a in t["agents"] if a["name"] == name
                   for cf in a.get("configs", []) if cf.get("models")})


def agent_changes(old: dict[str, Any], new: dict[str, Any],
                  roots: tuple[Path, ...] = ()) -> list[dict[str, Any]]:
    """Each product's changes: its version, what its users select (models, MCP servers) and the route their
    selection takes. The product is named by the truth's id, its other names, its own packages and its install
    paths in either tree (an extension's folder is named by its release)."""
    out: list[dict[str, Any]] = []
    ao = {a["name"]: a for a in old["agents"]}
    an = {a["name"]: a for a in new["agents"]}
    for name in sorted(set(ao) | set(an)):
        a, b = ao.get(name), an.get(name)
        names = sorted(set((a or b or {}).get("names", [])) - {name}) + _own_packages(a or b or {}, roots)
        paths = sorted({x["install_path"] for x in (a, b) if x and x.get("install_path")})
        if a is None or b is None:
            out.append({"section": "agents", "kind": "added" if a is None else "removed", "key": name,
                        "aliases": names, "install_paths": paths})
            continue
        if a["version"] != b["version"]:
            out.append({"section": "agents", "kind": "changed", "key": name, "field": "version",
                        "old": a["version"], "new": b["version"], "aliases": names, "install_paths": paths})
        for field, before, after in (("models", _folded(old, name, "models"), _folded(new, name, "models")),
                                     ("mcp_servers", _folded(old, name, "mcp_servers"),
                                      _folded(new, name, "mcp_servers")),
                                     ("served_via", _routes(old, name), _routes(new, name))):
            if before != after:
                out.append({"section": "agents", "kind": "changed", "key": name, "field": field,
                            "old": before, "new": after, "aliases": names, "install_paths": paths})
    return out


def mcp_changes(old: dict[str, Any], new: dict[str, Any]) -> list[dict[str, Any]]:
    """MCP servers added or removed, per user."""
    mo = {(m["name"], m["user"]) for m in old["mcp_servers"]}
    mn = {(m["name"], m["user"]) for m in new["mcp_servers"]}
    added = [("added", name, user) for name, user in sorted(mn - mo)]
    removed = [("removed", name, user) for name, user in sorted(mo - mn)]
    return [{"section": "mcp_servers", "kind": kind, "key": name, "user": user} for kind, name, user in added + removed]


def mcp_and_wired_changes(old: dict[str, Any], new: dict[str, Any]) -> list[dict[str, Any]]:
    """MCP servers added or removed per user; models a config newly selects or no longer selects. A model the
    other tree's configs already declare (an alias block not selected yet: Kimi's `[models.gpt51-prod]`) is wired
    in both trees: its selection is the product's change (`models`), not the model's."""
    out: list[dict[str, Any]] = mcp_changes(old, new)

    def declared(t: dict[str, Any]) -> set[str]:
        return {w["id"] for w in t["wired"]} | set(t.get("acceptable", {}).get("wired", []))
    wo = {w["id"] for w in old["wired"]}
    wn = {w["id"] for w in new["wired"]}
    canonical = {w["id"]: w["canonical"] for t in (old, new) for w in t["wired"]}
    for mid in sorted(wn - declared(old)):   # newly selected: added, or a known id newly wired; either kind
        out.append({"section": "models", "key": mid, "change": "newly wired", "aliases": [canonical[mid]]})
    for mid in sorted(wo - declared(new)):
        out.append({"section": "models", "key": mid, "change": "no longer wired", "aliases": [canonical[mid]]})
    return out


def sdk_changes(old: dict[str, Any], new: dict[str, Any],
                aliases: dict[str, str] | None = None) -> list[dict[str, Any]]:
    """Each SDK version added, removed or changed per environment; with `aliases` (`ecosystem/name` to the
    package's other name) a version change also lists the other name the diff may report it under."""
    def index(t: dict[str, Any]) -> dict[tuple[str, str, str], str]:
        return {(s["ecosystem"], s["name"], env): s["version"] for s in t["sdks"] for env in s["environments"]}
    do, dn = index(old), index(new)
    out: list[dict[str, Any]] = []
    for key in sorted(set(do) | set(dn)):
        a, b = do.get(key), dn.get(key)
        if a == b:
            continue
        k = f"{key[0]}/{key[1]}"
        if a is None:
            out.append({"section": "sdks", "kind": "added", "key": k, "new": b, "environment": key[2]})
        elif b is None:
            out.append({"section": "sdks", "kind": "removed", "key": k, "old": a, "environment": key[2]})
        else:
            change: dict[str, Any] = {"section": "sdks", "kind": "changed", "key": k, "field": "version",
                                      "old": a, "new": b, "environment": key[2]}
            if aliases is not None:
                change["aliases"] = [aliases[k]] if k in aliases else []
            out.append(change)
    return out


def model_id_changes(old_root: Path, new_root: Path, changed_old: list[str],
                     changed_new: list[str]) -> tuple[list[dict[str, Any]], list[str]]:
    ids_old, ids_new = literal_ids(old_root, changed_old), literal_ids(new_root, changed_new)
    added, removed = ids_new - ids_old, ids_old - ids_new
    # still a literal in a file the two trees share (or in the other tree's changed files): in both trees
    ambiguous = (present_in(old_root, added, set()) | present_in(new_root, removed, set()))
    out = [{"section": "models", "kind": "added", "key": i} for i in sorted(added - ambiguous)]
    out += [{"section": "models", "kind": "removed", "key": i} for i in sorted(removed - ambiguous)]
    return out, sorted(ambiguous)


def current_expected(old_base: Path, new_base: Path) -> dict[str, Any]:
    """The expected diff with its model ids as the build found them in the changed files (the costly part, kept in
    `diff-truth.toml`) and everything read from the two truths (products, MCP servers, wired models, SDKs) as this
    code reads them. An expected id the other tree still names as a provider-prefixed literal is ambiguous."""
    cached = tomllib.loads((new_base / "diff-truth.toml").read_text())
    old = tomllib.loads((old_base / "truth.toml").read_text())
    new = tomllib.loads((new_base / "truth.toml").read_text())
    literal = [e for e in cached["expected"] if e["section"] == "models" and e.get("kind") in ("added", "removed")]
    still = (named_in(old_base / "root", {e["key"] for e in literal if e["kind"] == "added"}) |
             named_in(new_base / "root", {e["key"] for e in literal if e["kind"] == "removed"}))
    roots = (old_base / "root", new_base / "root")
    expected = [*agent_changes(old, new, roots), *mcp_and_wired_changes(old, new), *sdk_changes(old, new),
                *(e for e in literal if e["key"] not in still)]
    return {**cached, "expected": expected, "ambiguous": sorted(set(cached.get("ambiguous", [])) | still)}


def write_expected(old_base: Path, new_base: Path) -> Path | None:
    if not ((old_base / "truth.toml").exists() and (new_base / "truth.toml").exists()):
        return None
    old = tomllib.loads((old_base / "truth.toml").read_text())
    new = tomllib.loads((new_base / "truth.toml").read_text())
    changed_old, changed_new = differing_files(old_base / "root", new_base / "root")
    models, ambiguous = model_id_changes(old_base / "root", new_base / "root", changed_old, changed_new)
    expected = [*agent_changes(old, new, (old_base / "root", new_base / "root")), *mcp_and_wired_changes(old, new),
                *sdk_changes(old, new), *models]
    (old_base / "changed-files.json").write_text(json.dumps({"old": changed_old, "new": changed_new}, indent=0))
    data = {"corpus": f"{old_base.name} -> {new_base.name}", "changed_files_old": len(changed_old),
            "changed_files_new": len(changed_new), "expected": expected, "ambiguous": ambiguous}
    text = c.dump_toml(data, f"Expected `modelcensus diff {old_base.name} {new_base.name}`, by inspection of the "
                             "two trees\n(eval/zoo_diff.py), never from modelcensus output.")
    out = c.EVAL_DIR / "truth" / f"{new_base.name}.diff.toml"
    out.write_text(text)
    (new_base / "diff-truth.toml").write_text(text)
    return out

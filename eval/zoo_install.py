"""Installing the agent-zoo products as their users install them: `npm install -g` into /usr or a per-user
prefix, `uv tool install` and `pipx install` into the home's own folders (the layouts uv and pipx make), and
editor extensions as VS Code lays them out (`<publisher>.<name>-<version>/package.json`, `extensions.json`).

Every step is cached: a `.<step>.done` stamp beside the tree, npm's and pip's/uv's caches on the host.
"""

from __future__ import annotations

import glob
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import common as c
from zoo_products import EDITOR_DIRS, PRODUCTS, PY_VERSION, Product

TOOLS = c.CACHE / "agent-zoo" / ".tools"       # uv and pipx themselves, outside the tree
UV, PIPX = "uv==0.13.9", "pipx==1.18.4"


def python312() -> str:
    """A Python >= 3.12 on the host (kimi-cli, mistral-vibe and openhands-ai require it)."""
    cands = [*sorted(glob.glob(f"/root/.pyenv/versions/{PY_VERSION}.*/bin/python{PY_VERSION}")),
             shutil.which(f"python{PY_VERSION}")]
    for cand in cands:
        # a pyenv shim is on PATH but answers only for the global version: ask the interpreter itself
        if cand and subprocess.run([cand, "-c", "pass"], capture_output=True).returncode == 0:
            return cand
    raise SystemExit(f"eval: agent-zoo needs a python{PY_VERSION} on the host")


def tools() -> Path:
    if not (TOOLS / "bin" / "pipx").exists():
        c.venv_install(TOOLS, [UV, PIPX])
    return TOOLS / "bin"


def prefix_of(root: Path, p: Product) -> Path:
    return root / "usr" if p.layout == "npm-system" else root / f"home/{p.user}/.npm-global"


def package_dir(root: Path, p: Product) -> Path:
    """Where the product's own package (package.json or the tool's venv) sits in the tree."""
    if p.layout in ("npm-system", "npm-user"):
        return prefix_of(root, p) / "lib/node_modules" / p.package
    if p.layout == "uv":
        return root / f"home/{p.user}/.local/share/uv/tools/{p.package}"
    if p.layout == "pipx":
        return root / f"home/{p.user}/.local/share/pipx/venvs/{p.package}"
    raise ValueError(p.layout)


def npm_install(root: Path, p: Product, version: str, notes: dict[str, str]) -> None:
    """One package per call: a postinstall that downloads from a host this machine cannot reach fails alone.
    Such a package is installed again with --ignore-scripts (what its tarball holds), and the note says so."""
    prefix = prefix_of(root, p)
    prefix.mkdir(parents=True, exist_ok=True)
    base = ["npm", "install", "-g", "--prefix", str(prefix), "--os", "linux", "--cpu", "x64", "--no-fund",
            "--no-audit", "--loglevel", "error"]
    spec = f"{p.package}@{version}"
    print("eval: $", " ".join(base), spec, file=sys.stderr, flush=True)
    proc = subprocess.run([*base, spec], capture_output=True, text=True)
    if proc.returncode == 0:
        return
    print(f"eval: {spec}: install failed; installing its tarball without scripts", file=sys.stderr)
    tail = " | ".join([ln for ln in proc.stderr.splitlines() if ln.strip() and "complete log" not in ln][-3:])[:300]
    again = subprocess.run([*base, "--ignore-scripts", spec], capture_output=True, text=True)
    if again.returncode != 0:
        notes[p.id] = f"npm install failed ({tail}); not installed"
        return
    notes[p.id] = f"postinstall failed here ({tail}); installed with --ignore-scripts"


def uv_install(root: Path, p: Product, version: str, notes: dict[str, str]) -> None:
    home = root / f"home/{p.user}"
    env = {**os.environ, "UV_TOOL_DIR": str(home / ".local/share/uv/tools"),
           "UV_TOOL_BIN_DIR": str(home / ".local/bin"), "UV_PYTHON_DOWNLOADS": "never", "UV_NO_PROGRESS": "1"}
    try:
        c.run([str(tools() / "uv"), "tool", "install", "--force", "--python", python312(),
               f"{p.package}=={version}"], env=env)
    except subprocess.CalledProcessError as exc:
        notes[p.id] = f"uv tool install failed ({exc.returncode}); not installed"


def pipx_install(root: Path, p: Product, version: str, notes: dict[str, str]) -> None:
    home = root / f"home/{p.user}"
    env = {**os.environ, "PIPX_HOME": str(home / ".local/share/pipx"), "PIPX_BIN_DIR": str(home / ".local/bin"),
           "PIPX_MAN_DIR": str(home / ".local/share/man"), "USE_EMOJI": "0"}
    try:
        c.run([str(tools() / "pipx"), "install", "--force", "--python", python312(), f"{p.package}=={version}"],
              env=env)
    except subprocess.CalledProcessError as exc:
        notes[p.id] = f"pipx install failed ({exc.returncode}); not installed"
        shutil.rmtree(package_dir(root, p), ignore_errors=True)


def unroot(root: Path, p: Product) -> None:
    """The installers wrote the host path of the tree into shebangs, pyvenv.cfg and receipts; a machine has
    its own `/home/...` there. Rewrite those few files (not the packages' own code)."""
    venv = package_dir(root, p)
    if not venv.is_dir():
        return
    prefix = str(root).encode()
    files = [venv / "pyvenv.cfg", venv / "uv-receipt.toml", venv / "pipx_metadata.json",
             *sorted((venv / "bin").glob("*"))]
    for f in files:
        if f.is_file() and not f.is_symlink():
            data = f.read_bytes()
            if prefix in data:
                f.write_bytes(data.replace(prefix, b""))
    for link in [*sorted((venv / "bin").glob("*")), *sorted((root / f"home/{p.user}/.local/bin").glob("*"))]:
        if link.is_symlink() and os.readlink(link).startswith(str(root)):
            target = os.readlink(link)[len(str(root)):]
            link.unlink()
            link.symlink_to(target)


def install_products(root: Path, old: bool, notes: dict[str, str], only: set[str] | None = None) -> None:
    for p in PRODUCTS:
        if only is not None and p.id not in only:
            continue
        version = p.release(old)
        step = f"install-{p.id}"
        if c.done(root, step):
            continue
        notes.pop(p.id, None)
        if p.ecosystem == "npm":
            npm_install(root, p, version, notes)
        elif p.layout == "uv":
            uv_install(root, p, version, notes)
            unroot(root, p)
        else:
            pipx_install(root, p, version, notes)
            unroot(root, p)
        if p.id not in notes or "not installed" not in notes[p.id]:
            c.mark(root, step)


def remove_product(root: Path, p: Product) -> None:
    """Take one product out of a (hard-linked) copy of the tree before installing another release there:
    unlinking never touches the files the other tree shares."""
    shutil.rmtree(package_dir(root, p), ignore_errors=True)
    for b in p.binaries:
        for d in (prefix_of(root, p) / "bin", root / f"home/{p.user}/.local/bin"):
            if (d / b).is_symlink() or (d / b).exists():
                (d / b).unlink()


def install_extension(root: Path, home: str, editor: str, folder: str, package_json: str) -> Path:
    """`<editor dir>/<publisher.name>-<version>/package.json`, as the editor unpacks a VSIX."""
    ext = root / f"home/{home}/{EDITOR_DIRS[editor]}/{folder}"
    ext.mkdir(parents=True, exist_ok=True)
    (ext / "package.json").write_text(package_json)
    return ext


def write_extensions_manifest(root: Path, home: str, editor: str, entries: list[tuple[str, str, str]]) -> None:
    """The editor's `extensions.json`: id, version, location and relativeLocation of each installed extension."""
    base = f"/home/{home}/{EDITOR_DIRS[editor]}"
    data = [{"identifier": {"id": ident.lower()}, "version": version,
             "location": {"$mid": 1, "path": f"{base}/{folder}", "scheme": "file"},
             "relativeLocation": folder,
             "metadata": {"installedTimestamp": 1793577600000, "source": "gallery", "targetPlatform": "undefined",
                          "isPreReleaseVersion": False, "pinned": False}}
            for ident, version, folder in entries]
    c.write(root, f"{base}/extensions.json", json.dumps(data, separators=(",", ":")))

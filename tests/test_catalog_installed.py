"""`catalogs validate --installed`: every npm and PyPI agent product of the catalog checked against its real
package from the registry (its commands, its platform packages). The packages are fetched once with npm and pip
into a cache (`~/.cache/modelcensus-tests/agent-packages`, or under $XDG_CACHE_HOME); without the registries the
test skips and says why."""

from __future__ import annotations

import dataclasses
import hashlib
import json
import os
import subprocess
import tarfile
import zipfile
from pathlib import Path

import pytest
from typer.testing import CliRunner

from scanner.catalog import Catalog
from scanner.catalog.installed import check_installed
from scanner.catalog.loader import load_catalogs
from scanner.cli import app
from tests.conftest import REPO

_TIMEOUT = 600


def _cache() -> Path:
    base = Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache")
    return base / "modelcensus-tests" / "agent-packages"


def _run(*cmd: str, cwd: Path) -> None:
    try:
        subprocess.run(cmd, cwd=cwd, check=True, capture_output=True, timeout=_TIMEOUT)
    except FileNotFoundError:
        pytest.skip(f"{cmd[0]} is not installed")
    except (subprocess.CalledProcessError, subprocess.TimeoutExpired) as exc:
        err = getattr(exc, "stderr", b"") or b""
        pytest.skip(f"registry unreachable or package unavailable: {' '.join(cmd[:3])}: {err.decode()[-200:]}")


def _install(root: Path, npm: list[str], pypi: list[str]) -> None:
    """Each product package as an install lays it out: npm's global `lib/node_modules/<name>`, and each wheel's
    dist-info in a site-packages (what names the package and its commands)."""
    packs = root.parent / "npm"
    packs.mkdir(parents=True, exist_ok=True)
    for name in npm:
        dest = root / "usr/lib/node_modules" / name
        if dest.is_dir():
            continue
        before = set(packs.glob("*.tgz"))
        _run("npm", "pack", "--silent", name, cwd=packs)
        (tgz,) = set(packs.glob("*.tgz")) - before or {max(packs.glob("*.tgz"), key=os.path.getmtime)}
        with tarfile.open(tgz) as tar:
            members = [m for m in tar.getmembers() if m.name.startswith("package/") and m.name.endswith(".json")]
            for m in members:
                m.name = m.name.removeprefix("package/")
            tar.extractall(dest, members=members, filter="data")
        tgz.unlink()  # the manifests are what is checked; npm keeps the tarball in its own cache
    wheels = root.parent / "wheels"
    site = root / "usr/lib/python3.12/site-packages"
    for name in pypi:
        key = name.replace("-", "_").lower()
        if any(p.name.lower().startswith(key + "-") for p in site.glob("*.dist-info")):
            continue
        _run("python3", "-m", "pip", "download", "-q", "--no-deps", "--only-binary=:all:", "--python-version",
             "3.12", "-d", str(wheels), name, cwd=root.parent)  # fmt: skip
        wheel = max((w for w in wheels.glob("*.whl") if w.name.lower().startswith(key + "-")), key=os.path.getmtime)
        with zipfile.ZipFile(wheel) as z:
            z.extractall(site, [n for n in z.namelist() if ".dist-info/" in n.split("/", 1)[0] + "/"])
        wheel.unlink()


@pytest.fixture(scope="module")
def installed(catalog: Catalog) -> Path:
    npm = sorted({n for p in catalog.agents for eco, n in p.packages if eco == "npm"})
    pypi = sorted({n for p in catalog.agents for eco, n in p.packages if eco == "pypi"})
    digest = hashlib.sha256(repr((npm, pypi)).encode()).hexdigest()[:16]
    root = _cache() / "root"
    stamp = root / f".complete-{digest}"
    if not stamp.exists():
        root.mkdir(parents=True, exist_ok=True)
        _install(root, npm, pypi)
        stamp.write_text("\n".join(npm + pypi) + "\n")
    return root


def test_every_agent_entry_matches_its_real_package(installed: Path, catalog: Catalog) -> None:
    check = check_installed(catalog, installed)
    assert check.problems == []
    registry_products = {p.id for p in catalog.agents if any(eco in ("npm", "pypi") for eco, _ in p.packages)}
    assert registry_products <= check.checked, registry_products - check.checked


def test_validate_installed_on_the_command_line(installed: Path) -> None:
    result = CliRunner().invoke(app, ["catalogs", "validate", str(REPO / "catalogs"), "--installed", str(installed)])
    assert result.exit_code == 0, result.output
    assert "agent products checked against installed packages: aider," in result.output


EXTENSIONS = REPO / "eval" / "extensions"  # real manifests, each from its repository (SOURCE.txt there)


def test_every_editor_extension_entry_matches_its_real_manifest(tmp_path: Path, catalog: Catalog) -> None:
    """Each extension unpacked where its editor puts it (`~/.vscode/extensions/<publisher.name>-<version>/`) is
    checked by its id; a state path whose `globalStorage` folder the editor would spell otherwise is a problem."""
    for src in sorted(EXTENSIONS.glob("*/package.json")):
        doc = json.loads(src.read_text())
        folder = f"{doc['publisher']}.{doc['name']}-{doc['version']}".lower()
        dest = tmp_path / "home/alice/.vscode/extensions" / folder / "package.json"
        dest.parent.mkdir(parents=True)
        dest.write_bytes(src.read_bytes())
    check = check_installed(catalog, tmp_path)
    assert check.problems == []
    assert {"cline", "continue", "github-copilot", "kilo-code", "roo-code"} <= check.checked
    roo = next(p for p in catalog.agents if p.id == "roo-code")
    miscased = dataclasses.replace(roo, settings=tuple(
        dataclasses.replace(f, path=f.path.replace("rooveterinaryinc.roo-cline", "RooVeterinaryInc.roo-cline"))
        for f in roo.settings))
    files = [dataclasses.replace(f, agents=tuple(miscased if a.id == "roo-code" else a for a in f.agents))
             for f in load_catalogs()]
    problems = check_installed(Catalog(files), tmp_path).problems
    assert problems and all(p.startswith("roo-code: vscode RooVeterinaryInc.roo-cline") for p in problems)


def test_entry_points_give_console_and_gui_scripts_to_both_readers() -> None:
    # One reader of `entry_points.txt` for `catalogs validate --installed` and the programs detector.
    from scanner.formats.entry_points import script_names

    text = "[console_scripts]\nagent = agent.cli:main\n\n[gui_scripts]\nagent-gui = agent.gui:main\n\n[x]\ny = z\n"
    assert script_names(text) == ("agent", "agent-gui")


def test_an_unreadable_package_is_left_out_not_an_internal_error(tmp_path: Path) -> None:
    broken = tmp_path / "usr/lib/python3/dist-packages/broken-1.0.dist-info/METADATA"
    broken.mkdir(parents=True)  # a directory where the file should be: reading it raises IsADirectoryError
    result = CliRunner().invoke(app, ["catalogs", "validate", str(REPO / "catalogs"), "--installed", str(tmp_path)])
    assert result.exit_code == 0 and "internal error" not in result.output, result.output

"""Shared fixtures: the built-in catalog (loaded once), a scan helper, and schema validation."""

from __future__ import annotations

import json
import os
from collections.abc import Callable
from pathlib import Path
from typing import Any

import jsonschema
import pytest
from hypothesis import HealthCheck, settings

from scanner import api
from scanner.catalog import Catalog, load
from scanner.inventory.document import dumps, load_schema
from scanner.kinds import Inventory
from scanner.options import ScanOptions
from scanner.targets import Walker, WalkOptions

REPO = Path(__file__).resolve().parent.parent
SAMPLE_VM = REPO / "sample_vm"

_VALIDATOR = jsonschema.Draft202012Validator(load_schema())


@pytest.fixture(scope="session")
def catalog() -> Catalog:
    return load()


def validate_document(doc: dict[str, Any]) -> None:
    """Every inventory a test produces must satisfy the shipped JSON Schema."""
    _VALIDATOR.validate(doc)


ScanFn = Callable[..., tuple[Inventory, dict[str, Any]]]


@pytest.fixture
def scan_dir(catalog: Catalog) -> ScanFn:
    """Scan a directory as a VM root; returns the inventory and its (schema-validated) JSON document."""

    def run(root: Path, **options: Any) -> tuple[Inventory, dict[str, Any]]:
        opts = ScanOptions(**options)
        target = Walker(str(root), WalkOptions(opts.include_pseudo, opts.one_file_system))
        inv = api.scan(target, api.ScanRequest(opts), catalog)
        doc = json.loads(dumps(inv))
        validate_document(doc)
        return inv, doc

    return run


def write(root: Path, inside: str, content: str | bytes, mode: int | None = None) -> Path:
    """Create a file at an inside-VM path under `root`."""
    path = root / inside.lstrip("/")
    path.parent.mkdir(parents=True, exist_ok=True)
    if isinstance(content, str):
        path.write_text(content, encoding="utf-8")
    else:
        path.write_bytes(content)
    if mode is not None:
        path.chmod(mode)
    return path


def names(doc: dict[str, Any], section: str = "models", key: str = "name") -> set[str]:
    return {entry[key] for entry in doc[section]}


def entry(doc: dict[str, Any], section: str, **match: Any) -> dict[str, Any]:
    """The one entry of a section whose fields equal `match`; fails clearly when absent."""
    found = [e for e in doc[section] if all(e.get(k) == v for k, v in match.items())]
    assert found, f"no {section} entry with {match}; have {[{k: e.get(k) for k in match} for e in doc[section]]}"
    return found[0]


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption("--update-golden", action="store_true", default=False,
                     help="rewrite tests/data/golden/* from the current output instead of comparing")


@pytest.fixture(scope="session")
def update_golden(request: pytest.FixtureRequest) -> bool:
    return bool(request.config.getoption("--update-golden"))


def sample_vm_copy(root: Path) -> Path:
    """sample_vm copied to `root` with the modes and owners the VM gives its files (as `make test` applies)."""
    import importlib.util
    import shutil

    shutil.copytree(SAMPLE_VM, root, symlinks=True)
    spec = importlib.util.spec_from_file_location("apply_perms", REPO / "scripts" / "apply_perms.py")
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    module.main(str(root), str(REPO / "sample_vm.perms"))
    return root


# Hypothesis profiles: "ci" bounds every property in `make test`; `make fuzz` runs "fuzz" (HYPOTHESIS_PROFILE),
# 10,000 examples per property. A test's own @settings(max_examples=…) wins over the profile: the fuzz targets
# give theirs as `examples(n)`.
settings.register_profile(
    "ci", max_examples=50, deadline=None, suppress_health_check=[HealthCheck.too_slow], derandomize=True
)
FUZZ_EXAMPLES = 10_000
settings.register_profile(
    "fuzz",
    max_examples=FUZZ_EXAMPLES,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "ci"))


def examples(n: int) -> int:
    """A property's own example count: `n` in `make test`, the fuzz profile's under `make fuzz` (a test's
    @settings would otherwise keep its own count there too)."""
    return FUZZ_EXAMPLES if os.environ.get("HYPOTHESIS_PROFILE") == "fuzz" else n


# --- trees full of links, for the walker's property tests (any backend) ----------------------------

_LINK_NAMES = ["a", "b", "c", "..", ".", "etc", "x.yaml"]


def link_tree_ops() -> Any:
    """Hypothesis: a list of (kind, path parts, (absolute, link target parts)) that `build_link_tree` makes."""
    from hypothesis import strategies as hs

    return hs.lists(
        hs.tuples(
            hs.sampled_from(["dir", "file", "link"]),
            hs.lists(hs.sampled_from(["a", "b", "c", "x.yaml"]), min_size=1, max_size=3),
            hs.tuples(hs.booleans(), hs.lists(hs.sampled_from(_LINK_NAMES), min_size=0, max_size=6)),
        ),
        max_size=25,
    )


def build_link_tree(root: Path, ops: list[Any]) -> None:
    for kind, parts, (absolute, link_parts) in ops:
        path = root.joinpath(*parts)
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            if kind == "dir":
                path.mkdir(exist_ok=True)
            elif kind == "file":
                path.write_text("model: claude-opus-4-8\n")
            else:
                path.symlink_to(("/" if absolute else "") + "/".join(link_parts))
        except OSError:
            continue  # a parent is a file or a link: that shape is simply not built

"""Extension points are added in one place; a piece added half-way fails here, by name."""

from __future__ import annotations

import ast
import dataclasses
import importlib
import inspect
import pkgutil
import re
import typing
from collections import Counter

import typer.main
from typer.testing import CliRunner

import scanner.detectors as detectors_pkg
import scanner.kinds as kinds_pkg
import scanner.render as render_pkg
from scanner.catalog import load as load_catalog
from scanner.cli import app
from scanner.detectors import DETECTORS
from scanner.detectors.contract import Needs, Reading
from scanner.findings.derive import RULES
from scanner.inventory.builder import InventoryBuilder
from scanner.kinds import KINDS, Evidence, Inventory
from scanner.kinds.base import Kind
from scanner.model import Skip
from scanner.render import RENDERERS
from scanner.sightings import Sightings
from tests.conftest import REPO

README = (REPO / "README.md").read_text(encoding="utf-8")

def _modules(pkg) -> list[str]:  # type: ignore[no-untyped-def]
    # A module whose name starts with `_` is a private helper of its package (render/_svg.py), not an entry.
    return sorted(m.name for m in pkgutil.iter_modules(pkg.__path__) if not m.name.startswith("_"))


def _detector_classes(name: str) -> list[type]:
    """The detectors a module of scanner/detectors/ defines, known by type: classes that declare `needs: Needs`."""
    module = importlib.import_module(f"scanner.detectors.{name}")
    return [c for _, c in inspect.getmembers(module, inspect.isclass)
            if c.__module__ == module.__name__ and isinstance(vars(c).get("needs"), Needs)]  # fmt: skip


def test_detectors_holds_detectors_only_and_each_is_registered() -> None:
    modules = [name for name in _modules(detectors_pkg) if name != "contract"]  # the contract they share
    for name in modules:
        classes = _detector_classes(name)
        assert classes, f"scanner/detectors/{name}.py defines no detector: shared code goes to formats/ or configs/"
        for cls in classes:
            assert any(isinstance(d, cls) for d in DETECTORS), f"{cls.__name__} is not in DETECTORS"
    assert {type(d).__module__.rsplit(".", 1)[-1] for d in DETECTORS} == set(modules)


def test_detectors_are_complete_and_documented() -> None:
    names = [d.name for d in DETECTORS]
    assert len(set(names)) == len(names)
    for d in DETECTORS:
        assert d.description and isinstance(d.needs, Needs) and d.needs.files and callable(d.extract)
        assert f"`{d.name}`" in README, f"detector {d.name} is not described in README.md"


def test_every_renderer_module_is_registered_and_documented() -> None:
    assert set(_modules(render_pkg)) == set(RENDERERS)
    for name, module in RENDERERS.items():
        assert module.description and callable(module.render)
        assert f"`{name}`" in README, f"format {name} is not described in README.md"


def test_format_choices_come_from_the_registry() -> None:
    result = CliRunner().invoke(app, ["scan", "--help"], env={"COLUMNS": "200"})
    assert result.exit_code == 0
    for name in RENDERERS:
        assert name in result.output


def _commands(group, prefix: str = "") -> list[tuple[str, object]]:  # type: ignore[no-untyped-def]
    out = []
    for name, cmd in getattr(group, "commands", {}).items():
        path = f"{prefix} {name}".strip()
        out.append((path, cmd))
        out += _commands(cmd, path)
    return out


def test_every_command_has_help_and_is_in_the_readme() -> None:
    commands = _commands(typer.main.get_command(app))
    assert {"scan", "catalogs", "catalogs list", "catalogs show", "catalogs validate"} <= {p for p, _ in commands}
    for path, cmd in commands:
        assert getattr(cmd, "help", None) or getattr(cmd, "short_help", None), f"`{path}` has no help text"
        assert re.search(rf"modelcensus {re.escape(path)}\b", README), f"`modelcensus {path}` is not in README.md"


def test_every_finding_rule_is_registered_data() -> None:
    """Each rule carries its id, severity, title and help; ids are unique, so SARIF groups by the rule that found."""
    ids = [r.id for r in RULES]
    assert len(set(ids)) == len(ids)
    assert {"external-model-wired", "session-label-mismatch", "setting-runtime-differs"} <= set(ids)
    for r in RULES:
        assert re.fullmatch(r"[a-z]+(-[a-z]+)*", r.id), r.id
        assert r.title and r.help and r.title != "modelcensus finding" and callable(r.find)


def test_no_rule_module_builds_findings_by_hand() -> None:
    """A rule yields hits; only its registry entry makes a Finding, so an id always starts with its rule's id."""
    for path in (REPO / "scanner" / "findings").glob("*.py"):
        if path.name != "rule.py":
            assert "Finding(" not in path.read_text(encoding="utf-8"), path


def test_findings_are_derived_in_one_place() -> None:
    """A scan and a live audit derive their findings in the inventory builder, once, from the whole inventory."""
    callers = sorted(
        str(p.relative_to(REPO)) for p in (REPO / "scanner").rglob("*.py") if "derive_findings(" in p.read_text()
    )
    assert callers == ["scanner/findings/derive.py", "scanner/inventory/builder.py"]


def test_only_the_library_runs_the_pipeline() -> None:
    """The command line, diff, the fleet's worker, eval, the scripts and the tests scan through `scanner.api`."""
    runs = re.compile(r"^\s*(?:from scanner\.pipeline import|from scanner import pipeline|import scanner\.pipeline)",
                      re.M)
    found = sorted(
        path.relative_to(REPO).as_posix()
        for folder in ("scanner", "tests", "eval", "scripts")
        for path in (REPO / folder).rglob("*.py")
        if runs.search(path.read_text(encoding="utf-8", errors="replace"))
    )
    assert found == ["scanner/api.py"]


def test_live_interprets_facts_and_runs_no_scan() -> None:
    """live/ turns what the running system shows into inventory parts; the audit that scans is above it."""
    upward = r"pipeline|pool|api|cli|render|findings|inventory"
    above = re.compile(rf"^\s*(?:from|import) scanner\.(?:{upward})\b", re.M)
    for path in sorted((REPO / "scanner" / "live").glob("*.py")):
        assert not above.search(path.read_text(encoding="utf-8")), path


def test_every_diff_renderer_module_is_registered_and_documented() -> None:
    import scanner.diffrender as diffrender_pkg
    from scanner.diffrender import DIFF_RENDERERS

    modules = _modules(diffrender_pkg)
    assert set(modules) == set(DIFF_RENDERERS)
    result = CliRunner().invoke(app, ["diff", "--help"], env={"COLUMNS": "200"})
    assert result.exit_code == 0
    for name, module in DIFF_RENDERERS.items():
        assert module.description and callable(module.render)
        assert f"`{name}`" in README, f"diff format {name} is not described in README.md"
        assert name in result.output


# --- kinds of fact: one module each, registered once ------------------------------------------------------

_HEADER_FIELDS = {"tool_version", "catalogs", "target", "stats", "env_settings", "absent"}
_PRODUCER_ORDER = {"findings", "processes", "connections"}  # ordered by what makes them, not by a sort key


def _kind_modules() -> list[str]:
    return sorted(m.name for m in pkgutil.iter_modules(kinds_pkg.__path__) if m.name != "base")


def test_every_kind_module_declares_one_registered_kind() -> None:
    for name in _kind_modules():
        module = importlib.import_module(f"scanner.kinds.{name}")
        kind = getattr(module, "KIND", None)
        assert isinstance(kind, Kind), f"scanner/kinds/{name}.py declares no KIND"
        assert kind in KINDS, f"scanner/kinds/{name}.py's KIND is not in KINDS"
        assert kind.key == name, f"scanner/kinds/{name}.py declares the kind {kind.key!r}"
    assert len(KINDS) == len(_kind_modules())
    assert len({k.key for k in KINDS}) == len(KINDS)


def test_every_kind_is_an_inventory_field_and_every_field_a_kind() -> None:
    hints = typing.get_type_hints(Inventory)
    fields = {f.name for f in dataclasses.fields(Inventory)} - _HEADER_FIELDS
    assert fields == {k.key for k in KINDS}
    for kind in KINDS:
        expected: object = tuple[kind.entry, ...]  # type: ignore[name-defined]
        if kind.optional:
            expected = expected | None  # type: ignore[operator]
        assert hints[kind.key] == expected, f"Inventory.{kind.key} is not typed {expected}"


def test_every_evidence_type_has_exactly_one_kind_and_the_builder_takes_it() -> None:
    members = {*typing.get_args(Evidence), Skip}
    claims = Counter(t for k in KINDS for t in k.evidence)
    assert set(claims) == members, "an evidence type no kind claims, or a claimed type not in Evidence"
    assert all(n == 1 for n in claims.values()), f"claimed twice: {[t for t, n in claims.items() if n > 1]}"
    for kind in KINDS:
        assert bool(kind.evidence) == (kind.fold is not None), f"{kind.key}: evidence without a fold, or back"
    assert InventoryBuilder(load_catalog()).takes == members | {Sightings}
    for kind in KINDS:  # a kind whose fold takes a file's bundled sightings: each of its evidence has one place
        for evidence in kind.evidence if kind.sightings else ():
            location = {f.name: f.type for f in dataclasses.fields(evidence)}.get("location")
            assert location == "Location", f"{evidence.__name__} is bundled by its location, and has none"


def test_every_kind_declares_what_the_formats_and_diff_need() -> None:
    for kind in KINDS:
        assert kind.title and kind.columns, f"{kind.key}: no title or columns"
        assert (kind.order is None) == (kind.key in _PRODUCER_ORDER), f"{kind.key}: an order, or why none"
        assert dataclasses.is_dataclass(kind.entry)
        for cls in kind.shapes:
            assert dataclasses.is_dataclass(cls), f"{kind.key}: a JSON shape of {cls}, not a dataclass"


_UPPER = ("scanner.inventory", "scanner.detectors", "scanner.render", "scanner.findings", "scanner.diff", "scanner.cli")


def test_kinds_build_on_the_kernel_only() -> None:
    # A kind module imports the kernel, the contract, the catalogs and other kinds' types at its top; what builds
    # on the kinds (the inventory, detectors, formats, findings) never, or the registry could not load first.
    # A kind too large for one module is a package of them; `findings.rule` (what a rule is) is a leaf a kind's own
    # rules are made of.
    root = REPO / "scanner" / "kinds"
    for name in ["base", *_kind_modules()]:
        files = sorted((root / name).glob("*.py")) if (root / name).is_dir() else [root / f"{name}.py"]
        for path in files:
            for node in ast.parse(path.read_text(encoding="utf-8")).body:
                if isinstance(node, ast.ImportFrom) and node.module and node.module != "scanner.findings.rule":
                    assert not node.module.startswith(_UPPER), f"{path.relative_to(REPO)} imports {node.module}"


def test_values_are_scrubbed_in_two_named_places_only() -> None:
    # Key normalisation at intake (FoldContext.as_shown / is_secret) and the one redaction step (redact_all).
    allowed = {"scanner/kinds/base.py", "scanner/inventory/redact.py"}
    for path in [*(REPO / "scanner" / "kinds").rglob("*.py"), *(REPO / "scanner" / "inventory").glob("*.py")]:
        rel = path.relative_to(REPO).as_posix()
        if rel not in allowed:
            assert ".scrub(" not in path.read_text(encoding="utf-8"), f"{rel} scrubs values itself"


# --- detectors declare what they are; the pipeline asks by type and value --------------------------------


def test_every_detector_declares_how_it_reads_a_big_file() -> None:
    for d in DETECTORS:
        assert isinstance(d.needs.reading, Reading), f"{d.name} declares no Reading"


def test_no_detector_constructs_another_or_reaches_into_a_cache() -> None:
    classes = {type(d).__name__ for d in DETECTORS}
    for path in sorted((REPO / "scanner" / "detectors").glob("*.py")):
        text = path.read_text(encoding="utf-8")
        if path.name != "__init__.py":  # each module makes its own one instance, `DETECTOR`
            made = [c for c in classes if len(re.findall(rf"\b{c}\(", text)) > text.count(f"\nDETECTOR = {c}()")]
            assert not made, f"{path.name} constructs {made}: yield `Derived` bytes for the matchers instead"
        assert "__dict__" not in text, f"{path.name} writes into another object's cache"
    for name in ("pipeline", "filework", "windows", "analysis", "selection"):
        source = (REPO / "scanner" / f"{name}.py").read_text(encoding="utf-8")
        assert "__dict__" not in source and "getattr(" not in source, name
        # The pipeline knows the detector contract and the registry, never a detector by module or name.
        imported = set(re.findall(r"^from scanner\.detectors(?:\.(\w+))? import", source, re.M))
        assert imported <= {"", "contract"}, (name, imported)


def test_the_readme_shows_the_layout_rules_and_every_extension_point() -> None:
    development = README.split("## Development", 1)[1]
    for named in ("kinds/", "KINDS", "api.py", "joins.py", "Needs", "Files(", "Reading", "Derived", "redact_all",
                  "scripts/sizes.py"):
        assert named in development, f"README's Development section does not name {named}"
    for point in ("A kind of fact", "A detector", "A file format", "A cross-kind join", "A finding rule",
                  "A report format", "A vendor or catalog entry", "A session adapter", "A target backend",
                  "A fleet table", "The library"):
        assert f"**{point}.**" in development, f"README shows no worked example of: {point}"


# --- a kind's catalog section and a detector's settings reach the catalog and the command line by declaration ------


def test_every_catalog_section_is_parsed_from_every_file_and_owns_its_tables() -> None:
    from scanner.catalog import load
    from scanner.catalog.sections import declared

    sections = declared()
    assert sections, "no kind declares a catalog section"
    owned = [table for s in sections for table in s.tables]
    assert len(owned) == len(set(owned)), "two sections claim one table"
    catalog = load()
    for s in sections:
        assert all(s.name in f.sections for f in catalog.files), s.name
        assert s.of(catalog) is s.of(catalog)  # merged once


def test_every_detector_setting_is_a_flag_of_scan() -> None:
    import typer.main

    from scanner.cli import app
    from scanner.detectors import SETTINGS

    scan = typer.main.get_command(app).commands["scan"]  # type: ignore[attr-defined]
    flags = {opt for param in scan.params for opt in param.opts}
    assert SETTINGS
    for setting in SETTINGS:
        assert re.fullmatch(r"[a-z0-9]+(-[a-z0-9]+)*", setting.name) and setting.help
        assert f"--no-{setting.name}" in flags


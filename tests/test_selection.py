"""The index of the detectors' needs (scanner/selection.py) gives exactly what their declarations say
(`Needs.selects`), in registry order, on real trees and on made-up names, folders and heads."""

from __future__ import annotations

from collections.abc import Iterator

from hypothesis import given
from hypothesis import strategies as st

from scanner.catalog import Catalog
from scanner.detectors import DETECTORS
from scanner.detectors.contract import Files, Needs, Reading
from scanner.fileview.view import FileView
from scanner.model import FileMeta, Skip, SkipReason
from scanner.options import ScanOptions
from scanner.selection import Selection
from scanner.targets import WalkOptions
from scanner.targets.base import FileEntry
from scanner.targets.registry import open_target
from tests.conftest import SAMPLE_VM


def _view(catalog: Catalog, path: str, data: bytes, size: int | None = None) -> FileView:
    entry = FileEntry(path, len(data) if size is None else size, 0o100644, 0, 0)
    return FileView(entry, data, catalog, lambda _e: FileMeta("0644", "root:root"), lambda _p, _n: None)


def _declared(view: FileView) -> list[str]:
    return [d.name for d in DETECTORS if d.needs.selects(view)]


_SELECTIONS: dict[int, Selection] = {}


def _indexed(view: FileView) -> list[str]:
    selection = _SELECTIONS.setdefault(id(view.catalog), Selection(DETECTORS, view.catalog))
    chosen = selection.of(view)
    assert all(s.failure is None for s in chosen)
    return [s.detector.name for s in chosen]


def _sample_vm_views(catalog: Catalog) -> Iterator[FileView]:
    target = open_target(str(SAMPLE_VM), None, WalkOptions()).target
    for item in target.walk():
        if not isinstance(item, Skip):
            data = target.read(item, ScanOptions().max_file_size).data
            yield FileView(item, data, catalog, lambda _e: FileMeta("0644", "root:root"), target.read_path)


def test_the_index_selects_what_the_declarations_say_on_sample_vm(catalog: Catalog) -> None:
    seen: set[str] = set()
    for view in _sample_vm_views(catalog):
        assert _indexed(view) == _declared(view), view.entry.path
        seen.update(_declared(view))
    assert {"config", "content", "sessions", "source", "packages", "agent_settings", "agent_configs"} <= seen


_FOLDERS = ["home", "u", "node_modules", "@scope", "pkg", "site-packages", "x.dist-info", "conda-meta", "keys",
            "specifications", ".vscode", "extensions", "a.b-1.0", "bin", "manifests", "refs", "models--o--m", "etc",
            "x.service.d", "usr", "lib", "tests", ".claude", ".codex", "Keys"]  # fmt: skip
_NAMES = ["package.json", "METADATA", "PKG-INFO", "x.egg-info", "requirements-dev.txt", "Requirements.in",
          "pyproject.toml", "go.sum", "Cargo.lock", "a.jar", "b.gemspec", "c.nuspec", ".crates2.json", "x.json",
          "openai.key", "API_KEY.txt", "token", "settings.json", "config.toml", "m.gguf", "w.safetensors", "run.sh",
          "x.service", "o.conf", "c.yaml", "state.vscdb", "claude", "main.py", ".env", "notes", "a.KEY"]  # fmt: skip
_HEADS = [b"", b"\x7fELF\x02\x01", b"\x1f\x8b\x08", b"PK\x03\x04", b"GGUF\x03", b"#!/bin/sh\nollama serve\n",
          b'{"mcpServers": {"x": {"command": "y"}}}', b"model: gpt-5.5\n", b"\x80\x02", b"MZ"]  # fmt: skip


@given(folders=st.lists(st.sampled_from(_FOLDERS), max_size=6), name=st.sampled_from(_NAMES),
       head=st.sampled_from(_HEADS), size=st.sampled_from([None, 5000, 5 << 20, 100 << 20]))  # fmt: skip
def test_the_index_selects_what_the_declarations_say_anywhere(
    catalog: Catalog, folders: list[str], name: str, head: bytes, size: int | None
) -> None:
    view = _view(catalog, "/" + "/".join([*folders, name]), head, size)
    assert _indexed(view) == _declared(view)


# Folders that key a kind (by parent, by a folder above, by a catalog's glob) or that change a file's context.
_PLACES = ["", "/home/u", "/home/u/keys", "/home/u/Keys", "/usr/lib/node_modules/pkg", "/x/site-packages/x.dist-info",
           "/opt/conda-meta", "/g/specifications", "/home/u/.vscode/extensions/a.b-1.0", "/v/bin", "/m/manifests",
           "/h/models--o--m/refs", "/etc/x.service.d", "/srv/tests", "/home/u/.claude", "/home/u/.codex"]  # fmt: skip


def test_the_index_selects_what_the_declarations_say_for_every_name_place_and_head(catalog: Catalog) -> None:
    """Every name and head in every place, at two sizes: no key of the index is left to chance."""
    for place in _PLACES:
        for name in _NAMES:
            for head in _HEADS:
                for size in (None, 100 << 20):
                    view = _view(catalog, f"{place}/{name}", head, size)
                    assert _indexed(view) == _declared(view), (view.entry.path, head, size)


# Folders of one name (`app`, `bin`) under different folders above: a file's keys are its own folder's, never the
# last file's folder of the same name.
_NAMESAKES = ["/x/site-packages/app", "/srv/app", "/home/u/keys/app", "/opt/app", "/a/node_modules/bin", "/v/bin",
              "/r/extensions/bin", "/bin"]  # fmt: skip


def test_the_index_selects_what_the_declarations_say_from_folder_to_namesake_folder(catalog: Catalog) -> None:
    selection = Selection(DETECTORS, catalog)  # its own: the files come in exactly this order
    for name in _NAMES:
        for place in [*_NAMESAKES, *reversed(_NAMESAKES)]:
            view = _view(catalog, f"{place}/{name}", b"")
            chosen = [s.detector.name for s in selection.of(view)]
            assert chosen == _declared(view), view.entry.path


def _refuse(view: FileView) -> bool:
    raise ValueError("no")


class _Refusing:
    name = "refusing"
    description = "a detector whose question fails"
    needs = Needs((Files(names=("*.json",), accept=_refuse),), Reading.WHOLE)

    def extract(self, view: FileView) -> Iterator[Skip]:
        yield Skip(view.path, SkipReason.PARSE_ERROR, "never asked")


def test_a_failing_question_is_the_detectors_error_and_the_others_still_run(catalog: Catalog) -> None:
    selection = Selection((*DETECTORS, _Refusing()), catalog)
    chosen = selection.of(_view(catalog, "/home/u/x.json", b"{}"))
    assert [s.detector.name for s in chosen][-1] == "refusing" and chosen[-1].failure == "ValueError"
    assert "content" in [s.detector.name for s in chosen]


def _readme_detector() -> type:
    """The README's worked example of a detector, run as written."""
    import dataclasses
    from collections.abc import Iterator as _Iterator

    from scanner.detectors.contract import Derived
    from scanner.model import Context, Location
    from tests.conftest import REPO

    text = (REPO / "README.md").read_text(encoding="utf-8")
    block = text.split("**A detector.**", 1)[1].split("```python\n", 1)[1].split("```", 1)[0]

    @dataclasses.dataclass(frozen=True)
    class NoteEvidence:
        text: str
        location: Location

    namespace = {"Needs": Needs, "Files": Files, "Reading": Reading, "Context": Context, "FileView": FileView,
                 "Iterator": _Iterator, "Skip": Skip, "Derived": Derived, "NoteEvidence": NoteEvidence}  # fmt: skip
    exec(compile(block, "README.md", "exec"), namespace)  # noqa: S102 - the README's own example
    detector: type = namespace["NoteDetector"]
    return detector


def test_the_readme_example_of_a_detector_is_true(catalog: Catalog) -> None:
    detector = _readme_detector()()
    selection = Selection((*DETECTORS, detector), catalog)
    chosen = {
        path: [s.detector.name for s in selection.of(_view(catalog, path, data))]
        for path, data in (("/home/u/NOTES", b"buy milk"), ("/home/u/work.NOTES", b"x"),
                           ("/srv/notes/today.md", b"# notes\n- call\n"), ("/srv/notes/today.txt", b"# notes\nnone"),
                           ("/usr/lib/python3/site-packages/x/NOTES", b"x"), ("/home/u/README", b"x"))  # fmt: skip
    }
    assert {path for path, names in chosen.items() if "notes" in names} == {
        "/home/u/NOTES", "/home/u/work.NOTES", "/srv/notes/today.md"}  # fmt: skip
    lines = list(detector.extract(_view(catalog, "/home/u/NOTES", b"buy milk\ncall")))
    assert [(e.text, e.location.line) for e in lines] == [("buy milk", 1), ("call", 2)]

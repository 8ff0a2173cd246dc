"""A file's context from its inside path: tests wherever they sit, packages' own tests, editors' extensions."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from scanner.fileview.contexts import classify, is_package_test_file, is_test_path
from scanner.formats.install_paths import EDITORS, extension_of
from scanner.model import Context


def test_a_test_file_is_known_by_its_name_or_a_folder_of_tests_whatever_the_case() -> None:
    for path in ("/srv/app/test_models.py", "/srv/app/Tests/models.yaml", "/srv/app/__fixtures__/a.json",
                 "/srv/app/models.spec.ts", "/srv/app/conftest.py", "/srv/app/E2E/run.sh"):  # fmt: skip
        assert is_test_path(path) and classify(path, b"") is Context.TEST, path
    for path in ("/srv/app/models.py", "/srv/tests.yaml", "/srv/testing/x.json", "/srv/app/latest.json"):
        assert not is_test_path(path) and classify(path, b"") is not Context.TEST, path


def test_only_the_path_inside_a_package_dir_makes_a_package_test_file() -> None:
    site = "/home/u/tests/venv/lib/python3.12/site-packages"
    assert is_package_test_file(f"{site}/mistralai/extra/tests/test_x.py")
    assert is_package_test_file(f"{site}/mistralai/conftest.py")
    assert not is_package_test_file(f"{site}/mistralai/models.py")  # `tests` above the package dir does not count
    assert not is_package_test_file("/srv/app/tests/test_x.py")  # in no package at all


def test_every_editor_that_unpacks_extensions_makes_them_installed_packages() -> None:
    for editor in EDITORS.split("|"):
        path = f"/home/u/.{editor}/extensions/pub.ext-1.0.0/dist/extension.js"
        assert classify(path, b"") is Context.PACKAGE, path
        assert extension_of(path) == (f"/home/u/.{editor}/extensions/pub.ext-1.0.0", editor, "/dist/extension.js")
    assert classify("/home/u/.vscodium-nightly/extensions/pub.ext/dist/extension.js", b"") is Context.SOURCE


_SEGMENTS = ["usr", "lib", "share", "doc", "man", "python3", "site-packages", "node_modules", "tests", "examples",
             "sessions", "var", "log", "etc", "default", "home", "u", "x", "app"]  # fmt: skip
_FILE_NAMES = ["a.py", "README", "x.json", "test_x.py", "lib.so.1", "examples", "c.yaml", ".env", "run.log", "bin"]


@given(st.lists(st.tuples(st.lists(st.sampled_from(_SEGMENTS), max_size=5), st.sampled_from(_FILE_NAMES)),
                min_size=1, max_size=8))  # fmt: skip
def test_a_files_context_is_the_same_whichever_file_of_any_folder_was_classified_before(
    files: list[tuple[list[str], str]],
) -> None:
    """A folder's part of the context is found once for its files in a row: never carried to another folder."""
    paths = ["/" + "/".join([*folders, name]) for folders, name in files]
    in_order = [classify(path, b"") for path in paths]
    for path, context in reversed(list(zip(paths, in_order, strict=True))):
        assert classify(path, b"") is context, path
    for path in paths:
        classify("/elsewhere/z.txt", b"")
        assert classify(path, b"") is in_order[paths.index(path)], path


def test_a_folder_named_like_a_file_or_a_name_named_like_a_folder_keeps_its_own_role() -> None:
    assert classify("/srv/app/examples", b"") is Context.DOCS  # a file named `examples`
    assert classify("/srv/app/examples/x.json", b"") is Context.DOCS
    assert classify("/srv/app/x.json", b"") is Context.CONFIG
    assert classify("/srv/tests", b"") is not Context.TEST  # a file named `tests` is no folder of tests
    assert classify("/srv/tests/x.json", b"") is Context.TEST

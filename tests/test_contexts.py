"""A file's context from its inside path: tests wherever they sit, packages' own tests, editors' extensions."""

from __future__ import annotations

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

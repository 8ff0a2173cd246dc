"""`ecosystems` and `lockfiles` on real formats: a jar built with zipfile, conda-meta, gemspec, nuspec, locks."""

from __future__ import annotations

import io
import json
import zipfile
from pathlib import Path

from tests.conftest import ScanFn, entry, names, write


def _jar(members: dict[str, str]) -> bytes:
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", zipfile.ZIP_DEFLATED) as jar:
        jar.writestr("META-INF/MANIFEST.MF", "Manifest-Version: 1.0\n")
        for name, text in members.items():
            jar.writestr(name, text)
    return buf.getvalue()


def test_installed_packages_of_every_ecosystem(tmp_path: Path, scan_dir: ScanFn) -> None:
    # The fat jar of an app bundles the SDK's own pom.properties, as the maven-archiver writes it.
    pom = "#Created by Apache Maven 3.9.9\ngroupId=com.anthropic\nartifactId=anthropic-java-core\nversion=2.11.0\n"
    other = "groupId=com.fasterxml.jackson.core\nartifactId=jackson-core\nversion=2.18.2\n"
    write(
        tmp_path,
        "/opt/app/lib/app-all.jar",
        _jar(
            {
                "META-INF/maven/com.anthropic/anthropic-java-core/pom.properties": pom,
                "META-INF/maven/com.fasterxml.jackson.core/jackson-core/pom.properties": other,
            }
        ),
    )
    write(
        tmp_path,
        "/opt/conda/conda-meta/openai-1.109.1-pyhd8ed1ab_0.json",
        json.dumps({"name": "openai", "version": "1.109.1", "build": "pyhd8ed1ab_0", "files": []}),
    )
    write(tmp_path, "/opt/conda/conda-meta/numpy-2.1.0-py311_0.json", json.dumps({"name": "numpy", "version": "2.1.0"}))
    write(
        tmp_path,
        "/usr/local/bundle/specifications/ruby-openai-7.3.1.gemspec",
        '# -*- encoding: utf-8 -*-\nGem::Specification.new do |s|\n  s.name = "ruby-openai".freeze\n'
        '  s.version = "7.3.1"\nend\n',
    )
    write(
        tmp_path,
        "/root/.nuget/packages/anthropic/10.2.0/anthropic.nuspec",
        '<?xml version="1.0"?><package xmlns="http://schemas.microsoft.com/packaging/2013/05/nuspec.xsd">'
        "<metadata><id>Anthropic</id><version>10.2.0</version></metadata></package>",
    )
    write(
        tmp_path,
        "/srv/bot/obj/project.assets.json",
        json.dumps({"version": 3, "libraries": {"OpenAI/2.2.0": {"type": "package"}, "Newtonsoft.Json/13.0.3": {}}}),
    )
    write(
        tmp_path,
        "/root/.cargo/.crates2.json",
        json.dumps({"installs": {"async-openai 0.29.0 (registry+https://github.com/rust-lang/crates.io-index)": {}}}),
    )
    _, doc = scan_dir(tmp_path)
    sdks = {(s["ecosystem"], s["name"], s["version"]) for s in doc["sdks"]}
    assert sdks == {
        ("maven", "com.anthropic:anthropic-java-core", "2.11.0"),
        ("pypi", "openai", "1.109.1"),
        ("gem", "ruby-openai", "7.3.1"),
        ("nuget", "Anthropic", "10.2.0"),
        ("nuget", "OpenAI", "2.2.0"),
        ("cargo", "async-openai", "0.29.0"),
    }
    assert all(s["installed"] for s in doc["sdks"])
    assert entry(doc, "sdks", ecosystem="maven")["environment"] == "/opt/app/lib/app-all.jar"


def test_a_corrupt_jar_is_not_an_error(tmp_path: Path, scan_dir: ScanFn) -> None:
    write(tmp_path, "/opt/app/broken.jar", b"PK\x03\x04" + b"\xff" * 100)
    _, doc = scan_dir(tmp_path)
    assert doc["sdks"] == [] and not [s for s in doc["skipped"] if s["reason"] == "detector-error"]


def test_lockfiles_pin_exact_versions(tmp_path: Path, scan_dir: ScanFn) -> None:
    write(
        tmp_path,
        "/app/package-lock.json",
        json.dumps(
            {
                "lockfileVersion": 3,
                "packages": {
                    "": {"name": "app"},
                    "node_modules/openai": {"version": "7.59.0"},
                    "node_modules/@ai-sdk/anthropic": {"version": "3.0.12"},
                    "node_modules/react": {"version": "19.0.0"},
                },
            },
            indent=2,
        ),
    )
    write(
        tmp_path,
        "/web/pnpm-lock.yaml",
        "lockfileVersion: '9.0'\n\nimporters:\n  .:\n    dependencies:\n      openai:\n        specifier: ^7.0.0\n"
        "\npackages:\n\n  '@anthropic-ai/sdk@1.14.0':\n    resolution: {integrity: sha512-x}\n\n"
        "  openai@7.58.1:\n    resolution: {}\n",
    )
    write(
        tmp_path,
        "/py/poetry.lock",
        '[[package]]\nname = "langchain-openai"\nversion = "0.3.9"\n\n[[package]]\nname = "six"\nversion = "1.17.0"\n',
    )
    write(
        tmp_path,
        "/py2/uv.lock",
        'version = 1\n\n[[package]]\nname = "litellm"\nversion = "1.110.2"\n'
        'source = { registry = "https://pypi.org/simple" }\n',
    )
    write(
        tmp_path,
        "/rs/Cargo.lock",
        '# generated\nversion = 4\n\n[[package]]\nname = "async-openai"\nversion = "0.29.0"\n',
    )
    write(
        tmp_path,
        "/go/go.mod",
        "module example.com/a\n\ngo 1.23\n\nrequire (\n\tgithub.com/openai/openai-go/v3 v3.8.1\n"
        "\tgolang.org/x/net v0.30.0\n)\n",
    )
    write(
        tmp_path,
        "/go/go.sum",
        "github.com/anthropics/anthropic-sdk-go v1.4.0 h1:abc=\n"
        "github.com/anthropics/anthropic-sdk-go v1.4.0/go.mod h1:def=\n",
    )
    write(
        tmp_path,
        "/rb/Gemfile.lock",
        "GEM\n  remote: https://rubygems.org/\n  specs:\n    anthropic (1.9.0)\n      connection_pool\n"
        "    rake (13.2.1)\n",
    )
    _, doc = scan_dir(tmp_path)
    sdks = {(s["ecosystem"], s["name"], s["version"], s["environment"]) for s in doc["sdks"]}
    assert sdks == {
        ("npm", "openai", "7.59.0", "/app/package-lock.json"),
        ("npm", "@ai-sdk/anthropic", "3.0.12", "/app/package-lock.json"),
        ("npm", "@anthropic-ai/sdk", "1.14.0", "/web/pnpm-lock.yaml"),
        ("npm", "openai", "7.58.1", "/web/pnpm-lock.yaml"),
        ("pypi", "langchain-openai", "0.3.9", "/py/poetry.lock"),
        ("pypi", "litellm", "1.110.2", "/py2/uv.lock"),
        ("cargo", "async-openai", "0.29.0", "/rs/Cargo.lock"),
        ("go", "github.com/openai/openai-go", "v3.8.1", "/go/go.mod"),
        ("go", "github.com/anthropics/anthropic-sdk-go", "v1.4.0", "/go/go.sum"),
        ("gem", "anthropic", "1.9.0", "/rb/Gemfile.lock"),
    }
    assert not any(s["installed"] for s in doc["sdks"])
    assert entry(doc, "sdks", environment="/go/go.mod")["locations"][0]["line"] == 6
    assert "six" not in names(doc, "sdks")


def test_a_big_jar_is_read_in_place_from_its_directory(tmp_path: Path, scan_dir: ScanFn, catalog) -> None:
    # A fat jar past one window and past --max-file-size: its head is one window, and the pom.properties
    # written after 3 MB of stored (incompressible) classes is still found, through the zip directory at the end.
    import os

    from scanner.filework import FileWork
    from scanner.targets import Walker
    from scanner.targets.ownership import Ownership
    from scanner.windows import head_size

    pom = "groupId=com.openai\nartifactId=openai-java-core\nversion=4.3.0\n"
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as jar:
        jar.writestr("META-INF/MANIFEST.MF", "Manifest-Version: 1.0\n")
        jar.writestr("com/example/Blob.class", os.urandom(3 << 20), zipfile.ZIP_STORED)
        jar.writestr("META-INF/maven/com.openai/openai-java-core/pom.properties", pom, zipfile.ZIP_DEFLATED)
    write(tmp_path, "/opt/app/lib/app-all.jar", buf.getvalue())
    options = {"window_size": 256 << 10, "max_file_size": 1 << 20}
    _, doc = scan_dir(tmp_path, **options)
    assert {(s["name"], s["version"]) for s in doc["sdks"]} == {("com.openai:openai-java-core", "4.3.0")}
    assert not [s for s in doc["skipped"] if s["path"].endswith(".jar")]

    from scanner.detectors import DETECTORS
    from scanner.options import ScanOptions

    target = Walker(str(tmp_path))
    (entry,) = [e for e in target.walk() if getattr(e, "path", "").endswith(".jar")]
    work = FileWork(target, catalog, ScanOptions(**options), DETECTORS, Ownership.of(target))
    assert head_size(work, entry) == 256 << 10

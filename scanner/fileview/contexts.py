"""Which context a file's evidence belongs to, from its inside path and first bytes.

The context decides whether a mention counts as wiring: an SDK's own model list (`package`), a CHANGELOG
(`docs`) or a test fixture (`test`) is not what the VM is wired to.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from scanner.formats.install_paths import EDITORS
from scanner.model import Context

# Editors unpack their extensions (`~/.vscode/extensions/<publisher>.<name>-<version>/`) as installed packages.
_PACKAGE_DIRS = re.compile(
    r"/(?:site-packages|dist-packages|node_modules|bower_components|vendor|third_party|\.cargo/registry|"
    r"go/pkg/mod|\.m2/repository|gems|\.pnpm)/|/usr/lib/python3[\d.]*/|/usr/lib/node_modules/|"
    r"/\.(?:" + EDITORS + r")/extensions/"
)
# Package managers' own databases: what is installed, described by its maintainers, never wiring.
_PACKAGE_DBS = (
    "/var/lib/dpkg/",
    "/var/lib/apt/lists/",
    "/var/cache/apt/",
    "/var/lib/rpm/",
    "/usr/lib/sysimage/rpm/",
    "/var/lib/dnf/",
    "/var/cache/dnf/",
    "/var/cache/yum/",
    "/lib/apk/db/",
    "/var/lib/apk/",
    "/var/cache/apk/",
    "/var/lib/pacman/",
    "/var/cache/pacman/",
    "/var/lib/snapd/",
    "/var/lib/flatpak/",
    "/nix/var/nix/db/",
)
# System shared libraries: their strings are the library's (`CAP_KILL` in libcap), never a setting.
_SYSTEM_LIBRARY = re.compile(r"^/(?:usr/)?(?:lib|lib32|lib64|libx32|libexec)/.*\.so(?:\.[0-9]+)*$")
# Programs the system's package manager installed (`/usr/lib/google-cloud-sdk/…`): their source, and the data files
# of their own trees (`…/command_lib/ml/resources.yaml`), are what they ship. A vendor default that takes effect
# (`/usr/lib/systemd/system/*.service`, `/usr/lib/environment.d/*.conf`) is neither.
_SYSTEM_PROGRAMS = re.compile(r"^/usr/(?:lib|lib32|lib64|libx32|libexec)/")
_SYSTEM_PROGRAM_DATA = re.compile(r"^/usr/(?:lib|lib32|lib64|libx32|libexec)/[^/]+/[^/]+/.*\.(?:ya?ml|json|toml)$")
# Compiled bytecode: marshalled strings back to back; its source file beside it (or in a package) is what counts.
_BYTECODE_EXT = {".pyc", ".pyo"}
_TEST_SEGMENTS = {
    "test",
    "tests",
    "__tests__",
    "fixtures",
    "testdata",
    "test_data",
    "test-data",
    "spec",
    "specs",
    "__fixtures__",
    "__mocks__",
    "__snapshots__",
    "testfixtures",
    "test_fixtures",
    "e2e",
    "cassettes",
}
_TEST_NAME = re.compile(
    r"^(?:test_.*\.[a-z0-9]+|.*_test\.[a-z0-9]+|.*_spec\.[a-z0-9]+|.*\.(?:test|spec)\.[a-z0-9]+|conftest\.py)$"
)
_DOC_TREES = ("/usr/share/doc/", "/usr/share/man/", "/usr/share/info/")
_DOC_NAME = re.compile(
    r"^(?:readme|changelog|changes|history|news|license|licence|copying|notice|authors|contributing)(?:\..*)?$",
    re.IGNORECASE,
)
_DOC_EXT = {".md", ".markdown", ".rst", ".txt", ".adoc", ".html", ".htm", ".pdf", ".man", ".1", ".5", ".8"}
_EXAMPLE_NAME = re.compile(r"\.(?:example|sample|dist|template|tmpl)(?:\.|$)|^example", re.IGNORECASE)
_SOURCE_EXT = {
    ".py",
    ".pyi",
    ".js",
    ".mjs",
    ".cjs",
    ".ts",
    ".mts",
    ".cts",
    ".tsx",
    ".jsx",
    ".go",
    ".rs",
    ".java",
    ".kt",
    ".kts",
    ".scala",
    ".rb",
    ".php",
    ".cs",
    ".swift",
    ".c",
    ".h",
    ".cc",
    ".cpp",
    ".hpp",
    ".lua",
    ".sh",
    ".bash",
    ".zsh",
    ".ps1",
    ".pl",
    ".ex",
    ".exs",
    ".dart",
    ".vue",
    ".svelte",
}
_ENV_NAME = re.compile(r"^(?:\.env(?:\..+)?|.+\.env|environment|\.envrc|envvars)$")
_LOG_NAME = re.compile(r"\.log(?:\.\d+)?(?:\.gz)?$|\.out$|\.err$")
_SESSION_NAME = re.compile(r"\.jsonl(?:\.gz)?$")
_SESSION_DIRS = re.compile(r"/(?:sessions|conversations|history|projects|chats|tasks|transcripts)/")
ELF_MAGIC = b"\x7fELF"
_BINARY_MAGICS = (ELF_MAGIC, b"MZ", b"\xcf\xfa\xed\xfe", b"\xfe\xed\xfa\xcf", b"\xca\xfe\xba\xbe", b"\0asm")


def is_binary(head: bytes) -> bool:
    return head.startswith(_BINARY_MAGICS) or b"\0" in head[:8192]


def is_test_path(path: str) -> bool:
    """A test file by its name or a directory of tests, wherever it sits (also inside an installed package)."""
    segments = path.split("/")
    return bool(_TEST_NAME.match(segments[-1].lower()) or _TEST_SEGMENTS.intersection(
        s.lower() for s in segments[:-1]))


@dataclass(frozen=True)
class _FolderFacts:
    """What a file's context takes from its folder alone (a path up to and with its last `/`): the same for every
    file of the folder, so it is found once for them all."""

    package: bool  # a package directory or a package manager's database
    system_programs: bool  # under /usr/lib (lib32, lib64, libx32, libexec)
    test: bool  # a folder of tests
    docs: bool  # a documentation tree, or an `examples` folder
    usr_share: bool
    sessions: bool  # a folder of sessions, conversations, histories
    var_log: bool
    etc_default: bool

    @staticmethod
    def of(folder: str) -> _FolderFacts:
        segments = folder.split("/")[:-1]
        return _FolderFacts(
            package=bool(_PACKAGE_DIRS.search(folder)) or folder.startswith(_PACKAGE_DBS),
            system_programs=bool(_SYSTEM_PROGRAMS.match(folder)),
            test=bool(_TEST_SEGMENTS.intersection(s.lower() for s in segments)),
            docs=folder.startswith(_DOC_TREES) or "examples" in segments,
            usr_share=folder.startswith("/usr/share/"),
            sessions=bool(_SESSION_DIRS.search(folder)),
            var_log=folder.startswith("/var/log/"),
            etc_default=folder.startswith("/etc/default/"),
        )


_last_folder: tuple[str, _FolderFacts] | None = None  # the folder of the file classified last: most often the next's


def _folder_of(folder: str) -> _FolderFacts:
    global _last_folder
    last = _last_folder
    if last is not None and last[0] == folder:
        return last[1]
    facts = _FolderFacts.of(folder)
    _last_folder = (folder, facts)
    return facts


def classify(path: str, head: bytes) -> Context:
    """The file-level context; line-level `comment` is decided by the detectors. Every test of a folder's name
    (each pattern ends with `/`) is its folder's (`_FolderFacts`); the rest are the file's own."""
    slash = path.rfind("/")
    name = path[slash + 1 :]
    folder = _folder_of(path[: slash + 1])
    lower = name.lower()
    ext = lower[lower.rfind(".") :] if "." in lower else ""
    if (
        folder.package
        or ext in _BYTECODE_EXT
        or (".so" in lower and _SYSTEM_LIBRARY.match(path))
        or (folder.system_programs and (ext in _SOURCE_EXT or _SYSTEM_PROGRAM_DATA.match(path)))
    ):
        return Context.PACKAGE
    if folder.test or _TEST_NAME.match(lower):
        return Context.TEST
    if (
        folder.docs
        or name == "examples"
        or _DOC_NAME.match(name)
        or _EXAMPLE_NAME.search(lower)
        or (ext in _DOC_EXT and not lower.startswith("requirements"))
    ):
        return Context.DOCS
    if folder.usr_share:
        return Context.PACKAGE  # data files packages install (iso-codes, mime types, desktop entries)
    if is_binary(head):
        return Context.BINARY
    if _SESSION_NAME.search(lower) or (folder.sessions and ext in {".json", ".jsonl"}):
        return Context.SESSION
    if _LOG_NAME.search(lower) or folder.var_log:
        return Context.LOG
    if _ENV_NAME.match(lower) or folder.etc_default:
        return Context.ENV
    if ext in _SOURCE_EXT:
        return Context.SOURCE
    return Context.CONFIG


def is_package_test_file(path: str) -> bool:
    """A test file of an installed package (`site-packages/mistralai/extra/tests/test_x.py`): its keys and ids
    are the package's fixtures. Only the part of the path inside the package directory counts."""
    inside = None
    for m in _PACKAGE_DIRS.finditer(path):
        inside = path[m.end() :]
    return inside is not None and is_test_path(inside)


_COMMENT_PREFIXES = ("#", "//", ";", "--", "/*", "* ", "<!--", "rem ", "REM ")


def is_comment_line(line: str) -> bool:
    stripped = line.lstrip()
    return stripped.startswith(_COMMENT_PREFIXES) or stripped == "*"

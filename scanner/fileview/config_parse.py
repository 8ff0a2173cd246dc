"""A config file's settings, parsed once per file and shared read-only by every detector of it.

The config detector interprets the items; the content detector skips the words of the file's labels; every
location in a file that would not parse is marked `parse_error`. None of them depends on another having run:
each reads `FileView.config`, which is this module's pure function of the file's path, context and bytes.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Protocol

from scanner.catalog import Catalog
from scanner.formats import config as fmt
from scanner.model import Context, Skip, SkipReason
from scanner.targets.base import FileEntry

MAX_CONFIG_BYTES = 4 << 20
_SYSTEMD_EXT = (".service", ".socket", ".timer", ".path", ".mount", ".target")
_SKIP_NAMES = {"package.json", "package-lock.json", "tsconfig.json", "composer.json", "pnpm-lock.yaml"}
# Shell scripts: their `export KEY=value` lines are environment assignments (the config detector reads them).
SHELL_EXT = (".sh", ".bash", ".zsh")

Parser = Callable[[str], list[fmt.ConfigItem]]


@dataclass(frozen=True)
class ConfigParse:
    """What parsing a config file gave: its items, whether they were read line by line, what to record."""

    format: str  # "JSON", "YAML", "ENV", ...
    parser: Parser
    items: tuple[fmt.ConfigItem, ...] = ()
    broken: bool = False  # the format did not parse; `items` were read line by line
    # Words of the file's labels and descriptions (`"name": "Qwen3 Coder 30B (local)"`), minus every value the
    # file sets: a catalog match that is only such a word is prose, not an id.
    label_words: frozenset[str] = frozenset()
    skip: Skip | None = None  # not parsed (too big), parsed in part (budget) or not parsed as its format


class ConfigFile(Protocol):
    """What the parse reads of a file (a `FileView` is one)."""

    @property
    def entry(self) -> FileEntry: ...
    @property
    def catalog(self) -> Catalog: ...
    @property
    def data(self) -> bytes: ...
    @property
    def name(self) -> str: ...
    @property
    def path(self) -> str: ...
    @property
    def context(self) -> Context: ...
    @property
    def text(self) -> str: ...


def config_parser(view: ConfigFile) -> Parser | None:
    """The parser of a config file (its name, context and head say which); None when it is no config file."""
    if view.context not in (Context.CONFIG, Context.ENV, Context.SOURCE):
        return None
    if view.context is Context.SOURCE and not view.name.endswith(_SOURCE_SETTINGS):
        return None
    return pick_parser(view)


def parse_config(view: ConfigFile) -> ConfigParse | None:
    """The file's settings, or None when it is no config file."""
    parser = config_parser(view)
    if parser is None:
        return None
    name = format_name(parser)
    if view.entry.size > MAX_CONFIG_BYTES:
        # Not parsed by key; the content detector still matches its bytes. Recorded, never a silent gap.
        detail = f"config keys not parsed: {view.entry.size} bytes, over {MAX_CONFIG_BYTES >> 20} MiB"
        return ConfigParse(name, parser, skip=Skip(view.path, SkipReason.CAP_REACHED, detail))
    broken, skip = False, None
    try:
        items = parser(view.text)
    except fmt.BudgetExceeded as cut:
        items = cut.items
        skip = Skip(view.path, SkipReason.BUDGET_EXCEEDED, f"{name}: {cut.detail}")
    except fmt.ParseFailure as exc:
        items, broken = fmt.parse_loose(view.text), True
        read = f"{len(items)} setting(s) read line by line" if items else "nothing read line by line"
        if len(view.data) >= view.entry.size:  # a file cut at the read cap is already `too-large`
            skip = Skip(view.path, SkipReason.PARSE_ERROR, f"{name}: {exc}; {read}")
    return ConfigParse(name, parser, tuple(items), broken, label_words(items, view.catalog), skip)


# Source whose assignments or tables are settings: a shell script's, a Lua file's (a Neovim plugin spec).
_SOURCE_SETTINGS = (*SHELL_EXT, ".lua")
_BY_EXT: dict[str, Parser] = {
    ".json": fmt.parse_json,
    ".jsonc": fmt.parse_json,
    ".json5": fmt.parse_json,
    ".yaml": fmt.parse_yaml,
    ".yml": fmt.parse_yaml,
    ".toml": fmt.parse_toml,
    ".ini": fmt.parse_ini,
    ".cfg": fmt.parse_conf,
    ".conf": fmt.parse_conf,
    ".properties": fmt.parse_conf,
    ".tf": fmt.parse_hcl,
    ".tfvars": fmt.parse_hcl,
    ".hcl": fmt.parse_hcl,
    ".nix": fmt.parse_hcl,
    ".lua": fmt.parse_lua,  # Neovim plugin specs and `setup({...})` tables
}
# Readers that never refuse a text (they read what has their shape and skip the rest): a file they read has no
# parse error to learn, so a location never parses it only to ask.
NEVER_FAILS: frozenset[Parser] = frozenset({fmt.parse_hcl, fmt.parse_lua, fmt.parse_loose})
# Formats that look like JSON at their first byte but are not (Nix, Bicep, CUE, Jsonnet…): never sniffed.
_NOT_JSON = {".nix", ".bicep", ".cue", ".jsonnet", ".libsonnet", ".dhall", ".kdl", ".lua", ".pkl", ".ncl"}
_INI_HEADER = re.compile(rb"\[[A-Za-z0-9_][^\]\[\n\"{}]*\][ \t]*\r?\n")
# Shell startup files: environment assignments too.
_SHELL_NAMES = {".bashrc", ".bash_profile", ".profile", ".zshrc", ".zshenv", ".zprofile", ".kshrc", "profile"}


def pick_parser(view: ConfigFile) -> Parser | None:
    name = view.name.lower()
    if name in _SKIP_NAMES:
        return None
    if name.endswith(_SYSTEMD_EXT) or (view.entry.path.startswith("/etc/systemd/") and name.endswith(".conf")):
        return fmt.parse_systemd
    if view.context is Context.ENV or name in _SHELL_NAMES or name.endswith(SHELL_EXT):
        return fmt.parse_env
    ext = name[name.rfind(".") :] if "." in name else ""
    if ext in _BY_EXT:
        return _BY_EXT[ext]
    if view.context is not Context.CONFIG or ext in _NOT_JSON:
        return None
    # Only the head is looked at: stripping the whole file would copy up to the read cap for every config file.
    head = view.data[:4096].lstrip(b"\xef\xbb\xbf \t\r\n")
    if _INI_HEADER.match(head):
        return fmt.parse_ini  # `[default]` then `key = value`: ~/.aws/config, ~/.aws/credentials, git config
    if head[:1] in (b"{", b"["):
        return fmt.parse_json
    if _model_assignments(head, view.catalog):
        return fmt.parse_env  # an rc file of `KEY=value` lines under any name (shell_gpt's `.sgptrc`)
    return None


# Lines that are blank, a comment or an environment assignment; and an assignment's variable.
_ASSIGNMENT_LINES = re.compile(rb"(?:[ \t]*(?:#[^\n]*|(?:export[ \t]+)?[A-Za-z_][A-Za-z0-9_]*=[^\n]*)?\n)*")
_ASSIGNED = re.compile(rb"^[ \t]*(?:export[ \t]+)?([A-Za-z_][A-Za-z0-9_]*)=", re.MULTILINE)


def _model_assignments(head: bytes, catalog: Catalog) -> bool:
    """Whether a file's head is environment assignments only (two at least, comments and blank lines aside) and
    one of them speaks to a model: a variable the catalogs know, or a `*_MODEL`. `/etc/os-release` is assignments
    too, of a distribution's names and web pages. The last line of the head may be cut, so it is not asked. One
    match decides most files (their first line is no assignment)."""
    last = head.rfind(b"\n") + 1
    if not last or _ASSIGNMENT_LINES.match(head, 0, last).end() != last:  # type: ignore[union-attr]
        return False
    names = [name.decode() for name in _ASSIGNED.findall(head, 0, last)]
    return len(names) >= 2 and any(catalog.env_var(n) is not None or n.upper().endswith("_MODEL") for n in names)


_WORD_EDGES = "()[]{}<>,;:.!?\"'`"


def label_words(items: Sequence[fmt.ConfigItem], catalog: Catalog) -> frozenset[str]:
    """The words of labels and descriptions (values with a blank under a `label` key), minus every value the
    file sets whole: `Qwen3` of "Qwen3 Coder 30B (local)" is prose; a `model: Qwen3` elsewhere would keep it.
    Also the values of `not_model` keys (`image: ollama/ollama:rocm`) and of `provider` keys: a provider or
    backend (`"backend": "gemini-live"`) names how a model is reached, never the model."""
    label_keys = catalog.keys("label")
    other_keys = catalog.keys("not_model") | catalog.keys("provider")
    words: set[str] = set()
    values: set[str] = set()
    others: set[str] = set()
    for item in items:
        value = item.value.strip()
        keys = key_parts(item.path)
        key = norm_key(keys[-1]) if keys else ""
        if key in other_keys:
            others.add(value)
            continue
        values.add(value)
        if " " in value and key in label_keys:
            words.update(w.strip(_WORD_EDGES) for w in value.split())
    return frozenset((words - values) | (others - values))


def format_name(parser: Parser) -> str:
    return parser.__name__.removeprefix("parse_").upper()


# A config's keys repeat across its items and files (every record of a list has the same few); the interpreter asks
# for each item's key and every part of its path, so normalising is memoised (bounded, pure).
@functools.lru_cache(maxsize=1 << 16)
def norm_key(key: str) -> str:
    return key.lower().replace("-", "_")


@functools.lru_cache(maxsize=1 << 16)
def norm_path(path: tuple[str, ...]) -> tuple[str, ...]:
    """An item's path with every part normalised (`norm_key`)."""
    return tuple(norm_key(p) for p in path)


@functools.lru_cache(maxsize=1 << 16)
def key_parts(path: tuple[str, ...]) -> tuple[str, ...]:
    """An item's path without its list positions (`[N]`): the keys that lead to it."""
    return tuple(p for p in path if not p.startswith("["))

"""The line formats: env files, INI and `.conf`, systemd units."""

from __future__ import annotations

import re
import shlex
import sys

if sys.version_info >= (3, 11):
    pass
else:  # pragma: no cover
    pass


from scanner.formats.config.items import Budget, ConfigItem, ParseFailure

# --- line formats: env files, INI, systemd units --------------------------------------------------

_ENV_KEY = re.compile(r"[A-Za-z_][A-Za-z0-9_.]*")
_INLINE_COMMENT = re.compile(r"\s#")
_INI_SEPARATOR = re.compile(r"[=:]")


def _unquote(value: str) -> str:
    """`"v"  # note` -> v ; `'v'` -> v ; `v # note` -> v"""
    if value[:1] in ('"', "'"):
        end = value.find(value[0], 1)
        if end != -1:
            return value[1:end]
    m = _INLINE_COMMENT.search(value)
    return (value[: m.start()] if m else value).rstrip()


def env_assignment(line: str) -> tuple[str, str] | None:
    """`export KEY = value # note` -> (KEY, value); None when the line assigns nothing."""
    s = line.strip()
    if s.startswith("export") and s[6:7] in (" ", "\t"):
        s = s[6:].lstrip()
    key, sep, rest = s.partition("=")
    key = key.rstrip()
    if not sep or not _ENV_KEY.fullmatch(key):
        return None
    return key, _unquote(rest.strip())


def _commented_out(body: str, assigns: bool) -> bool:
    """A comment line that is itself a setting turned off (`# KEY=1`): the prose above it documents it."""
    return assigns and env_assignment(body) is not None


def parse_env(text: str) -> list[ConfigItem]:
    items: list[ConfigItem] = []
    budget = Budget(items)
    comment: list[str] = []
    for n, line in enumerate(text.splitlines(), 1):
        stripped = line.strip()
        if stripped.startswith("#"):
            body = stripped.lstrip("#").strip()
            comment = [] if _commented_out(body, True) else comment + [body]
            continue
        pair = env_assignment(stripped)
        if pair:
            budget.spend("assignments")
            items.append(ConfigItem((pair[0],), pair[1], n, " ".join(comment) or None, env=True))
        comment = []
    return items


def _ini_pair(stripped: str) -> tuple[str, str] | None:
    m = _INI_SEPARATOR.search(stripped)
    if m is None or m.start() == 0:
        return None
    key = stripped[: m.start()].rstrip()
    return (key, _unquote(stripped[m.end() :].strip())) if key else None


def parse_ini(text: str) -> list[ConfigItem]:
    """INI as configparser reads it: a setting before the first section header is a parse failure."""
    return _ini(text, strict=True)


def parse_conf(text: str) -> list[ConfigItem]:
    """`.conf` / `.properties`: INI, or plain `key = value` lines without sections."""
    return _ini(text, strict=False)


def _ini(text: str, strict: bool) -> list[ConfigItem]:
    items: list[ConfigItem] = []
    budget = Budget(items)
    section: str | None = None
    comment: list[str] = []
    for n, line in enumerate(text.lstrip("\ufeff").splitlines(), 1):
        stripped = line.strip()
        if not stripped:
            comment = []
            continue
        if stripped.startswith(("#", ";")):
            body = stripped.lstrip("#;").strip()
            comment = [] if _commented_out(body, True) else comment + [body]
            continue
        if stripped.startswith("[") and stripped.endswith("]"):
            section = stripped[1:-1].strip()
        elif strict and section is None:
            raise ParseFailure(f"a setting before any [section] at line {n}")
        else:
            pair = _ini_pair(stripped)
            if pair:
                budget.spend("settings")
                path = (section, pair[0]) if section else (pair[0],)
                items.append(ConfigItem(path, pair[1], n, " ".join(comment) or None))
        comment = []
    return items


def parse_systemd(text: str) -> list[ConfigItem]:
    """Unit keys, with `Environment=` split into its assignments (flagged `env`)."""
    items: list[ConfigItem] = []
    budget = Budget(items)
    section = ""
    comment: list[str] = []
    for n, line in enumerate(text.splitlines(), 1):
        stripped = line.strip()
        if stripped.startswith(("#", ";")):
            body = stripped.lstrip("#;").strip()
            comment = [] if "=" in body and _ENV_KEY.match(body) else comment + [body]
            continue
        if stripped.startswith("[") and stripped.endswith("]"):
            section = stripped[1:-1]
        elif "=" in stripped:
            key, value = (s.strip() for s in stripped.split("=", 1))
            note = " ".join(comment) or None
            if key == "Environment":
                try:
                    words = shlex.split(value)
                except ValueError:
                    words = value.split()
                for word in words:
                    name, sep, val = word.partition("=")
                    if sep:
                        budget.spend("settings")
                        items.append(ConfigItem((name,), val, n, note, env=True))
            else:
                budget.spend("settings")
                items.append(ConfigItem((section, key), value, n, note))
        comment = []
    return items



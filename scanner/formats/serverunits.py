"""Model servers started by systemd units (and their drop-ins), environment files and shell wrappers.

A unit's `[Service]` gives the command (`ExecStart=`, whose `-@:+!` prefixes are dropped), the environment
(`Environment=` assignments, `EnvironmentFile=` names) and the user. Drop-ins (`<unit>.d/*.conf`) are merged
in order: an empty `ExecStart=` clears the list before a new one, as systemd does, and a later assignment of
the same variable wins. `$VAR` and `${VAR}` in a command are replaced from the unit's environment. A shell
wrapper is read line by line: `export K=V` and `K=V` lines set the environment of the lines after them, a
backslash joins a line to the next, and a line that invokes a catalogued server is parsed by its grammar.
"""

from __future__ import annotations

import re
import shlex
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field

from scanner.formats.servercmd import CommandGrammar, ServedModel, find_server, parse_args

MAX_TEXT = 1 << 20
MAX_LINE = 64 << 10
_ASSIGN = re.compile(r"([A-Za-z_][A-Za-z0-9_]*)=(.*)")
_VAR = re.compile(r"\$(?:\{([A-Za-z_][A-Za-z0-9_]*)\}|([A-Za-z_][A-Za-z0-9_]*))")


@dataclass
class Unit:
    exec_start: list[list[str]] = field(default_factory=list)
    environment: dict[str, str] = field(default_factory=dict)
    environment_files: list[str] = field(default_factory=list)
    user: str | None = None


def parse_unit(text: str, unit: Unit | None = None) -> Unit:
    """A unit file (or a drop-in applied over `unit`): its service's commands, environment and user."""
    unit = unit if unit is not None else Unit()
    section = ""
    for line in _logical_lines(text):
        if line.startswith("[") and line.endswith("]"):
            section = line[1:-1]
            continue
        key, eq, value = line.partition("=")
        if not eq or section != "Service":
            continue
        key, value = key.strip(), value.strip()
        if key == "ExecStart":
            if not value:
                unit.exec_start.clear()
            elif (argv := _split(value.lstrip("-@:+!"))) is not None:
                unit.exec_start.append(argv)
        elif key == "Environment":
            unit.environment.update(_assignments(_split(value) or []))
        elif key == "EnvironmentFile" and value:
            unit.environment_files.append(value.lstrip("-"))
        elif key == "User" and value:
            unit.user = value[:100]
    return unit


def merge_units(texts: Iterable[str]) -> Unit:
    """A unit and its drop-ins, in the order systemd applies them (the unit first, drop-ins by name)."""
    unit = Unit()
    for text in texts:
        parse_unit(text, unit)
    return unit


def parse_env_file(text: str) -> dict[str, str]:
    """`KEY=value` lines (an `EnvironmentFile=`, `/etc/default/ollama`, a `.env`); `export` and quotes allowed."""
    env: dict[str, str] = {}
    for line in _logical_lines(text):
        env.update(_assignments(_split(line.removeprefix("export ")) or []))
    return env


def served_by_unit(
    unit: Unit, grammars: Sequence[CommandGrammar], files: Mapping[str, Mapping[str, str]] = {}, name: str | None = None
) -> list[ServedModel]:
    """What each command of a unit serves; `files` holds the parsed `EnvironmentFile=`s by path."""
    env: dict[str, str] = {}
    for path in unit.environment_files:
        env.update(files.get(path, {}))
    env.update(unit.environment)  # Environment= is applied after EnvironmentFile= only when later; either wins
    out = []
    for argv in unit.exec_start:
        found = find_server([_expand(a, env) for a in argv], grammars)
        if found is not None:
            out.append(_named(parse_args(found[0], found[1], env), name))
    return out


def served_by_script(text: str, grammars: Sequence[CommandGrammar], name: str | None = None) -> list[ServedModel]:
    """What a shell wrapper's server invocations serve, with the variables it set before each."""
    env: dict[str, str] = {}
    out = []
    for line in _logical_lines(text):
        argv = _split(line)
        if not argv:
            continue
        leading = _assignments(argv[: next((i for i, a in enumerate(argv) if not _ASSIGN.fullmatch(a)), len(argv))])
        if argv[0] == "export" or len(leading) == len(argv):
            env.update(_assignments(argv[1:] if argv[0] == "export" else argv))
            continue
        scoped = {**env, **leading}
        found = find_server([_expand(a, scoped) for a in argv], grammars)
        if found is not None:
            out.append(_named(parse_args(found[0], found[1], scoped), name))
    return out


def _named(served: ServedModel, name: str | None) -> ServedModel:
    if name is None:
        return served
    return ServedModel(**{**served.__dict__, "source": name})


def _logical_lines(text: str) -> list[str]:
    """Lines with `\\`-continuations joined, comments and blanks dropped, each at most `MAX_LINE` long."""
    out: list[str] = []
    pending = ""
    for raw in text[:MAX_TEXT].splitlines():
        stripped = raw.strip()
        if not pending and (not stripped or stripped.startswith(("#", ";"))):
            continue
        if stripped.endswith("\\"):
            pending = (pending + stripped[:-1] + " ")[:MAX_LINE]
            continue
        out.append((pending + stripped)[:MAX_LINE])
        pending = ""
    if pending:
        out.append(pending.strip())
    return out


def _split(text: str) -> list[str] | None:
    try:
        return shlex.split(text, comments=True)
    except ValueError:  # an unclosed quote: the line is not a command this reader can trust
        return None


def _assignments(words: Iterable[str]) -> dict[str, str]:
    return {m.group(1): m.group(2)[:4096] for w in words if (m := _ASSIGN.fullmatch(w))}


def _expand(word: str, env: Mapping[str, str]) -> str:
    """`$VAR` and `${VAR}` replaced from `env`; an unknown variable is left as written."""
    return _VAR.sub(lambda m: env.get(m.group(1) or m.group(2), m.group(0)), word)

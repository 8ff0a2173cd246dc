"""Where an option's value comes from when the command line does not give it: `MODELCENSUS_*` variables, then the
command's own section of `modelcensus.toml`.

Every option of every command may be set by two variables: `MODELCENSUS_<COMMAND>_<OPTION>` for that command
alone (`MODELCENSUS_DIFF_FORMAT`, `MODELCENSUS_FLEET_SCAN_WORKERS`), else `MODELCENSUS_<OPTION>` for every command
that has the option (`MODELCENSUS_FORMAT`). A config file holds one section per command, `[scan]`, `[diff]`,
`[fleet.scan]`, whose keys are the option names (`max_file_size` or `max-file-size`); paths in it are relative to
the file. The command line wins over a variable, a variable over the file, the file over the default. A section of
another command never concerns this one; an unknown section or key is an error, so a typo is not silently ignored.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Iterator, Mapping, Sequence
from pathlib import Path
from typing import Any

from typer import _click
from typer._click.core import ParameterSource
from typer.core import TyperGroup as Group
from typer.core import TyperOption as Option

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - Python 3.10
    import tomli as tomllib

CONFIG_NAME = "modelcensus.toml"
PREFIX = "MODELCENSUS_"
# Options whose values are paths: relative to the config file that gives them, not to where modelcensus runs.
PATH_OPTIONS = frozenset({"output", "catalog", "ignore_file", "store", "baseline", "root", "parquet", "manifest"})
# Options no variable and no config key sets: they say where settings come from, or only show something.
UNSET = frozenset({"config", "help", "live", "version", "install_completion", "show_completion"})
_ALIASES = {"catalogs": "catalog"}  # an older spelling of a key


class ConfigError(ValueError):
    pass


def command_path(ctx: _click.Context) -> tuple[str, ...]:
    """The command's names below the program: ("scan",), ("fleet", "scan")."""
    names: list[str] = []
    c: _click.Context | None = ctx
    while c is not None and c.parent is not None:
        names.append(c.info_name or "")
        c = c.parent
    return tuple(reversed(names))


def variable_names(path: Sequence[str], option: str) -> list[str]:
    """The command's own variable, then the shared one."""
    name = option.upper().replace("-", "_")
    own = PREFIX + "_".join(p.upper() for p in path) + "_" + name
    return [own, PREFIX + name] if path else [PREFIX + name]


def option_key(param: Option) -> str:
    """The name a variable and a config key give an option: its long flag (`--all` is `all`, `--as` is `as`)."""
    longs = [o for o in param.opts if o.startswith("--")]
    return (longs[0] if longs else param.opts[0]).lstrip("-").replace("-", "_")


def settable(ctx: _click.Context) -> Iterator[Option]:
    """The options a variable or a config key may set."""
    for param in ctx.command.params:
        if isinstance(param, Option) and param.name and param.name not in UNSET and not param.hidden:
            yield param


def attach_variables(ctx: _click.Context) -> None:
    path = command_path(ctx)
    for param in settable(ctx):
        param.envvar = variable_names(path, option_key(param))
        param.show_envvar = False  # the help lists them once, after the options


def section_name(path: Sequence[str]) -> str:
    return ".".join(path)


def _commands(group: _click.Command, path: tuple[str, ...] = ()) -> Iterator[tuple[str, ...]]:
    """Every command path of the program (the sections a config file may have)."""
    if isinstance(group, Group):
        for name, sub in group.commands.items():
            yield path + (name,)
            yield from _commands(sub, path + (name,))


def config_file(ctx: _click.Context, args: Sequence[str]) -> tuple[Path | None, bool]:
    """(the config file, whether it was asked for): `--config FILE`, its variables, else ./modelcensus.toml."""
    for i, arg in enumerate(args):
        if arg == "--":
            break
        if arg == "--config" and i + 1 < len(args):
            return Path(args[i + 1]), True
        if arg.startswith("--config="):
            return Path(arg.split("=", 1)[1]), True
    for name in variable_names(command_path(ctx), "config"):
        if os.environ.get(name):
            return Path(os.environ[name]), True
    default = Path.cwd() / CONFIG_NAME
    return (default, False) if default.is_file() else (None, False)


def _read(path: Path) -> dict[str, Any]:
    try:
        return tomllib.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise ConfigError(f"{path}: no such config file") from None
    except (OSError, UnicodeDecodeError) as exc:
        raise ConfigError(f"{path}: cannot read: {getattr(exc, 'strerror', None) or exc}") from None
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(f"{path}: not valid TOML: {exc}") from None


def _check_sections(data: Mapping[str, Any], root: _click.Command, path: Path) -> None:
    known = {section_name(p) for p in _commands(root)}

    def walk(table: Mapping[str, Any], prefix: tuple[str, ...]) -> None:
        for key, value in table.items():
            name = section_name(prefix + (key,))
            if name not in known:
                if prefix:  # a key of a group's section: groups have subcommands, not options
                    raise ConfigError(f"{path}: unknown key {key!r} in [{section_name(prefix)}]")
                raise ConfigError(f"{path}: unknown section [{name}]; known: {', '.join(sorted(known))}")
            if not isinstance(value, dict):
                raise ConfigError(f"{path}: [{name}] must be a table")
            if any(k.startswith(name + ".") for k in known):  # a group: only its subcommands' sections
                walk(value, prefix + (key,))

    walk(data, ())


def load_defaults(ctx: _click.Context, args: Sequence[str]) -> dict[str, Any] | None:
    """The command's section of the config file as click defaults (None when there is no file)."""
    path, _ = config_file(ctx, args)
    if path is None:
        return None
    data = _read(path)
    _check_sections(data, ctx.find_root().command, path)
    cmd = command_path(ctx)
    table: Any = data
    for part in cmd:
        table = table.get(part, {}) if isinstance(table, dict) else {}
    subcommands = {n[-1] for n in _commands(ctx.command)} if isinstance(ctx.command, Group) else set()
    params = {option_key(p): p for p in settable(ctx)}
    out: dict[str, Any] = {}
    for raw_key, value in table.items():
        if raw_key in subcommands:
            continue
        key = _ALIASES.get(raw_key.replace("-", "_"), raw_key.replace("-", "_"))
        param = params.get(key)
        if param is None or param.name is None:
            known = ", ".join(sorted(params))
            raise ConfigError(f"{path}: unknown key {raw_key!r} in [{section_name(cmd)}]; known: {known}")
        out[param.name] = _value(param, value, path, key, section_name(cmd))
    return out


def _value(param: Option, value: Any, path: Path, key: str, section: str) -> Any:
    values = value if isinstance(value, list) else [value]
    if isinstance(value, list) and not param.multiple:
        raise ConfigError(f"{path}: [{section}] {key} takes one value, not a list")
    for v in values:
        if isinstance(v, (dict, list)):
            raise ConfigError(f"{path}: [{section}] {key} must be a string, number or boolean")
        if param.name in PATH_OPTIONS and not isinstance(v, str):
            raise ConfigError(f"{path}: [{section}] {key} must be a path or a list of paths (strings)")
    if param.name in PATH_OPTIONS:
        values = [v if not isinstance(v, str) or v == "-" else str(path.parent / v) for v in values]
    if param.multiple:
        return [str(v) for v in values]
    v = values[0]
    return v if isinstance(v, bool) else str(v) if not isinstance(v, (int, float)) else v


def source(ctx: _click.Context, name: str) -> str:
    """Where a value came from, for an error message: ` (from MODELCENSUS_FORMAT)`, ` (from [scan] in FILE)`."""
    how = ctx.get_parameter_source(name)
    if how is ParameterSource.ENVIRONMENT:
        param = next((p for p in ctx.command.params if p.name == name), None)
        names = param.envvar if param is not None and isinstance(param.envvar, list) else []
        found = next((n for n in names if os.environ.get(n)), None)
        return f" (from {found})" if found else ""
    if how is ParameterSource.DEFAULT_MAP:
        return f" (from [{section_name(command_path(ctx))}] of the config file)"
    return ""

"""`--help` (and `-h`) of every command: clean metavars, then examples, the variables and the config section.

Every command of the CLI is made with `cls=CleanHelp`, every group with `cls=CleanGroup`. A value's metavar is the
one the option declares, else its choices (`[directory|container|disk]`), else its name in capitals (`--store
STORE`). A command's epilog holds its examples, one a line; the variables (`MODELCENSUS_*`) and the config section
are written from its options, so the help cannot name a variable the command does not read. Before a command
parses its arguments, its options learn their variables and the defaults of its config section (settings.py).
A group given no subcommand prints its help.
"""

from __future__ import annotations

import re
import textwrap
from collections.abc import Sequence
from typing import Any

from typer import _click
from typer.core import TyperArgument, TyperCommand, TyperGroup, TyperOption

from scanner.cli.settings import (
    CONFIG_NAME,
    PREFIX,
    ConfigError,
    attach_variables,
    command_path,
    load_defaults,
    option_key,
    section_name,
    settable,
    variable_names,
)

_TYPE_SUFFIX = re.compile(r"\s+(?:<[^>]*>|\S+)$")
HELP_OPTIONS = ("-h", "--help")
# Variables every command reads, whatever its options.
COMMON_VARIABLES = (
    ("MODELCENSUS_CONFIG", "the config file (default ./" + CONFIG_NAME + ")"),
    ("NO_COLOR", "no colour, even on a terminal"),
    ("FORCE_COLOR", "colour even when not on a terminal"),
    ("COLUMNS", "the width tables fit (default: the terminal's; piped output is not cut)"),
    ("MODELCENSUS_DEBUG", "a traceback instead of the one-line internal error"),
)


def metavar(param: TyperArgument | TyperOption) -> str:
    if param.metavar:
        return param.metavar
    desc = param.type_descriptor
    if desc.is_choice and desc.choices:
        return "[" + "|".join(str(getattr(c, "value", c)) for c in desc.choices) + "]"
    return (param.name or "value").upper()


def _argument_name(param: TyperArgument) -> str:
    if param.metavar:  # as the command wrote it (`OLD NEW`)
        return param.metavar
    return metavar(param) + ("..." if param.nargs != 1 else "")


def examples(epilog: str | None) -> list[str]:
    """The example lines of an epilog (one command a line), without its exit-status paragraph."""
    lines = [line.strip() for line in (epilog or "").strip().splitlines() if line.strip()]
    return lines[:next((i for i, ln in enumerate(lines) if ln.startswith("Exit status:")), len(lines))]


def exit_status(epilog: str | None) -> str:
    """The epilog's paragraph that starts with `Exit status:`, joined into one line."""
    lines = [line.strip() for line in (epilog or "").strip().splitlines() if line.strip()]
    start = next((i for i, ln in enumerate(lines) if ln.startswith("Exit status:")), len(lines))
    return " ".join(lines[start:])


def _write_lines(formatter: _click.HelpFormatter, title: str, lines: Sequence[str], wrap: bool = False) -> None:
    """A titled block; examples stay one a line, prose (`wrap`) is wrapped to the help's width."""
    formatter.write_paragraph()
    formatter.write_text(title)
    formatter.indent()
    room = max(40, (formatter.width or 80) - formatter.current_indent)
    for line in lines:
        parts = textwrap.wrap(line, room, subsequent_indent="  ", break_on_hyphens=False) if wrap else [line]
        for part in parts or [""]:
            formatter.write(" " * formatter.current_indent + part + "\n")
    formatter.dedent()


def variables(ctx: _click.Context) -> list[tuple[str, str]]:
    """(shared variable, option) for each option a variable may set."""
    path = command_path(ctx)
    return [(variable_names(path, option_key(p))[-1], p.opts[0]) for p in settable(ctx)]


class CleanHelp(TyperCommand):
    def parse_args(self, ctx: _click.Context, args: list[str]) -> list[str]:
        attach_variables(ctx)
        if not any(a in HELP_OPTIONS for a in args):
            try:
                ctx.default_map = load_defaults(ctx, args)
            except ConfigError as exc:
                raise _click.exceptions.UsageError(str(exc), ctx) from None
        return super().parse_args(ctx, args)

    def collect_usage_pieces(self, ctx: _click.Context) -> list[str]:
        pieces = [self.options_metavar] if self.options_metavar else []
        for param in self.get_params(ctx):
            if isinstance(param, TyperArgument):
                name = _argument_name(param)
                pieces.append(name if param.required else f"[{name}]")
        return pieces

    def format_options(self, ctx: _click.Context, formatter: _click.HelpFormatter) -> None:
        args: list[tuple[str, str]] = []
        opts: list[tuple[str, str]] = []
        for param in self.get_params(ctx):
            record = param.get_help_record(ctx)
            if record is None:
                continue
            name, text = record
            if isinstance(param, TyperArgument):
                args.append((_argument_name(param), text))
                continue
            if isinstance(param, TyperOption) and not param.is_flag and not param.count:
                name = _TYPE_SUFFIX.sub("", name) + " " + metavar(param)
            opts.append((name, text))
        if args:
            with formatter.section("Arguments"):
                formatter.write_dl(args)
        if opts:
            with formatter.section("Options"):
                formatter.write_dl(opts)

    def format_epilog(self, ctx: _click.Context, formatter: _click.HelpFormatter) -> None:
        _write_lines(formatter, "Examples:", examples(self.epilog))
        status = exit_status(self.epilog)
        if status:
            _write_lines(formatter, "Exit status:", [status.removeprefix("Exit status:").strip()], wrap=True)
        path = command_path(ctx)
        own = PREFIX + "_".join(p.upper() for p in path) + "_<OPTION>"
        shared = [name for name, _ in variables(ctx)]
        lines = [f"Each option also from {own}, else {PREFIX}<OPTION> (the command line wins over both, "
                 "both over the config file): " + ", ".join(shared) + "."]
        _write_lines(formatter, "Environment:", lines + [f"{n}: {why}" for n, why in COMMON_VARIABLES], wrap=True)
        keys = ", ".join(option_key(p) for p in settable(ctx))
        _write_lines(formatter, "Config file:", [
            f"[{section_name(path)}] in ./{CONFIG_NAME} (or --config FILE), keyed by option names: {keys}."],
            wrap=True)


class CleanGroup(TyperGroup):
    """A group of commands: no subcommand prints the help; the help ends with examples and where settings live."""

    def parse_args(self, ctx: _click.Context, args: list[str]) -> list[str]:
        if not args and self.no_args_is_help and not ctx.resilient_parsing:
            _click.echo(ctx.get_help(), color=ctx.color)
            ctx.exit(0)
        return super().parse_args(ctx, args)

    def format_epilog(self, ctx: _click.Context, formatter: _click.HelpFormatter) -> None:
        _write_lines(formatter, "Examples:", examples(self.epilog))
        path = command_path(ctx)
        where = "COMMAND" if not path else "_".join(p.upper() for p in path) + "_COMMAND"
        _write_lines(formatter, "Environment:", [
            f"Each option of a command also from {PREFIX}{where}_<OPTION>, else {PREFIX}<OPTION> (each "
            "command's --help lists its own).", *[f"{n}: {why}" for n, why in COMMON_VARIABLES]], wrap=True)
        sub = f"{section_name(path)}.COMMAND" if path else "COMMAND"
        _write_lines(formatter, "Config file:", [
            f"./{CONFIG_NAME} (or --config FILE): one section per command, [{sub}], keyed by option names."],
            wrap=True)


def command_settings(**extra: Any) -> dict[str, Any]:
    """The context settings every command and group shares: `-h` besides `--help`."""
    return {"help_option_names": list(HELP_OPTIONS), **extra}

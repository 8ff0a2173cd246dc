"""`--help` with clean metavars: `scan [OPTIONS] PATH` and `--jobs N`, not typer's `{path}`, `path <path>` and
`--jobs <int>`.

Every command of the CLI is made with `cls=CleanHelp`. A value's metavar is the one the option declares, else its
choices (`[directory|container|disk]`), else its name in capitals (`--store STORE`).
"""

from __future__ import annotations

import re

from typer import _click
from typer.core import TyperArgument, TyperCommand, TyperOption

_TYPE_SUFFIX = re.compile(r"\s+(?:<[^>]*>|\S+)$")


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


class CleanHelp(TyperCommand):
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


"""The README's generated blocks: the demo output of `make demo` and the command reference, made from the code.

Each block sits between `<!-- generated: NAME -->` and `<!-- end generated: NAME -->` in README.md;
`tests/test_readme.py` checks that the README holds what this module makes (`pytest --update-golden` rewrites it).
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path

from typer import _click
from typer.core import TyperArgument, TyperGroup, TyperOption
from typer.main import get_command

from scanner.cli import app
from scanner.cli.helptext import examples, metavar
from scanner.cli.settings import UNSET, option_key, section_name, variable_names
from scanner.render import render
from scanner.render._view import ReportOptions

DEMO_WIDTH = 116
DEMO_FINDINGS = 8  # finding rows the demo keeps; the rest is shown as `…`


def commands() -> Iterator[tuple[tuple[str, ...], _click.Command]]:
    """Every command and group of the program, with its path below `modelcensus`, in help order."""
    root = get_command(app)

    def walk(cmd: _click.Command, path: tuple[str, ...]) -> Iterator[tuple[tuple[str, ...], _click.Command]]:
        yield path, cmd
        if isinstance(cmd, TyperGroup):
            for name, sub in cmd.commands.items():
                yield from walk(sub, (*path, name))

    yield from walk(root, ())


def options(cmd: _click.Command) -> list[TyperOption]:
    return [p for p in cmd.params if isinstance(p, TyperOption) and p.name and p.name not in UNSET and not p.hidden]


def shared_variables(path: tuple[str, ...], cmd: _click.Command) -> list[str]:
    return [variable_names(path, option_key(p))[-1] for p in options(cmd)]


def _usage(path: tuple[str, ...], cmd: _click.Command) -> str:
    parts = ["modelcensus", *path]
    for p in cmd.params:
        if isinstance(p, TyperArgument):
            parts.append(p.metavar or (p.name or "").upper())
    for p in cmd.params:
        if isinstance(p, TyperOption) and p.name not in ("help", "install_completion", "show_completion"):
            flag = "/".join(o for o in p.opts if o.startswith("--")) or p.opts[0]
            if p.secondary_opts:
                flag += "/" + "/".join(p.secondary_opts)
            shown = flag if p.is_flag else f"{flag} {metavar(p)}"
            parts.append(f"[{shown}]")
    return " ".join(parts)


def _wrap(words: list[str], width: int, indent: str) -> list[str]:
    lines, line = [], ""
    for w in words:
        if line and len(line) + 1 + len(w) > width:
            lines.append(line)
            line = indent + w
        else:
            line = f"{line} {w}" if line else w
    return [*lines, line] if line else lines


def reference() -> str:
    """Every command: its usage with every option, its examples, its config section and its variables."""
    out = []
    for path, cmd in commands():
        if not path or isinstance(cmd, TyperGroup):
            continue
        out += ["```", *_wrap(_usage(path, cmd).split(" "), 116, "    "), "```", ""]
        shown = ", ".join(f"`{v}`" for v in shared_variables(path, cmd))
        own = "MODELCENSUS_" + "_".join(p.upper() for p in path) + "_<OPTION>"
        out.append(f"- config section `[{section_name(path)}]`; variables `{own}`, else {shown or 'none'}")
        out += [f"- `{ex}`" for ex in examples(cmd.epilog)]
        out.append("")
    return "\n".join(out).rstrip() + "\n"


def demo(inventory_of: Path | None = None) -> str:
    """`make demo`'s table at DEMO_WIDTH columns, abridged: the headline, the first findings, what is not wiring."""
    from scanner import api
    from scanner.catalog import load
    from scanner.options import ScanOptions
    from scanner.targets import Walker, WalkOptions

    assert inventory_of is not None
    inv = api.scan(Walker(str(inventory_of), WalkOptions()), api.ScanRequest(ScanOptions()), load([]))
    text = render("table", inv, ReportOptions(width=DEMO_WIDTH))
    lines = text.splitlines()
    lines[0] = "modelcensus 0.1.0: directory sample_vm"
    start = next(i for i, ln in enumerate(lines) if ln.startswith("Findings ("))
    rows = [i for i in range(start + 3, len(lines)) if re.match(r"^(high|medium|low|info|ignored)", lines[i])]
    end = next(i for i in range(start, len(lines)) if not lines[i])
    cut = rows[DEMO_FINDINGS] if len(rows) > DEMO_FINDINGS else end
    kept = lines[:cut] + (["…"] if cut < end else []) + lines[end:]
    kept = [ln for ln in kept if not ln.startswith("Scanned ")]
    return "```\n" + "\n".join(kept).rstrip() + "\n```\n"


BLOCK = re.compile(r"(<!-- generated: (?P<name>[a-z-]+) -->\n)(?P<body>.*?)(<!-- end generated: (?P=name) -->)", re.S)


def blocks(readme: str) -> dict[str, str]:
    return {m.group("name"): m.group("body") for m in BLOCK.finditer(readme)}


def replaced(readme: str, made: dict[str, str]) -> str:
    return BLOCK.sub(lambda m: m.group(1) + made.get(m.group("name"), m.group("body")) + m.group(4), readme)

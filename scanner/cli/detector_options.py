"""The scan command's `--no-<name>` options: one per setting a detector declares (`scanner.detectors.SETTINGS`),
so a detector offers an option by declaring it, without an edit here or in the command.

typer builds a command's options from its function's signature; `offering` gives the command a signature with one
keyword per setting, and hands the command the names of those turned off as `turned_off`.
"""

from __future__ import annotations

import functools
import inspect
from collections.abc import Callable, Sequence
from typing import Annotated, Any

import typer

from scanner.detectors import Setting

Command = Callable[..., None]


def parameter(setting: Setting) -> str:
    """The command's keyword for a setting: `no_hash_weights` for `--no-hash-weights`."""
    return "no_" + setting.name.replace("-", "_")


def offering(settings: Sequence[Setting]) -> Callable[[Command], Command]:
    """`command` (which takes `turned_off: frozenset[str]`) with a `--no-<name>` flag per setting in its stead."""

    def wrap(command: Command) -> Command:
        signature = inspect.signature(command, eval_str=True)
        kept = [p for p in signature.parameters.values() if p.name != "turned_off"]
        added = [
            inspect.Parameter(parameter(s), inspect.Parameter.KEYWORD_ONLY, default=False,
                              annotation=Annotated[bool, typer.Option(f"--no-{s.name}", help=s.help)])
            for s in settings
        ]  # fmt: skip

        @functools.wraps(command)
        def run(*args: Any, **kwargs: Any) -> None:
            off = frozenset(s.name for s in settings if kwargs.pop(parameter(s), False))
            command(*args, turned_off=off, **kwargs)

        run.__signature__ = signature.replace(parameters=[*kept, *added])  # type: ignore[attr-defined]
        return run

    return wrap

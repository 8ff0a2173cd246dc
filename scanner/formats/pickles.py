"""The globals a pickle imports, read with the stdlib's opcode scanner; a pickle is never unpickled.

Loading a pickle runs whatever callables it names, so weight files in pickle form (PyTorch `.bin`/`.pt`,
`.pkl`) are judged by the globals they import, as the pickle-scanning tools do: `GLOBAL` and `INST` name
theirs inline (`torch._utils _rebuild_tensor_v2`); `STACK_GLOBAL` takes the two strings pushed before it,
directly or through the memo, so those are followed too. A name that cannot be resolved statically is
reported as `?` (a pickle that builds its import names is the first thing to look at). The scan reads bytes
already in memory, at most `MAX_OPS` opcodes, and stops at the first `STOP`.
"""

from __future__ import annotations

import io
import pickletools
import struct
from collections.abc import Iterable
from dataclasses import dataclass

MAX_OPS = 2_000_000
MAX_GLOBALS = 1000
UNRESOLVED = "?"
# What pickletools raises on damaged or hostile input (each seen by fuzzing or read in pickletools.py).
_FAILURES = (ValueError, EOFError, struct.error, OverflowError, IndexError, KeyError, TypeError)
_STRINGS = frozenset({"SHORT_BINUNICODE", "BINUNICODE", "BINUNICODE8", "UNICODE", "SHORT_BINSTRING",
                      "BINSTRING", "STRING", "SHORT_BINBYTES", "BINBYTES", "BINBYTES8"})  # fmt: skip
_PUTS = frozenset({"PUT", "BINPUT", "LONG_BINPUT"})
_GETS = frozenset({"GET", "BINGET", "LONG_BINGET"})
# Opcodes that change the stack other than by one push (their effect on the strings tracked is a reset).
_NO_PUSH = frozenset({"MEMOIZE", "PROTO", "FRAME", "STOP", "POP", "POP_MARK", "SETITEM", "SETITEMS", "APPEND",
                      "APPENDS", "BUILD", "ADDITEMS", "MARK", *_PUTS})  # fmt: skip


@dataclass(frozen=True)
class PickleScan:
    protocol: int | None
    globals: tuple[str, ...]  # "module.name", in first-seen order; "?" for a name built at load time
    end: int | None  # offset just past STOP, None when the scan did not reach it
    problem: str | None  # why the scan stopped early (damaged, cut short, past the cap)


def scan(data: bytes, start: int = 0) -> PickleScan:
    """The globals imported by the pickle starting at `start` in `data`."""
    found: dict[str, None] = {}
    protocol: int | None = None
    recent: list[str | None] = []  # the values the last pushes left, strings where they were strings
    memo: dict[int, str | None] = {}
    try:
        stream = io.BytesIO(data)
        stream.seek(start)
        for count, (op, arg, pos) in enumerate(pickletools.genops(stream)):
            if count >= MAX_OPS:
                return PickleScan(protocol, tuple(found), None, f"more than {MAX_OPS} opcodes")
            name = op.name
            if name == "PROTO":
                protocol = _int(arg)
            elif name == "STOP":
                return PickleScan(protocol, tuple(found), (pos or 0) + 1, None)
            elif name in ("GLOBAL", "INST"):
                module, _, attr = str(arg).partition(" ")
                _add(found, f"{module}.{attr}")
                recent.append(None)
            elif name == "STACK_GLOBAL":
                second = recent.pop() if recent else None
                first = recent.pop() if recent else None
                _add(found, f"{first}.{second}" if first and second else UNRESOLVED)
                recent.append(None)
            elif name in _STRINGS:
                recent.append(arg.decode("utf-8", "replace") if isinstance(arg, bytes) else str(arg))
            elif name == "MEMOIZE":
                memo[len(memo)] = recent[-1] if recent else None
            elif name in _PUTS:
                memo[_int(arg)] = recent[-1] if recent else None
            elif name in _GETS:
                recent.append(memo.get(_int(arg)))
            elif name not in _NO_PUSH:
                recent.append(None)
            del recent[:-8]
    except _FAILURES as exc:
        return PickleScan(protocol, tuple(found), None, f"{type(exc).__name__}: {str(exc)[:160]}")
    return PickleScan(protocol, tuple(found), None, "no STOP opcode before the end of the bytes read")


def _int(arg: object) -> int:
    return arg if isinstance(arg, int) else -1


def _add(found: dict[str, None], name: str) -> None:
    if len(found) < MAX_GLOBALS:
        found.setdefault(name[:300], None)


def looks_like(head: bytes) -> bool:
    """A pickle of protocol 2-5 (the PROTO opcode); protocol 0 and 1 have no magic and are known by name."""
    return len(head) >= 2 and head[0] == 0x80 and 2 <= head[1] <= 5


def beyond(imported: Iterable[str], safe: Iterable[str]) -> tuple[str, ...]:
    """The imported globals no entry of `safe` allows; an entry `module.*` allows every name of a module."""
    exact = set(safe)
    modules = {s[:-2] for s in exact if s.endswith(".*")}
    return tuple(g for g in imported if g not in exact and g.rpartition(".")[0] not in modules)

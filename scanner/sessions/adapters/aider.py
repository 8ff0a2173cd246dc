"""Aider: `.aider.chat.history.md` in a repository root (Markdown, not JSON). Aider stores no provider ids;
what it tells is the model names of its banner (`> Main model: …`, `> Weak model: …`) per chat, and when
each chat started (`# aider chat started at 2025-04-20 12:15:33`)."""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

from scanner.sessions.adapters.base import Facts, Passthrough, State, labels, parse_time
from scanner.sessions.reader import ReadNotes, Record, all_lines

NAMES = (".aider.chat.history.md", ".aider.llm.history")
_STARTED = re.compile(rb"^# aider chat started at (\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2})")
_MODEL = re.compile(rb"^> (Main|Weak|Editor) model: (\S+)")
_LLM = re.compile(rb"^(?:TO LLM|LLM RESPONSE) (\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2})")


class Aider(Passthrough):
    name = "aider"

    def claims(self, path: str, first: dict[str, Any]) -> bool:
        return path.rsplit("/", 1)[-1] in NAMES

    def read(self, data: bytes, notes: ReadNotes) -> Iterator[Record]:
        """One pseudo-record per chat start, per model line and per LLM exchange header."""
        for number, raw, _complete in all_lines(data, notes):
            if m := _STARTED.match(raw):
                yield Record(number, {"aider": "start", "time": m.group(1).decode()})
            elif m := _MODEL.match(raw):
                yield Record(
                    number, {"aider": m.group(1).decode().lower(), "model": m.group(2).decode(errors="replace")}
                )
            elif m := _LLM.match(raw):
                yield Record(number, {"aider": "exchange", "time": m.group(1).decode()})

    def facts(self, value: dict[str, Any], state: State) -> Facts:
        when = parse_time(value.get("time"))
        if value.get("aider") == "start" and when is not None:
            state["session"] = f"aider-{int(when)}"
        return Facts(session_id=state.get("session"), timestamp=when, labels=labels(value.get("model")))

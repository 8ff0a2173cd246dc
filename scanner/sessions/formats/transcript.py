"""Plain-text and Markdown transcripts of an agent's chats, read by their structure, never by a product's file name.

Two structures are read:

- A chat transcript: a chat opens with a heading that ends in its start time, to the second (`# aider chat started at
  2025-05-04 17:02:36`, `llm logs`' `# 2026-12-02T11:29:12 conversation: …`). The lines between it and its first
  turn are the agent's header, its own statements and never conversation; a `<word> model: <id>` statement there
  (`> Main model: gemini/… with diff edit format`, `Model: **gpt-4o**`) names a model the agent ran the chat with.
  The first one stated is the model the chat's replies came from (the agent's main model); the others (a weak
  model, an editor model) are labels of what else it asked for. A chat whose header states none continues the chat
  before it. After the header, a heading that names a role (`## Prompt`, `## Response`, `## System`) opens that
  role's turn, one that names reasoning (`## Reasoning`) the reply's reasoning, and in such a chat any other
  heading is a section of the turn; where no heading names a role, a heading is a line of the user's prompt (Aider
  writes each prompt line as one) and the plain text after it is the reply. Quoted lines are the agent's notes (a
  command's or a tool's output). A model named anywhere but in the header is conversation. A file is one only when
  its first heading is timed and its header states a model.
- A role-marked transcript: exchange headers (capital words and a time: `TO LLM 2025-05-04T17:06:58`,
  `LLM RESPONSE …`) and lines opening with a role word in capitals (`SYSTEM`, `USER`, `ASSISTANT`); each run of
  lines of one role is one message, timed by the exchange header before it.

Each turn or message becomes a record for the generic reader (`{"role": "assistant", "model": …, "content": …}`),
with the lines it spans, so the ids its text mentions are counted for its session. Bounded: the lines are the
shared line reader's (its work budget holds), a turn keeps at most MAX_TEXT characters of its text, and a file gives
at most MAX_TURNS records.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

from scanner.sessions.adapters.base import parse_time
from scanner.sessions.reader import ReadNotes, Record, all_lines

MAX_TEXT = 4096  # characters of a turn's text kept (enough for a reasoning tag at its start)
MAX_TURNS = 100_000
SNIFF_LINES = 60  # lines of a file's head its structure is judged on
_TIME = rb"(\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?(?:Z|[+-]\d{2}:?\d{2})?)"
# A chat's start as a program stamps it, to the second (`17:02:36`): a heading a person wrote (meeting notes,
# a release) gives minutes at most, and its `Default model: …` line is no model anything ran.
_STAMP = rb"(\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}:\d{2}(?:\.\d+)?(?:Z|[+-]\d{2}:?\d{2})?)"
_CHAT = re.compile(rb"^#{1,6}[ \t]+[^\n]{0,200}?" + _STAMP + rb"[^\n]{0,200}$")
_WORD = re.compile(rb"^#{1,6}[ \t]+([a-z][a-z0-9_-]{0,30})[ \t]")
_HEADING = re.compile(rb"^#{1,6}[ \t]+(.*?)[ \t:]*$")
_STATEMENT = re.compile(rb"^(?:>[ \t]*)?(?:[A-Za-z]+[ \t]+)?[Mm]odel:[ \t]+[*`]*([^\s*`,]+)")
_EXCHANGE = re.compile(rb"^[A-Z]{2,}(?: [A-Z]{2,}){0,3} " + _TIME + rb"\s*$")
_ROLE_LINE = re.compile(rb"^(SYSTEM|USER|ASSISTANT|HUMAN|AI|TOOL|DEVELOPER|FUNCTION)(?:[ \t:](.*))?$")
Line = tuple[int, bytes, bool]  # (number, text, complete), as the line reader gives it
# Headings that name a turn's role (`## Prompt:`), and the role each names; `reasoning`: the reply's reasoning.
_ROLE_HEADINGS = {
    b"prompt": "user", b"user": "user", b"human": "user", b"question": "user", b"system": "system",
    b"response": "assistant", b"assistant": "assistant", b"answer": "assistant", b"ai": "assistant",
    b"reasoning": "reasoning", b"thinking": "reasoning", b"thoughts": "reasoning",
}


def sniff(head: bytes) -> bool:
    """Whether a file's head has a transcript's structure (a timed chat heading whose header states a model, or
    timed exchange headers and role-marked lines). Most files are told apart by their first line alone."""
    lead = head[:256]
    start = len(lead) - len(lead.lstrip())
    end = head.find(b"\n", start, start + 1024)
    first = head[start : end if end != -1 else start + 1024].rstrip(b"\r")
    if first[:1] == b"#":
        return bool(_CHAT.match(first)) and _chat_head(head)
    if b"A" <= first[:1] <= b"Z":
        return bool(_EXCHANGE.match(first) or _ROLE_LINE.match(first)) and _role_marked_head(head)
    return False


def _head_lines(head: bytes) -> list[bytes]:
    return [line.rstrip(b"\r") for line in head.split(b"\n", SNIFF_LINES)[:SNIFF_LINES] if line.strip()]


def _chat_head(head: bytes) -> bool:
    lines = _head_lines(head)
    if not lines or not _CHAT.match(lines[0]):
        return False
    for line in lines[1:]:
        if line.startswith(b"#"):
            return False  # the header ended with no statement of a model
        if _STATEMENT.match(line):
            return True
    return False


def _role_marked_head(head: bytes) -> bool:
    lines = _head_lines(head)
    roles = {m.group(1) for line in lines if (m := _ROLE_LINE.match(line))}
    timed = any(_EXCHANGE.match(line) for line in lines)
    return bool(roles) and (timed or (len(roles) >= 2 and b"ASSISTANT" in roles))


def read(data: bytes, notes: ReadNotes) -> Iterator[Record]:
    """The transcript's records: its chats' headers and turns, or its role-marked messages."""
    stream = all_lines(data, notes)
    first = next(stream, None)
    if first is None:
        return
    turns: _Chats | _Messages = _Chats() if first[1].lstrip().startswith(b"#") else _Messages()
    yield from turns.read(first, stream)
    if turns.made >= MAX_TURNS:
        notes.extra.append(f"transcript turns after the first {MAX_TURNS} not read")


class _Turns:
    """Lines gathered into one record at a time (a turn, a message), up to MAX_TURNS records."""

    def __init__(self) -> None:
        self.value: dict[str, Any] | None = None
        self.start = self.end = 0
        self.text: list[bytes] = []
        self.size = 0
        self.made = 0

    def open(self, number: int, value: dict[str, Any]) -> Record | None:
        done = self.close()
        self.value, self.start, self.end, self.text, self.size = value, number, number, [], 0
        return done

    def add(self, number: int, text: bytes) -> None:
        self.end = number
        if self.size < MAX_TEXT:
            self.text.append(text)
            self.size += len(text) + 1

    def close(self) -> Record | None:
        value, self.value = self.value, None
        if value is None or self.made >= MAX_TURNS:
            return None
        self.made += 1
        if self.text:
            value["content"] = b"\n".join(self.text).decode("utf-8", "replace").strip()[:MAX_TEXT]
        return Record(self.start, value, self.end)


class _Chats(_Turns):
    """A Markdown chat transcript (see the module's docstring)."""

    def __init__(self) -> None:
        super().__init__()
        self.model: str | None = None  # the first model the chat's header states
        self.session: str | None = None  # the chat's id: every record of it names it
        self.before: tuple[str | None, str | None] = (None, None)  # the chat before: (session, model)
        self.in_header = False
        self.replying = False  # plain text after a prompt heading is the reply
        self.role_headings = False  # the chat's turns open with headings that name their role

    def open(self, number: int, value: dict[str, Any]) -> Record | None:
        if self.session is not None:
            value["session_id"] = self.session
        return super().open(number, value)

    def read(self, first: Line, stream: Iterator[Line]) -> Iterator[Record]:
        for number, raw, _complete in _chain(first, stream):
            line = raw.rstrip(b"\r")
            for record in self._line(number, line):
                if record is not None:
                    yield record
        done = self.close()
        if done is not None:
            yield done

    def _line(self, number: int, line: bytes) -> Iterator[Record | None]:
        if m := _CHAT.match(line):
            when = parse_time(m.group(1).decode())
            self.before = (self.session, self.model)
            self.model, self.in_header, self.replying, self.role_headings = None, True, False, False
            # The chat's id: the heading's first word (the agent's name, `aider`) or `chat`, and its start.
            word = _WORD.match(line)
            self.session = f"{word.group(1).decode() if word else 'chat'}-{int(when) if when is not None else number}"
            yield self.open(number, {"timestamp": m.group(1).decode()})
            return
        heading = _HEADING.match(line)
        if self.in_header and heading is None:
            statement = _STATEMENT.match(line)
            if statement is not None:
                model = statement.group(1).decode("utf-8", "replace")
                if self.model is None:
                    self.model = model
                yield self.open(number, {"model": model})
            return
        if self.in_header:
            self._header_ended()
        if heading is not None:
            yield from self._heading(number, line, heading.group(1).strip(b"*_ ").lower())
        elif line.startswith(b">"):
            if self.value is None or self.value.get("role") != "tool":
                yield self.open(number, {"role": "tool"})
            self.add(number, line[1:].strip())
        elif self.replying and (self.value is None or self.value.get("role") != "assistant"):
            yield self.open(number, self._reply())
            self.add(number, line)
        elif self.value is not None:
            self.add(number, line)

    def _header_ended(self) -> None:
        """A chat whose header states no model continues the chat before it (`llm logs` states a conversation's
        model once, over its first exchange)."""
        self.in_header = False
        session, model = self.before
        if self.model is None and session is not None:
            self.session, self.model = session, model
            if self.value is not None:
                self.value["session_id"] = session

    def _heading(self, number: int, line: bytes, title: bytes) -> Iterator[Record | None]:
        role = _ROLE_HEADINGS.get(title)
        if role is not None:
            self.replying, self.role_headings = False, True
            if role == "reasoning":
                yield self.open(number, {"type": "reasoning"})
            else:
                yield self.open(number, self._reply() if role == "assistant" else {"role": role})
            return
        if self.role_headings:  # a section of the turn its role heading opened (`## Options`)
            if self.value is not None:
                self.add(number, line)
            return
        # Any other heading is a line of the user's prompt; the plain text after it is the reply.
        if self.value is None or self.value.get("role") != "user":
            yield self.open(number, {"role": "user"})
        self.add(number, line.lstrip(b"#").strip())
        self.replying = True

    def _reply(self) -> dict[str, Any]:
        return {"role": "assistant", "model": self.model} if self.model else {"role": "assistant"}


class _Messages(_Turns):
    """A role-marked transcript (see the module's docstring)."""

    def read(self, first: Line, stream: Iterator[Line]) -> Iterator[Record]:
        when: str | None = None
        for number, raw, _complete in _chain(first, stream):
            line = raw.rstrip(b"\r")
            done = None
            if m := _EXCHANGE.match(line):
                when = m.group(1).decode()
                done = self.close()
            elif m := _ROLE_LINE.match(line):
                role = m.group(1).decode().lower()
                if self.value is None or self.value.get("role") != role:
                    done = self.open(number, {"role": role, "timestamp": when} if when else {"role": role})
                self.add(number, m.group(2) or b"")
            if done is not None:
                yield done
        done = self.close()
        if done is not None:
            yield done


def _chain(first: Line, rest: Iterator[Line]) -> Iterator[Line]:
    yield first
    yield from rest

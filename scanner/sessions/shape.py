"""What one record says, read by the shape of its JSON tree rather than by its key names.

One bounded breadth-first walk per record classifies everything the session forensics needs, whatever an
unknown agent calls its keys: id-shaped values under keys that name an id (`id`, `*_id`, `*Id`, `ref`), each
with the role it plays (a tool call's id, a response's or message's id, a signature), model labels and which
of them a response or assistant message names as what served it, timestamps (ISO text or epoch numbers under
time-ish keys), the session id, a provider or route the runtime wrote, hosts of URLs, tool-call ids, and
reasoning: plaintext in any common spelling (`reasoning`, `thinking`, `reasoning_content`, `thought`, a block
whose `type`/`kind` says so, a summary, `<think>` text) or an encrypted blob (`encrypted_content`, a signature).

Where a value sits decides what it means. The conversation a record carries (what a user, a system prompt or a
tool said, the arguments a tool was called with, a tool's output, a quoted file) is never walked: an id or a
model named there is a mention, not a fact about who served the record.

Nothing here raises: the walk stops at MAX_NODES nodes, MAX_DEPTH levels and MAX_LEAVES token values.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from scanner.hosts import is_tool_server_url
from scanner.sessions.adapters.base import parse_time
from scanner.sessions.keys import (
    ARGS,
    CONTENT,
    DECLARED,
    ID,
    KIND_BITS,
    KIND_BLOCK,
    KIND_REDACTED,
    KIND_REPLY,
    KIND_TALK,
    KIND_TOOL,
    MARK,
    MAX_CACHED,
    MAX_CACHED_KEY,
    MODEL,
    MODEL_WORD,
    REASONING,
    REPLY_MARKS,
    REPLY_OBJECTS,
    RESPONSE,
    RESPONSE_ID_KEYS,
    ROLE_ANY,
    ROLE_FLAGS,
    ROLE_ID,
    ROLE_KINDS,
    ROLE_RESPONSE,
    ROLE_TOOL_CALL,
    ROLES_OF,
    SECRET,
    SERVED_KEYS,
    SESSION,
    STRONG_SECRET,
    TEXT,
    THINK_TAG,
    THINK_WINDOW,
    TIME,
    TIME_RANK,
    TITLE,
    TOOL,
    TOOL_LISTS,
    URL,
    WANT,
    key_flags,
    kind_bits,
    record_key,
)
from scanner.sessions.reasoning import ENCRYPTED, VISIBLE, embedded_item, is_reply_text, text_reasoning

MAX_NODES = 20_000
MAX_DEPTH = 40
MAX_LEAVES = 5_000
MAX_VALUE = 1 << 20
MAX_LABELS = 20
_SHALLOW = 3  # session ids, times and declared routes count only this close to the record's top
_LABEL_DEPTH = 6

_HOST = re.compile(r"^(?:[a-zA-Z][a-zA-Z0-9+.-]*://)?(?:[^@/]*@)?([A-Za-z0-9.-]+\.[A-Za-z]{2,})(?::\d+)?(?:[/?#]|$)")
_REASONING_FLAGS = REASONING | SECRET | STRONG_SECRET | TEXT
_TOKEN_FLAGS = WANT | MODEL | MODEL_WORD | TOOL | STRONG_SECRET | REASONING  # classes whose reading asks "one token?"
_IN_REASONING, _IN_RESPONSE = 1, 2
# The classes whose string values say more than a leaf does (an `id` under a session's key is read too).
_TEXT_FACTS = MODEL | MODEL_WORD | TITLE | TIME | SESSION | DECLARED | URL | TOOL | _REASONING_FLAGS
# key -> class flags | WANT, when every token value is wanted. Bounded: MAX_CACHED short keys.
_ALL_WANTED: dict[str, int] = {}
_CONTAINERS = (dict, list)  # a tuple: `dict | list` in an isinstance builds a union object at each test



@dataclass(init=False, slots=True)
class Shape:
    """What one record's walk found. Built once per record: slotted, with a plain constructor (a dataclass's
    default factories cost a call each)."""

    leaves: list[tuple[int, str, str]]  # (ROLE_* bits, key, value) of token values
    marked: set[str]  # key names some key rule fires on (`extra` said MARK)
    labels: list[str]
    named: list[str]  # token values under a key naming a model by a word: labels where the catalogs know them
    served: list[str]  # the labels a response or assistant message gives as what served it
    title: str | None
    timestamp: float | None
    session_id: str | None
    declared: str | None
    hosts: list[str]
    reasoning: set[str]
    tool_calls: int
    truncated: bool  # the walk hit one of its bounds
    work: int  # parser events the walk cost: containers visited and list items looked at

    def __init__(self) -> None:  # one statement a field: a third cheaper than packing them into tuples
        self.leaves = []
        self.marked = set()
        self.labels = []
        self.named = []
        self.served = []
        self.hosts = []
        self.reasoning = set()
        self.title = None
        self.timestamp = None
        self.session_id = None
        self.declared = None
        self.tool_calls = 0
        self.truncated = False
        self.work = 0


def host_of(value: str) -> str | None:
    m = _HOST.match(value)
    return m.group(1).lower() if m else None


def _replies(node: dict[str, Any]) -> bool:
    """Whether a dict holds a provider's reply (its usage, choices, stop reason, an API object's type): only asked
    where a model field or a bare `id` is."""
    return not REPLY_MARKS.isdisjoint(node.keys()) or node.get("object") in REPLY_OBJECTS


def read_shape(record: Any, extra: Callable[[str], int] | None = None, info: dict[str, int] | None = None) -> Shape:
    """Classify one record's JSON tree. Never raises; bounded in nodes, depth and collected values.
    `extra(key)` gives a key's WANT bit (values under it are worth keeping as leaves: some fingerprint rule
    applies there) and MARK bit (a key rule fires on its name); without it every token value is kept and no
    key is marked. `info` is the caller's cache of key classes for that `extra` (the fingerprinter keeps one)."""
    shape = Shape()
    if not isinstance(record, _CONTAINERS):
        return shape
    if info is None:
        info = _ALL_WANTED if extra is None else {}
    walk = _Walk(shape, info, extra)
    # Level by level: the order of a breadth-first walk, with each level's depth kept once, not per node.
    level: list[tuple[Any, str, int]] = [(record, "", 0)]
    depth = nodes = items = 0
    while level:
        below = walk.below = []
        for node, parent, ctx in level:
            if nodes >= MAX_NODES:
                shape.truncated = True
                below = []
                break
            nodes += 1
            if type(node) is dict:
                walk.read_dict(node, parent, depth, ctx)
                items += len(node)
            elif type(node) is list:
                if depth >= MAX_DEPTH:
                    shape.truncated = True
                    continue
                items += len(node)
                walk.read_list(node, parent, ctx)
        level = below
        depth += 1
    shape.work = nodes + items
    if VISIBLE in shape.reasoning:
        # A record that shows its reasoning (a thinking block beside its signature, a summary beside the encrypted
        # item) is visible: encrypted means nothing of it can be read.
        shape.reasoning.discard(ENCRYPTED)
    return shape


class _Walk:
    """One record's walk: the shape it fills, the key classes it reads with, the next level's nodes (node, its
    key, context bits: _IN_REASONING | _IN_RESPONSE), and the depth of the best time and session id so far."""

    __slots__ = ("shape", "info", "extra", "below", "best_time", "session_depth")

    def __init__(self, shape: Shape, info: dict[str, int], extra: Callable[[str], int] | None) -> None:
        self.shape, self.info, self.extra = shape, info, extra
        self.below: list[tuple[Any, str, int]] = []
        self.best_time: tuple[int, int] | None = None
        self.session_depth = _SHALLOW + 1

    def read_dict(self, node: dict[str, Any], parent: str, depth: int, ctx: int) -> None:
        """One dict: each value whose key has a class (a string kept as a leaf when one token some rule may
        read, then what its class reads in it), and the containers below it that are no conversation."""
        shape, info, below, leaves = self.shape, self.info, self.below, self.shape.leaves
        mode = self.mode_of(node, ctx)
        talk, deep = mode & KIND_TALK, depth < MAX_DEPTH
        # The context a child under a key of no class inherits (most keys): this node's, unchanged.
        plain = _IN_REASONING * bool(mode & KIND_BLOCK) | _IN_RESPONSE * bool(mode & KIND_REPLY)
        shown = 0  # the reasoning its values show: 1 visible, 2 encrypted
        for key, value in node.items():
            try:
                flags = info[key]
            except KeyError:
                flags = _info(info, key, self.extra)
            if not flags:  # most values: nothing to read here, only children to walk
                if not talk and (type(value) is dict or type(value) is list):
                    if deep:
                        below.append((value, key, plain))
                    else:
                        shape.truncated = True
                elif key == "name" and parent and not talk and type(value) is str and key_flags(parent) & MODEL:
                    self.model_record(node, value, depth, mode)  # `"model": {"name": "gpt-4o", …}`
                continue
            if flags & MARK:
                shape.marked.add(key)
            kind_of = type(value)
            if kind_of is str:
                if not value:
                    continue
                # One token (no `\\s`, at C speed)? Asked only where read, never of prose outside reasoning.
                token = bool(flags & _TOKEN_FLAGS or (mode & KIND_BLOCK and flags & (SECRET | TEXT))) and (
                    len(value) <= MAX_VALUE and " " not in value and value.split(None, 1) == [value]
                )
                if token and flags & WANT and len(leaves) < MAX_LEAVES:
                    roles = ROLES_OF[flags & ROLE_FLAGS]
                    if flags & ID:
                        if flags & TOOL or mode & KIND_TOOL or parent in TOOL_LISTS:
                            roles |= ROLE_TOOL_CALL
                        elif key in RESPONSE_ID_KEYS and (mode & KIND_REPLY or key != "id" or _replies(node)):
                            roles |= ROLE_RESPONSE
                    leaves.append((roles, key, value))
                # A time or a session id alone (every record's) is read here: not a call and a dozen more tests.
                facts = flags & _TEXT_FACTS
                if facts == TIME:
                    if depth <= _SHALLOW:
                        self.best_time = _better_time(shape, self.best_time, key, depth, value)
                elif facts == SESSION:
                    if depth < self.session_depth and len(value) <= 200 and value.strip():
                        shape.session_id, self.session_depth = value.strip(), depth
                elif facts or ((key == "id" or key == "name") and parent and record_key(key, key_flags(parent))):
                    shown |= self.text_facts(node, parent, key, value, flags, depth, mode, token)
            elif kind_of is dict or kind_of is list:
                if not (talk or flags & (ARGS | CONTENT)):  # else conversation: a tool's arguments or output
                    shown |= self.read_child(key, value, flags, mode, deep)
            elif kind_of is int or kind_of is float:
                self.read_number(key, value, flags, depth)
        if shown & 1:
            shape.reasoning.add(VISIBLE)
        elif shown:
            shape.reasoning.add(ENCRYPTED)

    def read_child(self, key: str, value: dict[str, Any] | list[Any], flags: int, mode: int, deep: bool) -> int:
        """A container under a key of some class: queued with the context it opens (a reasoning block, a reply);
        Gemini CLI's summarized `thoughts` show reasoning (1, the return value)."""
        if not deep:
            self.shape.truncated = True
            return 0
        reasoning = mode & KIND_BLOCK or flags & REASONING
        reply = mode & KIND_REPLY or flags & RESPONSE
        self.below.append((value, key, _IN_REASONING * bool(reasoning) | _IN_RESPONSE * bool(reply)))
        return 1 if flags & REASONING and type(value) is list and value and key == "thoughts" else 0

    def read_number(self, key: str, value: int | float, flags: int, depth: int) -> None:
        """A number under a time key (epoch seconds or milliseconds), or a session key (a whole number). `int | float`,
        not `float`: compiled (mypyc), a `float` parameter turns an int into a float, and a session id is an int."""
        if flags & TIME and depth <= _SHALLOW:
            self.best_time = _better_time(self.shape, self.best_time, key, depth, value)
        elif flags & SESSION and depth < self.session_depth and type(value) is int:
            self.shape.session_id, self.session_depth = str(value), depth

    def mode_of(self, node: dict[str, Any], ctx: int) -> int:
        """What a dict's type and role, and the context it sits in, make of it (its KIND_* bits); a tool call or
        a redacted reasoning block is counted here."""
        kind = node.get("type")
        if type(kind) is not str:
            kind = node.get("kind")
        if type(kind) is str:
            mode = KIND_BITS.get(kind)
            if mode is None:
                mode = kind_bits(kind)
            if mode & KIND_REDACTED:
                self.shape.reasoning.add(ENCRYPTED)
            if mode & KIND_TOOL:
                self.shape.tool_calls += 1
        else:
            mode = 0
        role = node.get("role")
        if type(role) is str:
            mode |= ROLE_KINDS.get(role, 0)
        if ctx & _IN_REASONING or (not mode & KIND_BLOCK and node.get("thought") is True):
            mode |= KIND_BLOCK
        return mode | KIND_REPLY if ctx & _IN_RESPONSE else mode

    def text_facts(self, node: dict[str, Any], parent: str, key: str, value: str, flags: int, depth: int,
                   mode: int, token: bool) -> int:
        """What a string under a key of some class says: a model label, a title, a time, the session id, a
        declared route, a host, a tool call, reasoning (1 visible, 2 encrypted, the return value)."""
        shape, talk, block = self.shape, mode & KIND_TALK, mode & KIND_BLOCK
        if flags & MODEL and token and depth <= _LABEL_DEPTH and len(value) <= 120:
            _add_label(shape, value, bool(mode & KIND_REPLY) or key in SERVED_KEYS or _replies(node))
        elif (key == "id" or key == "name") and parent and not talk and key_flags(parent) & MODEL:
            self.model_record(node, value, depth, mode)  # `"model": {"id": "claude-…", "display_name": …}`
        elif flags & MODEL_WORD and token and depth <= _LABEL_DEPTH and len(value) <= 120 and (
            len(shape.named) < MAX_LABELS and value not in shape.named
        ):
            shape.named.append(value)  # a label where the catalogs know it (`_FileRead._known`)
        if flags & TITLE and depth <= _SHALLOW and shape.title is None and not talk:
            shape.title = value.strip()[:200] or None
        if flags & TIME and depth <= _SHALLOW:
            self.best_time = _better_time(shape, self.best_time, key, depth, value)
        if depth < self.session_depth and (
            (flags & SESSION and len(value) <= 200 and value.strip())
            or (key == "id" and parent and key_flags(parent) & SESSION)
        ):
            shape.session_id, self.session_depth = value.strip(), depth
        if flags & DECLARED and depth <= _SHALLOW and shape.declared is None and len(value) <= 200:
            shape.declared = value.strip() or None
        # `upstream: https://x.openai.azure.com/…` names a host too; an MCP server's URL names a tool, not who served
        host = host_of(value) if flags & (URL | DECLARED) and len(shape.hosts) < 20 else None
        if host and not is_tool_server_url(value):
            shape.hosts.append(host)
        if flags & TOOL and token:
            shape.tool_calls += 1
        shown = 0
        if flags & _REASONING_FLAGS and not talk:
            state = text_reasoning(flags, bool(block), token, value)
            if state is not None and not is_reply_text(node, key, value):
                shown = 1 if state == VISIBLE else 2
        if flags & TEXT and not block and not talk and value.find(THINK_TAG, 0, THINK_WINDOW) != -1:
            shown |= 1  # `<think>…</think>` inline: a reasoning model's text, readable
        if block and flags & SECRET and value[:1] == "{" and depth < MAX_DEPTH:
            embedded = embedded_item(value)  # a signature that is the provider's reasoning item, as JSON
            if embedded is not None:
                self.below.append((embedded, key, _IN_REASONING | _IN_RESPONSE * bool(mode & KIND_REPLY)))
        return shown

    def model_record(self, node: dict[str, Any], value: str, depth: int, mode: int) -> None:
        """The `name` or `id` of a record under a model key (a run's config, a status line): the model's label, as
        the key's own string would be. One token only: a display name with spaces is no id."""
        if depth <= _LABEL_DEPTH and len(value) <= 120 and " " not in value and value.split(None, 1) == [value]:
            _add_label(self.shape, value, bool(mode & KIND_REPLY) or _replies(node))

    def read_list(self, node: list[Any], parent: str, ctx: int) -> None:
        """A list's string items are leaves under its key (and hosts, under a URL key); its containers are
        queued."""
        shape = self.shape
        leaves, below = shape.leaves, self.below
        pflags = _info(self.info, parent, self.extra) if parent else 0
        roles = ROLE_ANY | (ROLE_ID | ROLE_TOOL_CALL) * (parent in TOOL_LISTS) | ROLES_OF[pflags & ROLE_FLAGS]
        for item in node:
            if type(item) is str:
                wanted = item and pflags & WANT and len(leaves) < MAX_LEAVES and len(item) <= MAX_VALUE
                if wanted and item.split(None, 1) == [item]:
                    leaves.append((roles, parent, item))
                if pflags & URL and len(shape.hosts) < 20 and (h := host_of(item)) and not is_tool_server_url(item):
                    shape.hosts.append(h)
            elif isinstance(item, _CONTAINERS):
                below.append((item, parent, ctx))


def _info(info: dict[str, int], key: str, extra: Callable[[str], int] | None) -> int:
    """A key's class flags, plus the caller's WANT and MARK bits for it (cached per `extra`)."""
    found = info.get(key)
    if found is None:
        found = key_flags(key) | (WANT if extra is None else extra(key) & (WANT | MARK))
        if len(info) < MAX_CACHED and len(key) <= MAX_CACHED_KEY:
            info[key] = found
    return found


def _add_label(shape: Shape, value: str, served: bool) -> None:
    if len(shape.labels) < MAX_LABELS and value not in shape.labels:
        shape.labels.append(value)
    if served and len(shape.served) < MAX_LABELS and value not in shape.served:
        shape.served.append(value)


def _better_time(
    shape: Shape, best: tuple[int, int] | None, key: str, depth: int, value: Any
) -> tuple[int, int] | None:
    """Keep the shallowest time, and at one depth the key that most often means "when this happened"."""
    rank = (depth, TIME_RANK[key])
    if best is not None and rank >= best:
        return best
    seconds = parse_time(value)
    if seconds is None:
        return best
    shape.timestamp = seconds
    return rank

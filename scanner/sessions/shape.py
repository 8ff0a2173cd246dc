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

import json
import re
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from scanner.sessions.adapters.base import parse_time
from scanner.sessions.keys import (
    ARGS,
    ASSISTANT_ROLES,
    CONTENT,
    CONVERSATION_ROLES,
    DECLARED,
    ID,
    MARK,
    MODEL,
    REASONING,
    REDACTED_KINDS,
    REPLY_MARKS,
    REPLY_OBJECTS,
    RESPONSE,
    RESPONSE_ID_KEYS,
    RESPONSE_KINDS,
    RESULT_KINDS,
    ROLE_ANY,
    ROLE_ID,
    ROLE_MODEL,
    ROLE_RESPONSE,
    ROLE_SIGNATURE,
    ROLE_TOOL_CALL,
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
    TOOL_KINDS,
    TOOL_LISTS,
    URL,
    WANT,
    is_reasoning_kind,
    key_flags,
)

MAX_NODES = 20_000
MAX_DEPTH = 40
MAX_LEAVES = 5_000
MAX_VALUE = 1 << 20
MAX_LABELS = 20
_SHALLOW = 3  # session ids, times and declared routes count only this close to the record's top
_LABEL_DEPTH = 6

VISIBLE = "visible"
ENCRYPTED = "encrypted"

_BLOB = re.compile(r"[A-Za-z0-9+/=_\-:.]{16,}")
# A stand-in where text was removed (`[trimmed for fixture]`, `<redacted>`): one bracketed note, no reasoning.
_PLACEHOLDER = re.compile(r"(?:\[[^\[\]\n]{1,60}\]|<[^<>\n]{1,60}>)\s*$")
_HOST = re.compile(r"^(?:[a-zA-Z][a-zA-Z0-9+.-]*://)?(?:[^@/]*@)?([A-Za-z0-9.-]+\.[A-Za-z]{2,})(?::\d+)?(?:[/?#]|$)")
_REASONING_FLAGS = REASONING | SECRET | STRONG_SECRET | TEXT
_TOKEN_FLAGS = WANT | MODEL | TOOL | STRONG_SECRET | REASONING  # classes whose reading asks "one token?"
_IN_REASONING, _IN_RESPONSE = 1, 2
# Every class a string value is read for (not WANT, MARK, RESPONSE, CONTENT).
_FACT_FLAGS = (1 << 13) - 1 | TITLE
# key -> class flags | WANT, when every token value is wanted. Bounded (20k keys).
_ALL_WANTED: dict[str, int] = {}



def is_blob(value: str) -> bool:
    """An opaque token (base64, Fernet, a signature, maybe cut with a `…<truncated>` mark), not words."""
    return bool(_BLOB.match(value))


@dataclass(init=False, slots=True)
class Shape:
    """What one record's walk found. Built once per record: slotted, with a plain constructor (a dataclass's
    default factories cost a call each)."""

    leaves: list[tuple[int, str, str]]  # (ROLE_* bits, key, value) of token values
    marked: set[str]  # key names some key rule fires on (`extra` said MARK)
    labels: list[str]
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

    def __init__(self) -> None:
        self.leaves, self.marked, self.labels, self.served, self.hosts = [], set(), [], [], []
        self.reasoning = set()
        self.timestamp = self.session_id = self.declared = self.title = None
        self.tool_calls, self.truncated, self.work = 0, False, 0


def _no_space(value: str) -> bool:
    """No whitespace anywhere in `value`: what a search for the regex class `\\s` says (both test
    Py_UNICODE_ISSPACE), at C speed: the regex costs 6 us on a 1 kB signature, the split under 1 us."""
    if not value:
        return True
    head = value.split(None, 1)  # [] when all of it is whitespace
    return bool(head) and head[0] == value


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
    if not isinstance(record, dict | list):
        return shape
    if info is None:
        info = _ALL_WANTED if extra is None else {}
    best_time: tuple[int, int] | None = None
    session_depth = _SHALLOW + 1
    # (node, its key, depth, context bits: _IN_REASONING | _IN_RESPONSE)
    queue: deque[tuple[Any, str, int, int]] = deque([(record, "", 0, 0)])
    nodes = items = 0
    leaves = shape.leaves
    info_of = info.get
    while queue:
        if nodes >= MAX_NODES:
            shape.truncated = True
            break
        node, parent, depth, ctx = queue.popleft()
        nodes += 1
        if type(node) is list:
            if depth >= MAX_DEPTH:
                shape.truncated = True
                continue
            items += len(node)
            _read_list(shape, node, parent, _info(info, parent, extra) if parent else 0, queue, depth + 1, ctx)
            continue
        if type(node) is not dict:
            continue
        kind = node.get("type")
        if type(kind) is not str:
            kind = node.get("kind")
        kind = kind.lower() if type(kind) is str else ""
        role = node.get("role")
        if type(role) is not str:
            role = ""
        # Conversation: a prompt, a system message, a tool's output. Its own ids and times are read, nothing below.
        talk = role in CONVERSATION_ROLES or kind in RESULT_KINDS
        block = bool(ctx & _IN_REASONING) or (bool(kind) and is_reasoning_kind(kind)) or node.get("thought") is True
        reply = bool(ctx & _IN_RESPONSE) or role in ASSISTANT_ROLES or kind in RESPONSE_KINDS or "assistant" in kind
        if kind:
            if kind in REDACTED_KINDS:
                shape.reasoning.add(ENCRYPTED)
            if kind in TOOL_KINDS:
                shape.tool_calls += 1
        visible = secret = False
        below = depth + 1
        # The context a child under a key of no class inherits (most keys): this node's, unchanged.
        plain = _IN_REASONING * block | _IN_RESPONSE * reply
        for key, value in node.items():
            flags = info_of(key)
            if flags is None:
                flags = _info(info, key, extra)
            kind_of = type(value)
            if not flags:  # most values: nothing to read here, only children to walk
                if kind_of is dict or kind_of is list:
                    if talk:
                        continue
                    if depth < MAX_DEPTH:
                        queue.append((value, key, below, plain))
                    else:
                        shape.truncated = True
                continue
            if flags & MARK:
                shape.marked.add(key)
            if kind_of is str:
                if not value:
                    continue
                # Whether the value is one token, tested only where something reads it (prose under `text`
                # or `content` outside a reasoning block never needs it).
                token = bool(flags & _TOKEN_FLAGS or (block and flags & (SECRET | TEXT))) and (
                    len(value) <= MAX_VALUE and _no_space(value)
                )
                if token and flags & WANT and len(leaves) < MAX_LEAVES:
                    roles = _ROLES_OF[flags & _ROLE_FLAGS]
                    if flags & ID:
                        if flags & TOOL or kind in TOOL_KINDS or parent in TOOL_LISTS:
                            roles |= ROLE_TOOL_CALL
                        elif key in RESPONSE_ID_KEYS and (reply or key != "id" or _replies(node)):
                            roles |= ROLE_RESPONSE
                    leaves.append((roles, key, value))
                if not flags & _FACT_FLAGS:
                    continue
                if flags & MODEL and token and depth <= _LABEL_DEPTH and len(value) <= 120:
                    _add_label(shape, value, reply or key in SERVED_KEYS or _replies(node))
                if flags & TITLE and depth <= _SHALLOW and shape.title is None and not talk:
                    shape.title = value.strip()[:200] or None
                if flags & TIME and depth <= _SHALLOW:
                    best_time = _better_time(shape, best_time, key, depth, value)
                if depth < session_depth and (
                    (flags & SESSION and len(value) <= 200 and value.strip())
                    or (key == "id" and parent and key_flags(parent) & SESSION)
                ):
                    shape.session_id, session_depth = value.strip(), depth
                if flags & DECLARED and depth <= _SHALLOW and shape.declared is None and len(value) <= 200:
                    shape.declared = value.strip() or None
                if flags & (URL | DECLARED) and len(shape.hosts) < 20 and (h := host_of(value)):
                    shape.hosts.append(h)  # `upstream: https://x.openai.azure.com/…` names a host too
                if flags & TOOL and token:
                    shape.tool_calls += 1
                if flags & _REASONING_FLAGS and not talk and not _is_reply_text(node, key, value):
                    state = _reasoning_of(flags, block, token, value)
                    visible = visible or state == VISIBLE
                    secret = secret or state == ENCRYPTED
                if flags & TEXT and not block and not talk and value.find(THINK_TAG, 0, THINK_WINDOW) != -1:
                    visible = True  # `<think>…</think>` inline: a reasoning model's text, readable
                if block and flags & SECRET and value[:1] == "{" and depth < MAX_DEPTH:
                    embedded = _embedded(value)  # a signature that is the provider's reasoning item, as JSON
                    if embedded is not None:
                        queue.append((embedded, key, below, _IN_REASONING | _IN_RESPONSE * reply))
            elif kind_of is dict or kind_of is list:
                if talk or flags & (ARGS | CONTENT):
                    continue  # conversation: a tool's arguments or output, a prompt
                if depth < MAX_DEPTH:
                    reasoning = block or bool(flags & REASONING)
                    if flags & REASONING and kind_of is list and value and key == "thoughts":
                        visible = True  # Gemini CLI's summarized thoughts
                    child = _IN_REASONING * reasoning | _IN_RESPONSE * (reply or bool(flags & RESPONSE))
                    queue.append((value, key, below, child))
                else:
                    shape.truncated = True
            elif kind_of is int or kind_of is float:
                if flags & TIME and depth <= _SHALLOW:
                    best_time = _better_time(shape, best_time, key, depth, value)
                elif flags & SESSION and depth < session_depth and kind_of is int:
                    shape.session_id, session_depth = str(value), depth
        items += len(node)
        if visible:
            shape.reasoning.add(VISIBLE)
        elif secret:
            shape.reasoning.add(ENCRYPTED)
    shape.work = nodes + items
    if VISIBLE in shape.reasoning:
        # A record that shows its reasoning (a thinking block beside its signature, a summary beside the encrypted
        # item) is visible: encrypted means nothing of it can be read.
        shape.reasoning.discard(ENCRYPTED)
    return shape


def _read_list(shape: Shape, node: list[Any], parent: str, pflags: int,
               queue: deque[tuple[Any, str, int, int]], below: int, ctx: int) -> None:
    """A list's string items are leaves under its key (and hosts, under a URL key); its containers are queued."""
    leaves = shape.leaves
    roles = ROLE_ANY | (ROLE_ID | ROLE_TOOL_CALL) * (parent in TOOL_LISTS)
    for item in node:
        if type(item) is str:
            wanted = item and pflags & WANT and len(leaves) < MAX_LEAVES and len(item) <= MAX_VALUE
            if wanted and _no_space(item):
                leaves.append((roles | _ROLES_OF[pflags & _ROLE_FLAGS], parent, item))
            if pflags & URL and len(shape.hosts) < 20 and (h := host_of(item)):
                shape.hosts.append(h)
        elif isinstance(item, dict | list):
            queue.append((item, parent, below, ctx))


def _key_roles(flags: int) -> int:
    """The roles a value plays by its key's class alone (and on every leaf, `any`): an id, a signature slot, a
    model field."""
    return ROLE_ANY | ROLE_ID * bool(flags & ID) | ROLE_SIGNATURE * bool(flags & (SECRET | STRONG_SECRET)) | (
        ROLE_MODEL * bool(flags & MODEL)
    )


_ROLE_FLAGS = ID | SECRET | STRONG_SECRET | MODEL
# Every combination of the key classes that give a role, looked up per leaf (the bit arithmetic done once).
_ROLES_OF = {
    combo: _key_roles(combo)
    for combo in range(_ROLE_FLAGS + 1)
    if combo & ~_ROLE_FLAGS == 0
}


def _info(info: dict[str, int], key: str, extra: Callable[[str], int] | None) -> int:
    """A key's class flags, plus the caller's WANT and MARK bits for it (cached per `extra`)."""
    found = info.get(key)
    if found is None:
        found = key_flags(key) | (WANT if extra is None else extra(key) & (WANT | MARK))
        if len(info) < 20_000:
            info[key] = found
    return found


def _add_label(shape: Shape, value: str, served: bool) -> None:
    if len(shape.labels) < MAX_LABELS and value not in shape.labels:
        shape.labels.append(value)
    if served and len(shape.served) < MAX_LABELS and value not in shape.served:
        shape.served.append(value)


_MAX_EMBEDDED = 1 << 16


def _embedded(value: str) -> dict[str, Any] | None:
    """The JSON object a reasoning block's signature holds as text (pi keeps OpenAI's whole reasoning item there),
    bounded in size; None when it is no JSON object."""
    if len(value) > _MAX_EMBEDDED:
        return None
    try:
        decoded = json.loads(value)
    except (ValueError, RecursionError):  # not JSON, or nested past the parser's depth
        return None
    return decoded if isinstance(decoded, dict) else None


_REPLY_TEXT_KEYS = ("content", "text", "response", "message", "output")


def _is_reply_text(node: dict[str, Any], key: str, value: str) -> bool:
    """A reasoning key whose text is the record's reply itself (SWE-agent's `thought` beside the same `content` or
    `response`) is the reply under a second name, no reasoning channel."""
    return any(node.get(k) == value for k in _REPLY_TEXT_KEYS if k != key)


def _reasoning_of(flags: int, block: bool, token: bool, value: str) -> str | None:
    """What one string value says of reasoning: visible text, an encrypted blob, or nothing."""
    if flags & STRONG_SECRET or (block and flags & SECRET):
        return ENCRYPTED if token and is_blob(value) else None
    if block and flags & TEXT:
        # A blob where the text would be is encrypted; anything else there is the reasoning, readable.
        if token and len(value) > 40 and is_blob(value):
            return ENCRYPTED
        return None if value[0] in "[<" and _PLACEHOLDER.match(value) else VISIBLE
    if flags & REASONING and not block:
        if not token:
            # prose under a reasoning key (`reasoning_content`, OpenRouter `reasoning`)
            return None if value[0] in "[<" and _PLACEHOLDER.match(value) else VISIBLE
        return ENCRYPTED if len(value) > 40 and is_blob(value) else None
    return None


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
